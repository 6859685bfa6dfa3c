"""Helper c-vlm8: a Qwen-VL tower with no image cap set - the OOM at the processor's cap stands, and the largest
image that fits is said beside it (core/check/images.py)."""
from __future__ import annotations

import json
import re

from rocm_tune.core.check import images
from rocm_tune.core.check.check import check

_SCRIPT = """{env}CUDA_VISIBLE_DEVICES=0,1,2,3 NPROC_PER_NODE=4 swift sft \\
  --model Qwen/Qwen2.5-VL-7B-Instruct \\
  --train_type full \\
  --freeze_vit true \\
  --deepspeed zero2 \\
  --max_length 2048 \\
  --per_device_train_batch_size {bs} \\
  --dataset my_images.jsonl
"""


def _write(tmp_path, env: str = "", bs: int = 1):
    p = tmp_path / "train.sh"
    p.write_text(_SCRIPT.format(env=env, bs=bs))
    return str(p)


def _image_line(rep) -> str:
    got = [a for a in rep.assumptions if "the data's image size decides" in a]
    assert len(got) == 1, rep.assumptions
    return got[0]


def _best_tokens(line: str) -> int:
    m = re.search(r"within (\d+) tokens", line)
    assert m, line
    return int(m.group(1))


def test_no_cap_ooms_at_the_processor_cap_and_says_the_cap_that_fits(tmp_path):
    rep = check([_write(tmp_path, bs=8)], gpu_id="a100-80gb")
    assert rep.verdict == "oom"
    line = _image_line(rep)
    assert "MAX_PIXELS" in line and "12845056 pixels" in line
    best = _best_tokens(line)
    assert images.MIN_TOKENS <= best < 16384
    # the cap the reason names makes it fit; a little more is OOM (the bisection's edge)
    ok = check([_write(tmp_path, env=f"MAX_PIXELS={best * 784} ", bs=8)], gpu_id="a100-80gb")
    assert ok.verdict == "fits", ok.reason
    over = check([_write(tmp_path, env=f"MAX_PIXELS={(best + 64) * 784} ", bs=8)], gpu_id="a100-80gb")
    assert over.verdict == "oom"


def test_a_cap_the_user_sets_says_no_image_line(tmp_path):
    # MAX_PIXELS at the processor's own default: the user chose it; no line about the data's images
    rep = check([_write(tmp_path, env="MAX_PIXELS=12845056 ", bs=8)], gpu_id="a100-80gb")
    assert rep.verdict == "oom"
    assert not any("the data's image size decides" in a for a in rep.assumptions)


def test_a_run_that_fits_at_the_cap_says_no_image_line(tmp_path):
    rep = check([_write(tmp_path, env="MAX_PIXELS=200704 ", bs=1)], gpu_id="a100-80gb")
    assert rep.verdict == "fits"
    assert not any("the data's image size decides" in a for a in rep.assumptions)


def test_largest_fitting_bisects_a_monotone_predicate():
    assert images.largest_fitting(lambda t: t <= 1000, 16384) == 1000
    assert images.largest_fitting(lambda t: False, 16384) == 0
    assert images.largest_fitting(lambda t: True, 3) == 0


def test_cli_json_says_oom_with_the_image_line(tmp_path, cli):
    r = cli("check", _write(tmp_path, bs=8), "--gpu", "a100-80gb", "--json")
    out = json.loads(r.stdout)
    assert out["verdict"] == "oom", r.stderr
    assert any("the data's image size decides" in a for a in out["assumptions"])


# ms-swift 2.x's Qwen2-VL best practice (LoRA, MAX_PIXELS 602112): the frozen tower under gradient checkpointing
_SWIFT2 = ("SIZE_FACTOR=8 MAX_PIXELS=602112 CUDA_VISIBLE_DEVICES=0 swift sft --model_type qwen2-vl-7b-instruct "
           "--model_id_or_path qwen/Qwen2-VL-7B-Instruct --sft_type lora --dataset latex-ocr-print#20000\n")
_SWIFT3 = ("MAX_PIXELS=1003520 swift sft --model Qwen/Qwen2.5-VL-7B-Instruct --train_type lora --max_length 2048 "
           "--per_device_train_batch_size 1 --torch_dtype bfloat16 {extra}\n")


def _tower_note(rep) -> str:
    got = [n for n in rep.est_notes if n.startswith("vision tower (")]
    assert len(got) == 1, rep.est_notes
    return got[0]


def test_ms_swift_before_3_5_runs_the_frozen_qwen_vl_tower_without_a_graph(tmp_path):
    """transformers' Qwen2-VL vision model has no get_input_embeddings: ms-swift 2.x / 3.0-3.4 call
    vision_tower.enable_input_require_grads() and swallow the NotImplementedError, so the frozen tower keeps
    nothing; 3.5 (--vit_gradient_checkpointing exists from then) patches it to patch_embed and records the pass."""
    p = tmp_path / "a.sh"
    p.write_text(_SWIFT2)
    old2 = check([str(p)], gpu_id="rtx3090")
    assert _tower_note(old2).startswith("vision tower (frozen):") and "0.00 GiB kept" in _tower_note(old2)
    assert not any("enable_input_require_grads" in a for a in old2.assumptions)
    reps = {}
    for name, extra in (("old3", ""), ("new", "--vit_gradient_checkpointing true")):
        q = tmp_path / f"{name}.sh"
        q.write_text(_SWIFT3.format(extra=extra))
        reps[name] = check([str(q)], gpu_id="rtx-a6000")
    assert "inputs requiring grad" not in _tower_note(reps["old3"])
    assert "inputs requiring grad" in _tower_note(reps["new"])
    assert any("enable_input_require_grads" in a for a in reps["new"].assumptions)
    # the recorded pass keeps each block's input: depth x patches x hidden x 2 bytes (1280 patches, 32 blocks)
    kept = re.search(r"activations (\d+\.\d+) GiB kept", _tower_note(reps["new"]))
    assert kept and abs(float(kept.group(1)) - 32 * 1280 * 4 * 1280 * 2 / 2**30) < 0.01
    assert "0.00 GiB kept" in _tower_note(reps["old3"])
