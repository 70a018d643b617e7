"""Bad-input cases for Part V.2's residual blocks and deep networks (mmir_lib.vision.resnet)."""

import torch

from mmir_lib.vision import resnet
from tests.api_fuzz import Case


def _net_with_gradients():
    torch.manual_seed(0)
    net = resnet.deep_conv_net(4, 2)
    net(torch.zeros(1, 1, 28, 28)).sum().backward()
    return net


CASES = [
    Case(resnet.ResidualBlock, dict(width=4, skip=True), accepts={"skip": {"bool"}}),
    Case(resnet.deep_conv_net, dict(depth=6, width=4, residual=False, n_classes=10, in_channels=1, image_size=28),
         accepts={"residual": {"bool"}}),
    Case(resnet.weighted_layers, dict(model=resnet.deep_conv_net(4, 2))),
    Case(resnet.layer_gradient_norms, dict(model=_net_with_gradients())),
]
