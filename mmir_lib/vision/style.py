"""Content and style costs and neural style transfer (Gatys et al. 2016; Part V.3).

Let a^[l] be the activation of layer l of a trained convolutional network, of shape
(n_C, n_H, n_W) (channels first, as torch stores it). The **content cost** of a
generated image G against a content image C at layer l is

    J_content(C, G) = ½ ‖a^[l](C) − a^[l](G)‖²_F .

The **Gram matrix** of an activation holds the correlations between its channels,
summed over the positions (where a feature occurs is forgotten, which features occur
together is kept: a texture):

    G_kk' = Σ_i Σ_j a_kij a_k'ij,      G = A Aᵀ with A the (n_C, n_H·n_W) unrolled map.

The **style cost** of G against a style image S at layer l, and over several layers
with weights λ^[l], is

    J_style^[l](S, G) = ‖G(S) − G(G)‖²_F / (2 n_C n_H n_W)²,
    J_style(S, G) = Σ_l λ^[l] J_style^[l](S, G),

and style transfer minimises J(G) = α J_content(C, G) + β J_style(S, G) over the
**pixels** of G (the network's weights stay fixed), starting from the content image.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import torch

from ..validation import check_array, check_callable, check_count, check_instance, check_number, check_tensor

__all__ = ["gram_matrix", "content_cost", "style_cost", "style_transfer"]


def _check_map(name: str, a) -> None:
    check_instance(name, a, torch.Tensor)
    if a.ndim != 3:
        raise ValueError(f"{name} must be one activation of shape (n_C, n_H, n_W), got {tuple(a.shape)}")
    check_tensor(name, a, ndim=3)  # floating point, finite, no empty axis


def gram_matrix(a):
    """The (n_C, n_C) Gram matrix A Aᵀ of an activation of shape (n_C, n_H, n_W)."""
    _check_map("a", a)
    return _gram(a)


def _gram(a):
    """:func:`gram_matrix` of a checked activation."""
    flat = a.reshape(a.shape[0], -1)
    return flat @ flat.T


def content_cost(a_content, a_generated):
    """½ ‖a(C) − a(G)‖²_F of two activations of the same shape (n_C, n_H, n_W)."""
    _check_map("a_content", a_content)
    _check_map("a_generated", a_generated)
    if a_content.shape != a_generated.shape:
        raise ValueError(f"a_content and a_generated must have the same shape, got {tuple(a_content.shape)} "
                         f"and {tuple(a_generated.shape)}")
    return _content_cost(a_content, a_generated)


def _content_cost(a_content, a_generated):
    """:func:`content_cost` of checked activations."""
    return 0.5 * ((a_content - a_generated) ** 2).sum()


def style_cost(a_style: Sequence, a_generated: Sequence, weights: Sequence[float]):
    """Σ_l λ_l ‖G(a_style[l]) − G(a_generated[l])‖²_F / (2 n_C n_H n_W)² over the layers."""
    weights = check_array("weights", weights, ndim=1, nonempty=True, low=0.0)
    for name, maps in (("a_style", a_style), ("a_generated", a_generated)):
        if not isinstance(maps, (list, tuple)) or len(maps) != len(weights):
            raise ValueError(f"{name} must be a list of one activation per weight ({len(weights)})")
        for a in maps:
            _check_map(name, a)
    for s, g in zip(a_style, a_generated):
        if s.shape[0] != g.shape[0]:
            raise ValueError(f"a_style and a_generated must have the same channels, got {s.shape[0]} and {g.shape[0]}")
    return _style_cost(a_style, a_generated, weights)


def _style_cost(a_style: Sequence, a_generated: Sequence, weights: np.ndarray):
    """:func:`style_cost` of checked activations and weights."""
    total = 0.0
    for s, g, w in zip(a_style, a_generated, weights):
        n_c, n_h, n_w = g.shape
        total = total + w * ((_gram(s) - _gram(g)) ** 2).sum() / (2 * n_c * n_h * n_w) ** 2
    return total


def style_transfer(features: Callable, content, style, content_layer: int, style_weights: Sequence[float],
                   alpha: float = 1.0, beta: float = 1e3, steps: int = 150, lr: float = 0.02,
                   seed: int = 0) -> tuple[np.ndarray, list[float]]:
    """Minimise α J_content + β J_style over the pixels of a grey image, with Adam.

    Parameters
    ----------
    features : ``features(x)`` -> list of activations (1, n_C, n_H, n_W) of a fixed
        network for an image x of shape (1, 1, H, W) float32.
    content, style : (H, W) grey images in [0, 1] (the style image may differ in size).
    content_layer : which activation of ``features`` carries the content.
    style_weights : λ_l for each activation of ``features`` (0 leaves a layer out).
    steps, lr : Adam steps on the pixels and their learning rate; pixels are kept in
        [0, 1] after each step. The start is the content image.

    Returns the generated (H, W) float64 image and the cost after each step.
    """
    check_callable("features", features)
    content = check_array("content", content, ndim=2, low=0.0, high=1.0, nonempty=True)
    style = check_array("style", style, ndim=2, low=0.0, high=1.0, nonempty=True)
    for name, image in (("content", content), ("style", style)):
        if min(image.shape) < 16:
            raise ValueError(f"{name} must be at least 16 × 16 pixels, got {image.shape}")
    content_layer = check_count("content_layer", content_layer)
    style_weights = check_array("style_weights", style_weights, ndim=1, nonempty=True, low=0.0)
    if content_layer >= len(style_weights):
        raise ValueError(f"content_layer must index one of the {len(style_weights)} layers, got {content_layer}")
    alpha = check_number("alpha", alpha, low=0.0)
    beta = check_number("beta", beta, low=0.0)
    steps = check_count("steps", steps, low=1, high=100_000)
    lr = check_number("lr", lr, low=0.0, low_open=True, high=1e3)
    check_count("seed", seed, high=2**63 - 1)
    as_batch = lambda image: torch.from_numpy(image.astype(np.float32))[None, None]  # noqa: E731
    with torch.no_grad():
        target_content = features(as_batch(content))[content_layer][0]
        target_style = [a[0] for a in features(as_batch(style))]
    if len(target_style) != len(style_weights):
        raise ValueError(f"style_weights must give one weight per activation of features ({len(target_style)}), "
                         f"got {len(style_weights)}")
    generated = as_batch(content).clone().requires_grad_(True)
    optimizer = torch.optim.Adam([generated], lr=lr)
    costs = []
    torch.manual_seed(seed)
    for _ in range(steps):
        maps = [a[0] for a in features(generated)]
        cost = alpha * _content_cost(target_content, maps[content_layer]) + \
            beta * _style_cost(target_style, maps, style_weights)
        optimizer.zero_grad()
        cost.backward()
        optimizer.step()
        with torch.no_grad():
            generated.clamp_(0.0, 1.0)
        costs.append(float(cost.detach()))
    return generated.detach()[0, 0].double().numpy(), costs
