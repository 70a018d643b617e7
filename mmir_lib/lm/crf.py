"""A linear-chain conditional random field (CRF) tagger, trained by gradient descent in torch.

An HMM models how words are generated from tags; a CRF models the tags given the
words directly, as a log-linear model over whole tag sequences (Lafferty, McCallum and
Pereira 2001). With K feature functions f_k that look at two neighbouring tags and
anywhere in the sentence x,

    P(y | x) = exp(Σ_i Σ_k w_k f_k(y_{i−1}, y_i, x, i)) / Z(x),
    Z(x) = Σ_{y′} exp(Σ_i Σ_k w_k f_k(y′_{i−1}, y′_i, x, i)).

Here the features come in two kinds, as in most CRF taggers:

* **observation features** pair a property of the words around position i (the word
  itself lower-cased, its last 1-3 letters, its first letter, its shape, the words
  before and after it, ...; :func:`token_features`) with the tag y_i. Their weights
  form a matrix W, one row per property and one column per tag, so the score of tag j
  at position i is e_j(i) = Σ_{p ∈ props(x, i)} W[p, j];
* **transition features** pair two neighbouring tags: a matrix A (N, N), with start
  and end weights s, z (N,).

The total score of a sequence is s_{y_1} + Σ_i e_{y_i}(i) + Σ_{i>1} A[y_{i−1}, y_i] + z_{y_n}:
the lattice of :func:`mmir_lib.lm.tagging.viterbi`, with scores in place of log-
probabilities, so Viterbi finds the best y and the forward algorithm computes log Z(x).
Training minimises the mean negative log-likelihood, log Z(x) − score(x, y), plus an L2
penalty (c/2)‖w‖²; torch's autograd gives the gradient (the difference between the
feature counts of the gold sequence and their expectation under the model).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from ..chapter import THREADS
from ..validation import check_choice, check_count, check_list, check_number, check_str_list, describe
from .tagging import _check_tagged, _viterbi, viterbi_many

__all__ = ["token_features", "crfsuite_features", "FeatureIndex", "build_feature_index", "LinearChainCRF", "crf_loss",
           "train_crf", "training_record", "load_trained", "load_crfsuite"]

#: The book's CRFs, trained by ``tools/train_crf_taggers.py`` (committed): float16 weights and logs.
CHECKPOINT = Path(__file__).resolve().parents[1] / "checkpoints" / "crf_taggers.pt"
#: CRFsuite's model file of the part-of-speech task, xz-compressed, trained by the same script (committed).
CRFSUITE_CHECKPOINT = Path(__file__).resolve().parents[1] / "checkpoints" / "crfsuite_upos.crfsuite.xz"
#: The training settings of every CRF of chapter III.6 (arguments of :func:`train_crf`).
SETTINGS = {"epochs": 2, "batch_size": 64, "lr": 0.05, "l2": 1e-6}
#: The seeds of the proper-name CRF (the part-of-speech CRF has seed 0).
NAME_SEEDS = (0, 1, 2)
#: CRFsuite's passes over the training sentences.
CRFSUITE_EPOCHS = 20


def _shape(word: str) -> str:
    """Each run of capitals X, of lower-case letters x, of digits d; other characters kept."""
    out = []
    for ch in word:
        c = "X" if ch.isupper() else "x" if ch.islower() else "d" if ch.isdigit() else ch
        if not out or out[-1] != c or c not in "Xxd":
            out.append(c)
    return "".join(out)[:8]


def token_features(words: Sequence[str], i: int) -> list[str]:
    """The observation properties of position i of a sentence, as strings.

    >>> token_features(["Janet", "will", "back", "the", "bill"], 2)[:6]
    ['bias', 'w=back', 's1=k', 's2=ck', 's3=ack', 'p1=b']
    """
    words = check_str_list("words", words, nonempty=True)
    i = check_count("i", i, high=len(words) - 1)
    return _token_features(words, i)


def crfsuite_features(words: Sequence[str]) -> list[dict[str, float]]:
    """The properties of every position of a sentence as CRFsuite's input: one dict
    {property: 1.0} per word, from :func:`token_features`.

    >>> crfsuite_features(["Hi", "!"])[1]["w=!"]
    1.0
    """
    words = check_str_list("words", words, nonempty=True)
    return [{f: 1.0 for f in _token_features(words, i)} for i in range(len(words))]


def _token_features(words: Sequence[str], i: int) -> list[str]:
    w = words[i]
    low = w.lower()
    features = ["bias", f"w={low}", f"s1={low[-1:]}", f"s2={low[-2:]}", f"s3={low[-3:]}", f"p1={low[:1]}",
                f"shape={_shape(w)}"]
    if w[:1].isupper():
        features.append("capital" if i > 0 else "capital-first")
    if any(ch.isdigit() for ch in w):
        features.append("digit")
    if "-" in w:
        features.append("hyphen")
    features.append(f"w-1={words[i - 1].lower()}" if i > 0 else "first")
    features.append(f"w+1={words[i + 1].lower()}" if i + 1 < len(words) else "last")
    if i > 1:
        features.append(f"w-2={words[i - 2].lower()}")
    return features


@dataclass(frozen=True)
class FeatureIndex:
    """Feature strings and tags numbered: ``features`` str → row of W, ``tags`` (N,)."""

    features: dict
    tags: tuple[str, ...]

    def encode(self, words: Sequence[str]) -> tuple[torch.Tensor, torch.Tensor]:
        """A sentence's feature ids, flat, and the offset of each position's first id
        (the input of ``torch.nn.EmbeddingBag``). Properties never seen in training are
        left out."""
        ids, offsets = [], []
        for i in range(len(words)):
            offsets.append(len(ids))
            ids += [f for f in map(self.features.get, _token_features(words, i)) if f is not None]
        return torch.tensor(ids, dtype=torch.int64), torch.tensor(offsets, dtype=torch.int64)


def build_feature_index(sentences, *, min_count: int = 1) -> FeatureIndex:
    """Number the properties seen at least ``min_count`` times in the training sentences."""
    sentences = _check_tagged("sentences", sentences)
    min_count = check_count("min_count", min_count, low=1)
    counts: dict[str, int] = {}
    for words, _ in sentences:
        for i in range(len(words)):
            for f in _token_features(words, i):
                counts[f] = counts.get(f, 0) + 1
    kept = sorted(f for f, c in counts.items() if c >= min_count)
    if not kept:
        raise ValueError(f"min_count = {min_count} keeps no feature: no property occurs that often")
    return FeatureIndex({f: j for j, f in enumerate(kept)}, tuple(sorted({t for _, ts in sentences for t in ts})))


class LinearChainCRF(torch.nn.Module):
    """Observation weights W (as an EmbeddingBag of F rows and N columns, summed per
    position), transitions A (N, N), start s and end z (N,), all starting at zero."""

    def __init__(self, index: FeatureIndex):
        super().__init__()
        if not isinstance(index, FeatureIndex):
            raise TypeError(f"index must be a FeatureIndex, got {describe(index)}")
        self.index = index
        n = len(index.tags)
        self.observation = torch.nn.EmbeddingBag(len(index.features), n, mode="sum")
        torch.nn.init.zeros_(self.observation.weight)
        self.transition = torch.nn.Parameter(torch.zeros(n, n))
        self.start = torch.nn.Parameter(torch.zeros(n))
        self.end = torch.nn.Parameter(torch.zeros(n))

    def emissions(self, ids: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
        """(n, N) observation scores e_j(i) of one encoded sentence."""
        return self.observation(ids, offsets)

    def log_partition(self, emissions: torch.Tensor) -> torch.Tensor:
        """log Z(x) by the forward algorithm, differentiable."""
        alpha = self.start + emissions[0]
        for i in range(1, len(emissions)):
            alpha = torch.logsumexp(alpha[:, None] + self.transition, dim=0) + emissions[i]
        return torch.logsumexp(alpha + self.end, dim=0)

    def score(self, emissions: torch.Tensor, tags: torch.Tensor) -> torch.Tensor:
        """The total score of the tag sequence ``tags`` (n,)."""
        return (self.start[tags[0]] + emissions[torch.arange(len(tags)), tags].sum()
                + self.transition[tags[:-1], tags[1:]].sum() + self.end[tags[-1]])

    def tag(self, words: Sequence[str]) -> list[str]:
        """The Viterbi tags of one sentence."""
        words = check_str_list("words", words)
        if not words:
            return []
        with torch.no_grad():
            emissions = self.emissions(*self.index.encode(words)).double().numpy()
            path, _ = _viterbi(self.start.double().numpy(), self.transition.double().numpy(), emissions,
                               self.end.double().numpy())
        return [self.index.tags[j] for j in path]

    def tag_many(self, sentences: Sequence[Sequence[str]]) -> list[list[str]]:
        """The Viterbi tags of many sentences, the same as :meth:`tag` one by one (same
        paths, same ties): the emissions of all sentences come from one EmbeddingBag call
        and :func:`~mmir_lib.lm.tagging.viterbi_many` decodes sentences of equal length
        together."""
        sentences = [check_str_list(f"sentences[{k}]", s) for k, s in
                     enumerate(check_list("sentences", sentences, Sequence))]
        nonempty = [s for s in sentences if s]
        if not nonempty:
            return [[] for _ in sentences]
        encoded = [self.index.encode(s) for s in nonempty]
        id_starts = np.cumsum([0] + [len(ids) for ids, _ in encoded[:-1]])
        ids = torch.cat([ids for ids, _ in encoded])
        offsets = torch.cat([offsets + int(shift) for (_, offsets), shift in zip(encoded, id_starts)])
        with torch.no_grad():
            emissions = self.observation(ids, offsets).double().numpy()
            tables = [p.detach().double().numpy() for p in (self.start, self.transition, self.end)]
        bounds = np.cumsum([0] + [len(s) for s in nonempty])
        paths = iter(viterbi_many(tables[0], tables[1], [emissions[a:b] for a, b in zip(bounds, bounds[1:])],
                                  tables[2]))
        return [[self.index.tags[j] for j in next(paths)] if s else [] for s in sentences]


def crf_loss(model: LinearChainCRF, batch) -> torch.Tensor:
    """Mean negative log-likelihood of a batch of encoded sentences ``(ids, offsets, tags)``
    (``ids, offsets = model.index.encode(words)``, ``tags`` the (n,) int64 tag numbers).

    The sentences of a batch are scored together: their positions are stacked, the
    emissions computed in one EmbeddingBag call, and the forward algorithm runs over
    the batch at once, position by position, each sentence stopping at its own length.
    """
    if not isinstance(model, LinearChainCRF):
        raise TypeError(f"model must be a LinearChainCRF, got {describe(model)}")
    batch = check_list("batch", batch, tuple, nonempty=True)
    n_tags = len(model.index.tags)
    for i, item in enumerate(batch):
        if len(item) != 3 or not all(isinstance(x, torch.Tensor) and x.dtype == torch.int64 for x in item):
            raise TypeError(f"batch[{i}] must be an (ids, offsets, tags) triple of int64 tensors")
        ids, offsets, tags = item
        if len(tags) == 0 or len(offsets) != len(tags) or (len(tags) and (tags.min() < 0 or tags.max() >= n_tags)):
            raise ValueError(f"batch[{i}] must have one offset and one tag in 0 … {n_tags - 1} per word")
        if len(ids) and (ids.min() < 0 or ids.max() >= len(model.index.features)):
            raise ValueError(f"batch[{i}] holds feature ids outside 0 … {len(model.index.features) - 1}")
    return _crf_loss(model, batch)


def _crf_loss(model: LinearChainCRF, batch) -> torch.Tensor:
    """:func:`crf_loss` of a checked batch (the training loop's, encoded by :func:`train_crf`)."""
    lengths = torch.tensor([len(tags) for _, _, tags in batch])
    starts = torch.cumsum(torch.cat([torch.zeros(1, dtype=torch.int64), lengths[:-1]]), 0)
    id_starts = torch.cumsum(torch.tensor([0] + [len(ids) for ids, _, _ in batch[:-1]]), 0)
    ids = torch.cat([ids for ids, _, _ in batch])
    offsets = torch.cat([offsets + shift for (_, offsets, _), shift in zip(batch, id_starts)])
    tags = torch.cat([tags for _, _, tags in batch])
    emissions = model.observation(ids, offsets)                          # (total positions, N)
    # gold scores
    gold = emissions[torch.arange(len(tags)), tags].sum()
    gold = gold + model.start[tags[starts]].sum() + model.end[tags[starts + lengths - 1]].sum()
    inner = torch.ones(len(tags), dtype=torch.bool)
    inner[starts] = False                                                  # positions with a predecessor
    positions = torch.nonzero(inner).squeeze(1)
    gold = gold + model.transition[tags[positions - 1], tags[positions]].sum()
    # log Z for every sentence, in parallel over the batch
    alpha = model.start + emissions[starts]                               # (B, N)
    for step in range(1, int(lengths.max())):
        active = lengths > step
        rows = starts[active] + step
        updated = torch.logsumexp(alpha[active][:, :, None] + model.transition, dim=1) + emissions[rows]
        alpha = alpha.clone()
        alpha[active] = updated
    log_z = torch.logsumexp(alpha + model.end, dim=1).sum()
    return (log_z - gold) / len(batch)


def train_crf(model: LinearChainCRF, sentences, *, epochs: int = 3, batch_size: int = 64, lr: float = 0.05,
              l2: float = 1e-6, seed: int = 0):
    """Train a CRF on tagged sentences with Adam and the shared loop (:func:`mmir_lib.training.train`).

    Batches of ``batch_size`` sentences in a new seeded order every epoch; ``lr`` is
    Adam's step size (at most 10), ``l2`` the c of the penalty (c/2)·‖w‖² (at most 1)
    added to the mean loss of every batch. Returns the training
    :class:`~mmir_lib.training.History`.
    """
    from ..training import train

    if not isinstance(model, LinearChainCRF):
        raise TypeError(f"model must be a LinearChainCRF, got {describe(model)}")
    sentences = _check_tagged("sentences", sentences)
    epochs = check_count("epochs", epochs, low=1, high=1000)
    batch_size = check_count("batch_size", batch_size, low=1)
    lr = check_number("lr", lr, low=0, low_open=True, high=10)
    l2 = check_number("l2", l2, low=0, high=1)
    seed = check_count("seed", seed, high=2**32 - 1)
    tag_index = {t: j for j, t in enumerate(model.index.tags)}
    unknown = {t for _, ts in sentences for t in ts} - set(tag_index)
    if unknown:
        raise ValueError(f"sentences hold tags the model does not know: {sorted(unknown)}")
    encoded = [(*model.index.encode(words), torch.tensor([tag_index[t] for t in tags]))
               for words, tags in sentences]

    def batches(epoch: int):
        order = np.random.default_rng(seed + epoch).permutation(len(encoded))
        return [[encoded[j] for j in order[k:k + batch_size]] for k in range(0, len(order), batch_size)]

    def loss_fn(m, batch):
        penalty = 0.5 * l2 * sum((p ** 2).sum() for p in m.parameters())
        return _crf_loss(m, batch) + penalty

    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    return train(model, loss_fn, batches, optimizer, epochs=epochs, seed=seed)


def training_record() -> dict:
    """The log of ``tools/train_crf_taggers.py``, read from :data:`CHECKPOINT`: ``settings``,
    ``upos`` (one run), ``names`` (one run per seed of :data:`NAME_SEEDS`), each run with its
    ``epoch_losses``, ``steps``, ``cpu_seconds``, ``seed`` and ``features``; ``crfsuite``
    with its ``dev_accuracy`` after every pass."""
    return torch.load(CHECKPOINT, weights_only=True)


def load_trained(task: str, seed: int = 0, index: FeatureIndex | None = None) -> LinearChainCRF:
    """The book's trained CRF for ``task`` (``"upos"`` or ``"names"``) and ``seed``, from
    :data:`CHECKPOINT`, in float64 (the float16 weights of the file sum exactly, so the
    tags do not depend on the order of the additions).

    The file keeps the properties of the training sentences in the order of the weights'
    rows, and each task's tags, so the model comes with its :class:`FeatureIndex`. An
    ``index`` given instead (``build_feature_index(train)``) must have the same sizes.
    """
    task = check_choice("task", task, ("upos", "names"))
    seed = check_choice("seed", seed, (0,) if task == "upos" else NAME_SEEDS)
    if index is not None and not isinstance(index, FeatureIndex):
        raise TypeError(f"index must be a FeatureIndex or None, got {describe(index)}")
    saved = torch.load(CHECKPOINT, weights_only=True)
    run = saved["upos"] if task == "upos" else saved["names"][NAME_SEEDS.index(seed)]
    if index is None:
        index = FeatureIndex({f: j for j, f in enumerate(saved["features"])}, tuple(run["tags"]))
    weights = run["weights"]
    if tuple(weights["observation.weight"].shape) != (len(index.features), len(index.tags)):
        raise ValueError(f"index has {len(index.features)} properties and {len(index.tags)} tags; the saved "
                         f"{task} CRF has {tuple(weights['observation.weight'].shape)}: build it from the "
                         "training sentences of the task")
    model = LinearChainCRF(index).double()
    model.load_state_dict({k: v.double() for k, v in weights.items()})
    return model.eval()


def load_crfsuite():
    """CRFsuite's part-of-speech model of ``tools/train_crf_taggers.py``, from
    :data:`CRFSUITE_CHECKPOINT`, as a ``pycrfsuite.Tagger`` (``tagger.tag(crfsuite_features(words))``
    gives the tags of a sentence)."""
    import lzma
    import tempfile

    import pycrfsuite

    # From a file, not open_inmemory: CRFsuite reads a file into memory of its own, while a
    # model opened in memory keeps pointing into the Python bytes, which a temporary would
    # free under it (a segmentation fault seen in the tests).
    tagger = pycrfsuite.Tagger()
    with tempfile.TemporaryDirectory() as scratch:
        model = Path(scratch) / "model.crfsuite"
        model.write_bytes(lzma.decompress(CRFSUITE_CHECKPOINT.read_bytes()))
        tagger.open(str(model))
    return tagger
