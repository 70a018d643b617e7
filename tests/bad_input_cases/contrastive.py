"""Bad-input cases for the contrastive losses shared by VI.1 and VI.3 (mmir_lib.contrastive)."""

import torch

from mmir_lib import contrastive
from tests.api_fuzz import Case

CASES = [
    Case(contrastive.info_nce, dict(queries=torch.eye(3, 4), documents=torch.eye(5, 4), temperature=0.1),
         accepts={"temperature": {"huge_int", "huge_float"}}),
    Case(contrastive.logit_scale, dict(log_scale=torch.tensor(2.0))),
    Case(contrastive.clip_loss, dict(images=torch.eye(3, 4), texts=torch.eye(3, 4), log_scale=torch.tensor(2.0))),
]
