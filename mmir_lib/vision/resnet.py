"""Residual blocks (Part V.2): a deep plain network against the same depth with skips.

A **residual block** (He, Zhang, Ren and Sun, 2016) adds its input to the output of two
3 × 3 convolutions (same padding, ``width`` channels in and out) before the last ReLU:

    z1 = W1 * a + b1,   a1 = ReLU(z1),   z2 = W2 * a1 + b2,   a_out = ReLU(z2 + a)

(the course notes' a[l+2] = g(z[l+2] + a[l])). Its **plain** twin has the same layers and
parameters and leaves the skip out: a_out = ReLU(z2). Shapes: (N, width, H, W) in and
out. With W1 = W2 = 0 and zero biases the residual block gives ReLU(a), which is a itself
for the non-negative a that a ReLU layer feeds it: a residual block can always fall back
to the identity, and the gradient has a path around every block,

    ∂a_out/∂a = diag(ReLU'(z2 + a)) (I + ∂z2/∂a),

where a plain block has only the product of its layers' Jacobians.

:func:`deep_conv_net` stacks such blocks between a stem and a classifier:

    conv 3 × 3, stride 2 (in_channels → width) → ReLU → max pool 2        28 × 28 → 7 × 7
    (depth − 2)/2 blocks, plain or residual                               (N, width, 7, 7)
    flatten → dense width·7·7 → n_classes                                 (N, n_classes)

so that ``depth`` counts the weighted layers (convolutions and the dense layer), as He
et al. count ResNet-20. :func:`layer_gradient_norms` reads ‖∂L/∂W‖ of every
weighted layer after a backward pass.
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from ..validation import check_bool, check_choice, check_count, check_instance, check_memory
from .conv import conv_output_size

__all__ = ["INITS", "ResidualBlock", "deep_conv_net", "weighted_layers", "layer_gradient_norms"]


class ResidualBlock(nn.Module):
    """Two 3 × 3 same convolutions of ``width`` channels: a_out = ReLU(W2 * ReLU(W1 * a + b1)
    + b2 + a) with ``skip=True`` (residual), a_out = ReLU(W2 * ReLU(W1 * a + b1) + b2)
    with ``skip=False`` (plain). (N, width, H, W) in and out; 2·(9·width² + width)
    parameters either way."""

    def __init__(self, width: int, skip: bool = True):
        width = check_count("width", width, low=1, high=4096)
        skip = check_bool("skip", skip)
        super().__init__()
        self.skip = skip
        self.conv1 = nn.Conv2d(width, width, kernel_size=3, padding=1)
        self.conv2 = nn.Conv2d(width, width, kernel_size=3, padding=1)

    def forward(self, a):
        z2 = self.conv2(F.relu(self.conv1(a)))
        return F.relu(z2 + a) if self.skip else F.relu(z2)

    def extra_repr(self) -> str:
        return f"skip={self.skip}"


INITS = ("default", "he")


def deep_conv_net(depth: int, width: int = 16, residual: bool = True, n_classes: int = 10,
                  in_channels: int = 1, image_size: int = 28, init: str = "default") -> nn.Sequential:
    """A ``depth``-layer convolutional classifier for 28 × 28 images: stem conv 3 × 3 stride 2
    → ReLU → max pool 2, then (depth − 2)/2 :class:`ResidualBlock` s (``skip=residual``),
    flattened to a vector, and a dense layer to ``n_classes`` logits.

    ``depth`` (even, >= 4) counts the convolutions and the dense layer. Input (N,
    ``in_channels``, H, W), output (N, n_classes). The plain and the residual network of
    the same arguments have the same layers and parameter count, and the same initial
    weights when built after the same ``torch.manual_seed``.

    ``init="default"`` keeps torch's initialisation (weights uniform with variance
    1/(3 n_in), n_in = k² C_in or the dense layer's inputs); ``init="he"`` draws every
    weight from N(0, 2/n_in) (``kaiming_normal_(mode="fan_in", nonlinearity="relu")``,
    Chapter IV.4) and sets every bias to 0.
    """
    depth = check_count("depth", depth, low=4, high=1000)
    if depth % 2:
        raise ValueError(f"depth must be even (stem + 2 per block + dense layer), got {depth}")
    width = check_count("width", width, low=1, high=4096)
    residual = check_bool("residual", residual)
    n_classes = check_count("n_classes", n_classes, low=2, high=100_000)
    in_channels = check_count("in_channels", in_channels, low=1, high=1000)
    image_size = check_count("image_size", image_size, low=4, high=100_000)
    init = check_choice("init", init, INITS)
    check_memory("width", (depth - 2) * (9 * width * width + width), itemsize=4)  # the blocks' float32 weights
    side = conv_output_size(conv_output_size(image_size, 3, stride=2, padding=1), 2, stride=2)
    blocks = [ResidualBlock(width, skip=residual) for _ in range((depth - 2) // 2)]
    model = nn.Sequential(nn.Conv2d(in_channels, width, kernel_size=3, stride=2, padding=1), nn.ReLU(),
                          nn.MaxPool2d(2), *blocks, nn.Flatten(), nn.Linear(width * side * side, n_classes))
    if init == "he":
        for _, layer in weighted_layers(model):
            nn.init.kaiming_normal_(layer.weight, mode="fan_in", nonlinearity="relu")
            nn.init.zeros_(layer.bias)
    return model


def weighted_layers(model) -> list[tuple[str, nn.Module]]:
    """The ``Conv2d`` and ``Linear`` layers of ``model`` as (name, layer), in the order they
    are defined (for :func:`deep_conv_net`: input side first)."""
    check_instance("model", model, nn.Module)
    layers = [(name, m) for name, m in model.named_modules() if isinstance(m, (nn.Conv2d, nn.Linear))]
    if not layers:
        raise ValueError("model must contain at least one torch.nn.Conv2d or torch.nn.Linear layer")
    return layers


def layer_gradient_norms(model) -> np.ndarray:
    """‖∂L/∂W_l‖ (Frobenius norm, float64) of the weight W_l of every weighted layer l of
    ``model``, in :func:`weighted_layers`' order, from the gradients the last
    ``loss.backward()`` left in ``.grad``. Biases are left out.

    Raises ValueError if a layer has no gradient (no backward pass yet).
    """
    norms = []
    for name, layer in weighted_layers(model):
        if layer.weight.grad is None:
            raise ValueError(f"model has no gradient in layer {name!r}: call loss.backward() first")
        norms.append(float(torch.linalg.vector_norm(layer.weight.grad.detach().double())))
    return np.array(norms)
