"""`rocm-tune resume` (issue 21 item 1) through the real CLI on real run directories: the newest *complete*
checkpoint is chosen (one cut short by a kill is skipped and said), the plan's world size changes keep the
effective batch, and what cannot be kept is refused with the exact reason (a ZeRO checkpoint at another DP world
size, an adapter for a full fine-tune). The checkpoint files are real: torch.save archives and safetensors."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.helpers_train import wait_for

torch = pytest.importorskip("torch")


def _safetensors(path: Path, n: int = 16, cut: int = 0) -> None:
    header = json.dumps({"w": {"dtype": "F32", "shape": [n], "data_offsets": [0, 4 * n]}}).encode()
    data = struct.pack("<Q", len(header)) + header + b"\0" * (4 * n)
    path.write_bytes(data[: len(data) - cut])


def _hf_checkpoint(out: Path, step: int, *, world: int = 2, micro: int = 4, adapter: bool = True) -> Path:
    ck = out / f"checkpoint-{step}"
    ck.mkdir(parents=True)
    _safetensors(ck / ("adapter_model.safetensors" if adapter else "model.safetensors"))
    torch.save({"state": {}, "param_groups": []}, ck / "optimizer.pt")
    torch.save({"last_epoch": step}, ck / "scheduler.pt")
    for r in range(world):
        torch.save({"python": 1}, ck / (f"rng_state_{r}.pth" if world > 1 else "rng_state.pth"))
    (ck / "trainer_state.json").write_text(json.dumps({"global_step": step, "max_steps": 60,
                                                       "train_batch_size": micro}), encoding="utf-8")
    return ck


def _zero2_checkpoint(out: Path, step: int, world: int = 2) -> Path:
    ck = out / f"checkpoint-{step}"
    tag = ck / f"global_step{step}"
    tag.mkdir(parents=True)
    (ck / "latest").write_text(f"global_step{step}", encoding="utf-8")
    torch.save({"module": {}}, tag / "mp_rank_00_model_states.pt")
    for r in range(world):
        torch.save({"optimizer_state_dict": {}}, tag / f"bf16_zero_pp_rank_{r}_mp_rank_00_optim_states.pt")
        torch.save({"python": 1}, ck / f"rng_state_{r}.pth")
    _safetensors(ck / "model.safetensors")
    (ck / "trainer_state.json").write_text(json.dumps({"global_step": step, "train_batch_size": 4}), encoding="utf-8")
    return ck


def _stopped_bundle_run(tmp_path: Path, *flags: str, env: tuple[str, ...] = ("LLAMAFACTORY_PYTHON=/bin/false",)
                        ) -> tuple[str, Path]:
    """An exported 2-GPU bundle started with `rocm-tune run --script` (its Python is /bin/false: it ends at once)."""
    b = tmp_path / "bundle"
    data = tmp_path / "data.json"
    data.write_text(json.dumps([{"instruction": "hi", "input": "", "output": "hello"}] * 8), encoding="utf-8")
    r = run_cli("export", "--dataset", str(data), "--model", "qwen2.5-0.5b", "--gpu", "mi250x", "--gpus", "2", "--micro-batch", "4",
                "--effective-batch", "8", "--allow-unfit", "-o", str(b), *flags)
    assert r.returncode == 0, r.stderr
    r = run_cli("run", "--script", str(b / "run.sh"), "--json", *(x for e in env for x in ("--env", e)))
    assert r.returncode == 0, r.stderr
    rid = json.loads(r.stdout)["id"]
    assert wait_for(lambda: _status(rid) != "running", timeout=30)
    return rid, b


def _status(rid: str) -> str:
    from rocm_tune.core.runs.registry import find_run

    return find_run(rid).status


def test_resume_picks_the_newest_complete_checkpoint_and_keeps_the_effective_batch(tmp_path):
    rid, b = _stopped_bundle_run(tmp_path)
    out = b / "output"
    _hf_checkpoint(out, 2)
    _hf_checkpoint(out, 3)
    cut = _hf_checkpoint(out, 4)
    _safetensors(cut / "adapter_model.safetensors", cut=10)          # the kill came during the weights
    half = _hf_checkpoint(out, 5)
    (half / "trainer_state.json").unlink()                           # ... or before trainer_state.json
    (out / "tmp-checkpoint-6").mkdir()
    r = run_cli("resume", rid, "--gpus", "1", "--dry-run", "--json")
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    assert got["checkpoint"]["path"] == str(out / "checkpoint-3") and got["checkpoint"]["global_step"] == 3
    skipped = {Path(c["path"]).name: c["problem"] for c in got["skipped"]}
    assert set(skipped) == {"checkpoint-4", "checkpoint-5", "tmp-checkpoint-6"}
    assert "adapter_model.safetensors" in skipped["checkpoint-4"] and "cut short" in skipped["checkpoint-4"]
    assert "trainer_state.json" in skipped["checkpoint-5"]
    assert (got["world_before"], got["world_after"], got["micro_batch"], got["grad_accum"],
            got["effective_batch"]) == (2, 1, 4, 2, 8)
    cmd = got["command"]
    assert cmd[cmd.index("--nproc_per_node") + 1] == "1"
    assert f"resume_from_checkpoint={out / 'checkpoint-3'}" in cmd and "gradient_accumulation_steps=2" in cmd
    assert _status(rid) == "failed"  # a dry run starts nothing
    # the human form says what it skipped, on stderr
    r = run_cli("resume", rid, "--dry-run")
    assert r.returncode == 0 and "skipped checkpoint-4" in r.stderr and "resume_from_checkpoint=" in r.stdout


def test_resume_refuses_a_zero_checkpoint_at_another_world_size_with_the_exact_reason(tmp_path):
    rid, b = _stopped_bundle_run(tmp_path, "--method", "full", "--zero", "2")
    _zero2_checkpoint(b / "output", 4, world=2)
    r = run_cli("resume", rid, "--gpus", "1", "--dry-run")
    assert r.returncode == 2 and r.stdout == ""
    line = r.stderr.strip()
    assert len(line.splitlines()) == 1 and "Traceback" not in line
    assert "ZeRO-2 checkpoint saved at a data-parallel world size of 2, resumed at 1" in line
    # the conversion runs in the run's Python (LLAMAFACTORY_PYTHON=/bin/false here): it says it cannot
    assert "universal checkpoint" in line and "needs DeepSpeed in the run's Python: /bin/false" in line
    assert "zero_to_fp32.py" in line and "the optimizer state is lost" in line
    # at the world size that saved it, the same checkpoint resumes
    r = run_cli("resume", rid, "--dry-run", "--json")
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    assert got["checkpoint"]["zero_stage"] == 2 and got["checkpoint"]["world_size"] == 2
    # a ZeRO checkpoint missing an optimizer shard is cut short, not resumable
    (b / "output" / "checkpoint-4" / "global_step4" / "bf16_zero_pp_rank_1_mp_rank_00_optim_states.pt").unlink()
    r = run_cli("resume", rid, "--dry-run")
    assert r.returncode == 2 and "no complete checkpoint" in r.stderr and "optimizer shards of 1 rank(s), the checkpoint RNG states of 2" in r.stderr


def test_resume_refuses_what_the_plan_cannot_keep(tmp_path):
    rid, b = _stopped_bundle_run(tmp_path, "--method", "full")
    out = b / "output"
    r = run_cli("resume", rid, "--dry-run")
    assert r.returncode == 2 and "no complete checkpoint" in r.stderr and "never saved" in r.stderr
    _hf_checkpoint(out, 2, adapter=True)
    r = run_cli("resume", rid, "--dry-run")
    assert r.returncode == 2 and "holds a LoRA adapter, but the plan trains method full" in r.stderr
    _hf_checkpoint(out, 3, adapter=False)  # full weights: what the plan trains
    r = run_cli("resume", rid, "--dry-run")
    assert r.returncode == 0 and "checkpoint-3 (step 3)" in r.stderr, r.stderr
    r = run_cli("resume", rid, "--gpus", "3", "--dry-run")
    assert r.returncode == 2 and "effective batch 8" in r.stderr and "3 GPUs" in r.stderr


def test_resume_relaunches_in_the_same_run_dir_and_records_the_restart(tmp_path):
    rid, b = _stopped_bundle_run(tmp_path)
    _hf_checkpoint(b / "output", 2)
    running = run_cli("run", "--name", "sleeper", "--json", "--", "sleep", "30")
    sid = json.loads(running.stdout)["id"]
    r = run_cli("resume", sid)
    assert r.returncode == 2 and "still running" in r.stderr
    run_cli("stop", sid, "--grace", "1")
    r = run_cli("resume", rid, "--json")
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    assert got["id"] == rid
    d = Path(got["dir"])
    assert wait_for(lambda: _status(rid) != "running", timeout=30)
    meta = json.loads((d / "run.json").read_text(encoding="utf-8"))
    (rec,) = meta["restarts"]
    assert rec["step"] == 2 and rec["previous_exit"]["status"] == "failed" and rec["reason"] == "resume"
    assert meta["first_command"] == ["bash", str(b / "run.sh")]
    assert meta["command"][-2:] == [f"resume_from_checkpoint={b / 'output' / 'checkpoint-2'}", "overwrite_output_dir=false"]
    # a second resume does not pile the overrides up
    r = run_cli("resume", rid, "--dry-run", "--json")
    assert json.loads(r.stdout)["command"].count("overwrite_output_dir=false") == 1


def _deepspeed_package(root: Path, version: str, *, tool: str | None, load_universal: bool) -> None:
    """A `deepspeed` package of the shape a given DeepSpeed has (the probe reads what the run's Python imports),
    beside a `torch` that cannot be imported, so that the run started with this Python ends at once."""
    import shutil

    shutil.rmtree(root, ignore_errors=True)
    (root / "torch").mkdir(parents=True)
    (root / "torch" / "__init__.py").write_text("raise ImportError('no torch in this test environment')\n")
    ds = root / "deepspeed"
    ds.mkdir()
    (ds / "__init__.py").write_text(f"__version__ = {version!r}\n")
    (ds / "runtime").mkdir()
    (ds / "runtime" / "__init__.py").write_text("")
    (ds / "runtime" / "constants.py").write_text("LOAD_UNIVERSAL_CHECKPOINT = 'load_universal'\n" if load_universal
                                                  else "")
    if tool is not None:
        (ds / "checkpoint").mkdir()
        (ds / "checkpoint" / "__init__.py").write_text("")
        (ds / "checkpoint" / "ds_to_universal.py").write_text(tool)


# a ds_to_universal that starts writing its output folder, then fails the way DeepSpeed's fails on a HF checkpoint
# without --inject_missing_state
FAILING_TOOL = """
import argparse, os
def _extract_zero_shard_files_stage3(): pass
if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--input_folder"); p.add_argument("--output_folder"); p.add_argument("--inject_missing_state",
    action="store_true"); p.add_argument("--num_extract_workers"); p.add_argument("--num_merge_workers")
    a = p.parse_args()
    os.makedirs(os.path.join(a.output_folder, "zero", "w"))
    raise AssertionError("Required universal_checkpoint_info state is missing in checkpoint.")
"""


def test_resume_says_exactly_why_deepspeed_cannot_convert_and_plans_the_conversion_where_it_can(tmp_path):
    import sys

    pkgs = tmp_path / "site"
    _deepspeed_package(pkgs, "0.9.0", tool=None, load_universal=False)
    rid, b = _stopped_bundle_run(tmp_path, "--method", "full", "--zero", "2",
                                 env=(f"LLAMAFACTORY_PYTHON={sys.executable}", f"PYTHONPATH={pkgs}"))
    ck = _zero2_checkpoint(b / "output", 4, world=2)

    def refusal() -> str:
        r = run_cli("resume", rid, "--gpus", "1", "--dry-run")
        assert r.returncode == 2 and r.stdout == "" and len(r.stderr.strip().splitlines()) == 1, r.stderr
        return r.stderr

    assert "DeepSpeed 0.9.0 in " in refusal() and "has no deepspeed.checkpoint.ds_to_universal" in refusal()
    _deepspeed_package(pkgs, "0.12.0", tool="def main(args): pass\n", load_universal=True)
    assert "DeepSpeed 0.12.0's ds_to_universal has no --inject_missing_state" in refusal()
    # an optimizer offloaded to NVMe: DeepSpeed's load_checkpoint never loads ZeRO state into it
    user_ds = b / "deepspeed.json"
    saved = user_ds.read_text(encoding="utf-8")
    ds = json.loads(saved)
    ds["zero_optimization"]["offload_optimizer"] = {"device": "nvme", "nvme_path": "/nvme"}
    user_ds.write_text(json.dumps(ds), encoding="utf-8")
    assert "offloads to NVMe (offload_optimizer)" in refusal()
    user_ds.write_text(saved, encoding="utf-8")

    # a DeepSpeed that can: the dry run says what it will run and what is kept, and converts nothing
    _deepspeed_package(pkgs, "0.19.8", tool=FAILING_TOOL, load_universal=True)
    r = run_cli("resume", rid, "--gpus", "1", "--dry-run", "--json")
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    conv = got["convert"]
    assert conv["output"] == str(ck / "global_step4_universal") and conv["deepspeed"] == "0.19.8"
    assert conv["command"][:3] == [sys.executable, "-m", "deepspeed.checkpoint.ds_to_universal"]
    assert "--inject_missing_state" in conv["command"] and "optimizer state" in conv["kept"]
    run_dir = _run_dir(rid)
    assert f"deepspeed={run_dir / 'deepspeed-universal.json'}" in got["command"]
    assert not (ck / "global_step4_universal").exists() and not (run_dir / "deepspeed-universal.json").exists()
    # DeepSpeed's tool fails: its own error, the half-written folder removed, the run not restarted
    r = run_cli("resume", rid, "--gpus", "1")
    assert r.returncode == 2 and "ds_to_universal failed" in r.stderr, r.stderr
    assert "Required universal_checkpoint_info state is missing" in r.stderr and "zero-convert.log" in r.stderr
    assert not (ck / "global_step4_universal").exists() and not (ck / "latest_universal").exists()
    assert "restarts" not in json.loads((run_dir / "run.json").read_text(encoding="utf-8"))
    assert user_ds.read_text(encoding="utf-8") == saved
    # a folder there that latest_universal does not name is not ours to overwrite
    (ck / "global_step4_universal").mkdir()
    assert "global_step4_universal exists but latest_universal does not name it" in refusal()


def _run_dir(rid: str) -> Path:
    from rocm_tune.core.runs.registry import find_run

    return Path(find_run(rid).dir)
