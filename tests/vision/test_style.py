"""Gram matrices, content and style costs, style transfer (mmir_lib.vision.style)."""

import numpy as np
import pytest
import torch

from mmir_lib.vision.style import content_cost, gram_matrix, style_cost, style_transfer


def test_gram_matrix_by_its_definition():
    a = torch.randn(5, 4, 3, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    loops = torch.zeros(5, 5, dtype=torch.float64)
    for k in range(5):
        for k2 in range(5):
            for i in range(4):
                for j in range(3):
                    loops[k, k2] += a[k, i, j] * a[k2, i, j]
    assert (gram_matrix(a) - loops).abs().max() < 1e-12


def test_costs_by_their_definitions():
    g = torch.Generator().manual_seed(1)
    c, x = (torch.randn(3, 4, 4, generator=g, dtype=torch.float64) for _ in range(2))
    assert abs(content_cost(c, x) - 0.5 * ((c - x) ** 2).sum()) < 1e-12 and content_cost(c, c) == 0
    s2, x2 = (torch.randn(6, 2, 2, generator=g, dtype=torch.float64) for _ in range(2))
    expected = sum(w * ((gram_matrix(s) - gram_matrix(y)) ** 2).sum() / (2 * s.numel()) ** 2
                   for w, s, y in ((0.3, c, x), (2.0, s2, x2)))
    assert abs(style_cost([c, s2], [x, x2], [0.3, 2.0]) - expected) < 1e-12
    assert style_cost([c], [c.flip(1)], [1.0]) < 1e-20          # moving features around keeps the Gram matrix


def test_style_transfer_lowers_the_cost():
    torch.manual_seed(0)
    conv = torch.nn.Conv2d(1, 4, 3, padding=1)
    features = lambda x: [torch.relu(conv(x))]  # noqa: E731
    rng = np.random.default_rng(0)
    content, style = rng.random((16, 16)), rng.random((16, 16)) ** 4
    image, costs = style_transfer(features, content, style, 0, [1.0], beta=1e4, steps=30, lr=0.01)
    assert image.shape == (16, 16) and 0 <= image.min() and image.max() <= 1 and len(costs) == 30

    def style_of(x):
        with torch.no_grad():
            return style_cost([features(torch.tensor(style, dtype=torch.float32)[None, None])[0][0]],
                              [features(torch.tensor(x, dtype=torch.float32)[None, None])[0][0]], [1.0])

    assert style_of(image) < 0.5 * style_of(content)
    with pytest.raises(ValueError, match="content must be at least 16"):
        style_transfer(features, np.zeros((8, 8)), np.zeros((16, 16)), 0, [1.0])
