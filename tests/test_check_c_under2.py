"""c-under2 (issue 26, check's under-count side): the ChatGLM family's remote code (modeling_chatglm.py of
THUDM/chatglm2-6b, chatglm3-6b, glm-4-9b(-chat), glm-4v-9b) computes its own loss whenever labels are given:

    lm_logits = lm_logits.to(torch.float32)
    shift_logits = lm_logits[..., :-1, :].contiguous()
    loss = CrossEntropyLoss(ignore_index=-100)(shift_logits.view(-1, V), shift_labels.view(-1))
    lm_logits = lm_logits.to(hidden_states.dtype)

In training the fp32 logits, the shifted fp32 copy, the saved fp32 log-softmax and the 16-bit cast back are alive at
once: 4 + 4 + 4 + 2 = 14 B per logit in 16-bit compute, where transformers' loss holds 2 + 4 + 4 = 10. Under no_grad
(evaluation) the log-softmax is freed inside cross_entropy: 4 + 4 + 4 = 12 at its peak. In fp32 both .to() return the
tensor itself: 12, as for every fp32 model. The configs below are written here (not corpus cases); the expected bytes
are these formulas."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from rocm_tune.cli import main
from rocm_tune.core.check import check
from rocm_tune.core.memory import loss_copies
from rocm_tune.core.memory.estimate import TrainConfig, estimate
from rocm_tune.core.model.architecture import load_model


def _step(model, cfg: TrainConfig) -> int:
    return estimate(model, cfg).per_gpu.peak_allocated_bytes


# a long sequence and the GLM-4 vocabulary (151552): the end of the forward is the step's peak in both models
LONG = TrainConfig(method="lora", precision="bf16", cutoff_len=16384, micro_batch=1, runner="builtin")


def test_glm4_step_peak_is_the_end_of_its_own_loss():
    """With transformers' loss the long-sequence step peaks in the loss's backward (fp32 log-softmax kept + its
    incoming gradient + the gradient of its input: 12 B per logit); with the remote loss the end of the forward
    (14 B per logit) is higher: the step goes up by 2 B per logit."""
    glm = load_model("glm-4-9b-chat")
    assert glm.family == "chatglm"
    same_shape = replace(glm, family="glm")            # the native transformers port (THUDM/glm-4-9b-chat-hf)
    diff = _step(glm, LONG) - _step(same_shape, LONG)
    logits = LONG.micro_batch * LONG.cutoff_len * glm.vocab_size
    assert abs(diff - (14 - 12) * logits) <= 512, (diff, 2 * logits)
    note = next(n for n in estimate(glm, LONG).notes if "remote code computes its own loss" in n)
    assert "14 B per logit" in note and f"{logits:,} logits" in note and f"{4 * logits / 2**30:.2f} GiB" in note


def test_chatglm3_micro_batch_scales_the_extra():
    m = load_model("chatglm3-6b")
    cfg = replace(LONG, cutoff_len=8192, micro_batch=2)
    diff = _step(m, cfg) - _step(replace(m, family="glm"), cfg)
    assert abs(diff - 2 * 2 * 8192 * m.vocab_size) <= 512


@pytest.mark.parametrize("family, compute, training, extra", [
    ("chatglm", 2, True, 4), ("chatglm", 2, False, 2), ("chatglm", 4, True, 0), ("chatglm", 4, False, 0),
    ("llama", 2, True, 0), ("glm", 2, True, 0), ("qwen2", 2, False, 0),
])
def test_extra_bytes_per_logit_by_family_dtype_and_phase(family, compute, training, extra):
    m = replace(load_model("chatglm3-6b"), family=family)
    assert loss_copies.extra_bytes_per_logit(m, compute, training) == extra


def test_fp32_chatglm_counts_nothing_more():
    m = load_model("chatglm3-6b")
    cfg = replace(LONG, precision="fp32", cutoff_len=4096)
    assert _step(m, cfg) == _step(replace(m, family="glm"), cfg)
    assert not any("remote code computes its own loss" in n for n in estimate(m, cfg).notes)


def test_eval_forward_of_chatglm_holds_twelve_bytes_per_logit():
    m = load_model("glm-4-9b-chat")
    cfg = replace(LONG, cutoff_len=4096, runner="llamafactory")
    tokens = 3 * 4096
    hidden = tokens * m.hidden_size * 2 * 4
    assert check._logits_eval(m, cfg, 3) == tokens * m.vocab_size * 12 + hidden
    assert check._logits_eval(replace(m, family="glm"), cfg, 3) == tokens * m.vocab_size * 10 + hidden


# ------------------------------------------------------------------------------------------------- the CLI
LF_GLM4 = """### model
model_name_or_path: THUDM/glm-4-9b-chat
trust_remote_code: true
### method
stage: sft
do_train: true
finetuning_type: lora
lora_target: all
### dataset
dataset: my_long_docs
template: glm4
cutoff_len: {cutoff}
### train
per_device_train_batch_size: 1
gradient_accumulation_steps: 16
learning_rate: 1.0e-4
num_train_epochs: 2.0
bf16: true
output_dir: saves/glm4-lora
"""


def _check(capsys, tmp_path: Path, cutoff: int) -> dict:
    p = tmp_path / "glm4_lora.yaml"
    p.write_text(LF_GLM4.format(cutoff=cutoff))
    rc = main(["check", str(p), "--gpu", "rtx4090", "--json"])
    out = capsys.readouterr()
    assert rc in (0, 1), out.err
    return json.loads(out.out)


def test_cli_says_the_phase_and_the_bytes(tmp_path, capsys):
    d = _check(capsys, tmp_path, 8192)
    logits = 8192 * 151552
    assert d["understood"]["cutoff_len"] == 8192 and d["understood"]["precision"] == "bf16"
    note = next(n for n in d["notes"] if "remote code computes its own loss" in n)
    assert "modeling_chatglm.py" in note and "more there, in the step" in note
    assert f"{4 * logits / 2**30:.2f} GiB more" in note
    assert d["model"]["name"] == "glm-4-9b-chat"



@pytest.mark.parametrize("cfg", [
    replace(LONG, stage="dpo"),                           # DPO/ORPO/RM: the trainer takes log-probs from the logits
    replace(LONG, stage="sft", reference_model=True),     # LLaMA-Factory KTO/PPO: "sft" with a reference decision
    replace(LONG, stage="sft", reference_model=False),
    replace(LONG, fused_ce=True),                         # a fused loss: no [tokens, vocab] logits at all
])
def test_no_extra_where_the_trainer_computes_the_loss_itself(cfg):
    m = load_model("glm-4-9b-chat")
    assert _step(m, cfg) == _step(replace(m, family="glm"), cfg)
    assert not any("remote code computes its own loss" in n for n in estimate(m, cfg).notes)


def test_pretraining_counts_the_remote_loss_too():
    m = load_model("chatglm3-6b")
    cfg = replace(LONG, stage="pt", cutoff_len=8192)
    assert _step(m, cfg) - _step(replace(m, family="glm"), cfg) > 0
