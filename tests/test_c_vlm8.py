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
