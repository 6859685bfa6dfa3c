"""`check` on LLaMA-Factory runs that OOM'd where it said fits (issue 26, helper c-lf2). Rules from the source:

* `stage: orpo` of LLaMA-Factory v0.6.2-v0.7.1 (hparams/finetuning_args.py: stage Literal[..., "orpo"];
  train/orpo/workflow.py PairwiseDataCollatorWithPadding; train/orpo/trainer.py concatenated_forward: chosen and
  rejected in one batch, `.logits.to(torch.float32)`, reference_free, no reference model). v0.8.0 folded it into
  `stage: dpo` + `pref_loss: orpo`: the same step, so both spellings must be estimated alike.
* bitsandbytes' paged optimizers page only their own state buffers (bitsandbytes optim/optimizer.py
  get_state_buffer -> F.get_paged for tensors of >= 1e5 elements); under DeepSpeed ZeRO the fp32 master partition
  they step is DeepSpeed's plain device tensor (stage_1_and_2.py single_partition_of_fp32_groups, stage3.py
  fp32_partitioned_groups_flat): it does not page out, so it cannot make room for a step that is over the card.
Configs are LLaMA-Factory's own examples (examples/lora_single_gpu/llama3_lora_orpo.yaml @ v0.7.1,
examples/train_lora/llama3_lora_dpo.yaml @ v0.8.2) and scripts in the v0.6 README's form, not corpus files."""

from __future__ import annotations

import contextlib
import io
import json
from dataclasses import replace

from rocm_tune.cli import main
from rocm_tune.core.memory import estimate as mem
from rocm_tune.core.memory.estimate import TrainConfig, estimate
from rocm_tune.core.model.architecture import load_model

# examples/lora_single_gpu/llama3_lora_orpo.yaml @ v0.7.1, verbatim but for the method lines
ORPO_V071 = """# model
model_name_or_path: meta-llama/Meta-Llama-3-8B-Instruct

# method
{method}do_train: true
finetuning_type: lora
lora_target: q_proj,v_proj

# dataset
dataset: orca_rlhf
template: llama3
cutoff_len: 1024
max_samples: 1000
overwrite_cache: true
preprocessing_num_workers: 16

# output
output_dir: saves/llama3-8b/lora/orpo
logging_steps: 10
save_steps: 500
plot_loss: true
overwrite_output_dir: true

# train
per_device_train_batch_size: 1
gradient_accumulation_steps: 8
learning_rate: 0.00001
num_train_epochs: 3.0
lr_scheduler_type: cosine
warmup_steps: 0.1
fp16: true

# eval
val_size: 0.1
per_device_eval_batch_size: 1
evaluation_strategy: steps
eval_steps: 500
"""

# the v0.6.3 README's full-parameter form (`deepspeed --num_gpus 8 src/train_bash.py --deepspeed ds_config.json ...`)
SCRIPT = """deepspeed --num_gpus 8 src/train_bash.py \\
    --deepspeed ds_config.json \\
    --stage {stage} \\
    --do_train \\
    --model_name_or_path meta-llama/Meta-Llama-3-8B-Instruct \\
    --dataset comparison_gpt4_en \\
    --template llama3 \\
    --finetuning_type full \\
    --output_dir saves/llama3-8b/full/{stage} \\
    --per_device_train_batch_size 1 \\
    --gradient_accumulation_steps 8 \\
    --lr_scheduler_type cosine \\
    --learning_rate 5e-6 \\
    --num_train_epochs 1.0 \\
    --cutoff_len 4096 \\
    --bf16{flags}
"""

# examples/deepspeed/ds_z3_config.json (LLaMA-Factory), without its comments
DS_Z3 = {
    "train_batch_size": "auto", "train_micro_batch_size_per_gpu": "auto", "gradient_accumulation_steps": "auto",
    "gradient_clipping": "auto", "zero_allow_untested_optimizer": True,
    "fp16": {"enabled": "auto", "loss_scale": 0, "loss_scale_window": 1000, "initial_scale_power": 16,
             "hysteresis": 2, "min_loss_scale": 1},
    "bf16": {"enabled": "auto"},
    "zero_optimization": {"stage": 3, "overlap_comm": False, "contiguous_gradients": True, "sub_group_size": 1e9,
                          "reduce_bucket_size": "auto", "stage3_prefetch_bucket_size": "auto",
                          "stage3_param_persistence_threshold": "auto", "stage3_max_live_parameters": 1e9,
                          "stage3_max_reuse_distance": 1e9, "stage3_gather_16bit_weights_on_model_save": True},
}


def _check(tmp_path, files: dict[str, str], *args: str) -> dict:
    paths = []
    for name, text in files.items():
        p = tmp_path / name
        p.write_text(text)
        paths.append(str(p))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = main(["check", *paths, *args, "--json"])
    assert rc in (0, 1), out.getvalue()
    return json.loads(out.getvalue())


def _step(d: dict) -> int:
    return d["memory"]["step"]["peak_allocated_bytes"]


# ------------------------------------------------------------------------------------------------ stage orpo
def test_v07_stage_orpo_is_the_v08_dpo_step_with_pref_loss_orpo(tmp_path):
    old = _check(tmp_path, {"orpo.yaml": ORPO_V071.format(method="stage: orpo\n")}, "--gpu", "mi300x")
    new = _check(tmp_path, {"dpo.yaml": ORPO_V071.format(method="stage: dpo\npref_loss: orpo\n")}, "--gpu", "mi300x")
    sft = _check(tmp_path, {"sft.yaml": ORPO_V071.format(method="stage: sft\n")}, "--gpu", "mi300x")
    assert old["understood"]["stage"] == "dpo" and old["understood"]["reference_model"] is False
    assert _step(old) == _step(new)
    # chosen and rejected in one batch: twice the rows of the SFT step it was estimated as before
    assert _step(old) > _step(sft)
    assert any("stage orpo" in a and "no reference model" in a for a in old["assumptions"])
    assert not any("estimated as an SFT step" in a for a in old["assumptions"])


def test_full_orpo_script_keeps_no_reference_copy_full_dpo_does(tmp_path):
    ds = json.dumps(DS_Z3)
    orpo = _check(tmp_path, {"orpo.sh": SCRIPT.format(stage="orpo", flags=""), "ds_config.json": ds},
                  "--gpu", "a100-80gb", "--gpus", "8")
    dpo = _check(tmp_path, {"dpo.sh": SCRIPT.format(stage="dpo", flags=""), "ds_config.json": ds},
                 "--gpu", "a100-80gb", "--gpus", "8")
    sft = _check(tmp_path, {"sft.sh": SCRIPT.format(stage="sft", flags=""), "ds_config.json": ds},
                 "--gpu", "a100-80gb", "--gpus", "8")
    assert orpo["understood"]["stage"] == "dpo" and orpo["understood"]["reference_model"] is False
    assert dpo["understood"]["reference_model"] is True
    # the frozen reference copy is the only difference: a ZeRO-3 shard of 16-bit weights per GPU
    assert _step(sft) < _step(orpo) < _step(dpo)


# ------------------------------------------------------------------------------------------------ paged optimizer
def _cfg(**kw) -> TrainConfig:
    base = dict(method="full", precision="bf16", cutoff_len=4096, micro_batch=1, gpus=8, optim="paged_adamw")
    base.update(kw)
    return TrainConfig(**base)


def test_paged_state_is_bitsandbytes_state_only_under_zero():
    model = load_model("llama-3-8b")
    z3 = _cfg(zero_stage=3)
    est = estimate(model, z3)
    n = est.params_trainable
    # Adam's two fp32 moments, partitioned over the 8 ranks; the fp32 master partition (4 B) is not paged
    assert mem.paged_state_bytes(model, z3, est) == 8 * n / 8
    assert est.per_gpu.optimizer_bytes >= 12 * n / 8 - 2**20
    z2 = _cfg(zero_stage=2)
    assert mem.paged_state_bytes(model, z2, estimate(model, z2)) == 8 * n / 8
    # 8-bit paged Adam: two 1-byte moments and their block-wise absmax
    z3_8 = _cfg(zero_stage=3, optim="paged_adamw_8bit")
    assert abs(mem.paged_state_bytes(model, z3_8, estimate(model, z3_8)) - (2 + 8 / 2048) * n / 8) < 1
    # offloaded to the host: nothing of it on the GPU; a non-paged optimizer pages nothing
    off = _cfg(zero_stage=3, offload="optimizer")
    assert mem.paged_state_bytes(model, off, estimate(model, off)) == 0
    plain = _cfg(zero_stage=3, optim="adamw")
    assert mem.paged_state_bytes(model, plain, estimate(model, plain)) == 0


def test_paged_state_without_deepspeed_is_the_whole_optimizer_state():
    model = load_model("llama-3-8b")
    cfg = _cfg(method="lora", gpus=1, zero_stage=0)
    est = estimate(model, cfg)
    assert mem.paged_state_bytes(model, cfg, est) == est.per_gpu.optimizer_bytes > 0


def _z3_paged(tmp_path, vram_gib: float) -> dict:
    return _check(tmp_path, {"paged.sh": SCRIPT.format(stage="sft", flags=" \\\n    --optim paged_adamw_32bit"),
                             "ds_config.json": json.dumps(DS_Z3)}, "--vram-gib", f"{vram_gib:.3f}", "--gpus", "8")


def test_zero3_step_over_the_card_by_more_than_the_paged_state_is_oom(tmp_path):
    big = _z3_paged(tmp_path, 200)
    step = big["memory"]["step"]["reserved_bytes"]
    model = load_model("llama-3-8b")
    cfg = replace(_cfg(zero_stage=3), cutoff_len=4096)
    paged = mem.paged_state_bytes(model, cfg, estimate(model, cfg))
    master = 4 * estimate(model, cfg).params_trainable / 8
    frag = 1 + mem._FRAGMENTATION
    # a card the step exceeds by more than the paged Adam state (+ fragmentation) but less than state + master:
    # counting DeepSpeed's master partition as pageable called this `fits` (paged-spill)
    over = (paged * frag + (paged + master) * frag) / 2
    d = _z3_paged(tmp_path, (step - over) / 2**30)
    assert d["verdict"] == "oom" and d["oom_phase"] == "step"
    assert not any(f["code"] == "paged-spill" for f in d["findings"])
    # within the paged state it still pages instead of failing
    within = _z3_paged(tmp_path, (step - 0.5 * paged) / 2**30)
    assert within["verdict"] == "fits"
    assert any(f["code"] == "paged-spill" for f in within["findings"])
    note = next(f for f in within["findings"] if f["code"] == "paged-optimizer")
    assert "fp32 master partition beside it is not paged" in note["message"]
