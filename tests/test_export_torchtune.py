"""`export --format torchtune` round trip: for generated plans, the torchtune bundle (torchtune.yaml + tune_run.sh)
read back by `check` gives the plan's training config; a plan torchtune cannot run is refused in one line naming
the value, and only such a plan (the same property as tests/test_check_roundtrip.py, for the torchtune format)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from rocm_tune.core.check.check import check
from rocm_tune.core.errors import UserError
from rocm_tune.core.export import ExportOptions, write_bundle
from rocm_tune.core.model.architecture import load_model
from rocm_tune.core.plan.planner import PlanRequest, plan
from rocm_tune.profiles.gpu_profiles import get_gpu_profile
from rocm_tune.train.tiny import make_tiny_dataset
from tests.conftest import run_cli
from tests.test_check_roundtrip import GPUS, KEYS

MODELS = ("qwen2.5-0.5b", "llama-3.2-1b", "qwen2.5-7b", "llama-3.1-8b", "gemma-2-9b", "mistral-7b-v0.3",
          "qwen2.5-32b", "llama-3.1-70b", "qwen3-8b")
SHELLCHECK = shutil.which("shellcheck")
NO_BUILDER = ("mistral-7b-v0.3", "qwen3-8b")   # torchtune 0.6.1: mistral_7b has v0.1's vocabulary; no qwen3


def why_not(p: dict) -> str | None:
    """The value of a plan that torchtune cannot run (the start of the refusal), None when it can."""
    rec, world = p["recommended"], p["hardware"]["gpus"] * p["hardware"]["nodes"]
    if p["goal"]["stage"] != "sft":
        return f"stage {p['goal']['stage']}"
    if rec["method"] == "freeze":
        return "method freeze"
    if rec["precision"] in ("bf16", "fp16"):
        return f"precision {rec['precision']}"
    if rec["method"] == "qlora" and (rec["quant_bits"] != 4 or rec["double_quant"] is False):
        return "quant_bits"
    if rec["zero_stage"] and world == 1:
        return f"zero_stage {rec['zero_stage']} on one GPU"
    if world > 1 and rec["zero_stage"] != 3:
        return f"zero_stage {rec['zero_stage']} on {world} GPUs"
    if rec["offload"] == "optimizer" or (rec["offload"] == "all" and world == 1):
        return f"offload {rec['offload']}"
    if p["model"]["ref"] in NO_BUILDER:
        return "model "
    return None


def hw_words(p: dict) -> str:
    return "one GPU" if p["hardware"]["gpus"] * p["hardware"]["nodes"] == 1 else "FSDP2"


case = st.fixed_dictionaries({
    "model": st.sampled_from(MODELS), "gpu": st.sampled_from(GPUS), "gpus": st.sampled_from((1, 1, 2, 4, 8)),
    "nodes": st.sampled_from((1, 1, 2)), "method": st.sampled_from(("full", "full", "lora", "lora", "qlora", "freeze")),
    "precision": st.sampled_from(("pure_bf16", "pure_bf16", "pure_bf16", "fp32", "fp32", "bf16", None)),
    "runner": st.sampled_from(("builtin", "builtin", "llamafactory")), "zero": st.sampled_from((None, 0, 3, 3, 3)),
    "targets": st.sampled_from((None, ("q_proj", "v_proj"), ("q_proj", "k_proj", "v_proj", "o_proj"),
                                ("gate_proj",))),
    "dora": st.booleans(), "optim": st.sampled_from((None, "adamw", "adamw_8bit", "paged_adamw_8bit", "sgd")),
    "stage": st.sampled_from(("sft",) * 7 + ("pt",))})


@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(case)
def test_torchtune_bundle_reads_back_as_its_plan(c):
    lora = c["method"] in ("lora", "qlora")
    try:
        res = plan(PlanRequest(model=load_model(c["model"]), gpu=get_gpu_profile(c["gpu"]), gpus=c["gpus"],
                               nodes=c["nodes"], method=c["method"], runner=c["runner"], model_ref=c["model"],
                               zero_stage=c["zero"], precision=c["precision"], stage=c["stage"], optim=c["optim"],
                               lora_targets=c["targets"] if lora else None, dora=c["dora"] and lora))
    except UserError:
        event("planner refuses the request")
        return                                   # a request the planner refuses (pure_bf16 + ZeRO-3 under LLaMA-Factory)
    p = res.plan.to_dict()
    with tempfile.TemporaryDirectory() as tmp:
        data = make_tiny_dataset(os.path.join(tmp, "d.json"), n=8)
        out = os.path.join(tmp, "b")
        expected = why_not(p)
        if c["targets"] == ("gate_proj",) and lora and expected is None:
            expected = "lora_targets gate_proj"      # torchtune's apply_lora_to_mlp takes the whole MLP
        try:
            write_bundle(res.plan, "torchtune", out, opts=ExportOptions(bundle_dir=out), dataset=str(data))
        except UserError as exc:
            msg = str(exc)
            assert expected is not None and msg.startswith(f"--format torchtune: {expected}"), (msg, expected)
            assert "\n" not in msg
            event(f"refused: {expected.split(' ')[0]}")
            return
        assert expected is None, (expected, p["recommended"])
        event(f"written: {hw_words(p)}")
        assert sorted(os.listdir(out)) == ["dataset_info.json", "plan.json", "torchtune.yaml", "tune_run.sh"]
        d = check([os.path.join(out, "torchtune.yaml"), os.path.join(out, "tune_run.sh")], gpu_id=c["gpu"]).to_dict()
    u, rec, hw = d["understood"], p["recommended"], p["hardware"]
    assert d["runner"] == "torchtune" and d["assumptions"] == [], (d["runner"], d["assumptions"])
    for k in KEYS:
        if rec.get(k) is None or k == "runner":
            continue
        want = rec[k]
        if k == "attn":
            want = "sdpa"                      # torchtune always runs SDPA (flash kernels where the GPU has them)
        elif k == "zero_stage" or (k == "offload" and hw["gpus"] * hw["nodes"] > 1):
            continue                           # FSDP2 instead of ZeRO: compared below
        elif k == "optim" and want == "sgd_momentum":
            want = "sgd"
        assert u[k] == want, (k, want, u[k])
    assert (u["gpus"], u["nodes"], u["stage"]) == (hw["gpus"], hw["nodes"], "sft")
    world = hw["gpus"] * hw["nodes"]
    fsdp = [n for n in d["notes"] if n.startswith("FSDP2 FULL_SHARD")]
    assert len(fsdp) == (world > 1)
    if world > 1:                               # ZeRO-3 = FSDP2 full shard; its offload = fsdp_cpu_offload
        assert u["zero_stage"] == 0 and ("CPU offload" in fsdp[0]) is (rec["offload"] == "all"), fsdp
    else:                                       # one GPU: the plan's own memory
        assert abs(d["memory"]["step"]["peak_allocated_bytes"] - p["memory"]["peak_allocated_bytes"]) <= 1


def test_cli_torchtune_format_refusals_and_file_set(tmp_path):
    """As a user drives it: a default bf16 plan is refused in one line, exit 2, nothing written; `--format all`
    never includes torchtune; the torchtune bundle's tune_run.sh starts the distributed recipe on several GPUs."""
    out = tmp_path / "b"
    r = run_cli("export", "--model", "qwen2.5-0.5b", "--gpu", "mi300x", "--precision", "bf16", "--format",
                "torchtune", "-o", str(out))
    assert r.returncode == 2 and not out.exists()
    assert r.stderr.strip().splitlines()[-1].startswith("rocm-tune export: error: --format torchtune: precision bf16")
    r = run_cli("export", "--model", "qwen2.5-0.5b", "--gpu", "mi300x", "--precision", "pure_bf16", "--runner",
                "builtin", "--dataset-name", "alpaca_en_demo", "-o", str(out), "--json")
    assert r.returncode == 0, r.stderr
    assert "torchtune" not in json.loads(r.stdout)["formats"] and not (out / "torchtune.yaml").exists()
    r = run_cli("export", "--model", "qwen2.5-7b", "--gpu", "mi300x", "--gpus", "4", "--zero", "3", "--offload", "all",
                "--method", "full", "--precision", "pure_bf16", "--runner", "builtin", "--format", "tune",
                "-o", str(tmp_path / "d"), "--allow-unfit")
    assert r.returncode == 0, r.stderr
    sh = (tmp_path / "d" / "tune_run.sh").read_text()
    assert "run --nproc_per_node 4 full_finetune_distributed --config torchtune.yaml" in sh
    if SHELLCHECK:                              # CI installs it (.ci/run)
        r = subprocess.run([SHELLCHECK, "-s", "bash", str(tmp_path / "d" / "tune_run.sh")], capture_output=True,
                           text=True, check=False)
        assert r.returncode == 0, r.stdout
    assert "fsdp_cpu_offload: true" in (tmp_path / "d" / "torchtune.yaml").read_text()


def test_app_export_offers_torchtune_unticked(tmp_path):
    """The app's Export screen lists torchtune but does not tick it (its default is `--format all`); ticked with
    every other format it adds torchtune.yaml and tune_run.sh to the LLaMA-Factory bundle, and a plan torchtune
    cannot run is the same one-line refusal as the CLI's."""
    from rocm_tune.tui import export_model as em
    from rocm_tune.tui.screens.export import with_dataset

    assert "torchtune" in em.FORMATS and "torchtune" not in em.DEFAULT_FORMATS
    data = make_tiny_dataset(tmp_path / "d.json", n=8)
    req = {"model": load_model("qwen2.5-0.5b"), "gpu": get_gpu_profile("mi300x"), "method": "lora",
           "model_ref": "qwen2.5-0.5b"}
    p, opts = with_dataset(plan(PlanRequest(**req, precision="pure_bf16", runner="builtin")).plan.to_dict(),
                              str(data))                   # the screen's dataset field: a local file
    # every format but ms-swift's and Axolotl's (which refuse pure_bf16: tests/test_export_swift.py, _axolotl.py)
    files = em.render(p, [f for f in em.FORMATS if f not in ("swift", "axolotl")], opts)
    assert {"run.sh", "llamafactory.yaml", "torchtune.yaml", "tune_run.sh"} <= set(files)
    assert set(em.render(p, list(em.DEFAULT_FORMATS), opts)) == set(files) - {"torchtune.yaml", "tune_run.sh"}
    assert str(data) in files["torchtune.yaml"]
    p16, opts = with_dataset(plan(PlanRequest(**req, precision="bf16")).plan.to_dict(), str(data))
    try:
        em.render(p16, ["torchtune"], opts)
    except UserError as exc:
        assert str(exc).startswith("--format torchtune: precision bf16")
    else:
        raise AssertionError("a bf16 plan was written as torchtune")


@pytest.mark.parametrize("hub_id, want", [
    ("Qwen/Qwen2.5-7B-Instruct", "torchtune.models.qwen2_5.qwen2_5_7b_instruct"),
    ("Qwen/Qwen2.5-1.5B", "torchtune.models.qwen2_5.qwen2_5_1_5b_base"),
    ("Qwen/Qwen2.5-0.5B-Instruct", "torchtune.models.qwen2_5.qwen2_5_0_5b"),
    ("Qwen/Qwen2-7B-Instruct", "torchtune.models.qwen2.qwen2_7b"),
    ("meta-llama/Meta-Llama-3-8B-Instruct", "torchtune.models.llama3.llama3_8b"),
    ("meta-llama/Llama-3.2-3B-Instruct", "torchtune.models.llama3_2.llama3_2_3b"),
    ("meta-llama/Llama-3.3-70B-Instruct", "torchtune.models.llama3_3.llama3_3_70b"),
    ("meta-llama/Llama-2-13b-chat-hf", "torchtune.models.llama2.llama2_13b"),
    ("google/gemma-2-2b-it", "torchtune.models.gemma2.gemma2_2b"),
    ("google/gemma-7b", "torchtune.models.gemma.gemma_7b"),
    ("mistralai/Mistral-7B-v0.1", "torchtune.models.mistral.mistral_7b"),
    ("mistralai/Mistral-7B-Instruct-v0.3", "vocabulary 32768"),       # v0.3's vocabulary: no builder
    ("Qwen/Qwen2-VL-7B-Instruct", "no model builder"),
    ("Qwen/Qwen3-8B", "no model builder"),
    ("Qwen/Qwen2.5-9B", "builds qwen2_5 in sizes"),
])
def test_model_builder_of_a_hub_id(hub_id, want):
    """The builder torchtune 0.6.1 ships for a model (its name says family, size, base or instruct), or the
    one-line refusal naming it; the model's own config.json is read where rocm-tune has it (the vocabulary)."""
    from rocm_tune.core.runners.torchtune import builder

    try:
        spec = load_model(hub_id)
    except UserError:
        spec = None
    try:
        got = builder(hub_id, spec, None)[0]
    except UserError as exc:
        got = str(exc)
        assert got.startswith(f"--format torchtune: model {hub_id}: ") and want in got, got
    else:
        assert got == want
