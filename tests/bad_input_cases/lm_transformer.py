"""Bad-input cases for V.7's transformer: its configuration and model, multi-head attention,
layer norm, sinusoidal positions, the held-out losses and the checkpoint loaders (mmir_lib.lm.transformer)."""

import numpy as np
import torch

from mmir_lib.lm import transformer
from tests.api_fuzz import Case

CONFIG = transformer.TransformerConfig(vocab_size=7, context=8, width=8, layers=1, heads=2, dropout=0.0)
MODEL = transformer.CharTransformer(CONFIG)
LAYER = transformer.MultiHeadAttention(4, 2)
X = torch.randn(2, 3, 4, generator=torch.Generator().manual_seed(0))
_HUGE = {"huge_int", "huge_float"}

CASES = [
    Case(transformer.TransformerConfig, dict(vocab_size=7, context=8, width=8, layers=1, heads=2, dropout=0.1),
         accepts={"dropout": {"zero"}}),
    Case(transformer.CharTransformer, dict(config=CONFIG)),
    Case(MODEL.forward, dict(ids=torch.tensor([[1, 2, 3]]), implementation="book")),
    Case(MODEL.attention_weights, dict(ids=torch.tensor([[1, 2, 3]]))),
    Case(MODEL.next_distribution, dict(context=np.array([1, 2, 3]), pad=1),
         accepts={"pad": {"zero"}, "context": {"empty_list"}}),  # an empty context: the start of a text
    Case(transformer.MultiHeadAttention, dict(width=4, heads=2, dropout=0.1, bias=True),
         accepts={"dropout": {"zero"}, "bias": {"bool"}}),
    Case(LAYER.forward, dict(query=X, key=X[:, :2], value=X[:, :2], mask=torch.tensor([True, False]),
                             is_causal=False, implementation="fused", return_weights=False),
         accepts={"key": {"none"}, "value": {"none"}, "mask": {"none"}, "is_causal": {"bool"}}),
    Case(transformer.attention_from_torch, dict(source=torch.nn.MultiheadAttention(4, 2))),
    Case(transformer.layer_norm, dict(x=X, weight=torch.ones(4), bias=torch.zeros(4), eps=1e-5),
         accepts={"weight": {"none"}, "bias": {"none"}, "eps": _HUGE}),
    Case(transformer.sinusoidal_positions, dict(length=5, width=4, base=10000.0, dtype=torch.float32),
         accepts={"base": {"huge_int", "huge_float"}}),
    Case(transformer.held_out_losses, dict(model=MODEL, ids=np.array([1, 2, 3, 4, 5, 6, 0, 1, 2]), start=1, stride=3,
                                           batch_size=2),
         accepts={"stride": {"none"}, "start": {"zero"}}),
    Case(transformer.scored_windows, dict(model=MODEL, ids=np.array([1, 2, 3, 4, 5, 6, 0, 1, 2]), start=1, stride=3,
                                          batch_size=2),
         accepts={"stride": {"none"}, "start": {"zero"}}),
    Case(transformer.KVCache, dict(model=MODEL, pad=1), accepts={"pad": {"zero"}}),
    Case(transformer.KVCache(MODEL).append, dict(ids=np.array([1, 2, 3]))),
    Case(transformer.KVCache(MODEL).next_distribution, dict(context=np.array([1, 2, 3]), pad=1),
         accepts={"pad": {"zero", "none"}, "context": {"empty_list"}}),
    Case(transformer.load_checkpoint, dict()),
    Case(transformer.training_record, dict()),
    Case(transformer.checkpoint_config, dict()),
]
