"""What an optimizer's step allocates beside the gradients, by runner and optim name (c-under7, issue 26): data.

torch.optim.AdamW's foreach path (torch/optim/adamw.py, adam.py since 2.6: _multi_tensor_adamw) makes
exp_avg_sq_sqrt = torch._foreach_sqrt(device_exp_avg_sqs), one temporary the size of the whole second moment; it is
what the HF Trainer's `adamw_torch` runs (torch picks foreach for GPU tensors when neither foreach nor fused is given).
transformers' own AdamW (`adamw_hf`, optimization.py AdamW.step: denom = exp_avg_sq.sqrt().add_(eps)) makes it one
parameter at a time. `adamw_torch_fused` steps in place."""
from __future__ import annotations

# runners whose optimizer is the HF Trainer's `optim` (default adamw_torch)
FOREACH_ADAMW_RUNNERS = ("hf", "llamafactory", "ms-swift")
# the Trainer's optim names -> the AdamW step's square-root temporary (TrainConfig.adam_sqrt_temp)
ADAM_SQRT_TEMP = {"adamw_torch": "foreach", "adamw_hf": "per_param"}
# the Trainer's optim when the config names none
DEFAULT_TRAINER_OPTIM = "adamw_torch"
