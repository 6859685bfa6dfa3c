"""`check` on the preference trainers that keep no reference model (issue 26, tenth session), from the sources:
TRL's ORPOTrainer and CPOTrainer (trl/trainer/orpo_trainer.py, cpo_trainer.py: concatenated_forward over chosen
and rejected, no ref_model argument at all; SimPO is CPOTrainer's loss_type="simpo"), TRL's CLI `trl orpo` / `trl
cpo`, and ms-swift's `swift rlhf --rlhf_type orpo|cpo|simpo` (swift/arguments/rlhf_args.py: a reference model only
for dpo/kto/ppo/grpo under full training; "CPO/ORPO or LoRA training does not require a ref_model").

A full-parameter DPO keeps a frozen 16-bit copy of the model; ORPO/CPO/SimPO do not, and both count chosen and
rejected in one batch - so the ORPO step is the DPO step less one copy of the weights, and more than the SFT step.
Programs and command lines written here in the form of TRL's examples and ms-swift's docs, not corpus files."""

from __future__ import annotations

import contextlib
import io
import json

import pytest

from rocm_tune.cli import main
from rocm_tune.core.model.architecture import load_model

SCRIPT = """from datasets import load_dataset
from transformers import AutoModelForCausalLM, AutoTokenizer
from trl import {cfg}, {trainer}

model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-1.5B-Instruct", torch_dtype="bfloat16")
tokenizer = AutoTokenizer.from_pretrained("Qwen/Qwen2.5-1.5B-Instruct")
train_dataset = load_dataset("trl-lib/ultrafeedback_binarized", split="train")

training_args = {cfg}(output_dir="Qwen2.5-1.5B-{name}", per_device_train_batch_size=2, max_length=1024,
                      gradient_checkpointing=True, bf16=True, logging_steps=10)
trainer = {trainer}(model=model, args=training_args, processing_class=tokenizer, train_dataset=train_dataset)
trainer.train()
"""

SWIFT = """CUDA_VISIBLE_DEVICES=0 \\
swift rlhf \\
    --rlhf_type {kind} \\
    --model Qwen/Qwen2.5-1.5B-Instruct \\
    --train_type full \\
    --dataset hjh0119/shareAI-Llama3-DPO-zh-en-emoji \\
    --torch_dtype bfloat16 \\
    --num_train_epochs 1 \\
    --per_device_train_batch_size 2 \\
    --learning_rate 1e-5 \\
    --gradient_checkpointing true \\
    --max_length 1024 \\
    --output_dir output
"""


def _check(tmp_path, name: str, text: str) -> dict:
    p = tmp_path / name
    p.write_text(text)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = main(["check", str(p), "--gpu", "a100-80gb", "--json"])
    assert rc in (0, 1), out.getvalue()
    return json.loads(out.getvalue())


def _step(d: dict) -> int:
    return d["memory"]["step"]["peak_allocated_bytes"]


def _weights_16bit(d: dict) -> float:
    return 2 * load_model(d["model"]["name"]).params.total


def test_trl_orpo_and_cpo_programs_keep_no_reference_copy(tmp_path):
    dpo = _check(tmp_path, "dpo.py", SCRIPT.format(cfg="DPOConfig", trainer="DPOTrainer", name="DPO"))
    sft = _check(tmp_path, "sft.py", SCRIPT.format(cfg="SFTConfig", trainer="SFTTrainer", name="SFT"))
    for cfg, trainer in (("ORPOConfig", "ORPOTrainer"), ("CPOConfig", "CPOTrainer")):
        d = _check(tmp_path, f"{trainer}.py", SCRIPT.format(cfg=cfg, trainer=trainer, name=trainer))
        assert any("no reference model" in a for a in d["assumptions"]), d["assumptions"]
        assert d["understood"]["stage"] == "dpo" and d["understood"]["reference_model"] is False
        # the frozen copy DPO keeps is the difference (within the activations' rounding)
        assert abs((_step(dpo) - _step(d)) - _weights_16bit(dpo)) < 0.05 * _weights_16bit(dpo)
        assert _step(sft) < _step(d) < _step(dpo)


@pytest.mark.parametrize("kind", ["orpo", "cpo", "simpo"])
def test_swift_rlhf_reference_free_kinds(tmp_path, kind):
    dpo = _check(tmp_path, "dpo.sh", SWIFT.format(kind="dpo"))
    d = _check(tmp_path, f"{kind}.sh", SWIFT.format(kind=kind))
    assert any(f"stage {kind}: chosen and rejected in one batch, no reference model" in a for a in d["assumptions"])
    assert abs((_step(dpo) - _step(d)) - _weights_16bit(dpo)) < 0.05 * _weights_16bit(dpo)


def test_trl_cli_orpo(tmp_path):
    base = ("trl {cmd} --model_name_or_path Qwen/Qwen2.5-1.5B-Instruct --dataset_name trl-lib/ultrafeedback_binarized "
            "--per_device_train_batch_size 2 --max_length 1024 --gradient_checkpointing --bf16 --output_dir out\n")
    dpo = _check(tmp_path, "dpo.sh", base.format(cmd="dpo"))
    orpo = _check(tmp_path, "orpo.sh", base.format(cmd="orpo"))
    assert _step(orpo) < _step(dpo)
    assert any("stage orpo" in a for a in orpo["assumptions"])



def test_trl_kto_keeps_a_reference_copy_under_full_training_only(tmp_path):
    sft = _check(tmp_path, "sft.py", SCRIPT.format(cfg="SFTConfig", trainer="SFTTrainer", name="SFT"))
    kto = _check(tmp_path, "kto.py", SCRIPT.format(cfg="KTOConfig", trainer="KTOTrainer", name="KTO"))
    assert kto["understood"]["reference_model"] is True
    # KTO's rows are SFT-shaped (one completion per row): the step is the SFT step plus the frozen 16-bit copy
    assert abs((_step(kto) - _step(sft)) - _weights_16bit(kto)) < 0.05 * _weights_16bit(kto)
    # precompute_ref_log_probs=True: no copy (trl/trainer/kto_trainer.py, dpo_trainer.py __init__)
    pre = SCRIPT.replace("logging_steps=10)", "logging_steps=10, precompute_ref_log_probs=True)")
    kto_pre = _check(tmp_path, "kto_pre.py", pre.format(cfg="KTOConfig", trainer="KTOTrainer", name="KTO"))
    dpo = _check(tmp_path, "dpo.py", SCRIPT.format(cfg="DPOConfig", trainer="DPOTrainer", name="DPO"))
    dpo_pre = _check(tmp_path, "dpo_pre.py", pre.format(cfg="DPOConfig", trainer="DPOTrainer", name="DPO"))
    assert kto_pre["understood"]["reference_model"] is False and dpo_pre["understood"]["reference_model"] is False
    assert abs((_step(dpo) - _step(dpo_pre)) - _weights_16bit(dpo)) < 0.05 * _weights_16bit(dpo)
    assert _step(kto_pre) == _step(sft)
