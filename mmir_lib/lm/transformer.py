"""A decoder-only character transformer: the language model of V.7, and its parts.

The model reads a window of T characters x_1 … x_T and predicts, at every position t,
the next character from x_1 … x_t only:

    h⁰_t = E[x_t] + P[t]                                  token embedding + learned position, (T, d)
    a^ℓ  = h^{ℓ−1} + Attn^ℓ(LN(h^{ℓ−1}))                  causal multi-head self-attention
    h^ℓ  = a^ℓ + FFN^ℓ(LN(a^ℓ))                            position-wise feed-forward, width 4d
    P[x_{t+1} | x_{≤t}] = softmax(LN(h^L_t) Eᵀ)           the output layer shares E (tied weights)

with L blocks, each a *pre-norm* residual block: the layer norm sits inside the branch,
so the residual stream h carries the embeddings through unnormalised and every block
adds to it. FFN(z) = GELU(z W₁ + b₁) W₂ + b₂ with W₁ (d, 4d), W₂ (4d, d).

**Multi-head attention** (:class:`MultiHeadAttention`) over H heads of width d_h = d/H:

    [Q | K | V] = X W_qkv + b_qkv                          one packed projection, W_qkv (d, 3d)
    head_h = softmax(Q_h K_hᵀ / √d_h + M) V_h               Q_h = columns h·d_h … (h+1)·d_h − 1 of Q
    Attn(X) = concat_h(head_h) W_O + b_O                    W_O (d, d)

where M is the causal mask (−∞ above the diagonal: no position sees the future). The
heads are cut and glued with V.6's :func:`~mmir_lib.lm.attention.split_heads` and
:func:`~mmir_lib.lm.attention.merge_heads`; the weighted sum is either V.6's
:func:`~mmir_lib.lm.attention.scaled_dot_product_attention` (``implementation="book"``)
or torch's fused ``scaled_dot_product_attention`` (``"fused"``, which V.6 shows equal to
the book's; the model trains with it for speed). The layer's weights are laid out as
``torch.nn.MultiheadAttention``'s (packed ``in_proj_weight`` (3d, d), ``out_proj``):
:func:`attention_from_torch` copies them.

**Layer normalisation** (:func:`layer_norm`) of a vector z ∈ ℝᵈ, with gain γ and bias β:

    LN(z) = γ ⊙ (z − μ) / √(σ² + ε) + β,     μ = mean(z),  σ² = mean((z − μ)²)  (biased).

**Sinusoidal positions** (:func:`sinusoidal_positions`, Vaswani et al. 2017), the fixed
alternative to the learned table P, for position t and pair i = 0 … d/2 − 1:

    PE[t, 2i] = sin(ω_i t),   PE[t, 2i+1] = cos(ω_i t),   ω_i = base^{−2i/d}  (base = 10000),

wavelengths 2π/ω_i from 2π to almost 2π·base. For a fixed offset k, PE[t + k] is a
linear function of PE[t] (a rotation of each (sin, cos) pair by ω_i k), the same for
every t.

**The KV cache** (:class:`KVCache`). Generating reads the window again for every new
character, although the keys and values of the earlier positions do not change: the
mask keeps every position from seeing later ones. The cache keeps, per block, the keys
and values of the t positions read so far, (B, H, t, d_h) each; a new character computes
only its own row (its query, key and value per block, O(d²) projections and an O(t·d)
attention over the cached keys) instead of the whole prefix again. It holds 2·L·t·d
numbers. The learned positions stop at T: once the window is full and slides, every
position's number changes, so every key changes, and the cache starts again from the
last T characters.

**Parameters.** V·d (embedding, shared with the output) + T·d (positions)
+ L·(12d² + 13d) + 2d: per block 3d² + 3d (W_qkv) + d² + d (W_O) + 8d² + 5d (FFN)
+ 4d (two layer norms), and 2d for the final layer norm.

Shapes: ids (B, T) int64 → logits (B, T, V) in the model's dtype (float32 for training).
"""

from __future__ import annotations

import functools
import math
from dataclasses import asdict, dataclass

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from ..training import evaluating
from ..validation import (check_array, check_bool, check_choice, check_count, check_instance, check_memory,
                          check_number, check_optional, check_tensor, describe)
from .attention import MAX_LENGTH, merge_heads, scaled_dot_product_attention, split_heads

__all__ = ["TransformerConfig", "CharTransformer", "MultiHeadAttention", "attention_from_torch", "layer_norm",
           "sinusoidal_positions", "held_out_losses", "scored_windows", "load_checkpoint", "checkpoint_config",
           "training_record", "IMPLEMENTATIONS",
           "KVCache", "CHECKPOINT", "LOG_VALIDATION_CHARS", "HELD_OUT_STRIDE"]

#: How attention is computed: V.6's function written out ("book") or torch's fused kernel ("fused").
IMPLEMENTATIONS = ("fused", "book")


def layer_norm(x, weight=None, bias=None, eps=1e-5) -> torch.Tensor:
    """Layer normalisation over the last axis, ``γ ⊙ (x − μ) / √(σ² + ε) + β``.

    Parameters
    ----------
    x : (..., d) floating tensor; each row x[..., :] is normalised on its own
    weight : (d,) tensor γ of x's dtype, optional (ones)
    bias : (d,) tensor β of x's dtype, optional (zeros)
    eps : float > 0, added to the variance (σ² is the biased variance, as torch's)

    Returns
    -------
    (..., d) tensor; equal to ``torch.nn.functional.layer_norm(x, (d,), weight, bias, eps)``.

    >>> layer_norm(torch.tensor([[1.0, 2.0, 3.0]]), eps=1e-12)
    tensor([[-1.2247,  0.0000,  1.2247]])
    """
    x = check_tensor("x", x, min_ndim=1)
    d = x.shape[-1]
    for name, value in (("weight", weight), ("bias", bias)):
        if value is not None:
            check_tensor(name, value, min_ndim=1)
            if tuple(value.shape) != (d,) or value.dtype != x.dtype:
                raise ValueError(f"{name} must be a ({d},) tensor of x's dtype {x.dtype}, got shape "
                                 f"{tuple(value.shape)} and dtype {value.dtype}")
    eps = check_number("eps", eps, low=0.0, low_open=True)
    return _layer_norm(x, weight, bias, eps)


def _layer_norm(x, weight, bias, eps):
    # each whole-tensor operation is a pass through memory: as few as the formula allows
    mean = x.mean(dim=-1, keepdim=True)                                 # μ, (..., 1)
    centred = x - mean
    variance = torch.linalg.vector_norm(centred, dim=-1, keepdim=True) ** 2 / x.shape[-1]  # σ² = ‖z − μ‖²/d
    y = centred * torch.rsqrt(variance + eps)
    if weight is not None and bias is not None:
        return torch.addcmul(bias, y, weight)                           # β + γ ⊙ y in one pass
    if weight is not None:
        y = y * weight
    if bias is not None:
        y = y + bias
    return y


def sinusoidal_positions(length, width, base=10000.0, dtype=torch.float64) -> torch.Tensor:
    """Vaswani et al.'s fixed position codes: (length, width), PE[t, 2i] = sin(ω_i t),
    PE[t, 2i+1] = cos(ω_i t), ω_i = base^(−2i/width).

    ``width`` must be even; row t codes position t = 0 … length − 1.

    >>> sinusoidal_positions(2, 4, dtype=torch.float32).round(decimals=4)
    tensor([[0.0000, 1.0000, 0.0000, 1.0000],
            [0.8415, 0.5403, 0.0100, 1.0000]])
    """
    length = check_count("length", length, low=1, high=MAX_LENGTH)
    width = check_count("width", width, low=2, high=100_000)
    if width % 2:
        raise ValueError(f"width must be even (sin/cos pairs), got {width}")
    base = check_number("base", base, low=1.0, low_open=True, high=1e300)
    if not isinstance(dtype, torch.dtype) or dtype not in (torch.float32, torch.float64):
        raise TypeError(f"dtype must be torch.float32 or torch.float64, got {describe(dtype)}")
    check_memory("length and width", length * width)
    t = torch.arange(length, dtype=torch.float64)[:, None]                           # (length, 1)
    omega = base ** (-torch.arange(0, width, 2, dtype=torch.float64) / width)      # (width/2,)
    angles = t * omega                                                              # (length, width/2)
    return torch.stack([torch.sin(angles), torch.cos(angles)], dim=-1).reshape(length, width).to(dtype)


@dataclass(frozen=True)
class TransformerConfig:
    """The shape of a :class:`CharTransformer`.

    ``vocab_size`` V, ``context`` T (the longest window it reads), ``width`` d,
    ``layers`` L, ``heads`` H (d must be a multiple of H), ``dropout`` p (on attention
    weights, and on each residual branch's output, during training only).
    """

    vocab_size: int
    context: int = 256
    width: int = 192
    layers: int = 4
    heads: int = 4
    dropout: float = 0.1

    def __post_init__(self):
        limits = dict(vocab_size=1_000_000, context=MAX_LENGTH, width=65_536, layers=1_000, heads=65_536)
        for name, high in limits.items():
            object.__setattr__(self, name, check_count(name, getattr(self, name), low=1, high=high))
        object.__setattr__(self, "dropout", check_number("dropout", self.dropout, low=0.0, high=1.0,
                                                         high_open=True))
        if self.width % self.heads:
            raise ValueError(f"width must be a multiple of heads, got width={self.width}, heads={self.heads}")
        check_memory("vocab_size, context, width and layers", self.num_parameters(), itemsize=4)

    def num_parameters(self) -> int:
        """V·d + T·d + L·(12d² + 13d) + 2d, the formula of the module notes."""
        v, t, d, n = self.vocab_size, self.context, self.width, self.layers
        return v * d + t * d + n * (12 * d * d + 13 * d) + 2 * d

    def as_dict(self) -> dict:
        return asdict(self)


class MultiHeadAttention(nn.Module):
    """Multi-head attention of H heads over width d, in ``nn.MultiheadAttention``'s layout.

    ``qkv`` is the packed input projection (its weight (3d, d) holds W_Qᵀ, W_Kᵀ, W_Vᵀ
    stacked, as ``in_proj_weight``), ``out`` the output projection W_O; ``dropout`` p
    drops attention weights in training mode. Call it with

    * ``query`` (B, n_q, d), ``key`` and ``value`` (B, n_k, d) of the layer's dtype
      (``key`` defaults to ``query``, ``value`` to ``key``: self-attention);
    * ``mask``: boolean, V.6's convention **True = the key takes part**; shape
      (B, n_q, n_k) or anything broadcasting to it (e.g. V.6's ``padding_mask``
      (B, 1, n_k), or ``causal_mask`` (n_q, n_k)), or 4-d broadcasting to
      (B, H, n_q, n_k); ``nn.MultiheadAttention``'s masks are the negation ``~mask``;
    * ``is_causal``: also block the keys after each query (combined with ``mask``);
    * ``implementation``: "book" (V.6's attention, default) or "fused" (torch's kernel).

    Returns the (B, n_q, d) output, and with ``return_weights=True`` also the
    (B, H, n_q, n_k) attention weights of every head (the "book" path).
    """

    def __init__(self, width: int, heads: int, dropout: float = 0.0, bias: bool = True):
        super().__init__()
        self.width = check_count("width", width, low=1, high=65_536)
        self.heads = check_count("heads", heads, low=1, high=self.width)
        if self.width % self.heads:
            raise ValueError(f"width must be a multiple of heads, got width={self.width}, heads={self.heads}")
        self.dropout = check_number("dropout", dropout, low=0.0, high=1.0, high_open=True)
        bias = check_bool("bias", bias)
        check_memory("width", 4 * self.width * self.width, itemsize=4)
        self.qkv = nn.Linear(self.width, 3 * self.width, bias=bias)
        self.out = nn.Linear(self.width, self.width, bias=bias)

    def forward(self, query, key=None, value=None, mask=None, *, is_causal=False, implementation="book",
                return_weights=False):
        """(B, n_q, d) output (and the (B, H, n_q, n_k) weights); see the class notes."""
        query = check_tensor("query", query, min_ndim=3)
        key = query if key is None else check_tensor("key", key, min_ndim=3)
        value = key if value is None else check_tensor("value", value, min_ndim=3)
        dtype = self.qkv.weight.dtype
        for name, x in (("query", query), ("key", key), ("value", value)):
            if x.ndim != 3 or x.shape[-1] != self.width or x.dtype != dtype:
                raise ValueError(f"{name} must be a (B, n, {self.width}) tensor of the layer's dtype {dtype}, got "
                                 f"shape {tuple(x.shape)} and dtype {x.dtype}")
        if key.shape[0] != query.shape[0] or value.shape[:2] != key.shape[:2]:
            raise ValueError(f"query {tuple(query.shape)}, key {tuple(key.shape)} and value {tuple(value.shape)} "
                             "must share the batch axis, and key and value the sequence axis")
        is_causal = check_bool("is_causal", is_causal)
        implementation = check_choice("implementation", implementation, IMPLEMENTATIONS)
        return_weights = check_bool("return_weights", return_weights)
        if return_weights and implementation != "book":
            raise ValueError("return_weights=True needs implementation='book' (the fused kernel keeps no weights)")
        if mask is not None:
            if not isinstance(mask, torch.Tensor) or mask.dtype != torch.bool:
                raise TypeError(f"mask must be a boolean torch tensor (True: the key takes part), got "
                                f"{describe(mask) if not isinstance(mask, torch.Tensor) else mask.dtype}")
            if mask.ndim > 4:
                raise ValueError(f"mask must have at most 4 axes (B, H, n_q, n_k), got shape {tuple(mask.shape)}")
            if mask.ndim < 4:                                         # (B, n_q, n_k) -> (B, 1, n_q, n_k)
                mask = mask.reshape((1,) * (3 - mask.ndim) + tuple(mask.shape)).unsqueeze(1)
            try:
                torch.broadcast_shapes(mask.shape, (query.shape[0], self.heads, query.shape[1], key.shape[1]))
            except RuntimeError:
                raise ValueError(f"mask of shape {tuple(mask.shape)} does not broadcast to (B, n_q, n_k) = "
                                 f"{(query.shape[0], query.shape[1], key.shape[1])}") from None
            allowed = mask & torch.ones(query.shape[1], key.shape[1], dtype=torch.bool).tril() if is_causal else mask
            if not bool(allowed.any(dim=-1).all()):  # both implementations refuse a row with no key (0/0)
                raise ValueError("mask blocks every key for some query row: its softmax is 0/0; unblock a key")
        return self._attend(query, key, value, mask, is_causal, implementation, return_weights)

    def _attend(self, query, key, value, mask=None, is_causal=False, implementation="fused", return_weights=False):
        """The computation of :meth:`forward`, unchecked (the model's blocks call it)."""
        d = self.width
        if key is query and value is query:                       # self-attention: one product, cut in three
            q, k, v = self.qkv(query).split(d, dim=-1)            # each (B, n, d)
        else:
            w, b = self.qkv.weight, self.qkv.bias
            q, k, v = (F.linear(x, w[i * d:(i + 1) * d], None if b is None else b[i * d:(i + 1) * d])
                       for i, x in enumerate((query, key, value)))
        p = self.dropout if self.training else 0.0
        if implementation == "fused":
            b, t = query.shape[:2]
            q, k, v = (z.view(b, z.shape[1], self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
            if mask is not None and is_causal:                    # torch takes one or the other: combine them
                mask, is_causal = mask & torch.ones(t, k.shape[2], dtype=torch.bool, device=mask.device).tril(), False
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=is_causal, dropout_p=p)
            return self.out(y.transpose(1, 2).reshape(b, t, d))
        q, k, v = (split_heads(z, self.heads) for z in (q, k, v))  # (B, H, n, d/H)
        y, weights = scaled_dot_product_attention(q, k, v, mask, is_causal=is_causal)
        if p:
            y = F.dropout(weights, p) @ v                            # dropout on the weights, as torch's
        y = self.out(merge_heads(y))                                 # (B, n_q, d)
        return (y, weights) if return_weights else y


    def _extend(self, x, past=None):
        """Causal self-attention of n new positions ``x`` (B, n, d) that follow the t positions
        whose keys and values ``past`` = (K, V), each (B, H, t, d/H), holds (None: t = 0).
        Returns the (B, n, d) output and the keys and values of all t + n positions."""
        b, n, d = x.shape
        q, k, v = (z.view(b, n, self.heads, d // self.heads).transpose(1, 2)   # each (B, H, n, d/H)
                   for z in self.qkv(x).split(d, dim=-1))
        if past is not None:
            k, v = torch.cat([past[0], k], dim=2), torch.cat([past[1], v], dim=2)  # (B, H, t + n, d/H)
        t = k.shape[2] - n
        mask = None if n == 1 else torch.ones(n, t + n, dtype=torch.bool).tril(diagonal=t)  # new i sees ≤ t + i
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        return self.out(y.transpose(1, 2).reshape(b, n, d)), (k, v)


def attention_from_torch(source) -> MultiHeadAttention:
    """A :class:`MultiHeadAttention` with the weights of a ``torch.nn.MultiheadAttention``.

    The source must project query, key and value to its own width (no ``kdim``/``vdim``),
    without ``add_bias_kv`` or ``add_zero_attn``; ``batch_first`` does not matter (the
    book's layer is batch first). The copy has the source's dtype, dropout and mode.
    """
    source = check_instance("source", source, nn.MultiheadAttention)
    if not source._qkv_same_embed_dim or source.bias_k is not None or source.add_zero_attn:
        raise ValueError("source must project query, key and value to embed_dim, without add_bias_kv or "
                         "add_zero_attn")
    has_bias = source.in_proj_bias is not None
    weight = source.in_proj_weight
    layer = MultiHeadAttention(source.embed_dim, source.num_heads, source.dropout, bias=has_bias)
    layer = layer.to(dtype=weight.dtype, device=weight.device)
    with torch.no_grad():
        layer.qkv.weight.copy_(weight)
        layer.out.weight.copy_(source.out_proj.weight)
        if has_bias:
            layer.qkv.bias.copy_(source.in_proj_bias)
            layer.out.bias.copy_(source.out_proj.bias)
    return layer.train(source.training)


class Block(nn.Module):
    """One pre-norm transformer block: h + Attn(LN h), then + FFN(LN ·)."""

    def __init__(self, config: TransformerConfig):
        super().__init__()
        d = config.width
        self.norm1, self.attention = nn.LayerNorm(d), MultiHeadAttention(d, config.heads, config.dropout)
        self.norm2 = nn.LayerNorm(d)
        self.feed_forward = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
        self.drop = nn.Dropout(config.dropout)

    def forward(self, h: torch.Tensor, implementation: str = "fused", return_weights: bool = False):
        """(B, T, d) → (B, T, d), and with ``return_weights`` (the "book" path) the (B, H, T, T) weights."""
        if implementation == "book":          # the same block through the book's layer norm and attention
            norm = lambda n, z: _layer_norm(z, n.weight, n.bias, n.eps)  # noqa: E731
        else:
            norm = lambda n, z: n(z)  # noqa: E731
        z = norm(self.norm1, h)
        attended = self.attention._attend(z, z, z, is_causal=True, implementation=implementation,
                                          return_weights=return_weights)
        attended, weights = attended if return_weights else (attended, None)
        h = h + self.drop(attended)
        h = h + self.drop(self.feed_forward(norm(self.norm2, h)))
        return (h, weights) if return_weights else h


    def extend(self, h: torch.Tensor, past=None):
        """:meth:`forward` for n new positions h (B, n, d) after the t cached ones (evaluation
        mode: no dropout): the (B, n, d) output and the block's keys and values for t + n."""
        attended, past = self.attention._extend(self.norm1(h), past)
        h = h + attended
        return h + self.feed_forward(self.norm2(h)), past


class CharTransformer(nn.Module):
    """The decoder-only transformer of the module notes: ids (B, T ≤ context) → logits (B, T, V).

    ``forward(ids, implementation="fused")`` runs the blocks' attention through torch's
    fused kernel; ``implementation="book"`` runs the same weights through V.6's
    attention and :func:`layer_norm` (equal logits, to rounding). The weights are drawn
    from torch's global generator (seed it first) and initialised as GPT-2's.
    """

    def __init__(self, config: TransformerConfig):
        super().__init__()
        self.config = check_instance("config", config, TransformerConfig)
        self.embedding = nn.Embedding(config.vocab_size, config.width)
        self.position = nn.Embedding(config.context, config.width)
        self.drop = nn.Dropout(config.dropout)
        self.blocks = nn.ModuleList(Block(config) for _ in range(config.layers))
        self.norm = nn.LayerNorm(config.width)
        self._init_weights()

    def _init_weights(self) -> None:
        """GPT-2's: every matrix N(0, 0.02²), biases 0, layer-norm gains 1; the projections
        back into the residual stream (W_O and the FFN's W₂) scaled by 1/√(2L), so that the
        stream's variance does not grow with depth (each block adds two branches)."""
        for name, p in self.named_parameters():
            if p.dim() == 1:
                nn.init.zeros_(p) if name.endswith("bias") else nn.init.ones_(p)
            else:
                std = 0.02 / math.sqrt(2 * self.config.layers) if name.endswith(("out.weight", "2.weight")) else 0.02
                nn.init.normal_(p, 0.0, std)

    @property
    def vocab_size(self) -> int:
        return self.config.vocab_size

    @property
    def order(self) -> int:
        """T + 1, as an n-gram model that reads T symbols: what :func:`~mmir_lib.lm.sampling.generate`
        passes to :meth:`next_distribution` is the last T symbols."""
        return self.config.context + 1

    def _check_ids(self, ids: object) -> torch.Tensor:
        if not isinstance(ids, torch.Tensor) or ids.dtype not in (torch.int64, torch.int32):
            raise TypeError(f"ids must be an int64 (or int32) torch tensor, got "
                            f"{describe(ids) if not isinstance(ids, torch.Tensor) else ids.dtype}")
        if ids.ndim != 2 or ids.numel() == 0:
            raise ValueError(f"ids must be a nonempty (B, T) tensor, got shape {tuple(ids.shape)}")
        if ids.shape[1] > self.config.context:
            raise ValueError(f"ids must be at most context={self.config.context} long, got {ids.shape[1]}")
        low, high = torch.aminmax(ids)
        if low < 0 or high >= self.config.vocab_size:
            raise ValueError(f"ids must lie in [0, {self.config.vocab_size}), found {int(low)} … {int(high)}")
        return ids

    def forward(self, ids: torch.Tensor, implementation: str = "fused") -> torch.Tensor:
        """(B, T) integer ids in [0, V), T ≤ context → (B, T, V) logits of the next character."""
        ids = self._check_ids(ids)
        implementation = check_choice("implementation", implementation, IMPLEMENTATIONS)
        h = self.drop(self.embedding(ids) + self.position.weight[:ids.shape[1]])
        for block in self.blocks:
            h = block(h, implementation)
        if implementation == "book":
            h = _layer_norm(h, self.norm.weight, self.norm.bias, self.norm.eps)
        else:
            h = self.norm(h)
        return h @ self.embedding.weight.T  # tied output layer, (B, T, V)

    def attention_weights(self, ids: torch.Tensor) -> torch.Tensor:
        """Every head's causal attention weights over a window, read in evaluation mode:
        (B, T) ids → (L, B, H, T, T); entry [ℓ, b, h, i, j] is what position i of block ℓ's
        head h takes from position j ≤ i (each row sums to 1)."""
        ids = self._check_ids(ids)
        with evaluating(self):
            h, weights = self.embedding(ids) + self.position.weight[:ids.shape[1]], []
            for block in self.blocks:
                h, w = block(h, "book", return_weights=True)
                weights.append(w)
        return torch.stack(weights)

    def next_distribution(self, context, pad: int = 1) -> np.ndarray:
        """P[· | context]: (V,) float64 after the ids ``context`` (0 to T of them). A context
        shorter than T is read as the start of a text, after the id ``pad`` (the newline
        that ends a speech), as :func:`held_out_losses` reads the stream; T ids are read as
        they are. The interface of Part III's models, so that
        :func:`~mmir_lib.lm.sampling.generate` samples from the transformer."""
        context = check_array("context", context, kind="int", ndim=1, low=0, high=self.vocab_size - 1)
        pad = check_count("pad", pad, high=self.vocab_size - 1)
        if len(context) > self.config.context:
            raise ValueError(f"context holds {len(context)} ids, more than the model's context of "
                             f"{self.config.context}: pass the last {self.config.context}")
        window = context if len(context) == self.config.context else np.concatenate([[pad], context])
        with evaluating(self):
            logits = self(torch.from_numpy(window.astype(np.int64))[None])[0, -1]
        return torch.softmax(logits.double(), dim=-1).numpy()

    def num_parameters(self) -> int:
        return sum(p.numel() for p in self.parameters())


class KVCache:
    """A :class:`CharTransformer` that keeps the keys and values of what it has read.

    :meth:`append` reads new ids after the ones read so far, at the next positions, and
    returns their (n, V) logits, equal to the last n rows of ``model(all ids read)`` (to
    float rounding); it computes only the new rows. :meth:`next_distribution` gives the
    cached model the interface of Part III's models, so that
    :func:`~mmir_lib.lm.sampling.generate` samples from it: it reads the window
    ``model.next_distribution`` would read (the ``pad`` id, then the context, while the
    context is shorter than T), appending only what extends the ids already read; a
    window that does not extend them (a new text, or the sliding window once the context
    is full) empties the cache and is read whole. Runs in evaluation mode, without
    gradients; one sequence (B = 1).
    """

    def __init__(self, model: CharTransformer, pad: int = 1):
        self.model = check_instance("model", model, CharTransformer)
        self.pad = check_count("pad", pad, high=model.vocab_size - 1)
        self.reset()

    @property
    def vocab_size(self) -> int:
        return self.model.vocab_size

    @property
    def order(self) -> int:
        return self.model.order

    def reset(self) -> None:
        """Forget everything read: the next :meth:`append` starts at position 0."""
        self.ids: list[int] = []
        self.past = [None] * self.model.config.layers     # per block (K, V), each (1, H, t, d/H)
        self._last = None                                 # the logits after the last id read, (V,)

    @property
    def floats(self) -> int:
        """How many numbers the cache holds: 2·L·t·d (keys and values of t positions in L blocks)."""
        return sum(k.numel() + v.numel() for k, v in filter(None, self.past))

    def append(self, ids) -> torch.Tensor:
        """Read ``ids`` (n,) at positions t … t + n − 1 after the t read so far (t + n ≤ T):
        their next-character logits, (n, V) float32."""
        model = self.model
        ids = check_array("ids", ids, kind="int", ndim=1, nonempty=True, low=0, high=model.vocab_size - 1)
        t, n = len(self.ids), len(ids)
        if t + n > model.config.context:
            raise ValueError(f"ids would fill {t} + {n} positions, more than the model's context of "
                             f"{model.config.context}: reset() and read the last {model.config.context}")
        with evaluating(model), torch.no_grad():
            h = model.embedding(torch.from_numpy(ids.astype(np.int64))[None]) + model.position.weight[t:t + n]
            for i, block in enumerate(model.blocks):
                h, self.past[i] = block.extend(h, self.past[i])     # (1, n, d)
            logits = model.norm(h)[0] @ model.embedding.weight.T     # (n, V)
        self.ids += ids.tolist()
        self._last = logits[-1]
        return logits

    def next_distribution(self, context, pad: int | None = None) -> np.ndarray:
        """P[· | context], (V,) float64, as :meth:`CharTransformer.next_distribution` gives it
        (``pad`` defaults to the cache's), reading only what extends the cached ids."""
        model = self.model
        context = check_array("context", context, kind="int", ndim=1, low=0, high=model.vocab_size - 1)
        pad = self.pad if pad is None else check_count("pad", pad, high=model.vocab_size - 1)
        if len(context) > model.config.context:
            raise ValueError(f"context holds {len(context)} ids, more than the model's context of "
                             f"{model.config.context}: pass the last {model.config.context}")
        window = context.tolist() if len(context) == model.config.context else [pad] + context.tolist()
        t = len(self.ids)
        if not (t <= len(window) and window[:t] == self.ids and (t < len(window) or self._last is not None)):
            self.reset()
            t = 0
        if t < len(window):
            self.append(np.array(window[t:], dtype=np.int64))
        return torch.softmax(self._last.double(), dim=-1).numpy()


def held_out_losses(model: CharTransformer, ids: object, start: int, stride: int | None = None,
                    batch_size: int = 16) -> np.ndarray:
    """−ln P[x_j | context] in nats for every symbol of ``ids`` (N,), as the held-out table wants.

    The stream is read as if it followed the symbol ``start`` (the newline that ends a
    speech): the model sees S = [start, x_1, …, x_N] and predicts x_j = S[j] from the
    symbols before it. Windows of W = min(T, N) inputs (T = context) start at
    s = 0, stride, 2·stride, … and, last, at N − W; window s reads S[s : s + W] and
    predicts S[s + 1 … s + W]. Each symbol is scored by the *first* window that predicts
    it: the first window scores all W, every later one at most its last ``stride``, so
    x_j is predicted from the j − s symbols S[s : j], at least min(j, T − stride + 1)
    of them. With ``stride`` = 1 every symbol gets its full context min(j, T); larger
    strides cost about T/stride times fewer windows. ``stride`` ∈ [1, T − 1], T/2 by
    default; ``batch_size`` windows go through the model at once (the result does not
    depend on it). Returns float64 (N,).
    """
    batches = scored_windows(model, ids, start, stride, batch_size)
    losses = np.empty(len(ids))
    for windows, _, nats in batches:
        for row, (s, end, first) in enumerate(windows):
            losses[first:end] = nats[row, first - s:]
    return losses


def scored_windows(model: CharTransformer, ids: object, start: int, stride: int | None = None,
                   batch_size: int = 16):
    """The windows :func:`held_out_losses` reads, run through ``model`` (in evaluation
    mode, without gradients): an iterator over batches of up to ``batch_size`` windows,
    each a triple

    * ``windows``: a list of b triples (s, end, first): the window reads S[s : s + W],
      predicts x_{s+1} … x_end and is the first to predict x_{first+1} … x_end, the
      symbols ``ids[first:end]``, at its rows ``first − s:``;
    * ``logits`` (b, W, V), the model's output;
    * ``nats`` (b, W) float64, −ln P of each next symbol.

    A caller that wants more than the losses (a layer's states, through a forward hook)
    reads them from here. The arguments are those of :func:`held_out_losses` and are
    checked at once, before the first window is run.
    """
    model, ids, stream, stride, batch_size = _check_stream(model, ids, start, stride, batch_size)
    return _run_windows(model, stream, _windows(len(ids), model.config.context, stride, batch_size))


def _run_windows(model, stream, batches):
    with evaluating(model):
        for batch in batches:
            width = batch[0][1] - batch[0][0]
            windows = torch.stack([stream[s:s + width + 1] for s, _, _ in batch])  # (b, W + 1)
            logits = model(windows[:, :-1])                                        # (b, W, V)
            nats = F.cross_entropy(logits.transpose(1, 2), windows[:, 1:], reduction="none").double().numpy()
            yield batch, logits, nats


def _check_stream(model, ids, start, stride, batch_size):
    """The checks of a function that reads a stream as :func:`held_out_losses` does: the
    model, ids (N,) in its vocabulary, ``start``, ``stride`` and ``batch_size``; returns
    them with the stream S = [start] + ids as an int64 tensor (N + 1,)."""
    model = check_instance("model", model, CharTransformer)
    vocab, context = model.config.vocab_size, model.config.context
    ids = check_array("ids", ids, ndim=1, kind="int", nonempty=True, low=0, high=vocab - 1)
    start = check_count("start", start, high=vocab - 1)
    stride = check_optional(check_count, "stride", stride, low=1, high=max(1, context - 1))
    batch_size = check_count("batch_size", batch_size, low=1, high=100_000)
    stream = torch.from_numpy(np.concatenate([[start], ids]).astype(np.int64))
    return model, ids, stream, stride, batch_size


def _windows(n: int, context: int, stride: int | None, batch_size: int):
    """The windows of :func:`held_out_losses` over a stream of n symbols, in batches of
    ``batch_size``: per window (s, end, first), it reads S[s : s + W] (W = min(T, n)),
    predicts x_{s+1} … x_end (end = s + W) and scores x_{first+1} … x_end, the symbols
    no earlier window predicted (indices into ids: ``first:end``; rows ``first − s:`` of
    its outputs)."""
    stride = max(1, context // 2) if stride is None else stride
    width = min(context, n)
    starts = list(range(0, n - width + 1, stride))
    if starts[-1] != n - width:
        starts.append(n - width)
    scored, windows = 0, []
    for s in starts:
        windows.append((s, s + width, scored))
        scored = s + width
    for i in range(0, len(windows), batch_size):
        yield windows[i:i + batch_size]


#: Where ``tools/train_char_transformer.py`` writes the chapter's model (inside the package).
CHECKPOINT = "checkpoints/char_transformer.pt"
#: The training log's validation loss is measured on this many first validation characters.
LOG_VALIDATION_CHARS = 40_000
#: The stride at which the book scores the checkpoint on held-out text (:func:`held_out_losses`
#: with T = 256: every character read with at least 33 characters of context).
HELD_OUT_STRIDE = 224


@functools.lru_cache(maxsize=1)
def _saved_checkpoint() -> dict:
    from importlib.resources import files

    with files("mmir_lib").joinpath(CHECKPOINT).open("rb") as handle:
        return torch.load(handle, weights_only=True)


def load_checkpoint() -> CharTransformer:
    """The character transformer trained by ``tools/train_char_transformer.py``, from
    ``mmir_lib/checkpoints/char_transformer.pt``: its float16 weights in a float32 model,
    in evaluation mode (the file is read once; each call builds a fresh model)."""
    saved = _saved_checkpoint()
    model = CharTransformer(TransformerConfig(**saved["config"]))
    model.load_state_dict({name: value.float() for name, value in saved["weights"].items()})
    return model.eval()


def checkpoint_config() -> dict:
    """The shape of the checkpoint's model, as ``TransformerConfig.as_dict()`` gives it."""
    return dict(_saved_checkpoint()["config"])


def training_record() -> dict:
    """What the training script stored beside the weights: ``steps``, ``tokens`` (characters
    read, steps × batch × context) and ``log``, a list of dicts with the ``step``, the
    learning rate ``lr``, the mean training loss since the last entry ``train_bits`` and the
    ``validation_bits`` on the first :data:`LOG_VALIDATION_CHARS` validation characters, both in bits per
    character, and the wall-clock ``minutes`` since the run (or its last resumption) began."""
    saved = _saved_checkpoint()
    return {"steps": saved["steps"], "tokens": saved["tokens"], "log": [dict(entry) for entry in saved["log"]]}
