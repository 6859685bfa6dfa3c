"""The loss's logits where the source says how they are built (helper c-loss). Liger's patched forward skips the
logits only in training with labels (linkedin/Liger-Kernel src/liger_kernel/transformers/model/llama.py
`skip_logits = self.training and (labels is not None ...)`); TRL's DPOTrainer.concatenated_forward calls the model
without labels (trl v0.12-v0.23 dpo_trainer.py). torchtitan compiles its cross-entropy when compile.enable and
"loss" in compile.components (torchtitan/train.py, components/loss.py); Primus' torchtitan pre_trainer.yaml sets
compile.enable true. Every file is written for the test from those sources; none is a corpus case."""

from __future__ import annotations

import json
from pathlib import Path

from rocm_tune.cli import main
from rocm_tune.core import formats
from rocm_tune.core.runners import torchtitan

AX = """base_model: meta-llama/Llama-3.2-3B
plugins:
  - axolotl.integrations.liger.LigerPlugin
liger_rms_norm: true
liger_glu_activation: true
liger_fused_linear_cross_entropy: {flce}
{stage}
datasets:
  - path: ./data.jsonl
    split: train
    type: {dtype}
sequence_len: 2048
micro_batch_size: 4
bf16: true
gradient_checkpointing: true
flash_attention: true
optimizer: adamw_torch
learning_rate: 5e-7
"""


def _check(tmp_path: Path, name: str, text: str, capsys, *extra: str) -> dict:
    p = tmp_path / name
    p.write_text(text)
    rc = main(["check", str(p), *extra, "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc in (0, 1), out
    return out


def _step(out: dict) -> int:
    return int(out["memory"]["step"]["peak_allocated_bytes"])


def _fused_note(out: dict) -> bool:
    return any("fused cross-entropy" in str(n) for n in out.get("notes") or [])


def test_liger_fused_ce_saves_nothing_in_axolotl_dpo(tmp_path, capsys):
    # axolotl's DPO runs TRL's DPOTrainer (no labels to the model): Liger's flag changes nothing at the logits
    dpo_on = _check(tmp_path, "d1.yaml", AX.format(flce="true", stage="rl: dpo", dtype="chatml.intel"), capsys,
                    "--gpu", "mi300x")
    dpo_off = _check(tmp_path, "d0.yaml", AX.format(flce="false", stage="rl: dpo", dtype="chatml.intel"), capsys,
                     "--gpu", "mi300x")
    assert not _fused_note(dpo_on)
    assert _step(dpo_on) == _step(dpo_off)


def test_liger_fused_ce_still_saves_in_sft(tmp_path, capsys):
    on = _check(tmp_path, "s1.yaml", AX.format(flce="true", stage="", dtype="alpaca"), capsys, "--gpu", "mi300x")
    off = _check(tmp_path, "s0.yaml", AX.format(flce="false", stage="", dtype="alpaca"), capsys, "--gpu", "mi300x")
    # 4 x 2048 tokens x 128256 vocab: the fused loss holds far less than the logits' fp32 copies
    assert _step(off) - _step(on) > 4 * 2048 * 128256 * 4


TOML = """[model]
name = "llama3"
flavor = "8B"

[training]
local_batch_size = 4
seq_len = 8192

[activation_checkpoint]
mode = "full"
{compile}"""


def _settings(p: Path) -> dict:
    return {k: s.value for k, s in formats.read_job([str(p)]).settings.items()}


def test_torchtitan_compiled_loss_holds_no_fp32_logits(tmp_path, capsys):
    plain = _check(tmp_path, "a.toml", TOML.format(compile=""), capsys, "--gpu", "mi300x", "--gpus", "8")
    comp = _check(tmp_path, "b.toml", TOML.format(compile='\n[compile]\nenable = true\ncomponents = ["model", "loss"]\n'),
                  capsys, "--gpu", "mi300x", "--gpus", "8")
    model_only = _check(tmp_path, "c.toml", TOML.format(compile='\n[compile]\nenable = true\ncomponents = ["model"]\n'),
                        capsys, "--gpu", "mi300x", "--gpus", "8")
    saved = _step(plain) - _step(comp)
    logits = 4 * 8192 * 128256
    assert 7 * logits < saved <= 8 * logits + 2**20       # the fp32 upcast and fp32 log-softmax: 8 bytes a logit
    assert _step(model_only) == _step(plain)
    assert "compiled_loss" not in _settings(tmp_path / "a.toml")


def test_primus_compiles_the_loss_by_default(tmp_path):
    base = ("modules:\n  pre_trainer:\n    framework: torchtitan\n    config: pre_trainer.yaml\n"
            "    model: llama3.1_8B.yaml\n    overrides:\n      training:\n        local_batch_size: 2\n")
    p = tmp_path / "llama3.1_8B-pretrain.yaml"
    p.write_text(base)
    assert _settings(p).get("compiled_loss") == "true"
    q = tmp_path / "llama3.1_8B-nocompile.yaml"
    q.write_text(base + "      compile:\n        enable: false\n")
    assert "compiled_loss" not in _settings(q)


def test_compiled_loss_reads_components():
    assert torchtitan.compiled_loss({"compile": {"enable": True}}, "torchtitan")
    assert not torchtitan.compiled_loss({}, "torchtitan")
    assert torchtitan.compiled_loss({}, "primus")
    assert not torchtitan.compiled_loss({"compile": {"components": ["model"]}}, "primus")


CCE = """base_model: meta-llama/Llama-3.2-3B
{cce}
{stage}
datasets:
  - path: ./data.jsonl
    split: train
    type: {dtype}
sequence_len: 2048
micro_batch_size: 4
bf16: true
gradient_checkpointing: true
flash_attention: true
optimizer: adamw_torch
learning_rate: 5e-7
"""


def test_cut_cross_entropy_needs_the_labels_too(tmp_path, capsys):
    # apple/ml-cross-entropy transformers/utils.py use_lce: `if labels is None: return False`
    on = "plugins:\n  - axolotl.integrations.cut_cross_entropy.CutCrossEntropyPlugin\ncut_cross_entropy: true"
    dpo = [_check(tmp_path, f"c{i}.yaml", CCE.format(cce=v, stage="rl: dpo", dtype="chatml.intel"), capsys,
                  "--gpu", "mi300x") for i, v in enumerate((on, ""))]
    assert _step(dpo[0]) == _step(dpo[1])
    sft = [_check(tmp_path, f"s{i}.yaml", CCE.format(cce=v, stage="", dtype="alpaca"), capsys, "--gpu", "mi300x")
           for i, v in enumerate((on, ""))]
    assert _step(sft[1]) - _step(sft[0]) > 4 * 2048 * 128256 * 4


TRL = ("trl {cmd} --model_name_or_path Qwen/Qwen2.5-7B-Instruct --dataset_name trl-lib/ultrafeedback_binarized "
       "--per_device_train_batch_size 4 --max_length 4096 --bf16 --gradient_checkpointing --use_peft --lora_r 16{extra}\n")


def test_trl_use_liger_loss_skips_the_logits_of_chosen_and_rejected(tmp_path, capsys):
    # trl v0.19+ DPOTrainer._compute_loss_liger: decoder hidden states + lm_head weight to LigerFusedLinearDPOLoss
    on = _check(tmp_path, "on.sh", TRL.format(cmd="dpo", extra=" --use_liger_loss"), capsys, "--gpu", "mi300x")
    off = _check(tmp_path, "off.sh", TRL.format(cmd="dpo", extra=""), capsys, "--gpu", "mi300x")
    # use_liger_kernel alone patches the model, but DPOTrainer passes no labels: the logits are built
    kernel = _check(tmp_path, "k.sh", TRL.format(cmd="dpo", extra=" --use_liger_kernel true"), capsys, "--gpu", "mi300x")
    assert _fused_note(on) and not _fused_note(off) and not _fused_note(kernel)
    logits = 2 * 4 * 4096 * 152064            # chosen and rejected rows
    assert _step(off) - _step(on) > 8 * logits
    assert _step(kernel) >= _step(off) - 2**30   # Liger's RMSNorm/SwiGLU may save a little, never the logits


def test_ms_swift_grpo_liger_kernel_is_the_liger_loss(tmp_path, capsys):
    base = ("swift rlhf --rlhf_type grpo --model Qwen/Qwen2.5-7B-Instruct --dataset AI-MO/NuminaMath-TIR "
            "--train_type full --torch_dtype bfloat16 --per_device_train_batch_size 4 --max_completion_length 2048 "
            "--num_generations 8 --deepspeed zero3{extra}\n")
    on = _check(tmp_path, "g1.sh", base.format(extra=" --use_liger_kernel true"), capsys, "--gpu", "mi300x")
    off = _check(tmp_path, "g0.sh", base.format(extra=""), capsys, "--gpu", "mi300x")
    assert _fused_note(on) and not _fused_note(off)
    dpo = _check(tmp_path, "d1.sh", base.replace("grpo", "dpo").replace(" --num_generations 8", "").format(
        extra=" --use_liger_kernel true"), capsys, "--gpu", "mi300x")
    assert not _fused_note(dpo)        # ms-swift's DPO pops the labels: the logits are built
