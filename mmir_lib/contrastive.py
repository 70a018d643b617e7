"""Contrastive losses over a batch of matched pairs: InfoNCE and CLIP's symmetric loss.

Two parts of the book train an encoder by telling each matched pair apart from the other
pairs of its batch: VI.1's bi-encoder (a pseudo-query and the rest of its speech) and
VI.3's dual encoder (a digit canvas and its caption). Both use the same loss.

**InfoNCE** (van den Oord et al. 2018) with in-batch negatives, for queries q (B, d) and
documents d (M, d), M >= B, row i of the documents the positive of query i:

    L = −(1/B) Σ_i log( exp(s_ii) / Σ_j exp(s_ij) ) = (1/B) Σ_i [logsumexp_j s_ij − s_ii],
    s_ij = q_i · d_j / τ,

the cross-entropy of a B-way (or M-way) classification whose correct class is i; τ is
the temperature.

**CLIP's symmetric loss** (Radford et al. 2021) for B images x (B, d) and their B
captions t (B, d), both unit vectors, with a learnt logit scale s = exp(log_scale)
(= 1/τ):

    L = ½ [ InfoNCE(s·x, t, 1) + InfoNCE(s·t, x, 1) ],

image-to-text plus text-to-image: the mean of the cross-entropies of the logit matrix
s · x tᵀ along its rows and along its columns, the correct class on the diagonal. CLIP
learns log s (not s: it stays positive) and clamps s at 100 so that the logits cannot grow
without bound (:data:`MAX_LOGIT_SCALE`).
"""

from __future__ import annotations

import math

import torch

from .validation import check_number, check_tensor

__all__ = ["MAX_LOGIT_SCALE", "info_nce", "logit_scale", "clip_loss"]

#: CLIP's ceiling on the logit scale s = 1/τ (a temperature of at least 0.01).
MAX_LOGIT_SCALE = 100.0


def info_nce(queries, documents, temperature: float = 0.1):
    """InfoNCE with in-batch negatives, written out: (1/B) Σ_i [logsumexp_j s_ij − s_ii],
    s_ij = q_i · d_j / τ.

    queries : (B, d); documents : (M, d), M >= B, row i the positive of query i, rows
    B … M − 1 extra negatives (hard negatives) shared by every query.
    """
    queries = check_tensor("queries", queries, ndim=2)
    documents = check_tensor("documents", documents, ndim=2)
    temperature = check_number("temperature", temperature, low=0, low_open=True)
    if documents.shape[0] < queries.shape[0] or documents.shape[1] != queries.shape[1]:
        raise ValueError(f"documents must be (M >= {queries.shape[0]}, {queries.shape[1]}) for queries "
                         f"{tuple(queries.shape)}, got {tuple(documents.shape)}")
    scores = queries @ documents.T / temperature
    positive = scores.diagonal()
    return (torch.logsumexp(scores, dim=1) - positive).mean()


def logit_scale(log_scale):
    """s = exp(min(log_scale, log 100)): the learnt 0-dimensional ``log_scale`` turned into
    CLIP's logit scale, clamped at :data:`MAX_LOGIT_SCALE` (no gradient above the clamp)."""
    log_scale = check_tensor("log_scale", log_scale, ndim=0)
    return log_scale.clamp(max=math.log(MAX_LOGIT_SCALE)).exp()


def clip_loss(images, texts, log_scale):
    """CLIP's symmetric contrastive loss, ½ [InfoNCE(s·x, t, 1) + InfoNCE(s·t, x, 1)] with
    s = :func:`logit_scale` (``log_scale``): image i should pick caption i among the B
    captions of the batch, and caption i image i among the B images.

    images, texts : (B, d) embeddings (unit vectors in CLIP), row i of each a matched pair;
    log_scale : 0-dimensional tensor (learnt). Returns a 0-dimensional tensor.
    """
    images = check_tensor("images", images, ndim=2)
    texts = check_tensor("texts", texts, ndim=2)
    if images.shape != texts.shape:
        raise ValueError(f"images and texts must have the same shape (B, d), got {tuple(images.shape)} and "
                         f"{tuple(texts.shape)}")
    scale = logit_scale(log_scale)
    return (info_nce(scale * images, texts, 1.0) + info_nce(scale * texts, images, 1.0)) / 2
