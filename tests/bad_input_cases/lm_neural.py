"""Bad-input cases for Part III's neural n-gram models (mmir_lib.lm.neural)."""

import numpy as np
import torch

from mmir_lib.lm import neural
from tests.api_fuzz import Case

MODEL = neural.NeuralNGram(vocab_size=6, order=3, dim=2, hidden=4)
BATCH = torch.tensor([[0, 1, 2], [3, 4, 5]])

CASES = [
    Case(neural.BigramLM, dict(vocab_size=4)),
    Case(neural.NeuralNGram, dict(vocab_size=6, order=3, dim=2, hidden=4, seed=1), accepts={"seed": {"zero"}}),
    Case(neural.count_loss, dict(model=neural.BigramLM(3), counts=torch.ones(3, 3))),
    Case(neural.next_symbol_loss, dict(model=MODEL, batch=BATCH)),
    Case(neural.window_batches, dict(ids=np.array([0, 1, 2, 3, 4, 5, 1]), order=3, batch_size=2, pad=1, seed=1,
                                     max_batches=2),
         accepts={"pad": {"none", "zero"}, "seed": {"zero"}, "max_batches": {"none"}}),
    Case(neural.parameter_count, dict(model=MODEL)),
    Case(neural.ngram_table_size, dict(vocab_size=5, order=3)),
]
