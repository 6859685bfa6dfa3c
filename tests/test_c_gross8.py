"""TRL's DPO with no trl release pinned (helper c-gross8, issue 26): the 16-bit logits copies its loss holds differ by
release (profiles/preference_logits.py TRL_DPO_16BIT: 2.5 at the forward's peak in v0.15-v0.28's row-by-row
selective_log_softmax, 5 in v0.29-v1.5's _compute_loss with the reference pass beside the policy's contiguous shifted
logits). Counted with the most, a run over the card that fits with the fewest is answered "unknown: the TRL release
decides", both figures said; a pinned release is answered as before. Every file is written here from those sources;
none is a corpus case."""

from __future__ import annotations

import json
from pathlib import Path

from rocm_tune.cli import main
from rocm_tune.core.runners import preference_logits as pl

AX = """base_model: Qwen/Qwen3-30B-A3B
rl: dpo
datasets:
  - path: ./prefs.jsonl
    split: train
    field_chosen: chosen
    field_rejected: rejected
sequence_len: 2048
micro_batch_size: {mbs}
bf16: true
gradient_checkpointing: true
flash_attention: true
optimizer: adamw_torch_8bit
deepspeed: zero3.json
"""
ZERO3 = '{"bf16": {"enabled": "auto"}, "zero_optimization": {"stage": 3}, "train_micro_batch_size_per_gpu": "auto"}'


def _check(tmp_path: Path, capsys, files: dict[str, str]) -> dict:
    paths = []
    for name, text in files.items():
        (tmp_path / name).write_text(text)
        paths.append(str(tmp_path / name))
    rc = main(["check", *paths, "--gpu", "mi300x", "--gpus", "8", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc in (0, 1), out
    return out


def test_fewest_copies_is_one_release_row():
    forward, backward, source = pl.fewest_copies()
    rows = {(r[2], r[3]) for r in pl.TRL_DPO_16BIT}
    assert (forward, backward) in rows
    assert forward + backward == min(f + b for f, b in rows)
    assert forward < max(f for f, _ in rows) and "v0.15-v0.28" in source


def test_unpinned_release_between_the_bounds_is_unknown(tmp_path, capsys):
    base = {"ax.yaml": AX.format(mbs=32), "zero3.json": ZERO3}
    unpinned = _check(tmp_path, capsys, base)
    few = _check(tmp_path, capsys, {**base, "requirements.txt": "trl==0.17.0\n"})
    most = _check(tmp_path, capsys, {**base, "requirements.txt": "trl==1.0.0\n"})
    # the pinned releases are answered from their own rows: v0.17 fits, v1.0 (v0.29-v1.5's five copies) does not
    assert few["verdict"] == "fits" and most["verdict"] == "oom"
    assert unpinned["verdict"] == "unknown" and unpinned["oom_phase"] is None
    assert unpinned["reason"].startswith("the TRL release decides") and "pin the release" in unpinned["reason"]
    # the unpinned estimate is the most any release holds: the same step as v1.0's
    assert unpinned["memory"]["step"]["peak_allocated_bytes"] == most["memory"]["step"]["peak_allocated_bytes"]
    needs = round((most["vram_bytes"] - most["margin_bytes"]) / 2**30)
    assert f"needs {needs} GiB" in unpinned["reason"]
    assert f"fits by {few['margin_bytes'] / 2**30:.1f} GiB" in unpinned["reason"]


def test_unpinned_release_still_oom_with_the_fewest_stays_oom(tmp_path, capsys):
    # at 4x the micro-batch even v0.15-v0.28's 2.5 copies are over the card: the release does not decide
    base = {"ax.yaml": AX.format(mbs=128), "zero3.json": ZERO3}
    few = _check(tmp_path, capsys, {**base, "requirements.txt": "trl==0.17.0\n"})
    unpinned = _check(tmp_path, capsys, base)
    assert few["verdict"] == "oom"
    assert unpinned["verdict"] == "oom" and "TRL release" not in (unpinned["reason"] or "")
