"""The ground-floor softmax (mmir_lib.softmax): one function for Parts III and IV, and
nn/ no longer imports from lm/ (issue 23, section 5). Its numerics are tested in
tests/lm/test_sampling.py and tests/nn/test_losses.py."""

import ast
from pathlib import Path

import numpy as np
import scipy.special

import mmir_lib
from mmir_lib import softmax as ground
from mmir_lib.lm import decoding, sampling
from mmir_lib.nn import logistic, losses


def test_one_softmax_shared_by_nn_and_lm():
    assert logistic.softmax is ground.softmax and sampling.softmax is ground.softmax and decoding.softmax is ground.softmax
    assert losses.log_softmax is ground.log_softmax and sampling.log_softmax is ground.log_softmax


def test_the_foundations_do_not_import_the_parts_above_them():
    root = Path(mmir_lib.__file__).parent
    for path in sorted((root / "nn").glob("*.py")) + [root / "softmax.py", root / "validation.py"]:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                target = "." * node.level + (node.module or "")
                assert not target.startswith(("..lm", "mmir_lib.lm", "..vision", "mmir_lib.vision", "..ir")), \
                    f"{path.name} imports {target}"


def test_softmax_agrees_with_scipy():
    logits = np.random.default_rng(0).normal(scale=30, size=(7, 11))
    for t in (0.3, 1.0, 4.0):
        assert np.allclose(ground.softmax(logits, t), scipy.special.softmax(logits / t, axis=-1), rtol=1e-12, atol=0)
        assert np.allclose(ground.log_softmax(logits, t), scipy.special.log_softmax(logits / t, axis=-1),
                           rtol=1e-12, atol=1e-12)
