"""Scaled dot-product attention, its masks, and the reshapes into heads (chapter V.6).

Attention is a soft dictionary lookup. A query ``q`` is compared with every key ``k_j``
by a dot product, the scores go through a softmax, and the answer is the weighted mean
of the values ``v_j``. For ``n_q`` queries at once, stacked in the rows of ``Q``,

    A = softmax_row(Q Kᵀ / √d_k),        output = A V,

with ``Q`` (n_q, d_k), ``K`` (n_k, d_k), ``V`` (n_k, d_v), ``A`` (n_q, n_k) and the
output (n_q, d_v); any leading axes (batch, heads) are carried along.

Masks follow **torch's** ``scaled_dot_product_attention`` convention: a boolean mask
entry **True means the key takes part**, False means it is blocked (its score becomes
−∞ before the softmax). ``torch.nn.MultiheadAttention``'s ``key_padding_mask`` and
``attn_mask`` use the opposite convention (True = blocked); convert with ``~mask``.

=================  =====================================================  ============
helper             what it builds                                          shape
=================  =====================================================  ============
``causal_mask``    query i may see keys 0 ... i (top-left aligned, as      (n_q, n_k)
                   torch's ``is_causal``)
``padding_mask``   key j of sequence b takes part iff j < lengths[b]       (B, 1, n_k)
``split_heads``    (..., n, h·d) -> (..., h, n, d)
``merge_heads``    (..., h, n, d) -> (..., n, h·d)
=================  =====================================================  ============

A query row whose every key is blocked has no distribution to take: the softmax of
all −∞ is 0/0. torch 2.13 returns zero weights and a zero output for such a row
(measured in chapter V.6); here it is an error by default, naming the row, and
``fully_masked="zero"`` gives torch's result.

Everything works on torch tensors of one floating dtype, on any device, and is
differentiable (chapter V.7 builds multi-head attention on it).
"""

from __future__ import annotations

import math

import torch

from ..validation import (check_array, check_bool, check_choice, check_count, check_memory, check_number,
                          check_optional, check_tensor, describe)

__all__ = ["MAX_LENGTH", "scaled_dot_product_attention", "causal_mask", "padding_mask", "split_heads",
           "merge_heads"]

#: Longest sequence (queries or keys) the book's attention accepts: the weight matrix
#: alone holds n_q · n_k numbers, 512 MB in float64 for one 8192 × 8192 head.
MAX_LENGTH = 8192

_FULLY_MASKED = ("error", "zero")


def _broadcast(*shapes: tuple[int, ...]) -> tuple[int, ...]:
    """numpy's broadcasting rule on shapes (ValueError if they do not broadcast); a few
    microseconds, where np.broadcast_shapes builds arrays."""
    if all(s == shapes[0] for s in shapes):
        return shapes[0]
    width = max(len(s) for s in shapes)
    result = []
    for sizes in zip(*((1,) * (width - len(s)) + s for s in shapes)):
        wide = {n for n in sizes if n != 1}
        if len(wide) > 1:
            raise ValueError(f"shapes {shapes} do not broadcast")
        result.append(wide.pop() if wide else 1)
    return tuple(result)


def _check_length(name: str, n: int) -> None:
    if n > MAX_LENGTH:
        raise ValueError(f"{name} has a sequence of length {n}, over the limit MAX_LENGTH = {MAX_LENGTH}")


def _check_mask(mask: object, shape: tuple[int, ...]) -> torch.Tensor:
    """A boolean tensor that broadcasts to ``shape`` (batch..., n_q, n_k) without enlarging it."""
    if not isinstance(mask, torch.Tensor) or mask.dtype != torch.bool:
        raise TypeError(f"mask must be a boolean torch tensor (True: the key takes part), got "
                        f"{describe(mask) if not isinstance(mask, torch.Tensor) else f'dtype {mask.dtype}'}")
    try:
        fits = _broadcast(tuple(mask.shape), shape) == shape
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(f"mask of shape {tuple(mask.shape)} does not broadcast to the scores' shape "
                         f"{tuple(shape)} (batch..., n_q, n_k)")
    return mask


def scaled_dot_product_attention(query, key, value, mask=None, *, is_causal=False, scale=None,
                                 fully_masked="error") -> tuple[torch.Tensor, torch.Tensor]:
    """Scaled dot-product attention, ``softmax_row(Q Kᵀ · scale + M) V``, with its weights.

    Parameters
    ----------
    query : (..., n_q, d_k) floating tensor, the queries in its rows
    key : (..., n_k, d_k) tensor of the same dtype, the keys
    value : (..., n_k, d_v) tensor of the same dtype, the values
        The leading axes (batch, heads) of the three must broadcast together.
    mask : boolean tensor broadcasting to (..., n_q, n_k), optional
        torch's convention: **True = the key takes part**, False = blocked
        (``M`` is 0 or −∞).
    is_causal : bool
        Also block every key j > i for query i (:func:`causal_mask`). Unlike torch,
        which refuses a mask together with ``is_causal``, the two are combined (AND).
    scale : float > 0, optional
        Multiplies the scores; ``1/√d_k`` when omitted.
    fully_masked : "error" or "zero"
        A query row with every key blocked raises ValueError ("error"), or gets zero
        weights and a zero output ("zero", what torch 2.13 returns).

    Returns
    -------
    output : (..., n_q, d_v) tensor
    weights : (..., n_q, n_k) tensor, each row a distribution over the keys (zero for a
        fully masked row under ``fully_masked="zero"``)

    Raises
    ------
    TypeError
        Something that is not a floating tensor, mixed dtypes, a mask that is not boolean.
    ValueError
        Empty inputs, NaN or infinity, d_k or n_k that do not agree, a mask of the wrong
        shape, a sequence longer than :data:`MAX_LENGTH`, a weight matrix over the
        library's memory limit, a fully masked row under ``fully_masked="error"``.

    Examples
    --------
    >>> q = torch.tensor([[1.0, 0.0]]); k = torch.tensor([[1.0, 0.0], [0.0, 1.0]])
    >>> out, w = scaled_dot_product_attention(q, k, torch.tensor([[10.0], [20.0]]))
    >>> w.round(decimals=4)
    tensor([[0.6698, 0.3302]])
    """
    query = check_tensor("query", query, min_ndim=2)
    key = check_tensor("key", key, min_ndim=2)
    value = check_tensor("value", value, min_ndim=2)
    for name, tensor in (("key", key), ("value", value)):
        if tensor.dtype != query.dtype:
            raise TypeError(f"{name} must have query's dtype {query.dtype}, got {tensor.dtype}")
    (n_q, d_k), n_k = query.shape[-2:], key.shape[-2]
    if key.shape[-1] != d_k:
        raise ValueError(f"key must have query's d_k = {d_k} columns, got shape {tuple(key.shape)}")
    if value.shape[-2] != n_k:
        raise ValueError(f"value must have one row per key (n_k = {n_k}), got shape {tuple(value.shape)}")
    try:
        batch = _broadcast(tuple(query.shape[:-2]), tuple(key.shape[:-2]), tuple(value.shape[:-2]))
    except ValueError:
        raise ValueError(f"the leading axes of query {tuple(query.shape)}, key {tuple(key.shape)} and value "
                         f"{tuple(value.shape)} do not broadcast together") from None
    _check_length("query", n_q)
    _check_length("key", n_k)
    check_memory("key", math.prod(batch) * n_q * n_k, query.element_size())
    is_causal = check_bool("is_causal", is_causal)
    scale = check_optional(check_number, "scale", scale, low=0, low_open=True)
    fully_masked = check_choice("fully_masked", fully_masked, _FULLY_MASKED)
    causal = _causal_bias(n_q, n_k, query.dtype, query.device) if is_causal else None
    blocked = empty = None
    if mask is not None:
        blocked = ~_check_mask(mask, batch + (n_q, n_k)).to(query.device)
        empty = (blocked | torch.isinf(causal) if is_causal else blocked).all(dim=-1, keepdim=True)
        if not bool(empty.any()):                           # (..., n_q, 1): rows with no key left
            empty = None
        elif fully_masked == "error":
            where = tuple(int(i) for i in torch.nonzero(empty[..., 0])[0])
            raise ValueError(f"mask blocks every key for the query row at index {where} of the (batch..., n_q) "
                             "axes: its softmax is 0/0; unblock a key or pass fully_masked='zero'")
    return _attention(query, key, value, 1 / math.sqrt(d_k) if scale is None else scale, causal, blocked, empty)


def _attention(query, key, value, scale, causal=None, blocked=None, empty=None):
    scores = (query * scale) @ key.transpose(-2, -1)        # (..., n_q, n_k); scale the smaller factor
    if causal is not None:
        scores += causal                                    # + M: -inf above the diagonal
    if blocked is not None:
        scores = scores.masked_fill(blocked, -math.inf)     # blocked keys: weight exp(-inf) = 0
    if empty is not None:                                   # rows with no key: zero weights, as torch
        weights = torch.softmax(scores.masked_fill(empty, 0.0), dim=-1).masked_fill(empty, 0.0)
    else:
        weights = torch.softmax(scores, dim=-1)             # each row sums to 1
    return weights @ value, weights                         # (..., n_q, d_v), (..., n_q, n_k)


def _causal_bias(n_q: int, n_k: int, dtype=torch.float64, device=None) -> torch.Tensor:
    """The additive causal mask M: 0 on and below the diagonal, −∞ above it."""
    return torch.full((n_q, n_k), -math.inf, dtype=dtype, device=device).triu_(1)


def causal_mask(n_q, n_k=None) -> torch.Tensor:
    """The causal mask: query i may attend to keys 0, 1, ..., i (True on and below the diagonal).

    ``n_k`` defaults to ``n_q``. The triangle starts at the top-left corner, as torch's
    ``is_causal``; returns an (n_q, n_k) boolean tensor in torch's convention (True =
    takes part).

    >>> causal_mask(3).int()
    tensor([[1, 0, 0],
            [1, 1, 0],
            [1, 1, 1]], dtype=torch.int32)
    """
    n_q = check_count("n_q", n_q, low=1, high=MAX_LENGTH)
    n_k = check_optional(check_count, "n_k", n_k, low=1, high=MAX_LENGTH)
    return torch.ones(n_q, n_q if n_k is None else n_k, dtype=torch.bool).tril_()   # True on and below the diagonal


def padding_mask(lengths, max_length=None) -> torch.Tensor:
    """Keys j < lengths[b] of sequence b take part, the padding after them does not.

    Parameters
    ----------
    lengths : (B,) ints >= 1, the true length of each sequence of a padded batch
    max_length : int, optional, the padded length n_k; ``max(lengths)`` when omitted

    Returns
    -------
    (B, 1, n_k) boolean tensor, True = a real key (torch's convention), ready to
    broadcast over the queries; add a head axis with ``mask[:, None]``. The
    ``key_padding_mask`` of ``nn.MultiheadAttention`` is ``~mask[:, 0]``.

    >>> padding_mask([2, 3]).int()
    tensor([[[1, 1, 0]],
    <BLANKLINE>
            [[1, 1, 1]]], dtype=torch.int32)
    """
    lengths = check_array("lengths", lengths, kind="int", ndim=1, nonempty=True, low=1, high=MAX_LENGTH)
    max_length = check_optional(check_count, "max_length", max_length, low=int(lengths.max()), high=MAX_LENGTH)
    check_memory("lengths", len(lengths) * (max_length or int(lengths.max())), 1)
    n_k = int(lengths.max()) if max_length is None else max_length
    positions = torch.arange(n_k)
    return (positions[None, :] < torch.from_numpy(lengths)[:, None])[:, None, :]   # (B, 1, n_k)


def split_heads(x, num_heads) -> torch.Tensor:
    """Cut the last axis into ``num_heads`` heads: (..., n, h·d) -> (..., h, n, d).

    Head i gets the columns i·d ... (i + 1)·d − 1; :func:`merge_heads` undoes it.
    """
    x = check_tensor("x", x, min_ndim=2)
    num_heads = check_count("num_heads", num_heads, low=1)
    if x.shape[-1] % num_heads:
        raise ValueError(f"num_heads = {num_heads} does not divide x's last axis of {x.shape[-1]}")
    *batch, n, width = x.shape
    return x.reshape(*batch, n, num_heads, width // num_heads).transpose(-3, -2)   # (..., h, n, d)


def merge_heads(x) -> torch.Tensor:
    """Put the heads side by side again: (..., h, n, d) -> (..., n, h·d), the inverse of
    :func:`split_heads`."""
    x = check_tensor("x", x, min_ndim=3)
    *batch, h, n, d = x.shape
    return x.transpose(-3, -2).reshape(*batch, n, h * d)                            # (..., n, h·d)
