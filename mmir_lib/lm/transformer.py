"""A decoder-only character transformer: the language model of V.7.

The model reads a window of T characters x_1 … x_T and predicts, at every position t,
the next character from x_1 … x_t only:

    h⁰_t = E[x_t] + P[t]                                  token embedding + learned position, (T, d)
    a^ℓ  = h^{ℓ−1} + Attn^ℓ(LN(h^{ℓ−1}))                  causal multi-head self-attention
    h^ℓ  = a^ℓ + FFN^ℓ(LN(a^ℓ))                            position-wise feed-forward, width 4d
    P[x_{t+1} | x_{≤t}] = softmax(LN(h^L_t) Eᵀ)           the output layer shares E (tied weights)

with L blocks, each a *pre-norm* residual block: the layer norm sits inside the branch,
so the residual stream h carries the embeddings through unnormalised and every block
adds to it. Attention over H heads of width d/H is

    Attn(X) = concat_h softmax(Q_h K_hᵀ / √(d/H) + M) V_h · W_O,     Q_h = X W_Q^h, …

where M is the causal mask (−∞ above the diagonal: no position sees the future). The
product with the weights is torch's ``scaled_dot_product_attention``, which V.6 shows
equal to the book's own attention; here its fused kernel buys speed.

Shapes: ids (B, T) int64 → logits (B, T, V) float32. Parameters: V·d (embedding,
shared with the output) + T·d (positions) + L·(12d² + 13d) + 2d.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from ..validation import check_array, check_count, check_instance, check_number

__all__ = ["TransformerConfig", "CharTransformer", "held_out_losses"]


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
        for name in ("vocab_size", "context", "width", "layers", "heads"):
            check_count(name, getattr(self, name), low=1)
        check_number("dropout", self.dropout, low=0.0, high=1.0, high_open=True)
        if self.width % self.heads:
            raise ValueError(f"width must be a multiple of heads, got width={self.width}, heads={self.heads}")

    def as_dict(self) -> dict:
        return asdict(self)


class CausalSelfAttention(nn.Module):
    """H heads of causal scaled dot-product attention over a (B, T, d) stream."""

    def __init__(self, config: TransformerConfig):
        super().__init__()
        self.heads, self.dropout = config.heads, config.dropout
        self.qkv = nn.Linear(config.width, 3 * config.width)
        self.out = nn.Linear(config.width, config.width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=2)  # each (B, T, d)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))  # (B, H, T, d/H)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True, dropout_p=self.dropout if self.training else 0.0)
        return self.out(y.transpose(1, 2).reshape(b, t, d))


class Block(nn.Module):
    """One pre-norm transformer block: h + Attn(LN h), then + FFN(LN ·)."""

    def __init__(self, config: TransformerConfig):
        super().__init__()
        d = config.width
        self.norm1, self.attention = nn.LayerNorm(d), CausalSelfAttention(config)
        self.norm2 = nn.LayerNorm(d)
        self.feed_forward = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
        self.drop = nn.Dropout(config.dropout)

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        h = h + self.drop(self.attention(self.norm1(h)))
        return h + self.drop(self.feed_forward(self.norm2(h)))


class CharTransformer(nn.Module):
    """The decoder-only transformer of the module notes: ids (B, T ≤ context) → logits (B, T, V)."""

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
        """GPT-2's: every matrix N(0, 0.02²), biases 0; the projections back into the
        residual stream scaled by 1/√(2L), so that the stream's variance does not grow
        with depth (each block adds two branches)."""
        for name, p in self.named_parameters():
            if p.dim() == 1:
                nn.init.zeros_(p) if name.endswith("bias") else nn.init.ones_(p)
            else:
                std = 0.02 / math.sqrt(2 * self.config.layers) if name.endswith(("out.weight", "2.weight")) else 0.02
                nn.init.normal_(p, 0.0, std)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        b, t = ids.shape
        if t > self.config.context:
            raise ValueError(f"ids must be at most context={self.config.context} long, got {t}")
        h = self.drop(self.embedding(ids) + self.position.weight[:t])
        for block in self.blocks:
            h = block(h)
        return self.norm(h) @ self.embedding.weight.T  # tied output layer, (B, T, V)

    def num_parameters(self) -> int:
        return sum(p.numel() for p in self.parameters())


@torch.no_grad()
def held_out_losses(model: CharTransformer, ids: object, start: int, stride: int | None = None,
                    batch_size: int = 16) -> np.ndarray:
    """−ln P[x_t | context] in nats for every symbol of ``ids`` (N,), as the held-out table wants.

    The stream is read as if it followed the symbol ``start`` (the newline that ends a
    speech): the model sees [start, x_1, …, x_N]. Windows of T = context symbols are
    slid along it ``stride`` < T at a time (default T/2); the first window scores all its
    predictions, every later one only its last ``stride``, so that each symbol is
    predicted once, from at least T − stride symbols of context once the stream is
    that long. Returns float64 (N,).
    """
    model = check_instance("model", model, CharTransformer)
    ids = check_array("ids", ids, ndim=1, kind="int", nonempty=True, low=0, high=model.config.vocab_size - 1)
    start = check_count("start", start, high=model.config.vocab_size - 1)
    context = model.config.context
    stride = context // 2 if stride is None else check_count("stride", stride, low=1, high=context - 1)
    batch_size = check_count("batch_size", batch_size, low=1)
    stream = torch.from_numpy(np.concatenate([[start], ids]))
    n = len(ids)
    # Window w reads stream[s_w : s_w + T] and scores targets s_w + T − m_w + 1 … s_w + T (m_w of them).
    starts = list(range(0, max(n + 1 - context, 0) + 1, stride))
    if starts[-1] + context < n + 1:
        starts.append(n + 1 - context)
    was_training = model.training
    model.eval()
    losses = np.empty(n)
    scored = 0  # targets 1 … scored are done
    try:
        for first in range(0, len(starts), batch_size):
            chunk = starts[first:first + batch_size]
            length = min(context, n + 1)
            windows = torch.stack([stream[s:s + length] for s in chunk])  # (b, length)
            logits = model(windows[:, :-1])  # predicts windows[:, 1:]
            nll = F.cross_entropy(logits.transpose(1, 2), windows[:, 1:], reduction="none").double().numpy()
            for row, s in enumerate(chunk):
                end = s + length - 1  # the last target index (1-based in the stream) this window predicts
                new = end - scored
                losses[scored:end] = nll[row, length - 1 - new:]
                scored = end
    finally:
        model.train(was_training)
    return losses
