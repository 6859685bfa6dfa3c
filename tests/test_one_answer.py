"""Same inputs, same answer (issue 11): `rocm-tune plan --json` (a real subprocess), `rocm-tune wizard
--answers FILE --json` (a real subprocess) and the app's plan model give the identical plan.json for a
table of models, GPUs, methods and goals, and the typed Plan reads each back unchanged."""

from __future__ import annotations

import dataclasses
import json
import math

import pytest
import yaml

from rocm_tune.core import vocabulary as V
from rocm_tune.core.errors import UserError
from rocm_tune.core.plan.plan import PLAN_VERSION, Plan, load_plan
from rocm_tune.tui import plan_model as pm
from tests.conftest import run_cli

# answers (the wizard's names) for each case; the CLI gets the same values as flags
CASES = {
    "qwen7b-2xmi50-lora": {"model": "qwen2.5-7b", "gpu": "mi50-32gb", "gpus": 2, "method": "lora"},
    "qwen0.5b-mi300x-full-speed": {"model": "qwen2.5-0.5b", "gpu": "mi300x", "method": "full", "priority": "speed",
                                   "effective_batch": 32, "epochs": 1.5},
    "llama8b-h100-qlora-dataset": {"model": "llama-3.1-8b", "gpu": "h100-sxm", "method": "qlora", "lora_rank": 32,
                                   "dataset": "DATA", "hours": 2.0},
    "qwen7b-mi100-freeze-dpo-2nodes": {"model": "qwen2.5-7b", "gpu": "mi100", "gpus": 4, "nodes": 2,
                                       "method": "freeze", "stage": "dpo", "cpu_ram_gib": 256},
    "qwen7b-mi50-full-does-not-fit": {"model": "qwen2.5-7b", "gpu": "mi50-32gb", "method": "full",
                                      "priority": "context"},
}
_FLAG = {"cpu_ram_gib": "--cpu-ram-gib", "effective_batch": "--effective-batch", "lora_rank": "--lora-rank"}


def _dataset(tmp_path):
    path = tmp_path / "alpaca.json"
    path.write_text(json.dumps([{"instruction": "explain lora " * (i % 9 + 1), "output": "ok " * (i % 5)}
                                for i in range(60)]))
    return str(path)


def _answers(case: str, tmp_path) -> dict:
    a = dict(CASES[case])
    if a.get("dataset") == "DATA":
        a["dataset"] = _dataset(tmp_path)
    return a


def _cli_plan(answers: dict) -> tuple[int, dict]:
    argv = ["plan", "--json"]
    for k, v in answers.items():
        argv += [_FLAG.get(k, "--" + k.replace("_", "-")), str(v)]
    r = run_cli(*argv)
    assert r.returncode in (0, 1), r.stderr
    return r.returncode, json.loads(r.stdout)


def _wizard_plan(answers: dict, tmp_path) -> tuple[int, dict]:
    f = tmp_path / "answers.yaml"
    f.write_text(yaml.safe_dump(answers))
    r = run_cli("wizard", "--answers", str(f), "--json")
    assert r.returncode in (0, 1), r.stderr
    return r.returncode, json.loads(r.stdout)


def _without_disk(plan: dict) -> dict:
    out = dict(plan, warnings=[w for w in plan["warnings"] if w["code"] != "disk-will-fill"])
    out["alternatives"] = [dict(a, warnings=[w for w in a.get("warnings", []) if w["code"] != "disk-will-fill"])
                           if "warnings" in a else a for a in plan.get("alternatives", [])]
    return out


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(CASES))
def test_plan_wizard_and_app_give_the_same_plan(case, tmp_path):
    answers = _answers(case, tmp_path)
    cli_rc, cli = _cli_plan(answers)
    wiz_rc, wizard = _wizard_plan(answers, tmp_path)
    _result, app = pm.run_plan(dict(answers))
    # disk-will-fill measures the free space of the current directory at the moment of each call (other tests
    # write to that disk meanwhile): it is the one warning that is this machine's, not the answers'
    cli, wizard, app = (_without_disk(p) for p in (cli, wizard, app))
    assert cli == wizard, f"{case}: wizard --answers differs from plan --json"
    assert cli == app, f"{case}: the app's plan model differs from plan --json"
    assert cli_rc == wiz_rc == (0 if cli["fits"] else 1)
    # the typed plan reads every one back unchanged, and the defaults are the vocabulary's
    assert Plan.from_dict(cli).to_dict() == cli
    assert cli["version"] == PLAN_VERSION and cli["hardware"]["headroom"] == V.DEFAULT_HEADROOM
    assert cli["goal"]["effective_batch"] == answers.get("effective_batch", V.DEFAULT_EFFECTIVE_BATCH)
    assert cli["recommended"]["runner"] == V.DEFAULT_RUNNER


def test_fits_means_reserved_within_headroom_everywhere(tmp_path):
    """The plan's verdict, the typed plan's rule and the app's rule agree, for every option."""
    _res, d = pm.run_plan({"model": "qwen2.5-7b", "gpu": "mi50-32gb", "gpus": 2})
    typed = Plan.from_dict(d)
    for opt in typed.options():
        reserved = opt.memory.reserved_bytes
        assert opt.fits == (reserved <= typed.hardware.headroom * typed.hardware.vram_bytes)
        assert typed.fits_reserved(reserved) == opt.fits == pm.fits(d, reserved)
    assert pm.headroom(d) == typed.hardware.headroom == V.DEFAULT_HEADROOM
    # an edit that no longer fits under the headroom is DOES NOT FIT at once in the app (no 0.85 vs 1.0 split)
    over = int(typed.hardware.headroom * typed.hardware.vram_bytes) + 1
    assert pm.apply_edits(d, {}, {**d["memory"], "reserved_bytes": over})["fits"] is False


def test_vram_in_use_on_a_detected_gpu_counts_against_the_plan():
    """A detected (not synthetic) GPU with 20 GiB already in use: the plan has 0.85 x 32 - 20 GiB to spend."""
    from rocm_tune.core.hardware.devices.types import GpuSample
    from rocm_tune.core.plan.planner import plan
    from rocm_tune.core.plan.answers import LocalGpus, request_from_answers
    from rocm_tune.profiles.gpu_profiles import get_gpu_profile

    prof = get_gpu_profile("mi50-32gb")

    def sample(i, used):
        return GpuSample(index=i, name=prof.display_name, profile_id=prof.id, arch=prof.arch,
                         vram_used_bytes=used, vram_total_bytes=prof.vram_bytes, util_percent=0.0, temp_c=40.0,
                         power_w=20.0, power_limit_w=300.0, sclk_mhz=0.0, mclk_mhz=0.0, pcie="", processes=(),
                         timestamp=0.0)

    answers = {"model": "qwen2.5-7b", "cpu_ram_gib": 64}
    idle = plan(request_from_answers(answers, local=LocalGpus((sample(0, 0),), "test"))).plan
    busy = plan(request_from_answers(answers, local=LocalGpus((sample(0, 20 * 2**30),), "test"))).plan
    simulated = plan(request_from_answers(answers, local=LocalGpus((sample(0, 20 * 2**30),), "fake", True))).plan
    assert idle.hardware.vram_in_use_bytes == 0 and busy.hardware.vram_in_use_bytes == 20 * 2**30
    assert simulated.hardware.vram_in_use_bytes == 0      # a fake backend simulates a run in progress
    limit = 0.85 * prof.vram_bytes - 20 * 2**30
    assert busy.memory.reserved_bytes <= limit or not busy.fits
    assert idle.fits and idle.memory.reserved_bytes > limit   # what fits an idle MI50 does not fit the busy one
    assert busy.recommended != idle.recommended


@pytest.mark.parametrize("edit, message", [
    (lambda d: d["recommended"].__setitem__("cutoff_len", math.inf),
     "plan.json: recommended.cutoff_len must be an integer between 1 and 1048576, got inf"),
    (lambda d: d["hardware"].__setitem__("headroom", 1.5),
     "plan.json: hardware.headroom must be a number between 0.1 and 1, got 1.5"),
    (lambda d: d["recommended"].__setitem__("runner", "pytorch"),
     "plan.json: recommended.runner must be one of llamafactory, hf, builtin, got 'pytorch'"),
    (lambda d: d["recommended"].update(offload="all", zero_stage=0),
     "plan.json: recommended.offload: offload 'all' (parameters too) needs ZeRO-3, got zero stage 0"),
    (lambda d: d.__setitem__("version", 1), "plan.json: version 1 is an older plan format"),
    (lambda d: d.pop("version"), "plan.json: version is missing"),
    (lambda d: d.__setitem__("version", 7), "plan.json: version must be 2, got 7"),
    (lambda d: d["memory"].__setitem__("reserved_bytes", -1),
     "plan.json: memory.reserved_bytes must be an integer between 0 and"),
    (lambda d: d["goal"].__setitem__("method", "dpo"), "plan.json: goal.method must be one of full, freeze, lora"),
    (lambda d: d["alternatives"][0].__setitem__("micro_batch", 0),
     "plan.json: alternatives[0].micro_batch must be an integer between 1 and 65536, got 0"),
])
def test_bad_plan_json_is_one_line_naming_the_field(tmp_path, edit, message):
    _res, d = pm.run_plan({"model": "qwen2.5-7b", "gpu": "mi50-32gb", "gpus": 2})
    edit(d)
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(d))     # Python writes inf as Infinity, as a hand-edited plan.json could
    with pytest.raises(UserError) as err:
        load_plan(str(path))
    text = str(err.value)
    assert text.startswith(message) and "\n" not in text, text


def test_load_plan_rejects_what_is_not_a_plan(tmp_path):
    bad = tmp_path / "x.json"
    bad.write_text("[1, 2]")
    with pytest.raises(UserError, match="must hold a JSON object"):
        load_plan(str(bad))
    bad.write_text("{not json")
    with pytest.raises(UserError):
        load_plan(str(bad))
    with pytest.raises(UserError):
        load_plan(str(tmp_path / "missing.json"))


def test_train_config_is_what_the_plan_estimated():
    from rocm_tune.core.memory.estimate import estimate
    from rocm_tune.core.model.architecture import load_model

    result, d = pm.run_plan({"model": "qwen2.5-0.5b", "gpu": "h100-sxm", "method": "qlora", "lora_rank": 16})
    typed = Plan.from_dict(d)
    cfg = typed.train_config()
    assert (cfg.method, cfg.lora_rank, cfg.runner, cfg.micro_batch) == ("qlora", 16, "llamafactory",
                                                                       typed.recommended.micro_batch)
    assert estimate(load_model("qwen2.5-0.5b"), cfg).per_gpu.reserved_bytes == typed.memory.reserved_bytes
    assert dataclasses.replace(result.recommended.cfg, lora_alpha=32) == cfg   # alpha None = 2 x rank
