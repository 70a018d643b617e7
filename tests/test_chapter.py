"""setup_chapter: seeds, thread counts, deterministic torch and the book's plotting style.

It changes process-wide state, so each check runs in a fresh Python process."""

import subprocess
import sys

import pytest

from mmir_lib import setup_chapter


def run(code: str) -> str:
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return result.stdout.strip()


def test_settings_after_setup():
    out = run(
        "import os, torch, numpy as np, matplotlib.pyplot as plt\n"
        "from threadpoolctl import threadpool_info\n"
        "from mmir_lib import setup_chapter\n"
        "from mmir_lib.chapter import THREADS\n"
        "setup_chapter()\n"
        "print(torch.get_num_threads() == THREADS, torch.are_deterministic_algorithms_enabled(),\n"
        "      all(p['num_threads'] == THREADS for p in threadpool_info()),\n"
        "      os.environ['OMP_NUM_THREADS'] == str(THREADS), plt.rcParams['figure.dpi'] == 96,\n"
        "      repr(np.float64(0.5)) == '0.5')\n"
    )
    assert out == "True True True True True True"


def test_same_seed_same_draws_in_every_generator():
    code = (
        "import random, numpy as np, torch\n"
        "from mmir_lib import setup_chapter\n"
        "rng = setup_chapter(seed=3)\n"
        "print(random.random(), np.random.rand(), torch.rand(1).item(), rng.random())\n"
    )
    first, second = run(code), run(code)
    assert first == second
    other = run(code.replace("seed=3", "seed=4"))
    assert all(a != b for a, b in zip(first.split(), other.split()))


@pytest.mark.parametrize("seed, error", [(-1, ValueError), (1.5, TypeError), (True, TypeError), (2**32, ValueError)])
def test_bad_seed(seed, error):
    with pytest.raises(error, match="seed"):
        setup_chapter(seed=seed)


def test_use_deterministic_torch_has_the_effect_of_torchs_own_switch():
    """The same flags as torch.use_deterministic_algorithms sets for eager kernels
    (deterministic on, warn-only off), and off again."""
    out = run(
        "import torch\n"
        "from mmir_lib.chapter import use_deterministic_torch\n"
        "flags = lambda: (torch.are_deterministic_algorithms_enabled(),\n"
        "                 torch.is_deterministic_algorithms_warn_only_enabled())\n"
        "use_deterministic_torch(True); ours_on = flags()\n"
        "use_deterministic_torch(False); ours_off = flags()\n"
        "torch.use_deterministic_algorithms(True); theirs_on = flags()\n"
        "print(ours_on == theirs_on == (True, False), ours_off == (False, False))\n"
    )
    assert out == "True True"


def test_use_deterministic_torch_bad_input():
    from mmir_lib.chapter import use_deterministic_torch

    with pytest.raises(TypeError, match="mode must be True or False"):
        use_deterministic_torch(1)


def test_torch_imported_after_setup_is_configured_as_if_imported_before():
    """setup_chapter does not import torch; a later import gets the same seed and settings."""
    before = run(
        "import torch\n"
        "from mmir_lib import setup_chapter\n"
        "setup_chapter(seed=5)\n"
        "print(torch.rand(3).tolist(), torch.get_num_threads(), torch.are_deterministic_algorithms_enabled())\n"
    )
    after = run(
        "import sys\n"
        "from mmir_lib import setup_chapter\n"
        "setup_chapter(seed=9)\n"
        "setup_chapter(seed=5)\n"
        "assert 'torch' not in sys.modules\n"
        "import torch\n"
        "print(torch.rand(3).tolist(), torch.get_num_threads(), torch.are_deterministic_algorithms_enabled())\n"
    )
    assert before == after
    assert after.endswith("1 True")


def test_load_tool_imports_a_script_without_running_it_and_names_the_scripts_it_knows():
    from mmir_lib.chapter import TOOLS, load_tool

    script = load_tool("train_date_translators")
    assert script.__file__ == str(TOOLS / "train_date_translators.py") and callable(script.main)
    with pytest.raises(ValueError, match=r"name must name a script .*train_detector"):
        load_tool("train_everything")
    with pytest.raises(ValueError, match="name"):
        load_tool("../tools/train_detector")
