"""Bad-input cases for the shared modules: validation, widgets, the data loaders, the
training helper and top-k ranking."""

import torch

from mmir_lib import data, ranking, training, validation, widgets
from tests.api_fuzz import Case


def _frame(k1, b=0):
    return f"<p>{k1} {b}</p>"


CASES: list[Case] = [
    # ---- ranking ---------------------------------------------------------------------------------
    Case(ranking.top_k, dict(scores=[0.5, 2.0, 1.0], k=2, candidates=[True, True, False]),
         accepts={"candidates": {"none"}}),
    # ---- widgets ---------------------------------------------------------------------------------
    # min = 0 and max = 0 give a grid of one value; a negative or huge bound is a legal grid end
    # as long as the grid stays within the frame budget (the other bound is then refused)
    Case(widgets.slider, dict(min=0, max=1, step=0.5, value=0.5, fmt="{:g}"),
         accepts={"min": {"zero", "negative", "negative_float"}, "max": {"zero"},
                  # a value snaps to the nearest grid point, wherever it is
                  "value": {"none", "negative", "negative_float", "zero", "huge_int", "huge_float"},
                  "step": {"huge_int", "huge_float"}}),  # a step past max: a grid of min alone
    Case(widgets.choice, dict(values=[0, 0.5, 1], value=0.5, fmt="{:g}"),
         accepts={"value": {"none", "zero"}, "values": {"ragged"}}),  # 0 is one of the values  # [[1], [1, 2]]: two values that are lists
    Case(widgets.interactive, dict(plot_fn=_frame, title="a frame", alt="k1 = {k1}", k1=widgets.slider(0, 1, 1)),
         accepts={"title": {"none", "str"}, "alt": {"none", "str"}}),
    # ---- data ------------------------------------------------------------------------------------
    Case(data.shakespeare_speeches, dict(plays=["lear"]), accepts={"plays": {"none", "empty_list"}}),
    Case(data.shakespeare_play_texts, dict(edition="folio")),
    Case(data.normalize_wiki_title, dict(title="anarchism_in  France"), accepts={"title": {"str"}}),
    Case(data.lee_corpus, {}),
    Case(data.wikipedia_sample, {}),
    Case(data.word_similarity_pairs, dict(name="simlex999", lowercase=False), accepts={"lowercase": {"bool"}}),
    Case(data.word_analogies, dict(lowercase=True), accepts={"lowercase": {"bool"}}),
    Case(data.glove_6b_50d, dict(max_words=10), accepts={"max_words": {"none"}}),
    Case(data.digits, dict(split="test"), accepts={"split": {"none"}}),
    Case(data.mnist_5k, dict(split="validation"), accepts={"split": {"none"}}),
    Case(data.ud_english_ewt, dict(split="dev")),
]


# ---- training helper: y = x·(1, 2, 3), a linear model, tiny steps (every call still lowers the loss) ----
_TRAIN_X = torch.linspace(-1.0, 1.0, 12).reshape(4, 3)
_TRAIN_BATCHES = [_TRAIN_X[:2].numpy(), _TRAIN_X[2:].numpy()]
_TRAIN_MODEL = torch.nn.Linear(3, 1, bias=False)


def _train_loss(model, batch):
    """What a batch holds is the loss function's business: this one checks it, naming it."""
    x = torch.as_tensor(validation.check_array("a batch (of batches or validation)", batch, ndim=2, shape=(None, 3)),
                        dtype=torch.float32)
    return ((model(x) - x @ torch.tensor([[1.0], [2.0], [3.0]])) ** 2).mean()


CASES += [
    Case(training.train, dict(model=_TRAIN_MODEL, loss_fn=_train_loss, batches=_TRAIN_BATCHES,
                              optimizer=torch.optim.SGD(_TRAIN_MODEL.parameters(), lr=1e-3), epochs=2,
                              validation=_TRAIN_BATCHES[:1], seed=0, clip_norm=10.0, expect_decrease=True),
         accepts={"validation": {"none"}, "seed": {"none", "zero"}, "clip_norm": {"none", "huge_int", "huge_float"},
                  "expect_decrease": {"bool"}}),
    Case(training.mean_loss, dict(model=_TRAIN_MODEL, loss_fn=_train_loss, batches=_TRAIN_BATCHES)),
    Case(training.evaluating, dict(model=_TRAIN_MODEL)),
    # the fuzz runs in a temporary folder: a str path is a legal file name there
    Case(training.save_atomically, dict(obj={"weights": [1.0]}, path="checkpoint.pt"), accepts={"path": {"str"}},
         skip={"obj": "any object torch.save can pickle is legal"}),
]

EXEMPT = {
    # The validators are what the contract is made of; tests/test_validation.py checks
    # their messages directly (each one names the argument it is given).
    **{f"mmir_lib.validation.{name}": "the checks themselves (tests/test_validation.py)"
       for name in validation.__all__},
    "mmir_lib.widgets.Slider": "a record that slider() and choice() build after checking its fields",
    "mmir_lib.widgets.InteractiveFigure": "a record of frames that interactive() builds",
    "mmir_lib.data.DataNotInstalledError": "an exception class",
    "mmir_lib.data.Speech": "a plain record that shakespeare_speeches() builds from the texts",
    "mmir_lib.data.LeeCorpus": "a plain record that lee_corpus() builds",
    "mmir_lib.data.WikiLink": "a plain record that wikipedia_sample() builds",
    "mmir_lib.data.WikiPage": "a plain record that wikipedia_sample() builds",
    "mmir_lib.data.WikipediaSample": "a plain record that wikipedia_sample() builds",
    "mmir_lib.data.LabelledImages": "a plain record that digits() and mnist_5k() build",
    "mmir_lib.data.TaggedSentence": "a plain record that ud_english_ewt() builds from the treebank",
    "mmir_lib.training.TrainingError": "an exception class",
    "mmir_lib.training.History": "a plain record that train() fills",
}

# ---- results tables ------------------------------------------------------------------------------
from mmir_lib import tables  # noqa: E402

CASES += [
    Case(tables.table, dict(rows=[("uniform", 6.267)], headers=["model", "bits/char"], formats=["{}", "{:.3f}"],
                            caption="held-out"),
         accepts={"rows": {"empty_list"}, "formats": {"none"}, "caption": {"none", "str"}}),
]
EXEMPT["mmir_lib.tables.Table"] = "a result record made by table(), which checks its input"
