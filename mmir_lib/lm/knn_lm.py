"""The kNN language model (Khandelwal et al. 2020): a language model that looks up what
followed the contexts most like the present one.

**The datastore.** Run the trained transformer (:mod:`.transformer`) over the training
text. At each position i it has read x_1 … x_{i−1} and holds a hidden state, the vector
the output layer turns into the next character's distribution:

    key_i = LN(h^L_i) ∈ ℝᵈ    (the final layer norm's output, (d,)),    value_i = x_i,

one (key, value) pair per training character: N pairs, (N, d) keys and (N,) values.
Two contexts whose keys are close are contexts the model already treats alike, so what
followed one is a good guess for what follows the other.

**The kNN distribution.** At a test position with key q, find the k stored keys nearest
to q (squared Euclidean distances d_1 … d_k, from an index of :mod:`mmir_lib.ann`), and
spread probability over the values of those neighbours by a softmax of the negative
distances at a temperature τ:

    p_kNN(c) = Σ_{j: value_j = c} exp(−d_j/τ) / Σ_{j=1…k} exp(−d_j/τ).

A character that no neighbour has gets probability 0; adding a constant to every d_j
changes nothing (it cancels in the ratio); τ → 0 puts everything on the nearest
neighbour's value, τ → ∞ weights the k neighbours alike.

**Interpolation.** The kNN distribution alone is zero wherever no neighbour agrees, so it
is mixed with the model's own:

    p(c) = λ p_kNN(c) + (1 − λ) p_LM(c),        λ ∈ [0, 1],

and, for any number of models with weights w_m ≥ 0 summing to 1, p = Σ_m w_m p_m
(:func:`mix_log_probs`). Everything is computed in log space, log Σ exp, so that
probabilities of 10⁻³⁰⁰ neither underflow nor lose their digits:

    log p = logsumexp_m (log w_m + log p_m),

a component of weight 0 left out (λ = 0 returns log p_LM exactly).

The held-out table needs only the probability of the character that came, so
:func:`knn_log_prob` computes log p_kNN(target) (q,) without the (q, V) distribution;
:func:`knn_distribution` gives the whole distribution.
"""

from __future__ import annotations

import numpy as np

from ..ann._checks import as_vectors, check_k
from ..ann.exact import exact_search
from ..ann.ivfpq import IVFPQ
from ..validation import (check_array, check_choice, check_count, check_instance, check_number,
                          describe)
from .transformer import HELD_OUT_STRIDE, CharTransformer, checkpoint_config, scored_windows

__all__ = ["KEY_LAYERS", "hidden_states", "check_model", "knn_log_prob", "knn_distribution", "mix_log_probs", "Datastore"]

#: The states a datastore can be keyed by: "final", the final layer norm's output (the
#: book's choice), or "ffn_input", the last block's feed-forward input after its layer
#: norm (Khandelwal et al.'s).
KEY_LAYERS = ("final", "ffn_input")


def check_model(model: object, config: dict | None = None) -> CharTransformer:
    """``model`` if it is a :class:`~.transformer.CharTransformer` with the configuration
    ``config`` (a dict as ``TransformerConfig.as_dict()``; the book's checkpoint's by
    default): keys from another model live in another space, and searching them with
    this model's states finds nothing meaningful."""
    model = check_instance("model", model, CharTransformer)
    expected = checkpoint_config() if config is None else config
    if not isinstance(expected, dict):
        raise TypeError(f"config must be a dict of the model's shape, got {describe(expected)}")
    found = model.config.as_dict()
    differing = sorted(name for name in set(found) | set(expected)
                       if name != "dropout" and found.get(name) != expected.get(name))
    if differing:
        raise ValueError("model does not match config, the model the datastore was built with: "
                         + ", ".join(f"{n} = {found.get(n)} (config: {expected.get(n)})" for n in differing))
    return model


def hidden_states(model: object, ids: object, start: int, stride: int | None = HELD_OUT_STRIDE,
                  batch_size: int = 16, layer: str = "final") -> tuple[np.ndarray, np.ndarray]:
    """The key and the model's loss at every position of a stream ``ids`` (N,).

    The stream is read as :func:`~.transformer.held_out_losses` reads it (after the
    symbol ``start``, windows of T = context every ``stride``, each symbol scored by the
    first window that predicts it), so the losses are that function's. Returns

    * keys (N, d) float32: row j is the state at the position that predicts x_j:
      LN(h^L), the input of the output layer (module notes), for ``layer="final"``; the
      last block's LN(a^L), the input of its feed-forward layer, for ``"ffn_input"``;
    * nats (N,) float64: −ln P_LM[x_j | context].
    """
    batches = scored_windows(model, ids, start, stride, batch_size)
    layer = check_choice("layer", layer, KEY_LAYERS)
    keys = np.empty((len(ids), model.config.width), dtype=np.float32)
    nats = np.empty(len(ids))
    captured = []
    source = model.norm if layer == "final" else model.blocks[-1].norm2
    hook = source.register_forward_hook(lambda module, inputs, output: captured.append(output))
    try:
        for windows, _, window_nats in batches:
            states = captured.pop().numpy()                                              # (b, W, d)
            for row, (s, end, first) in enumerate(windows):
                keys[first:end] = states[row, first - s:]
                nats[first:end] = window_nats[row, first - s:]
    finally:
        hook.remove()
    return keys, nats


def _check_neighbours(distances: object, values: object) -> tuple[np.ndarray, np.ndarray]:
    distances = check_array("distances", distances, ndim=2, nonempty=True, finite=False)
    if np.isnan(distances).any() or (distances == -np.inf).any():
        raise ValueError("distances must be numbers or +inf (a missing neighbour), found NaN or -inf")
    if not np.isfinite(distances).any(axis=1).all():
        raise ValueError("distances must hold at least one finite distance per row (one neighbour found)")
    values = check_array("values", values, ndim=2, kind="int", low=-1)
    if values.shape != distances.shape:
        raise ValueError(f"values must have the shape of distances, {distances.shape}; got {values.shape}")
    return distances, values


def _log_weights(distances: np.ndarray, temperature: float) -> np.ndarray:
    """−d/τ shifted by each row's largest, (q, k) float64: exp of it is at most 1 (no overflow)."""
    scores = -distances.astype(np.float64) / temperature
    return scores - scores.max(axis=1, keepdims=True)


def knn_log_prob(distances: object, values: object, targets: object, temperature: float) -> np.ndarray:
    """log p_kNN(target) for each query, (q,) float64 (−inf where no neighbour has the target).

    ``distances`` (q, k) squared distances of each query's k neighbours (+inf for a
    missing one, as the indexes return), ``values`` (q, k) their values (−1 for a missing
    one), ``targets`` (q,) the characters that came, ``temperature`` τ > 0:

        log p_kNN(t) = logsumexp_{j: value_j = t}(−d_j/τ) − logsumexp_j(−d_j/τ).
    """
    distances, values = _check_neighbours(distances, values)
    targets = check_array("targets", targets, ndim=1, kind="int", low=0)
    if len(targets) != len(distances):
        raise ValueError(f"targets must hold one character per row of distances, {len(distances)}; got {len(targets)}")
    temperature = check_number("temperature", temperature, low=0.0, low_open=True)
    scores = _log_weights(distances, temperature)                    # max 0 per row
    weights = np.exp(scores)                                         # (q, k), each row's largest is 1
    hits = np.where(values == targets[:, None], weights, 0.0).sum(axis=1)
    with np.errstate(divide="ignore"):
        return np.log(hits) - np.log(weights.sum(axis=1))


def knn_distribution(distances: object, values: object, vocab_size: int, temperature: float) -> np.ndarray:
    """p_kNN (q, V) float64, each row summing to 1: the softmax weights exp(−d_j/τ) of the
    k neighbours (``distances``, ``values`` (q, k) as in :func:`knn_log_prob`) added up
    per value, V = ``vocab_size``."""
    distances, values = _check_neighbours(distances, values)
    vocab_size = check_count("vocab_size", vocab_size, low=1, high=1_000_000)
    if values.max() >= vocab_size:
        raise ValueError(f"values must lie below vocab_size = {vocab_size}, found {values.max()}")
    temperature = check_number("temperature", temperature, low=0.0, low_open=True)
    weights = np.exp(_log_weights(distances, temperature))
    weights[values < 0] = 0.0
    out = np.zeros((len(distances), vocab_size))
    rows = np.broadcast_to(np.arange(len(distances))[:, None], values.shape)
    present = values >= 0
    np.add.at(out, (rows[present], values[present]), weights[present])
    return out / out.sum(axis=1, keepdims=True)


def mix_log_probs(log_probs: object, weights: object) -> np.ndarray:
    """log Σ_m w_m p_m, (N,) float64, from ``log_probs`` (M, N) (entries ≤ 0, −inf allowed)
    and ``weights`` (M,) ≥ 0 summing to 1 (within 1e-9): logsumexp_m(log w_m + log p_m),
    a component of weight 0 left out (so weights (0, 1) return log_probs[1] exactly).
    λ p_kNN + (1 − λ) p_LM is ``mix_log_probs([log_p_knn, log_p_lm], [λ, 1 − λ])``."""
    log_probs = check_array("log_probs", log_probs, ndim=2, nonempty=True, finite=False, high=0.0)
    if np.isnan(log_probs).any():
        raise ValueError("log_probs must not hold NaN")
    weights = check_array("weights", weights, ndim=1, low=0.0, high=1.0)
    if len(weights) != len(log_probs):
        raise ValueError(f"weights must hold one weight per row of log_probs, {len(log_probs)}; got {len(weights)}")
    if abs(weights.sum() - 1.0) > 1e-9:
        raise ValueError(f"weights must sum to 1, got {weights.sum():.12g}")
    used = weights > 0
    terms = log_probs[used] + np.log(weights[used])[:, None]         # (M', N)
    if len(terms) == 1 and weights[used][0] == 1.0:
        return log_probs[used][0].copy()
    top = terms.max(axis=0)
    safe = np.where(np.isfinite(top), top, 0.0)                      # a column of −inf stays −inf
    return safe + np.log(np.exp(terms - safe).sum(axis=0))


class Datastore:
    """The (key, value) pairs of a model over a text, behind a vector index.

    Parameters
    ----------
    keys : an :class:`~mmir_lib.ann.ivfpq.IVFPQ` holding the keys (searched approximately,
        ``nprobe`` lists), or the keys themselves, (N, d) (searched exactly,
        :func:`~mmir_lib.ann.exact.exact_search`, squared L2).
    values : (N,) int, the character that followed each key, in [0, V).
    config : the configuration (dict) of the model whose states the keys are.

    :meth:`search` returns each query's k nearest (squared distances, values), which
    :func:`knn_log_prob` turns into probabilities.
    """

    def __init__(self, keys: object, values: object, config: dict):
        if isinstance(keys, IVFPQ):
            self.index, self.keys = keys, None
            if keys.ntotal == 0:
                raise ValueError("keys is an empty index: the datastore needs at least one (key, value) pair")
            n, self.d = keys.ntotal, keys.d
        else:
            if isinstance(keys, np.ndarray) and keys.ndim == 2 and keys.shape[0] == 0:
                raise ValueError("keys is empty: the datastore needs at least one (key, value) pair")
            self.index, self.keys = None, as_vectors("keys", keys)
            n, self.d = self.keys.shape
        if not isinstance(config, dict):
            raise TypeError(f"config must be a dict (TransformerConfig.as_dict()), got {describe(config)}")
        missing = [name for name in ("vocab_size", "width") if name not in config]
        if missing:
            raise ValueError(f"config must give the model's {' and '.join(missing)} (TransformerConfig.as_dict())")
        self.config = dict(config)
        if self.config["width"] != self.d:
            raise ValueError(f"keys must have the model's width, config['width'] = {self.config['width']}, "
                             f"as d; got d = {self.d}")
        vocab = check_count("config['vocab_size']", self.config["vocab_size"], low=1)
        self.values = check_array("values", values, ndim=1, kind="int", shape=(n,), low=0, high=vocab - 1)

    def __len__(self) -> int:
        return len(self.values)

    def __repr__(self) -> str:
        kind = repr(self.index) if self.index is not None else "exact"
        return f"Datastore({len(self):,} keys of d = {self.d}, {kind})"

    def search(self, queries: object, k: int, nprobe: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The k nearest keys of each of ``queries`` (q, d): (squared distances (q, k)
        float32, values (q, k) int64, −1 where an index found fewer than k). ``nprobe``:
        lists probed by an IVF-PQ datastore (required there, refused for exact search)."""
        queries = as_vectors("queries", queries, dim=self.d, of="the width of the datastore's keys")
        k = check_k(k, len(self), what="the number of keys in the datastore")
        if self.index is None:
            if nprobe is not None:
                raise ValueError("nprobe applies to an IVF-PQ datastore; this one is searched exactly (None)")
            distances, ids = exact_search(self.keys, queries, k, metric="l2")
        else:
            nprobe = check_count("nprobe", nprobe, low=1)
            distances, ids = self.index.search(queries, k, nprobe)
        return distances, np.where(ids >= 0, self.values[np.maximum(ids, 0)], -1)

    def check_model(self, model: object) -> CharTransformer:
        """``model`` if its configuration is the datastore's (:func:`check_model`)."""
        return check_model(model, self.config)
