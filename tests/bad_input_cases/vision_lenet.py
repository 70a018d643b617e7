"""Bad-input cases for Part V.2's LeNet-5 and its inspection helpers (mmir_lib.vision.lenet)."""

import numpy as np

from mmir_lib.vision import lenet
from tests.api_fuzz import Case


def _images():
    return np.random.default_rng(0).random((3, 1, 28, 28))


CASES = [
    Case(lenet.LeNet5, dict(n_classes=10, in_channels=1)),
    # a shift of 0 leaves the images as they are; seed 0 is a seed
    Case(lenet.shifted_copies, dict(images=_images()[:, 0], max_shift=2, seed=0),
         accepts={"max_shift": {"zero"}, "seed": {"zero"}}),
    Case(lenet.shifted_batches, dict(images=_images(), labels=[0, 1, 2], epoch=1, batch_size=2, max_shift=2),
         accepts={"epoch": {"zero"}, "max_shift": {"zero"}}),
    # one epoch of two tiny batches; decay_after 0 divides the step from the first epoch on
    Case(lenet.train_lenet, dict(images=_images(), labels=[0, 1, 2], epochs=1, lr=1e-3, decay_after=1, batch_size=2,
                                 validation=None, after_epoch=None),
         accepts={"decay_after": {"zero", "huge_int"}, "validation": {"none"}, "after_epoch": {"none"}}),
    Case(lenet.predict, dict(model=lenet.LeNet5(), images=_images(), batch_size=2)),
    Case(lenet.confusion_matrix, dict(labels=[0, 1, 2, 2], predicted=[0, 2, 2, 1], n_classes=3)),
    Case(lenet.feature_maps, dict(model=lenet.LeNet5(), images=_images())),
    Case(lenet.conv_filters, dict(model=lenet.LeNet5())),
]
