"""rocm_tune.core.export and `rocm-tune export`: golden files, shell safety, round trips, no overwrite.

Regenerate the golden files after an intended change with:
    ROCM_TUNE_UPDATE_GOLDEN=1 python3 -m pytest -q tests/test_export_bundle.py
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from rocm_tune.core.errors import UserError
from rocm_tune.core.export import bundle as B
from rocm_tune.core.export import deepspeed as DS
from rocm_tune.core.export import llamafactory as LF
from rocm_tune.core.export.common import ExportOptions, resolve
from rocm_tune.core.plan.plan import Plan
from tests.conftest import run_cli

GOLDEN = Path(__file__).parent / "golden" / "export"
UPDATE = os.environ.get("ROCM_TUNE_UPDATE_GOLDEN") == "1"
SHELLCHECK = shutil.which("shellcheck")


def base_plan() -> dict:
    """A version-2 plan.json (rocm_tune.core.plan.plan; field report 000: 2x MI50, fp32, DDP)."""
    return {
        "version": 2,
        "model": {"ref": "Qwen/Qwen2.5-7B-Instruct", "name": "Qwen2.5-7B-Instruct", "family": "qwen2",
                  "params_total": 7615616512},
        "hardware": {"gpu": "mi50-32gb", "gpus": 2, "nodes": 1, "vram_bytes": 34342961152,
                     "cpu_ram_bytes": 137438953472, "headroom": 0.85, "vram_in_use_bytes": 0},
        "goal": {"method": "lora", "stage": "sft", "effective_batch": 64, "priority": "stability", "epochs": 5.0,
                 "hours": None, "dataset": None},
        "fits": True,
        "recommended": {
            "method": "lora", "precision": "fp32", "attn": "eager", "cutoff_len": 1024, "micro_batch": 1,
            "grad_accum": 32, "zero_stage": 0, "offload": "none", "gradient_checkpointing": True,
            "optim": "adamw", "launcher": "torchrun", "runner": "llamafactory",
            "env": {"HIP_VISIBLE_DEVICES": "0,1", "HSA_OVERRIDE_GFX_VERSION": "9.0.6",
                    "NCCL_ASYNC_ERROR_HANDLING": "1", "PYTORCH_HIP_ALLOC_CONF": "expandable_segments:True"},
            "lora_rank": 64, "lora_alpha": 128, "lora_targets": ["all"], "dora": False, "quant_bits": None,
            "double_quant": None, "freeze_trainable_layers": None, "ddp_find_unused_parameters": False,
            "use_reentrant": False, "learning_rate": 1e-05, "epochs": 5.0,
        },
        "memory": {"weights_bytes": 30461000000, "peak_allocated_bytes": 31000000000, "reserved_bytes": 32000000000,
                   "cpu_offload_bytes": 0},
        "throughput": {"tokens_per_s": 190.0, "seconds_per_step": 340.0, "eta_seconds": 144000.0, "steps": 424,
                       "low": {"tokens_per_s": 133.0, "seconds_per_step": 486.0, "eta_seconds": 206000.0},
                       "high": {"tokens_per_s": 266.0, "seconds_per_step": 243.0, "eta_seconds": 103000.0}},
        "warnings": [
            {"code": "bf16-emulated", "message": "MI50 has no bf16 hardware;\nbf16 is emulated (700+ s/it)",
             "fix": "train in fp32 or fp16"},
            {"code": "iommu-p2p-hang-risk", "message": "Intel IOMMU can hang RCCL peer-to-peer",
             "fix": "boot with intel_iommu=off"},
        ],
        "reasons": ["fp32: fp16 overflows for qwen2"],
        "alternatives": [],
    }


_NO_LORA = {"lora_rank": None, "lora_alpha": None, "lora_targets": None}


def plan_case(name: str) -> dict:
    p = base_plan()
    rec = p["recommended"]
    if name == "mi50-ddp-fp32":
        return p
    if name == "single-bf16":
        p["hardware"].update(gpu="rtx4090", gpus=1)
        p["warnings"] = []
        rec.update(precision="bf16", attn="sdpa", micro_batch=4, grad_accum=16, launcher="python",
                   env={"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"}, ddp_find_unused_parameters=None,
                   lora_rank=16, lora_alpha=32, learning_rate=1e-4, epochs=3.0)
        return p
    if name == "zero3-offload-2nodes":
        p["hardware"].update(gpu="z100-16gb", gpus=8, nodes=2)
        p["goal"].update(method="full")
        rec.update(method="full", precision="fp16", attn="eager", cutoff_len=512, micro_batch=1, grad_accum=4,
                   zero_stage=3, offload="all", **_NO_LORA, env={"NCCL_IB_DISABLE": "0", "NCCL_SOCKET_IFNAME": "ib0",
                                                               "PYTORCH_HIP_ALLOC_CONF": "expandable_segments:True"})
        p["warnings"] = [{"code": "offload-needs-cpu-ram", "message": "ZeRO-3 offload takes 112 GiB of CPU RAM",
                          "fix": "make sure each node has it"}]
        return p
    if name == "qlora-accelerate-zero2":
        p["hardware"].update(gpu="mi100", gpus=4)
        p["goal"].update(method="qlora")
        rec.update(method="qlora", precision="bf16", attn="fa2", zero_stage=2, offload="optimizer",
                   gradient_checkpointing=False, micro_batch=2, grad_accum=8, quant_bits=4,
                   optim="paged_adamw_8bit", use_reentrant=None,
                   env={"HIP_VISIBLE_DEVICES": "0,1,2,3", "NCCL_P2P_DISABLE": "1"})
        return p
    if name == "freeze-pure-bf16-llamafactory-cli":
        p["hardware"].update(gpu="mi300x", gpus=8)
        p["goal"].update(method="freeze", stage="dpo")
        rec.update(method="freeze", precision="pure_bf16", attn="sdpa", zero_stage=1, micro_batch=8, grad_accum=1,
                   freeze_trainable_layers=4, env={}, **_NO_LORA)
        return p
    if name == "builtin-ddp":  # the plan's runner: rocm-tune's built-in trainer under torchrun
        rec.update(runner="builtin")
        return p
    raise KeyError(name)


# the plan's launcher is python or torchrun; these cases export with `--launcher` (an export option)
LAUNCHER = {"zero3-offload-2nodes": "deepspeed", "qlora-accelerate-zero2": "accelerate",
            "freeze-pure-bf16-llamafactory-cli": "llamafactory-cli"}
CASES = ("mi50-ddp-fp32", "single-bf16", "zero3-offload-2nodes", "qlora-accelerate-zero2",
         "freeze-pure-bf16-llamafactory-cli", "builtin-ddp")


def P(d: dict) -> Plan:
    return Plan.from_dict(d)


OPTS = ExportOptions(dataset_name="alpaca_en_demo", dataset_dir="/data/llama factory", output_dir="/runs/qwen-lora",
                     template="qwen", partition="gpu", account="proj-42", tool_version="",
                     python="/opt/venv/bin/python3")  # golden files: no version, a fixed interpreter


def opts_for(name: str, opts: ExportOptions = None) -> ExportOptions:
    return (opts or OPTS).with_(launcher=LAUNCHER.get(name, (opts or OPTS).launcher))


def build(name: str, opts: ExportOptions = OPTS, formats=("all",)):
    return B.build_bundle(P(plan_case(name)), tuple(formats), opts_for(name, opts))


# ----------------------------------------------------------------------------- golden files


@pytest.mark.parametrize("case", CASES)
def test_golden_files(case):
    bundle = build(case)
    folder = GOLDEN / case
    # the bundle's launcher files are rocm-tune's own lf_launch.py / callbacks.py, byte for byte (not golden copies)
    own = B.launcher_files()
    if plan_case(case)["recommended"]["runner"] == "llamafactory":
        for name, text in own.items():
            assert bundle.files[name] == text
    else:
        assert not set(own) & set(bundle.files)
    files = {k: v for k, v in bundle.files.items() if k not in own}
    if UPDATE:
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        for name, text in files.items():
            (folder / name).write_text(text, encoding="utf-8")
    expected = sorted(p.name for p in folder.iterdir())
    assert sorted(files) == expected, f"files differ from {folder} (ROCM_TUNE_UPDATE_GOLDEN=1 regenerates)"
    for name, text in files.items():
        assert text == (folder / name).read_text(encoding="utf-8"), f"{case}/{name} differs from the golden file"


def test_all_formats_follow_the_plan():
    ddp = build("mi50-ddp-fp32")
    assert "deepspeed.json" not in ddp.files  # zero_stage 0: nothing for DeepSpeed to do
    z3 = build("zero3-offload-2nodes")
    assert {"run.sh", "llamafactory.yaml", "deepspeed.json", "accelerate.yaml", "slurm.sbatch", "plan.json"} <= set(z3.files)


# ----------------------------------------------------------------------------- shell safety

NASTY = "/tmp/my dir/it's \"$HOME\" `id` $(echo pwned); a\\b"


def nasty_case(name: str) -> dict:
    p = plan_case(name)
    p["recommended"]["env"] = dict(p["recommended"]["env"], HF_HOME=NASTY, WANDB_NAME="a b'c")
    p["warnings"].append({"code": "memory-tight", "message": "line1\nrm -rf / $(boom)", "fix": "`x`"})
    return p


@pytest.mark.parametrize("case", CASES)
def test_scripts_pass_bash_n_and_shellcheck(tmp_path, case):
    bundle = B.build_bundle(P(nasty_case(case)), ("all",), opts_for(case, OPTS.with_(master_port=29501)))
    out = tmp_path / "bundle with space $x"
    B.write_bundle(bundle, str(out))
    for script in ("run.sh", "slurm.sbatch"):
        path = out / script
        r = subprocess.run(["bash", "-n", str(path)], check=False, capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        if SHELLCHECK:
            r = subprocess.run([SHELLCHECK, "-s", "bash", str(path)], check=False, capture_output=True, text=True)
            assert r.returncode == 0, r.stdout
        assert os.stat(path).st_mode & stat.S_IXUSR


def test_shellcheck_is_installed_or_skipped_visibly():
    if not SHELLCHECK:
        pytest.skip("shellcheck is not installed (apt-get install shellcheck); scripts only got bash -n")
    assert subprocess.run([SHELLCHECK, "--version"], capture_output=True).returncode == 0


STUB = """#!/usr/bin/env bash
{
  printf 'PROG=%s\\n' "$(basename "$0")"
  printf 'CWD=%s\\n' "$PWD"
  for a in "$@"; do printf 'ARG=%s\\n' "$a"; done
  printf 'HF_HOME=%s\\n' "${HF_HOME-}"
  printf 'HIP_VISIBLE_DEVICES=%s\\n' "${HIP_VISIBLE_DEVICES-}"
  printf 'FORCE_TORCHRUN=%s\\n' "${FORCE_TORCHRUN-}"
  printf 'NPROC_PER_NODE=%s\\n' "${NPROC_PER_NODE-}"
  printf 'MASTER_ADDR=%s\\n' "${MASTER_ADDR-}"
} > "$STUB_OUT"
"""


def run_with_stubs(tmp_path: Path, plan: dict, opts: ExportOptions = OPTS, extra_env: dict | None = None,
                   args: tuple = ()) -> tuple[subprocess.CompletedProcess, dict]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    for prog in ("torchrun", "deepspeed", "accelerate", "llamafactory-cli", "rocm-tune", "python-lf"):
        (bin_dir / prog).write_text(STUB)
        (bin_dir / prog).chmod(0o755)
    out = tmp_path / "my bundle $HOME"
    B.write_bundle(B.build_bundle(P(plan), ("sh",), opts), str(out), force=True)
    record = tmp_path / "stub.txt"
    env = {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "STUB_OUT": str(record), "HOME": str(tmp_path),
           "LLAMAFACTORY_PYTHON": str(bin_dir / "python-lf")}  # the Python with LLaMA-Factory
    env.update(extra_env or {})
    r = subprocess.run(["bash", str(out / "run.sh"), *args], check=False, capture_output=True, text=True, env=env, cwd="/")
    seen: dict = {"ARG": []}
    if record.exists():
        for line in record.read_text().splitlines():
            k, _, v = line.partition("=")
            if k == "ARG":
                seen["ARG"].append(v)
            else:
                seen[k] = v
    seen["bundle"] = str(out)
    return r, seen


def test_run_sh_passes_nasty_values_literally(tmp_path):
    r, seen = run_with_stubs(tmp_path, nasty_case("mi50-ddp-fp32"), args=("learning_rate=2.0e-5",))
    assert r.returncode == 0, r.stderr
    assert seen["PROG"] == "python-lf" and seen["CWD"] == seen["bundle"]
    assert seen["HF_HOME"] == NASTY  # nothing expanded, nothing executed
    assert seen["HIP_VISIBLE_DEVICES"] == "0,1"
    # torchrun of LLaMA-Factory's Python starts the bundle's lf_launch.py, fp32 pinned, the override passed on
    assert seen["ARG"] == ["-m", "torch.distributed.run", "--standalone", "--nnodes", "1", "--nproc_per_node", "2",
                           "lf_launch.py", "llamafactory.yaml", "--compute-dtype", "fp32", "learning_rate=2.0e-5"]
    assert not (tmp_path / "pwned").exists()


def test_run_sh_launchers(tmp_path):
    r, seen = run_with_stubs(tmp_path, plan_case("single-bf16"))
    assert r.returncode == 0, r.stderr
    assert seen["PROG"] == "python-lf" and seen["ARG"] == ["lf_launch.py", "llamafactory.yaml"]   # bf16: no pin
    assert seen["FORCE_TORCHRUN"] == ""
    # the built-in trainer: started with the recorded interpreter (ROCM_TUNE_PYTHON overrides it), never `rocm-tune`
    py = tmp_path / "bin" / "python-stub"
    py.write_text(STUB)
    py.chmod(0o755)
    r, seen = run_with_stubs(tmp_path, plan_case("single-bf16"), OPTS.with_(runner="builtin", python=str(py)))
    assert r.returncode == 0, r.stderr
    assert seen["PROG"] == "python-stub" and seen["ARG"] == ["-m", "rocm_tune", "train", "llamafactory.yaml"]
    r, seen = run_with_stubs(tmp_path, plan_case("single-bf16"), OPTS.with_(runner="builtin"),
                             extra_env={"ROCM_TUNE_PYTHON": str(py)})
    assert r.returncode == 0 and seen["PROG"] == "python-stub", r.stderr
    r, seen = run_with_stubs(tmp_path, plan_case("single-bf16"), OPTS.with_(runner="builtin"))
    assert r.returncode == 127 and "cannot run /opt/venv/bin/python3; set ROCM_TUNE_PYTHON" in r.stderr
    r, seen = run_with_stubs(tmp_path, plan_case("freeze-pure-bf16-llamafactory-cli"),
                             opts_for("freeze-pure-bf16-llamafactory-cli"))
    assert seen["PROG"] == "python-lf" and seen["ARG"][:7] == ["-m", "torch.distributed.run", "--standalone",
                                                               "--nnodes", "1", "--nproc_per_node", "8"]
    assert seen["ARG"][-2:] == ["lf_launch.py", "llamafactory.yaml"]
    r, seen = run_with_stubs(tmp_path, plan_case("qlora-accelerate-zero2"), opts_for("qlora-accelerate-zero2"))
    assert seen["PROG"] == "accelerate"
    assert seen["ARG"][:3] == ["launch", "--config_file", "accelerate.yaml"]
    assert seen["ARG"][-2:] == ["lf_launch.py", "llamafactory.yaml"]
    # deepspeed launcher, one node with visible devices -> --include
    r, seen = run_with_stubs(tmp_path, plan_case("mi50-ddp-fp32"), OPTS.with_(launcher="deepspeed"))
    assert seen["PROG"] == "deepspeed" and seen["ARG"][:2] == ["--include", "localhost:0,1"]
    assert seen["ARG"][-5:] == ["--no_local_rank", "lf_launch.py", "llamafactory.yaml", "--compute-dtype", "fp32"]


def test_multi_node_run_sh_needs_master_addr(tmp_path):
    r, seen = run_with_stubs(tmp_path, plan_case("zero3-offload-2nodes"), opts_for("zero3-offload-2nodes"))
    assert r.returncode != 0 and "set MASTER_ADDR" in r.stderr
    r, seen = run_with_stubs(tmp_path, plan_case("zero3-offload-2nodes"), opts_for("zero3-offload-2nodes"),
                             extra_env={"MASTER_ADDR": "10.0.0.1"})
    assert r.returncode == 0, r.stderr
    assert seen["PROG"] == "deepspeed"
    # --no_ssh + NODE_RANK: each node starts its own processes from the shipped hostfile's counts
    assert seen["ARG"][:9] == ["--hostfile", "hostfile", "--no_ssh", "--node_rank", "0", "--num_nodes", "2",
                               "--num_gpus", "8"]
    assert "10.0.0.1" in seen["ARG"]


def test_slurm_script_for_several_nodes():
    text = build("zero3-offload-2nodes").files["slurm.sbatch"]
    for line in ("#SBATCH --nodes=2", "#SBATCH --ntasks-per-node=1", "#SBATCH --gres=gpu:8",
                 "#SBATCH --partition=gpu", "#SBATCH --account=proj-42"):
        assert line in text.splitlines()
    # sed reads all of scontrol's output: `head -n 1` would die with 141 (SIGPIPE) under pipefail
    assert 'scontrol show hostnames "$SLURM_JOB_NODELIST" | sed -n 1p' in text
    assert "--rdzv_backend c10d" in text and "srun" in text and "--nproc_per_node 8" in text
    assert "HIP_VISIBLE_DEVICES" not in build("mi50-ddp-fp32").files["slurm.sbatch"]  # --gres picks devices
    with pytest.raises(UserError, match="partition"):
        build("mi50-ddp-fp32", OPTS.with_(partition="gpu; rm -rf /"))
    assert "#SBATCH --gres=dcu:8" in build("zero3-offload-2nodes", OPTS.with_(gres="dcu")).files["slurm.sbatch"]


# ----------------------------------------------------------------------------- YAML / JSON content


@pytest.mark.parametrize("case", CASES)
def test_yaml_and_json_round_trip(case):
    bundle = build(case)
    r = resolve(P(plan_case(case)), opts_for(case))
    lf = yaml.safe_load(bundle.files["llamafactory.yaml"])
    assert lf == LF.as_dict(r, OPTS)
    assert set(lf) <= set(LF.KNOWN_KEYS)
    assert json.loads(bundle.files["plan.json"]) == plan_case(case)
    acc = yaml.safe_load(bundle.files["accelerate.yaml"])
    assert acc["num_processes"] == r.world_size and acc["num_machines"] == r.nodes
    if r.uses_deepspeed:
        ds = json.loads(bundle.files["deepspeed.json"])
        assert ds == DS.config(r, OPTS)
        assert lf["deepspeed"] == "deepspeed.json"
        assert acc["distributed_type"] == "DEEPSPEED" and "mixed_precision" not in acc
        assert acc["deepspeed_config"]["deepspeed_config_file"] == "deepspeed.json"
    else:
        assert "deepspeed" not in lf
        assert acc["distributed_type"] == ("MULTI_GPU" if r.world_size > 1 else "NO")


@pytest.mark.parametrize("case", CASES)
def test_deepspeed_values_match_the_trainer(case):
    """Batch sizes, accumulation, clipping and the offload optimizer's hyper-parameters are "auto": the HF
    integration fills them from the YAML, so `bash run.sh learning_rate=5e-5 per_device_train_batch_size=2`
    works. What it fills them with (the YAML's values) is checked by tests/realstack with the real
    transformers + DeepSpeed; precision is explicit and must equal the YAML."""
    r = resolve(P(plan_case(case)), opts_for(case))
    lf = LF.as_dict(r, OPTS)
    ds = DS.config(r, OPTS)
    for key in ("train_micro_batch_size_per_gpu", "gradient_accumulation_steps", "train_batch_size",
                "gradient_clipping"):
        assert ds[key] == "auto", key
    assert ds["fp16"]["enabled"] == lf["fp16"] and ds["bf16"]["enabled"] == lf["bf16"]
    assert ds["fp16"]["loss_scale"] == 0
    z = ds["zero_optimization"]
    assert z["stage"] == r.zero_stage
    # the estimate's own ZeRO numbers (buckets from the model's shape), not fixed defaults
    from rocm_tune.core.model.architecture import load_model
    from rocm_tune.core.runners.deepspeed import zero_settings

    plan = P(plan_case(case))
    assert z == (zero_settings(load_model(plan.model.ref), plan.train_config()) or {"stage": 0})
    assert z.get("reduce_bucket_size") in (None, 3584 * 3584)  # qwen2.5-7b: hidden 3584
    if r.offload in ("optimizer", "all"):
        assert z["offload_optimizer"] == {"device": "cpu", "pin_memory": True}
        assert ds["optimizer"]["params"] == {"lr": "auto", "betas": "auto", "eps": "auto", "weight_decay": "auto"}
    else:
        assert "offload_optimizer" not in z and "optimizer" not in ds
    assert ("offload_param" in z) == (r.offload == "all")


def test_precision_attention_and_method_switches():
    q = LF.as_dict(resolve(P(plan_case("qlora-accelerate-zero2")), opts_for("qlora-accelerate-zero2")), OPTS)
    assert q["finetuning_type"] == "lora" and q["quantization_bit"] == 4 and q["bf16"] is True
    assert q["flash_attn"] == "fa2" and q["disable_gradient_checkpointing"] is True
    assert q["optim"] == "paged_adamw_8bit" and q["ddp_find_unused_parameters"] is False
    m = LF.as_dict(resolve(P(plan_case("mi50-ddp-fp32")), opts_for("mi50-ddp-fp32")), OPTS)
    assert m["flash_attn"] == "disabled" and m["bf16"] is False and m["fp16"] is False
    assert m["use_reentrant_gc"] is False and "disable_gradient_checkpointing" not in m
    assert m["lora_rank"] == 64 and m["lora_alpha"] == 128 and m["learning_rate"] == 1e-5
    f = LF.as_dict(resolve(P(plan_case("freeze-pure-bf16-llamafactory-cli")), opts_for("freeze-pure-bf16-llamafactory-cli")), OPTS)
    assert f["pure_bf16"] is True and f["bf16"] is False and f["finetuning_type"] == "freeze"
    assert f["freeze_trainable_layers"] == 4 and f["stage"] == "dpo" and "lora_rank" not in f
    s = LF.as_dict(resolve(P(plan_case("single-bf16")), opts_for("single-bf16")), OPTS)
    assert "ddp_find_unused_parameters" not in s and "use_reentrant_gc" not in s


@pytest.mark.slow
def test_training_argument_names_exist_in_transformers():
    from dataclasses import fields

    from transformers import Seq2SeqTrainingArguments
    from transformers.training_args import OptimizerNames

    from rocm_tune.core.export.common import OPTIM

    hf = {f.name for f in fields(Seq2SeqTrainingArguments)} | {"overwrite_output_dir"}  # LLaMA-Factory adds it
    hf_keys = [k for k, where in LF.KNOWN_KEYS.items() if where == "training_args" and not k.startswith("warmup_")]
    missing = [k for k in hf_keys if k not in hf]
    assert not missing, f"not TrainingArguments fields in this transformers: {missing}"
    # the spelling export picks by default; what it means in the runner's transformers (4.55-5.6) is
    # checked by tests/realstack with the real LLaMA-Factory parser
    assert ExportOptions().warmup_key == "warmup_ratio" and LF.RUNNER_TRANSFORMERS["llamafactory"][0] < "5"
    assert {o.value for o in OptimizerNames} >= set(OPTIM.values())


def test_warmup_key_option():
    r = resolve(P(plan_case("single-bf16")), OPTS)
    assert LF.as_dict(r, OPTS)["warmup_ratio"] == 0.1
    new = LF.as_dict(r, OPTS.with_(warmup_key="warmup_steps"))
    assert new["warmup_steps"] == 0.1 and "warmup_ratio" not in new
    # the built-in trainer reads warmup_ratio whatever transformers is installed
    rb = resolve(P(plan_case("single-bf16")), OPTS.with_(runner="builtin"))
    assert "warmup_ratio" in LF.as_dict(rb, OPTS.with_(warmup_key="warmup_steps", runner="builtin"))


@pytest.mark.parametrize("case", ["single-bf16", "mi50-ddp-fp32", "qlora-accelerate-zero2"])
def test_builtin_trainer_reads_the_exported_yaml(case, tmp_path):
    from rocm_tune.train import config

    model = tmp_path / "model"
    model.mkdir()
    (model / "config.json").write_text('{"model_type": "qwen2"}')
    out = tmp_path / "bundle"
    B.write_bundle(build(case, OPTS.with_(model=str(model), dataset_dir=str(tmp_path))), str(out))
    lf = yaml.safe_load((out / "llamafactory.yaml").read_text())
    cfg = config.config_from_dict(lf, base_dir=str(out))  # run.sh runs in the bundle directory
    assert cfg.cutoff_len == lf["cutoff_len"] and cfg.per_device_train_batch_size == lf["per_device_train_batch_size"]
    if "use_reentrant_gc" in lf:  # multi-GPU LoRA with checkpointing: non-reentrant, as the plan says
        assert cfg.use_reentrant_gc is False and lf["use_reentrant_gc"] is False
    if "warmup_steps" in lf:
        assert 0 <= cfg.warmup_steps < 1 or float(cfg.warmup_steps).is_integer()


@pytest.mark.slow
def test_accelerate_reads_the_config(tmp_path):
    pytest.importorskip("accelerate")
    from accelerate.commands.config.config_args import load_config_from_file

    for case in ("mi50-ddp-fp32", "qlora-accelerate-zero2", "single-bf16"):
        path = tmp_path / f"{case}.yaml"
        path.write_text(build(case).files["accelerate.yaml"])
        cfg = load_config_from_file(str(path))
        r = resolve(P(plan_case(case)), opts_for(case))
        assert cfg.num_processes == r.world_size
        assert str(cfg.distributed_type).endswith({0: "MULTI_GPU" if r.world_size > 1 else "NO"}.get(r.zero_stage, "DEEPSPEED"))


# ----------------------------------------------------------------------------- writing


def test_never_overwrites_without_force_and_writes_atomically(tmp_path):
    out = tmp_path / "new" / "deep"
    bundle = build("mi50-ddp-fp32")
    written = B.write_bundle(bundle, str(out))
    assert sorted(p.name for p in written) == sorted(bundle.files)
    (out / "run.sh").write_text("# mine\n")
    with pytest.raises(UserError, match=r"run\.sh already exists.*--force"):
        B.write_bundle(bundle, str(out))
    assert (out / "run.sh").read_text() == "# mine\n"  # untouched, and nothing else rewritten either
    B.write_bundle(bundle, str(out), force=True)
    assert (out / "run.sh").read_text() == bundle.files["run.sh"]
    assert not [p for p in out.iterdir() if p.name.startswith(".")]  # no temp files left
    f = tmp_path / "afile"
    f.write_text("x")
    with pytest.raises(UserError, match="not a directory"):
        B.write_bundle(bundle, str(f))


def test_dataset_file_gets_a_dataset_info_entry(tmp_path):
    from rocm_tune.core.data.dataset import analyze_dataset

    data = tmp_path / "chat data.jsonl"
    data.write_text("".join(json.dumps({"messages": [{"role": "user", "content": "hi " * i},
                                                     {"role": "assistant", "content": "ok"}]}) + "\n"
                            for i in range(1, 6)))
    bundle = B.build_bundle(P(plan_case("single-bf16")), ("llamafactory",), ExportOptions(), dataset=str(data))
    info = json.loads(bundle.files["dataset_info.json"])
    entry = info["chat_data"]
    assert entry["formatting"] == "sharegpt" and entry["columns"] == {"messages": "messages"}
    assert entry["tags"]["role_tag"] == "role" and entry["file_name"] == str(data)
    lf = yaml.safe_load(bundle.files["llamafactory.yaml"])
    assert lf["dataset"] == "chat_data" and lf["dataset_dir"] == "."
    out = tmp_path / "b"
    B.write_bundle(bundle, str(out))
    # our reader honours the entry the way LLaMA-Factory does: same samples through dataset_info.json
    assert analyze_dataset(str(out), dataset_name="chat_data").lengths == analyze_dataset(str(data)).lengths


def test_bad_plans_are_user_errors():
    p = plan_case("mi50-ddp-fp32")
    del p["recommended"]["cutoff_len"]
    with pytest.raises(UserError, match="recommended.cutoff_len"):
        P(p)
    for field, value, pattern in (("precision", "fp8", "precision"), ("launcher", "mpirun", "launcher"),
                                  ("micro_batch", -1, "micro_batch"), ("zero_stage", 5, "zero_stage"),
                                  ("attn", "flash", "attn"), ("runner", "pytorch", "runner"),
                                  ("cutoff_len", float("inf"), "cutoff_len")):
        p = plan_case("mi50-ddp-fp32")
        p["recommended"][field] = value
        with pytest.raises(UserError, match=pattern):
            P(p)
    with pytest.raises(UserError, match="launcher 'mpirun' is not known"):
        build("mi50-ddp-fp32", OPTS.with_(launcher="mpirun"))
    with pytest.raises(UserError, match="--format 'yml'"):
        B.parse_formats("sh,yml")
    with pytest.raises(UserError, match="needs a dataset"):
        B.build_bundle(P(plan_case("mi50-ddp-fp32")), ("llamafactory",), ExportOptions())
    p = plan_case("qlora-accelerate-zero2")
    p["model"]["ref"] = "/nonexistent/model"
    with pytest.raises(UserError, match="ZeRO bucket sizes follow the model's shape"):
        B.build_bundle(P(p), ("all",), OPTS)
    with pytest.raises(UserError, match="cannot train stage 'dpo'"):
        B.build_bundle(P(plan_case("freeze-pure-bf16-llamafactory-cli")), ("all",), OPTS.with_(runner="builtin"))


# ----------------------------------------------------------------------------- CLI


def test_cli_export_from_plan_file(tmp_path):
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(plan_case("zero3-offload-2nodes")))
    out = tmp_path / "bundle"
    args = ["export", "--plan", str(plan), "--format", "sh,slurm", "-o", str(out), "--dataset-name", "d",
            "--dataset-dir", "data", "--launcher", "torchrun"]
    r = run_cli(*args)
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in out.iterdir()) == ["deepspeed.json", "lf_launch.py", "llamafactory.yaml", "plan.json",
                                                     "rocm_tune_callbacks.py", "run.sh", "slurm.sbatch"]
    lf = yaml.safe_load((out / "llamafactory.yaml").read_text())
    # no ./data/dataset_info.json here: `data` is the bundle's, where run.sh runs LLaMA-Factory
    assert lf["dataset_dir"] == str(out / "data")
    again = run_cli(*args)
    assert again.returncode == 2 and "already exists" in again.stderr and "--force" in again.stderr
    assert again.stderr.count("\n") == 1
    assert run_cli(*args, "--force").returncode == 0


def test_cli_errors_and_unfit_plan(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"version": 1,\n "recommended": }')
    r = run_cli("export", "--plan", str(bad), "-o", str(tmp_path / "o"))
    assert r.returncode == 2 and "line 2" in r.stderr and "Traceback" not in r.stderr
    r = run_cli("export", "--plan", str(tmp_path / "missing.json"), "-o", str(tmp_path / "o"))
    assert r.returncode == 2 and "does not exist" in r.stderr
    unfit = plan_case("mi50-ddp-fp32")
    unfit["fits"] = False
    pf = tmp_path / "unfit.json"
    pf.write_text(json.dumps(unfit))
    r = run_cli("export", "--plan", str(pf), "-o", str(tmp_path / "u"), "--dataset-name", "d", "--dataset-dir", "/d")
    assert r.returncode == 1 and not (tmp_path / "u").exists()
    r = run_cli("export", "--plan", str(pf), "-o", str(tmp_path / "u"), "--dataset-name", "d", "--dataset-dir", "/d",
                "--allow-unfit")
    assert r.returncode == 0 and (tmp_path / "u" / "run.sh").exists()


def test_render_bundle_api_for_the_tui():
    from rocm_tune.core.export import render_bundle

    files = render_bundle(P(plan_case("single-bf16")), ["sh"], OPTS)
    assert set(files) == {"run.sh", "llamafactory.yaml", "plan.json", "lf_launch.py", "rocm_tune_callbacks.py"}


def test_core_export_imports_no_heavy_modules():
    code = "import sys, rocm_tune.core.export.bundle; print([m for m in ('torch','transformers') if m in sys.modules])"
    out = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True)
    assert out.stdout.strip() == "[]"


def test_the_bundles_plan_json_reads_back_as_the_same_plan():
    p = P(plan_case("zero3-offload-2nodes"))
    bundle = B.build_bundle(p, ("all",), opts_for("zero3-offload-2nodes"))
    assert Plan.from_dict(json.loads(bundle.files["plan.json"])) == p


def test_template_from_family_and_preset_hub_id():
    assert LF.guess_template("qwen2", "Qwen2.5-7B-Instruct") == "qwen"
    assert LF.guess_template("qwen2", "deepseek-r1-distill-qwen-32b") == "deepseekr1"
    assert LF.guess_template("llama", "llama-3.1-8b") == "llama3"
    assert LF.guess_template("baichuan", "baichuan2-7b-chat") == "baichuan2"
    assert LF.guess_template("weird", "x") == "default"
    p = plan_case("single-bf16")
    p["model"].update(ref="qwen2.5-7b", name="qwen2.5-7b")
    bundle = B.build_bundle(P(p), ("llamafactory",), ExportOptions(dataset_name="d", dataset_dir="/data"))
    lf = yaml.safe_load(bundle.files["llamafactory.yaml"])
    assert lf["template"] == "qwen"
    assert lf["model_name_or_path"] == "Qwen/Qwen2.5-7B-Instruct"  # LLaMA-Factory cannot load a preset name
    assert any("hub id of preset" in n for n in bundle.notes)


def test_cli_export_with_plan_flags_runs_the_planner(tmp_path):
    data = tmp_path / "alpaca.json"
    data.write_text(json.dumps([{"instruction": "explain lora " * (i % 50 + 1), "output": "ok"} for i in range(200)]))
    out = tmp_path / "b"
    r = run_cli("export", "--model", "qwen2.5-7b", "--gpu", "mi50-32gb", "--gpus", "2", "--dataset", str(data),
                "-o", str(out), "--json")
    assert r.returncode == 0, r.stderr
    res = json.loads(r.stdout)
    plan = json.loads((out / "plan.json").read_text())
    assert plan["hardware"]["gpu"] == "mi50-32gb" and plan["goal"]["dataset"] == str(data)
    lf = yaml.safe_load((out / "llamafactory.yaml").read_text())
    assert lf["cutoff_len"] == plan["recommended"]["cutoff_len"] and lf["bf16"] is False  # MI50 emulates bf16
    assert lf["dataset"] == "alpaca" and json.loads((out / "dataset_info.json").read_text())["alpaca"]["file_name"] == str(data)
    assert {Path(f).name for f in res["files"]} >= {"run.sh", "llamafactory.yaml", "plan.json", "slurm.sbatch"}
    r = run_cli("export", "--plan", str(out / "plan.json"), "--model", "qwen2.5-7b", "-o", str(tmp_path / "c"))
    assert r.returncode == 2 and "--plan cannot be combined" in r.stderr


# ----------------------------------------------------------------------------- app export == CLI export


def _alpaca(path: Path, n: int = 20) -> Path:
    path.write_text(json.dumps([{"instruction": "explain lora " * (i % 7 + 1), "output": "ok"} for i in range(n)]))
    return path


def _tree(folder: Path) -> dict:
    """{name: (bytes, mode)}; the bundle's own absolute directory (in the YAML's paths and slurm.sbatch's cd)
    is written as BUNDLE so bundles in two directories compare."""
    own = str(folder.resolve()).encode()
    return {p.name: (p.read_bytes().replace(own, b"BUNDLE"), stat.S_IMODE(p.stat().st_mode))
            for p in sorted(folder.iterdir())}


def _raw_tree(folder: Path) -> dict:
    return {p.name: (p.read_bytes(), stat.S_IMODE(p.stat().st_mode)) for p in sorted(folder.iterdir())}


def _app_and_cli_bundles(tmp_path: Path, plan: dict) -> tuple[dict, dict]:
    """The app's export and a real `rocm-tune export --plan` into the same directory (one after the other):
    the bundle names its own absolute directory, so the same -o must give the same bytes."""
    from rocm_tune.tui import export_model as em

    plan_file = tmp_path / "plan.json"
    plan_file.write_text(json.dumps(plan, indent=1))
    out = tmp_path / "bundle dir"
    em.write(plan, list(em.DEFAULT_FORMATS), str(out), False)
    app = _raw_tree(out)
    shutil.rmtree(out)
    r = run_cli("export", "--plan", str(plan_file), "-o", str(out))
    assert r.returncode == 0, r.stderr
    return app, _raw_tree(out)


@pytest.mark.parametrize("case", CASES)
def test_app_export_writes_what_the_cli_writes(tmp_path, case):
    """The app's export model and a real `rocm-tune export --plan` subprocess: same files, same bytes, same modes."""
    plan = plan_case(case)
    plan["goal"]["dataset"] = str(_alpaca(tmp_path / "train data.json"))
    app, cli = _app_and_cli_bundles(tmp_path, plan)
    assert sorted(app) == sorted(cli)
    assert {"run.sh", "llamafactory.yaml", "accelerate.yaml", "slurm.sbatch", "dataset_info.json", "plan.json"} <= set(cli)
    assert ("deepspeed.json" in cli) == (plan["recommended"]["zero_stage"] > 0)
    for name in cli:
        assert app[name] == cli[name], f"{case}/{name}: the app's export differs from `rocm-tune export`"
    lf = yaml.safe_load(cli["llamafactory.yaml"][0])
    assert lf["warmup_ratio"] == 0.1 and "warmup_steps" not in lf  # the key both write (issue 11: they disagreed)


@pytest.mark.slow
def test_app_export_writes_what_the_cli_writes_for_planner_plans(tmp_path):
    data = _alpaca(tmp_path / "alpaca.json", 200)
    for i, flags in enumerate((["--model", "qwen2.5-7b", "--gpu", "mi50-32gb", "--gpus", "2"],
                               ["--model", "qwen2.5-0.5b", "--gpu", "mi300x", "--method", "full"])):
        out = run_cli("plan", *flags, "--dataset", str(data), "--json")
        assert out.returncode in (0, 1), out.stderr
        plan = json.loads(out.stdout)
        if plan.get("fits") is False:
            continue
        folder = tmp_path / str(i)
        folder.mkdir()
        app, cli = _app_and_cli_bundles(folder, plan)
        assert app == cli


# ----------------------------------------------------------------------------- writing: faults and refusals


def _plan_file(tmp_path: Path, case: str = "single-bf16", **rec) -> Path:
    plan = plan_case(case)
    plan["recommended"].update(rec)
    path = tmp_path / f"{case}.json"
    path.write_text(json.dumps(plan))
    return path


def _one_line(r: subprocess.CompletedProcess, must: str) -> None:
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and must in lines[0], r.stderr


@pytest.mark.skipif(not shutil.which("unshare"), reason="needs unshare (util-linux) for a private tmpfs")
def test_full_disk_leaves_no_partial_bundle_and_the_retry_needs_no_force(tmp_path):
    """A 64 KiB tmpfs, filled up to 8 KiB: the bundle (> 8 KiB) hits ENOSPC part way through."""
    mnt = tmp_path / "small"
    mnt.mkdir()
    plan = _plan_file(tmp_path)
    py = shlex_join([sys.executable, "-m", "rocm_tune", "export", "--plan", str(plan), "-o", str(mnt / "b"),
                     "--dataset-name", "d", "--dataset-dir", "/d"])
    script = "\n".join([
        f"mount -t tmpfs -o size=64k tmpfs {mnt} || exit 99",
        f"head -c 57344 /dev/zero > {mnt}/filler",
        f"{py}; echo rc=$?",
        f"ls -A {mnt}; echo ---",
        f"rm {mnt}/filler",
        f"{py}; echo rc=$?",
        f"ls -A {mnt}/b",
    ])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    r = subprocess.run(["unshare", "-rm", "bash", "-c", script], capture_output=True, text=True, env=env, timeout=120)
    if "rc=" not in r.stdout:
        pytest.skip(f"cannot mount a private tmpfs here (user namespaces off?): {r.stderr.strip()[:200]}")
    first, _, second = r.stdout.partition("---")
    assert "rc=2" in first and first.split("rc=2")[1].split() == ["filler"], r.stdout  # nothing but the filler
    err = [ln for ln in r.stderr.splitlines() if ln.startswith("rocm-tune") and ": note: " not in ln]
    assert len(err) == 1 and "no space left on device" in err[0] and "nothing was written" in err[0], r.stderr
    assert "rc=0" in second, r.stderr
    assert sorted(second.split("rc=0")[1].split()) == ["accelerate.yaml", "lf_launch.py", "llamafactory.yaml",
                                                       "plan.json", "rocm_tune_callbacks.py", "run.sh", "slurm.sbatch"]


def shlex_join(argv: list[str]) -> str:
    import shlex

    return " ".join(shlex.quote(a) for a in argv)


def test_dangling_symlink_is_not_replaced_without_force(tmp_path):
    out = tmp_path / "b"
    out.mkdir()
    (out / "run.sh").symlink_to(tmp_path / "missing")
    bundle = build("single-bf16")
    with pytest.raises(UserError, match=r"run\.sh already exists.*--force"):
        B.write_bundle(bundle, str(out))
    assert (out / "run.sh").is_symlink() and sorted(p.name for p in out.iterdir()) == ["run.sh"]
    B.write_bundle(bundle, str(out), force=True)
    assert not (out / "run.sh").is_symlink() and (out / "run.sh").read_text() == bundle.files["run.sh"]
    assert not (tmp_path / "missing").exists()  # the link itself was replaced, nothing written through it


def test_a_directory_with_other_files_is_refused(tmp_path):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("mine")
    bundle = build("single-bf16")
    with pytest.raises(UserError, match="give an empty or new directory"):
        B.write_bundle(bundle, str(mine))
    assert [p.name for p in mine.iterdir()] == ["notes.txt"]
    r = run_cli("export", "--plan", str(_plan_file(tmp_path)), "-o", "/", "--dataset-name", "d", "--dataset-dir", "/d")
    _one_line(r, "give an empty or new directory")
    empty = tmp_path / "empty"
    empty.mkdir()
    B.write_bundle(bundle, str(empty))  # an empty directory is fine
    assert sorted(p.name for p in empty.iterdir()) == sorted(bundle.files)


def test_new_bundle_directory_gets_the_usual_mode(tmp_path):
    out = tmp_path / "a" / "b"
    B.write_bundle(build("single-bf16"), str(out))
    umask = os.umask(0o022)
    os.umask(umask)
    assert stat.S_IMODE(out.stat().st_mode) == 0o777 & ~umask
    assert stat.S_IMODE((out / "run.sh").stat().st_mode) == 0o755
    assert not [p for p in out.parent.iterdir() if p.name.startswith(".")]


def test_dataset_dir_with_a_dataset_file_is_refused(tmp_path):
    data = _alpaca(tmp_path / "d.json")
    r = run_cli("export", "--plan", str(_plan_file(tmp_path)), "-o", str(tmp_path / "o"), "--dataset", str(data),
                "--dataset-dir", "/nonexistent")
    _one_line(r, "--dataset-dir '/nonexistent'")
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("field,value", [("cutoff_len", "Infinity"), ("micro_batch", "NaN"),
                                         ("learning_rate", "-Infinity"), ("epochs", "NaN")])
def test_non_finite_numbers_in_plan_json(tmp_path, field, value):
    plan = plan_case("single-bf16")
    plan["recommended"][field] = 1
    text = json.dumps(plan).replace(f'"{field}": 1', f'"{field}": {value}')
    path = tmp_path / "plan.json"
    path.write_text(text)
    data = _alpaca(tmp_path / "d.json")
    r = run_cli("export", "--plan", str(path), "-o", str(tmp_path / "o"), "--dataset", str(data))
    _one_line(r, field)
    assert not (tmp_path / "o").exists()
    state = tmp_path / "state"
    r = run_cli("run", "--plan", str(path), "--dataset", str(data), "--runner", "builtin", "--dir", str(tmp_path / "r"),
                env={"XDG_STATE_HOME": str(state)})
    _one_line(r, field)
    assert not (tmp_path / "r").exists() and not list(state.rglob("*.json"))  # no run registered


def test_runner_flag_and_its_deprecated_aliases(tmp_path):
    plan = _plan_file(tmp_path)
    data = _alpaca(tmp_path / "d.json")
    r = run_cli("export", "--plan", str(plan), "-o", str(tmp_path / "o"), "--runner", "pytorch")
    _one_line(r, "--runner 'pytorch' is not known; expected one of: llamafactory, hf, builtin")
    r = run_cli("export", "--plan", str(plan), "-o", str(tmp_path / "a"), "--dataset", str(data), "--trainer", "rocm-tune")
    assert r.returncode == 0 and "--trainer is deprecated; use --runner builtin" in r.stderr, r.stderr
    r2 = run_cli("export", "--plan", str(plan), "-o", str(tmp_path / "b"), "--dataset", str(data), "--runner", "builtin")
    assert r2.returncode == 0, r2.stderr
    assert _tree(tmp_path / "a") == _tree(tmp_path / "b")  # the alias means exactly --runner builtin
    assert "-m rocm_tune train llamafactory.yaml" in (tmp_path / "b" / "run.sh").read_text()
    dpo = _plan_file(tmp_path, "freeze-pure-bf16-llamafactory-cli", launcher="torchrun")
    r = run_cli("export", "--plan", str(dpo), "-o", str(tmp_path / "c"), "--dataset-name", "d", "--dataset-dir", "/d", "--runner", "builtin")
    _one_line(r, "cannot train stage 'dpo'")
    r = run_cli("export", "--plan", str(plan), "-o", str(tmp_path / "h"), "--dataset", str(data), "--runner", "hf")
    _one_line(r, "runner hf (--runner) is your own transformers Trainer script")
    assert not (tmp_path / "h").exists()
    state = tmp_path / "state"
    r = run_cli("run", "--plan", str(plan), "--dataset", str(data), "--with", "llamafactory",
                env={"XDG_STATE_HOME": str(state), "PATH": os.path.dirname(sys.executable)})
    assert "--with is deprecated; use --runner llamafactory" in r.stderr
    assert r.returncode == 2 and "llamafactory-cli is not on PATH" in r.stderr.splitlines()[-1]
    r = run_cli("run", "--plan", str(plan), "--dataset", str(data), "--runner", "builtin", "--python", "/nope/python3",
                env={"XDG_STATE_HOME": str(state)})
    _one_line(r, "/nope/python3 is not an executable Python")
    assert not list(state.rglob("*.json"))  # nothing registered by the refused launches
    r = run_cli("run", "--runner", "builtin", "--", "true")
    _one_line(r, "--runner builtin only applies to --plan")


@pytest.mark.slow
def test_run_plan_finds_its_trainer_without_rocm_tune_on_path(tmp_path):
    """Issue 15 item 12: the trainer is `<this python> -m rocm_tune train`, so a PATH without rocm-tune (cron,
    Slurm, a systemd unit) still starts it. The plan's model does not exist: the trainer itself says so."""
    from rocm_tune.core.runs import rundir as rd

    plan = _plan_file(tmp_path)
    data = _alpaca(tmp_path / "d.json")
    env = {"XDG_STATE_HOME": str(tmp_path / "state"), "PATH": "/nonexistent"}
    r = run_cli("run", "--plan", str(plan), "--dataset", str(data), "--runner", "builtin", "--dir", str(tmp_path / "r"),
                "--json", env=env)
    assert r.returncode == 0, r.stderr
    meta = json.loads((tmp_path / "r" / "run.json").read_text())
    assert meta["command"] == [sys.executable, "-m", "rocm_tune", "train", "llamafactory.yaml"]
    assert meta["cwd"] == str(tmp_path / "r" / "bundle")
    assert (tmp_path / "r" / "bundle" / "run.sh").read_text().count(sys.executable) >= 1
    deadline = time.time() + 120
    while time.time() < deadline and not (tmp_path / "r" / rd.EXIT_JSON).exists():
        time.sleep(0.2)
    log = (tmp_path / "r" / rd.STDOUT_LOG).read_text()
    assert "not found" not in log and "Qwen/Qwen2.5-7B-Instruct" in log, log[-2000:]
    assert json.loads((tmp_path / "r" / rd.EXIT_JSON).read_text())["returncode"] not in (126, 127)


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("runner", ["llamafactory", "builtin"])
def test_run_sh_starts_exactly_the_launch_spec(tmp_path, case, runner):
    """run.sh and `run --plan` share one LaunchSpec: the command run.sh really execs (recorded by stub programs)
    is the argv the launcher resolves from the same spec, environment references included."""
    if runner == "builtin" and plan_case(case)["goal"]["stage"] not in ("sft", "pt"):
        pytest.skip("the built-in trainer does not train dpo")
    py = tmp_path / "bin" / "py-stub"
    py.parent.mkdir()
    py.write_text(STUB)
    py.chmod(0o755)
    opts = opts_for(case, OPTS.with_(runner=runner, python=str(py)))
    if runner == "builtin" and opts.launcher == "llamafactory-cli":
        opts = opts.with_(launcher=None)
    env = {"MASTER_ADDR": "10.0.0.7", "NODE_RANK": "1", "LLAMAFACTORY_PYTHON": str(tmp_path / "bin" / "python-lf")}
    r, seen = run_with_stubs(tmp_path, plan_case(case), opts, extra_env=env)
    assert r.returncode == 0, r.stderr
    spec = B.build_bundle(P(plan_case(case)), ("sh",), opts).launch
    argv, spec_env = spec.resolve({"PATH": os.environ["PATH"], **env})
    assert [os.path.basename(argv[0]), *argv[1:]] == [seen["PROG"], *seen["ARG"]]
    for k in ("FORCE_TORCHRUN", "NPROC_PER_NODE", "HIP_VISIBLE_DEVICES"):
        assert seen.get(k, "") == spec_env.get(k, ""), k


def test_launch_spec_reads_what_only_the_starting_machine_knows():
    spec = build("zero3-offload-2nodes").launch
    with pytest.raises(UserError, match="MASTER_ADDR is not set"):
        spec.resolve({"PATH": "/usr/bin"})
    argv, _ = spec.resolve({"MASTER_ADDR": "10.1.1.1"})
    assert argv[argv.index("--node_rank") + 1] == "0" and "10.1.1.1" in argv  # NODE_RANK defaults to 0
    spec = build("builtin-ddp").launch
    assert spec.resolve({})[0][:3] == ["/opt/venv/bin/python3", "-m", "torch.distributed.run"]
    assert spec.resolve({"ROCM_TUNE_PYTHON": "/other/python"})[0][0] == "/other/python"
