"""Exported bundles, checked by the real tools (issue 14 item 4).

The bundles come from the real `rocm-tune export` CLI; the tools are the pinned LLaMA-Factory 0.9.5 with
the highest (5.6.0) and the lowest (4.55.4) transformers it allows, DeepSpeed 0.19.8 and accelerate 1.11
in their own venv (tests/realstack/envsetup.py), accelerate as installed next to rocm-tune, Debian's
`sbatch` and shellcheck. Everything runs on CPU: two local processes on gloo stand for the plan's two
GPUs. A tool that cannot be installed skips these tests with the reason printed in the summary.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import REPO, run_cli

# slow: real launches of two processes; the first test also builds the venv (minutes, once)
pytestmark = [pytest.mark.slow, pytest.mark.timeout(3000)]
HERE = Path(__file__).resolve().parent

# name -> export flags; every plan has world size 2 (2 GPUs, or 2 nodes x 1 GPU) so one 2-process launch
# parses all of them at the plan's world size
CASES = {
    "lora": ["--gpus", "2"],
    "qlora": ["--gpus", "2", "--method", "qlora"],
    "full-zero2": ["--gpus", "2", "--method", "full", "--zero", "2"],
    "freeze": ["--gpus", "2", "--method", "freeze"],
    "dpo": ["--gpus", "2", "--stage", "dpo"],
    "zero3": ["--gpus", "2", "--zero", "3"],
    "zero3-fp16": ["--gpus", "2", "--zero", "3", "--precision", "fp16"],
    "offload-optimizer": ["--gpus", "2", "--zero", "3", "--offload", "optimizer"],
    "offload-all": ["--gpus", "2", "--zero", "3", "--offload", "all"],
    "zero2-offload": ["--gpus", "2", "--zero", "2", "--offload", "optimizer"],
    "multinode-deepspeed": ["--gpus", "1", "--nodes", "2", "--zero", "2", "--launcher", "deepspeed"],
    "multinode-torchrun": ["--gpus", "1", "--nodes", "2", "--launcher", "torchrun"],
    "multinode-accelerate": ["--gpus", "1", "--nodes", "2", "--zero", "3", "--launcher", "accelerate"],
    "pure-bf16-zero2": ["--gpus", "2", "--zero", "2", "--precision", "pure_bf16"],
}
OVERRIDES = ["learning_rate=5.0e-5", "per_device_train_batch_size=3", "gradient_accumulation_steps=5"]


def _venv_env(extra: dict | None = None) -> dict:
    env = dict(os.environ, DS_ACCELERATOR="cpu", DISABLE_VERSION_CHECK="0", HF_HUB_OFFLINE="1",
               TOKENIZERS_PARALLELISM="false", OMP_NUM_THREADS="1")
    env.pop("PYTHONPATH", None)
    env.update(extra or {})
    return env


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def bundles(tmp_path_factory, data_file) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("bundles")
    out = {}
    for name, flags in CASES.items():
        d = root / name
        r = run_cli("export", "--model", "qwen2.5-0.5b", "--gpu", "mi250x", "--dataset", str(data_file),
                    "--allow-unfit", "-o", str(d), *flags)
        assert r.returncode == 0, f"{name}: {r.stderr}"
        out[name] = d
    return out


def _parse_all(env, bundles: dict, tmp_path: Path, low: bool) -> dict:
    cases = [{"name": n, "yaml": str(d / "llamafactory.yaml")} for n, d in bundles.items()]
    cases += [{"name": n + "+overrides", "yaml": str(d / "llamafactory.yaml"), "overrides": OVERRIDES}
              for n, d in bundles.items() if (d / "deepspeed.json").exists()]
    (tmp_path / "cases.json").write_text(json.dumps(cases), encoding="utf-8")
    out = tmp_path / "parsed.json"
    extra = {"PYTHONPATH": env.tf_low} if low else {}
    r = subprocess.run(
        [env.python, "-m", "torch.distributed.run", "--nproc_per_node", "2", "--master_port", str(_free_port()),
         str(HERE / "lf_parse.py"), str(out), str(tmp_path / "cases.json")],
        capture_output=True, text=True, env=_venv_env(extra), timeout=1200, cwd=tmp_path)
    assert r.returncode == 0 and out.exists(), r.stdout[-3000:] + r.stderr[-5000:]
    return json.loads(out.read_text(encoding="utf-8"))


def _same(parsed, written) -> bool:
    if isinstance(written, str) and isinstance(parsed, list):
        return parsed == ([] if written == "none" else [w.strip() for w in written.split(",")])
    if isinstance(written, float) or isinstance(parsed, float):
        return isinstance(parsed, (int, float)) and math.isclose(float(parsed), float(written), rel_tol=1e-12)
    return parsed == written


@pytest.mark.parametrize("which", ["transformers-5.6 (highest)", "transformers-4.55 (lowest)"])
def test_llamafactory_parser_and_deepspeed_accept_every_bundle(realstack, bundles, tmp_path, which):
    """LLaMA-Factory's get_train_args (strict: no unknown key) under a real 2-process launch, for every
    bundle and for the ZeRO/offload bundles with run.sh-style overrides; then transformers' DeepSpeed
    integration fills and checks the JSON against the YAML and DeepSpeed's DeepSpeedConfig loads it."""
    low = "lowest" in which
    res = _parse_all(realstack, bundles, tmp_path, low)
    for name, r in res.items():
        assert r["ok"], f"{name}: LLaMA-Factory/transformers/DeepSpeed refused it: {r['error']}\n{r.get('trace')}"
        assert r["transformers"].startswith("4.55" if low else "5.6"), r["transformers"]
        base = name.split("+")[0]
        d = bundles[base]
        lf = yaml.safe_load((d / "llamafactory.yaml").read_text(encoding="utf-8"))
        # every key is a field of LLaMA-Factory's argument classes and keeps the value written
        for key, value in lf.items():
            got = r["keys"][key]
            assert got is not None, f"{name}: {key} is not an argument of LLaMA-Factory"
            if key in ("learning_rate", "per_device_train_batch_size", "gradient_accumulation_steps") and "+" in name:
                continue
            if key in ("output_dir",):
                continue
            assert _same(got[1], value), f"{name}: {key} written {value!r}, parsed {got[1]!r}"
        want = {"learning_rate": 5e-5, "per_device_train_batch_size": 3, "gradient_accumulation_steps": 5} \
            if "+" in name else {k: lf[k] for k in ("learning_rate", "per_device_train_batch_size",
                                                    "gradient_accumulation_steps")}
        for k, v in want.items():
            assert _same(r[k], v), f"{name}: {k} {r[k]} != {v}"
        assert r["world_size"] == 2
        # warmup: the plan's ratio of the steps, on both ends of the pinned transformers
        for n, steps in r["warmup_steps_of"].items():
            assert steps == math.ceil(int(n) * lf["warmup_ratio"]), f"{name}: warmup of {n} steps is {steps}"
        assert r["bf16"] == lf["bf16"] and r["fp16"] == lf["fp16"]
        assert r["pure_bf16"] == bool(lf.get("pure_bf16", False))
        # paths resolve into the bundle from any working directory
        assert r["output_dir"] == str(d / "output")
        assert r["dataset_dir"] == str(d) and r["dataset_info_exists"]
        if (d / "deepspeed.json").exists():
            assert r["deepspeed"] == str(d / "deepspeed.json")
            c = r["ds_checked"]
            assert c["world_size"] == 2
            assert c["train_micro_batch_size_per_gpu"] == want["per_device_train_batch_size"]
            assert c["gradient_accumulation_steps"] == want["gradient_accumulation_steps"]
            assert c["train_batch_size"] == want["per_device_train_batch_size"] * want["gradient_accumulation_steps"] * 2
            assert c["gradient_clipping"] == lf["max_grad_norm"]
            assert (c["fp16"], c["bf16"]) == (lf["fp16"], lf["bf16"])
            ds = json.loads((d / "deepspeed.json").read_text(encoding="utf-8"))
            assert c["zero_stage"] == ds["zero_optimization"]["stage"]
            if "optimizer" in ds:
                assert math.isclose(c["optimizer_params"]["lr"], want["learning_rate"])
                assert c["optimizer_params"]["weight_decay"] == 0.0
        else:
            assert r["ds_config"] is None


def test_pure_bf16_with_zero3_is_refused_at_export(data_file, tmp_path):
    r = run_cli("export", "--model", "qwen2.5-0.5b", "--gpu", "mi250x", "--dataset", str(data_file), "--allow-unfit",
                "--gpus", "2", "--zero", "3", "--precision", "pure_bf16", "-o", str(tmp_path / "b"))
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "pure_bf16" in r.stderr and "ZeRO-3" in r.stderr
    assert not (tmp_path / "b").exists()


def test_accelerate_yaml_loads_in_accelerates_loader(realstack, bundles):
    code = (
        "import sys, json\n"
        "from accelerate.commands.config.config_args import load_config_from_file\n"
        "import accelerate\n"
        "out = {}\n"
        "for p in sys.argv[1:]:\n"
        "    c = load_config_from_file(p)\n"
        "    out[p] = [accelerate.__version__, str(c.distributed_type), c.num_processes, c.num_machines,\n"
        "              str(c.mixed_precision), (c.deepspeed_config or {}).get('deepspeed_config_file')]\n"
        "print(json.dumps(out))\n"
    )
    paths = [str(d / "accelerate.yaml") for d in bundles.values()]
    # accelerate 1.11 (LLaMA-Factory's pin, in the venv) and the accelerate installed next to rocm-tune
    for python, env in ((realstack.python, _venv_env()), (sys.executable, dict(os.environ))):
        r = subprocess.run([python, "-c", code, *paths], capture_output=True, text=True, env=env, timeout=600)
        assert r.returncode == 0, r.stderr[-3000:]
        got = json.loads(r.stdout.strip().splitlines()[-1])
        for name, d in bundles.items():
            version, dist, nproc, nmach, mp, dsfile = got[str(d / "accelerate.yaml")]
            plan = json.loads((d / "plan.json").read_text(encoding="utf-8"))
            hw = plan["hardware"]
            assert nproc == hw["gpus"] * hw["nodes"] and nmach == hw["nodes"], name
            if (d / "deepspeed.json").exists():
                assert dist.endswith("DEEPSPEED") and dsfile == "deepspeed.json", (name, version, dist)
            else:
                assert dist.endswith("MULTI_GPU"), (name, version, dist)
                prec = plan["recommended"]["precision"]
                assert mp.endswith({"bf16": "bf16", "fp16": "fp16"}.get(prec, "no")), (name, version, mp)


# ----------------------------------------------------------------------------- slurm


def test_slurm_sbatch_passes_bash_shellcheck_and_sbatch_test_only(bundles, sbatch_conf, tmp_path):
    sbatch, conf = sbatch_conf
    shellcheck = shutil.which("shellcheck")
    for name, d in bundles.items():
        script = d / "slurm.sbatch"
        assert subprocess.run(["bash", "-n", str(script)], capture_output=True).returncode == 0, name
        if shellcheck:
            sc = subprocess.run([shellcheck, "-s", "bash", str(script), str(d / "run.sh")], capture_output=True,
                                text=True)
            assert sc.returncode == 0, f"{name}: {sc.stdout}"
        # from another directory, as the printed hint says: sbatch parses every #SBATCH directive, then
        # stops only because there is no controller to contact
        r = subprocess.run([sbatch, "--test-only", str(script)], capture_output=True, text=True, cwd=tmp_path,
                           env=dict(os.environ, SLURM_CONF=conf), timeout=60)
        text = r.stdout + r.stderr
        assert "nable to contact slurm controller" in text or "Job" in text, f"{name}: {text}"
        for bad in ("unrecognized option", "invalid option", "Invalid", "unknown"):
            assert bad not in text, f"{name}: {text}"
    if not shellcheck:
        pytest.skip("shellcheck not installed (Debian: apt-get install shellcheck); bash -n and sbatch passed")


def _fake_bin(folder: Path, name: str, body: str) -> None:
    p = folder / name
    p.write_text("#!/usr/bin/env bash\n" + body, encoding="utf-8")
    p.chmod(0o755)


def test_slurm_script_runs_from_any_directory_and_survives_long_node_lists(bundles, tmp_path):
    """The script Slurm runs is a spooled copy: run it with bash from elsewhere, with an allocation of
    20000 nodes (scontrol prints them all: `head -n 1` would die of SIGPIPE, 141, under pipefail)."""
    fake = tmp_path / "bin"
    fake.mkdir()
    _fake_bin(fake, "scontrol", 'for i in $(seq 0 19999); do echo "gpu-node-$i"; done\n')
    _fake_bin(fake, "srun", 'echo "PWD=$PWD"; echo "ARGS=$*"; echo "MASTER_ADDR=$MASTER_ADDR"\n')
    spool = tmp_path / "spool"
    spool.mkdir()
    d = bundles["multinode-torchrun"]
    shutil.copy(d / "slurm.sbatch", spool / "slurm_script")
    env = dict(os.environ, PATH=f"{fake}:{os.environ['PATH']}", SLURM_JOB_NODELIST="gpu-node-[0-19999]",
               SLURM_JOB_NUM_NODES="2", SLURM_JOB_ID="77", SLURM_SUBMIT_DIR=str(tmp_path))
    r = subprocess.run(["bash", str(spool / "slurm_script")], capture_output=True, text=True, env=env,
                       cwd=tmp_path, timeout=120)
    assert r.returncode == 0, r.stderr
    assert f"PWD={d}" in r.stdout and "MASTER_ADDR=gpu-node-0" in r.stdout
    assert "lf_launch.py llamafactory.yaml" in r.stdout   # LLaMA-Factory through the bundle's launcher


# ----------------------------------------------------------------------------- launchers and end to end


def _tiny_bundle(tmp_path: Path, tiny: Path, data_file: Path, *flags: str) -> Path:
    out = tmp_path / "bundle"
    r = run_cli("export", "--model", str(tiny), "--gpu", "mi250x", "--dataset", str(data_file), "--allow-unfit",
                "--precision", "fp32", "--cutoff-len", "64", "--micro-batch", "4", "--effective-batch", "8",
                "--epochs", "1", "--no-gradient-checkpointing", "--attn", "sdpa", "--logging-steps", "1",
                "-o", str(out), *flags)
    assert r.returncode == 0, r.stderr
    return out


def _run_sh(realstack, bundle: Path, *args: str, env: dict | None = None, timeout: int = 900):
    full = _venv_env({"PATH": f"{realstack.root / 'bin'}:{os.environ['PATH']}", **(env or {})})
    return subprocess.Popen(["bash", str(bundle / "run.sh"), *args], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, env=full, cwd="/")


def test_end_to_end_llamafactory_and_builtin_trainer_agree(realstack, tiny, data_file, tmp_path):
    """One exported 1-GPU bundle: `bash run.sh` (the real llamafactory-cli train) and `rocm-tune train` on the
    same YAML. Both finish and log every step; `attach --once --json` reads both; they agree on the number
    of steps, the effective batch and the learning rate at every step."""
    b = _tiny_bundle(tmp_path, tiny, data_file, "--gpus", "1")
    lf_yaml = yaml.safe_load((b / "llamafactory.yaml").read_text(encoding="utf-8"))
    p = _run_sh(realstack, b, env={"CUDA_VISIBLE_DEVICES": "", "HIP_VISIBLE_DEVICES": ""})
    out, _ = p.communicate(timeout=900)
    assert p.returncode == 0, out[-6000:]
    lf_out = b / "output"
    own_out = tmp_path / "builtin-out"
    r = subprocess.run([sys.executable, "-m", "rocm_tune", "train", str(b / "llamafactory.yaml"),
                        "--output-dir", str(own_out)], capture_output=True, text=True, timeout=900,
                       env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    snaps = {}
    for label, d in (("llamafactory", lf_out), ("builtin", own_out)):
        a = run_cli("attach", str(d), "--once", "--json", "--no-gpus")
        assert a.returncode == 0, f"{label}: {a.stderr}"
        snaps[label] = json.loads(a.stdout)
    mb, ga = lf_yaml["per_device_train_batch_size"], lf_yaml["gradient_accumulation_steps"]
    steps = math.ceil(48 / mb) // ga  # 48 samples, 1 epoch, 1 process
    for label, snap in snaps.items():
        assert snap["status"] == "finished", (label, snap["status"])
        assert (snap["step"], snap["total_steps"], snap["epoch"]) == (steps, steps, 1.0), label
    assert snaps["llamafactory"]["source_kind"] == "llamafactory" and snaps["builtin"]["source_kind"] == "metrics"
    assert math.isclose(snaps["llamafactory"]["learning_rate"], snaps["builtin"]["learning_rate"], rel_tol=1e-9)
    # every step's learning rate: LLaMA-Factory's trainer_log.jsonl and the built-in trainer's metrics.jsonl
    lf_rows = [json.loads(x) for x in (lf_out / "trainer_log.jsonl").read_text(encoding="utf-8").splitlines() if x]
    own_rows = [json.loads(x) for x in (own_out / "metrics.jsonl").read_text(encoding="utf-8").splitlines() if x]
    lf_lr = [(row["current_steps"], row["lr"]) for row in lf_rows if "loss" in row]
    own_lr = [(row["step"], row["learning_rate"]) for row in own_rows if row.get("type") == "step"]
    assert len(lf_lr) == len(own_lr) == steps
    for (i, x), (j, y) in zip(lf_lr, own_lr):
        assert i == j and math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-15), f"step {i}: lr {x} vs {y}"
    # effective batch: per-device batch in the HF Trainer states x accumulation x 1 process
    lf_state = json.loads((lf_out / "trainer_state.json").read_text(encoding="utf-8"))
    own_state = json.loads((own_out / f"checkpoint-{steps}" / "trainer_state.json").read_text(encoding="utf-8"))
    assert lf_state["train_batch_size"] == own_state["train_batch_size"] == mb
    assert lf_state["global_step"] == own_state["global_step"] == steps
    assert "samples rendered with LLaMA-Factory's template 'qwen'" in r.stdout + r.stderr


@pytest.mark.parametrize("cutoff", [24, 1024])
def test_builtin_trainer_renders_the_qwen_template_token_for_token(realstack, tiny, data_file, cutoff):
    """The built-in trainer's rendering of `template: qwen` (rocm_tune.train.data.lf_pairs/encode_lf) and
    LLaMA-Factory's own SFT processor give the same input ids and labels for every sample, with one
    tokenizer; cutoff 24 truncates most samples (LLaMA-Factory shares the cutoff between prompt and reply)."""
    r = subprocess.run([realstack.python, str(HERE / "lf_tokens.py"), str(tiny), str(data_file), "qwen", str(cutoff)],
                       capture_output=True, text=True, env=_venv_env({"PYTHONPATH": str(REPO)}), timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    got = json.loads(r.stdout.strip().splitlines()[-1])
    assert got["n"] == 48 and got["count"] == 0, got["mismatches"]
