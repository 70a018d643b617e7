"""Bad-input cases for V.6's scaled dot-product attention, its masks and head reshapes
(mmir_lib.lm.attention)."""

import torch

from mmir_lib.lm import attention
from tests.api_fuzz import Case

Q, K, V = torch.zeros(2, 3, 4), torch.ones(2, 5, 4), torch.ones(2, 5, 2)

CASES = [
    Case(attention.scaled_dot_product_attention,
         dict(query=Q, key=K, value=V, mask=torch.ones(3, 5, dtype=torch.bool), is_causal=False, scale=0.5,
              fully_masked="error"),
         accepts={"mask": {"none"}, "is_causal": {"bool"}, "scale": {"none", "huge_int", "huge_float"}}),
    Case(attention.causal_mask, dict(n_q=3, n_k=4), accepts={"n_k": {"none"}}),
    Case(attention.padding_mask, dict(lengths=[2, 3], max_length=4), accepts={"max_length": {"none"}}),
    Case(attention.split_heads, dict(x=torch.zeros(2, 3, 4), num_heads=2)),
    Case(attention.merge_heads, dict(x=torch.zeros(2, 2, 3, 2))),
]
