"""Unsloth's kernels as estimate terms (helper c-unsloth, issue 26). The programs are written for the test from
Unsloth's own notebooks (FastLanguageModel.from_pretrained + get_peft_model + SFTTrainer(SFTConfig), the
Llama-3.1-8B / Qwen3 / Qwen2.5 Alpaca notebooks' calls); the terms from unslothai/unsloth (kernels/fast_lora.py,
kernels/rms_layernorm.py, models/loader.py, models/llama.py) and unslothai/unsloth-zoo (fused_losses/
cross_entropy_loss.py get_chunk_size, gradient_checkpointing.py UnslothCheckpointFunction). None is a corpus case."""

from __future__ import annotations

import json
from pathlib import Path

from rocm_tune.cli import main
from rocm_tune.core.memory import fused_loss
from rocm_tune.core.memory.estimate import TrainConfig, estimate
from rocm_tune.core.model.architecture import load_model
from rocm_tune.core.runners import unsloth
from rocm_tune.profiles import unsloth_kernels as P

MiB = 2**20
ALL7 = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]

NOTEBOOK = """from unsloth import {loader}
from trl import SFTTrainer, {config}
max_seq_length = {seq}
model, tokenizer = {loader}.from_pretrained(
    model_name = "{model}",
    max_seq_length = max_seq_length,
    load_in_4bit = True,
)
model = {loader}.get_peft_model(
    model,
    r = 16,
    target_modules = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"],
    lora_alpha = 16,
    lora_dropout = {dropout},
    bias = "none",
    use_gradient_checkpointing = "unsloth",
    random_state = 3407,
)
{trainer}
"""
SFT = """trainer = SFTTrainer(
    model = model,
    tokenizer = tokenizer,
    train_dataset = dataset,
    args = SFTConfig(
        per_device_train_batch_size = {batch},
        gradient_accumulation_steps = 4,
        max_steps = 60,
        learning_rate = 2e-4,
        bf16 = True,
        optim = "adamw_8bit",
        output_dir = "outputs",
    ),
)
trainer.train()"""
GRPO = """trainer = GRPOTrainer(
    model = model,
    processing_class = tokenizer,
    reward_funcs = [reward],
    args = GRPOConfig(per_device_train_batch_size = {batch}, num_generations = 4, max_completion_length = 512,
                      bf16 = True, output_dir = "outputs"),
    train_dataset = dataset,
)
trainer.train()"""


def _program(model="unsloth/Meta-Llama-3.1-8B", loader="FastLanguageModel", seq=2048, batch=2, dropout=0,
             trainer=SFT, config="SFTConfig") -> str:
    return NOTEBOOK.format(model=model, loader=loader, seq=seq, dropout=dropout, config=config,
                           trainer=trainer.format(batch=batch))


def _check(tmp_path: Path, capsys, text: str, *extra: str) -> dict:
    p = tmp_path / "train.py"
    p.write_text(text)
    rc = main(["check", str(p), *extra, "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc in (0, 1), out
    return out


def _bound(out: dict) -> bool:
    return any(f["code"] == "kernels-not-modelled" and "upper bound" in f["message"] for f in out["findings"])


def test_notebook_on_t4_is_estimated_with_the_kernels(tmp_path, capsys):
    # Llama-3.1-8B QLoRA, 2 x 2048 tokens, the notebook's T4
    out = _check(tmp_path, capsys, _program(), "--gpu", "t4")
    u = out["understood"]
    assert out["verdict"] == "fits" and not _bound(out)
    assert u["lora_kernels"] == ALL7 and u["liger_norm"] and u["liger_swiglu"] and u["fused_ce"]
    # get_chunk_size: 4096 x 128256 x 16 bytes over (4 GiB - the 32 MiB grad_inputs) = 1.97 -> 4 chunks of 1024
    # tokens, each keeping 4 bytes per logit (compiled)
    assert u["fused_ce_target"] == 4 * 2**30
    assert fused_loss.chunk_bytes(4096, 128256, 32 * MiB) == 4 * 128256 * 1024
    assert any("made in 4 chunk(s)" in n and "(0.49 GiB" in n for n in out["notes"])
    # 31 layers' inputs (2 x 2048 x 4096 x 2 bytes = 32 MiB each) pinned, beside 169 of the 200 start buffers
    assert out["cpu_ram_bytes"] == 31 * 32 * MiB + 169 * 128 * 1024 * 2
    assert any("UnslothCheckpointFunction" in n for n in out["notes"])


def test_kernels_take_less_than_the_plain_program(tmp_path, capsys):
    plain = _check(tmp_path, capsys, _program(loader="FastModel", batch=8, seq=4096), "--gpu", "mi300x")
    fast = _check(tmp_path, capsys, _program(batch=8, seq=4096), "--gpu", "mi300x")
    # FastModel runs llama as transformers' modules under unsloth_zoo's compiler (c-unsloth2: an estimate with the
    # fused loss and the offloaded checkpoints, without Unsloth's RMSNorm / LoRA functions)
    assert not _bound(plain) and not _bound(fast) and "lora_kernels" not in plain["understood"]
    assert fast["memory"]["step"]["peak_allocated_bytes"] < plain["memory"]["step"]["peak_allocated_bytes"]


def test_bound_stays_where_the_source_does_not_pin_it(tmp_path, capsys):
    # GRPO: log-probabilities from the logits; no SFTConfig in the text: the batch is not known (FastModel is an
    # estimate since c-unsloth2: tests/test_check_c_unsloth2.py)
    for text in (_program(trainer=GRPO, config="GRPOConfig"),
                 _program(trainer="")):
        out = _check(tmp_path, capsys, text, "--gpu", "mi300x")
        assert _bound(out), text
        assert "lora_kernels" not in out["understood"]


def test_dropout_and_qkv_bias_turn_the_lora_functions_off(tmp_path, capsys):
    out = _check(tmp_path, capsys, _program(dropout=0.05), "--gpu", "mi300x")
    assert "lora_kernels" not in out["understood"] and "liger_swiglu" not in out["understood"]
    assert out["understood"]["liger_norm"] and not _bound(out)
    # Qwen2's q/k/v carry a bias: LoRA_QKV is not patched, o and the MLP are
    out = _check(tmp_path, capsys, _program(model="unsloth/Qwen2.5-7B"), "--gpu", "mi300x")
    assert out["understood"]["lora_kernels"] == ["o_proj", "gate_proj", "up_proj", "down_proj"]


def test_pinned_host_ram_decides_when_the_node_is_short(tmp_path, capsys):
    # 8 x 8192 tokens: 31 layers' inputs of 512 MiB = 15.5 GiB pinned, over an 8 GiB host
    out = _check(tmp_path, capsys, _program(seq=8192, batch=8), "--gpu", "mi300x", "--host-ram-gib", "8")
    assert out["verdict"] == "oom" and out["oom_phase"] == "host"
    assert out["cpu_ram_bytes"] >= 31 * 512 * MiB


def test_ce_chunks_follow_get_chunk_size():
    assert fused_loss.ce_chunks(4096, 128256, 32 * MiB) == 4
    assert fused_loss.ce_chunks(1024, 128256, 8 * MiB) == 1
    # 131072 x 128256 x 16 over 2 GiB (half the 4 GiB left beside 2 GiB of grad_inputs) = 125.3 -> 128
    assert fused_loss.ce_chunks(131072, 128256, 2 * 2**30) == 128
    # never more chunks than tokens
    assert fused_loss.ce_chunks(3, 151936, 0, target=1) == 3


def test_offload_keeps_small_inputs_and_counts_the_buffers():
    class Job:
        def __init__(self, gc):
            self.gc = gc

        def get(self, key, default=None):
            return self.gc if key == "use_unsloth_gc" else default

    assert unsloth.offloaded_layers(Job(True), 32, P.OFFLOAD_MIN_BYTES) == (0, 0)       # not over 2 MiB
    assert unsloth.offloaded_layers(Job(True), 32, 16 * MiB) == (31, 31)
    assert unsloth.offloaded_layers(Job(False), 32, 16 * MiB) == (0, 0)
    assert unsloth.offload_host_bytes(31, 16 * MiB) == 31 * 16 * MiB + 169 * 256 * 1024
    assert unsloth.offload_host_bytes(250, MiB * 4) == 250 * 4 * MiB


def test_lora_functions_keep_less_than_peft():
    model = load_model("llama-3.1-8b")
    base = TrainConfig(method="qlora", lora_rank=16, precision="bf16", cutoff_len=2048, micro_batch=4,
                       gradient_checkpointing=False, liger_norm=True, liger_swiglu=True)
    fast = TrainConfig(**{**base.__dict__, "lora_kernels": tuple(ALL7)})
    plain_step = estimate(model, base).per_gpu.peak_allocated_bytes
    fast_step = estimate(model, fast).per_gpu.peak_allocated_bytes
    # LoRA_MLP recomputes down_proj's input (14336 x 2 bytes per token) from the gate and up outputs: at least that
    # over 32 layers x 8192 tokens, with lora_A's outputs and the smaller MLP backward on top
    assert plain_step - fast_step >= 14336 * 2 * 32 * 8192
