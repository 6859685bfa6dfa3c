"""Unsloth's FastModel / FastVisionModel and TiledMLP as estimate terms (helper c-unsloth2, issue 26). The programs are
written for the test from Unsloth's own notebooks (the gpt-oss (20B) 500K-context notebook's from_pretrained(...,
unsloth_tiled_mlp=True) + get_peft_model + SFTConfig calls; the Gemma 3 / Qwen3 MoE FastModel notebooks' calls), at
lengths, models and cards none of the corpus cases has. The terms come from unslothai/unsloth (models/loader.py
FastModel.from_pretrained: unsloth_compile_transformers(fuse_lm_head=True, gradient_checkpointing=True)) and
unslothai/unsloth-zoo (compiler.py apply_fused_lm_head, tiled_mlp.py TiledMLP / tiled_forward_arctic_size,
gradient_checkpointing.py UnslothCheckpointFunction)."""

from __future__ import annotations

import json
from pathlib import Path

from rocm_tune.cli import main
from rocm_tune.core.memory.estimate import TrainConfig, estimate
from rocm_tune.core.model.architecture import load_model
from rocm_tune.core.runners import unsloth

NOTEBOOK = """from unsloth import {loader}
from trl import SFTTrainer, SFTConfig
model, tokenizer = {loader}.from_pretrained(
    model_name = "{model}",
    dtype = None,
    max_seq_length = {seq},
    load_in_4bit = True,
    full_finetuning = False,{tiled}
)
model = {loader}.get_peft_model(
    model,
    r = 8,
    target_modules = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"],
    lora_alpha = 16,
    lora_dropout = 0,
    bias = "none",
    use_gradient_checkpointing = {gc},
    random_state = 3407,
)
trainer = SFTTrainer(
    model = model,
    tokenizer = tokenizer,
    train_dataset = dataset,
    args = SFTConfig(
        per_device_train_batch_size = {batch},
        gradient_accumulation_steps = 1,
        max_steps = 30,
        learning_rate = 2e-4,
        optim = "adamw_8bit",
        output_dir = "outputs",
    ),
)
trainer.train()
"""


def _program(model="unsloth/gpt-oss-20b", loader="FastLanguageModel", seq=300_000, batch=1, tiled=True,
             gc='"unsloth"') -> str:
    return NOTEBOOK.format(model=model, loader=loader, seq=seq, batch=batch, gc=gc,
                           tiled="\n    unsloth_tiled_mlp = True," if tiled else "")


def _check(tmp_path: Path, capsys, text: str, *extra: str) -> dict:
    p = tmp_path / "train.py"
    p.write_text(text)
    rc = main(["check", str(p), *extra, "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc in (0, 1), out
    return out


def _bound(out: dict) -> bool:
    return any(f["code"] == "kernels-not-modelled" and "upper bound" in f["message"] for f in out["findings"])


def _step(out: dict) -> float:
    return out["memory"]["step"]["peak_allocated_bytes"] / 2**30


def test_gpt_oss_long_context_is_estimated_with_tiled_mlp(tmp_path, capsys):
    # gpt-oss-20b goes to FastModel (not one of Unsloth's own decoders): the compiler's fused loss, the offloaded
    # checkpoints and TiledMLP are counted; 300K tokens on an H100 80GB
    out = _check(tmp_path, capsys, _program(), "--gpu", "h100")
    u = out["understood"]
    assert not _bound(out) and out["verdict"] == "fits"
    assert u["fused_ce"] and u["tiled_mlp"] == 2880 and "lora_kernels" not in u and "liger_norm" not in u
    assert any("under unsloth_zoo's compiler" in n for n in out["notes"])
    assert any("TiledMLP" in n for n in out["notes"])
    # 23 of 24 layers' 300K x 2880 x 2-byte inputs pinned on the host
    assert out["cpu_ram_bytes"] >= 23 * 300_000 * 2880 * 2
    # without TiledMLP one layer's recompute keeps every routed copy of the 300K tokens: far over the card
    plain = _check(tmp_path, capsys, _program(tiled=False), "--gpu", "h100")
    assert not _bound(plain) and plain["verdict"] == "oom"
    assert _step(plain) - _step(out) > 30


def test_tile_follows_tiled_forward_arctic_size():
    model = load_model("gpt-oss-20b")

    class Job:
        def __init__(self, on):
            self.on = on

        def get(self, key, default=None):
            return self.on if key == "unsloth_tiled_mlp" else default

    # one row: tiles of hidden_size (2880) tokens, the rest (< 2880) in a last split
    assert unsloth.tiled_mlp_tile(Job(True), model, {"cutoff_len": 100_000, "micro_batch": 1}) == 2880
    # two rows: n_shards = S // H over the flattened 2 x S tokens: the last split takes the whole second row
    assert unsloth.tiled_mlp_tile(Job(True), model, {"cutoff_len": 100_000, "micro_batch": 2}) == \
        200_000 - 2880 * (100_000 // 2880)
    # shorter than one tile: the whole sequence is the tile
    assert unsloth.tiled_mlp_tile(Job(True), model, {"cutoff_len": 1000, "micro_batch": 1}) == 1000
    assert unsloth.tiled_mlp_tile(Job(False), model, {"cutoff_len": 100_000, "micro_batch": 1}) == 0


def test_tiled_mlp_keeps_only_the_mlp_input():
    model = load_model("qwen3-30b-a3b")
    base = TrainConfig(method="qlora", lora_rank=8, precision="bf16", cutoff_len=65536, micro_batch=1,
                       gradient_checkpointing=True, fused_ce=True, fused_ce_target=4 * 2**30)
    tiled = TrainConfig(**{**base.__dict__, "tiled_mlp": int(model.hidden_size)})
    a, b = estimate(model, base).per_gpu, estimate(model, tiled).per_gpu
    # the recomputed layer's routed copies (8 of 48 experts, 768 wide) are gone; the checkpoints are not touched
    assert a.activations_bytes == b.activations_bytes
    assert a.peak_allocated_bytes - b.peak_allocated_bytes > 8 * 2 * 768 * 65536


def test_fastmodel_text_model_is_an_estimate_and_vlm_stays_a_bound(tmp_path, capsys):
    out = _check(tmp_path, capsys, _program(model="unsloth/gemma-3-4b-it", loader="FastModel", seq=8192, batch=4,
                                            tiled=False), "--gpu", "rtx4090")
    assert not _bound(out) and out["understood"]["fused_ce"] and "tiled_mlp" not in out["understood"]
    assert out["verdict"] in ("fits", "oom")
    vlm = _check(tmp_path, capsys, _program(model="unsloth/Qwen2.5-VL-7B-Instruct", loader="FastVisionModel",
                                            seq=8192, batch=4, tiled=False), "--gpu", "rtx4090")
    assert _bound(vlm) and "fused_ce" not in vlm["understood"]


def test_compiled_layer_fusions_decide_near_the_card(tmp_path, capsys):
    # no checkpointing: every layer keeps transformers' RMSNorm fp32 copies and PEFT's LoRA intermediates, which
    # torch.compile may fuse; between the two counts the answer is unknown, said; well above / below it is not
    text = _program(model="unsloth/Qwen3-30B-A3B", loader="FastModel", seq=4096, batch=2, tiled=False, gc="False")
    verdicts = {}
    for gib in range(40, 200, 4):
        out = _check(tmp_path, capsys, text, "--vram-gib", str(gib))
        verdicts[gib] = (out["verdict"], out.get("reason") or "")
    assert verdicts[40][0] == "oom" and verdicts[196][0] == "fits"
    middle = [g for g, (v, why) in verdicts.items() if v == "unknown"]
    assert middle and all("torch.compile fuses" in verdicts[g][1] for g in middle)
    # monotone: oom below the unknown band, fits above it
    assert all(verdicts[g][0] == "oom" for g in verdicts if g < min(middle))
    assert all(verdicts[g][0] == "fits" for g in verdicts if g > max(middle))


def test_missing_trainer_stays_a_bound(tmp_path, capsys):
    text = _program(model="unsloth/gemma-3-4b-it", loader="FastModel", seq=8192, tiled=False)
    no_trainer = text[:text.index("trainer = SFTTrainer")]
    out = _check(tmp_path, capsys, no_trainer, "--gpu", "rtx4090")
    assert _bound(out)


def test_short_sequences_are_not_offloaded():
    # apply_unsloth_gradient_checkpointing: "unsloth" under max_seq_length 512 is plain checkpointing
    class Job:
        def get(self, key, default=None):
            return True if key == "use_unsloth_gc" else default

    assert unsloth.offloaded_layers(Job(), 32, 16 * 2**20, 2048) == (31, 31)
    assert unsloth.offloaded_layers(Job(), 32, 16 * 2**20, 511) == (0, 0)
    assert unsloth.offloaded_layers(Job(), 32, 16 * 2**20, 512) == (31, 31)


def test_tiled_mlp_from_the_environment(tmp_path, capsys):
    # loader.py reads UNSLOTH_TILED_MLP before the argument: "arctic" / "1" tile by hidden_size tokens; "0" is off
    on = 'import os\nos.environ["UNSLOTH_TILED_MLP"] = "arctic"\n' + _program(tiled=False)
    off = 'import os\nos.environ["UNSLOTH_TILED_MLP"] = "0"\n' + _program(tiled=False)
    assert _check(tmp_path, capsys, on, "--gpu", "h100")["understood"]["tiled_mlp"] == 2880
    assert "tiled_mlp" not in _check(tmp_path, capsys, off, "--gpu", "h100")["understood"]


def test_full_finetuning_and_8bit_leave_unsloth_decoders(tmp_path, capsys):
    # FastLanguageModel.from_pretrained(full_finetuning=True | load_in_8bit=True) runs FastModel.from_pretrained:
    # the compiler's terms, not Unsloth's own RMSNorm / LoRA functions, even on llama
    own = _check(tmp_path, capsys, _program(model="unsloth/Meta-Llama-3.1-8B", seq=2048, tiled=False), "--gpu", "h100")
    assert own["understood"]["liger_norm"] and own["understood"]["lora_kernels"]
    for swap in (("load_in_4bit = True", "load_in_8bit = True"), ("full_finetuning = False", "full_finetuning = True")):
        text = _program(model="unsloth/Meta-Llama-3.1-8B", seq=2048, tiled=False).replace(*swap)
        out = _check(tmp_path, capsys, text, "--gpu", "h100")
        assert not _bound(out) and out["understood"]["fused_ce"], swap
        assert "liger_norm" not in out["understood"] and "lora_kernels" not in out["understood"], swap
        assert any("under unsloth_zoo's compiler" in n for n in out["notes"]), swap


def test_full_finetuning_ignores_get_peft_model(tmp_path, capsys):
    # from_pretrained(full_finetuning=True): get_peft_model "has no effect" (unsloth/models/vision.py): every weight
    text = _program(model="unsloth/Meta-Llama-3.1-8B", seq=2048, tiled=False)
    full = _check(tmp_path, capsys, text.replace("full_finetuning = False", "full_finetuning = True"), "--gpu", "h100")
    lora = _check(tmp_path, capsys, text, "--gpu", "h100")
    assert full["understood"]["method"] == "full" and lora["understood"]["method"] == "qlora"
    assert _step(full) > _step(lora) + 20
