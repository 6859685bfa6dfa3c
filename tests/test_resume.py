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


def _stopped_bundle_run(tmp_path: Path, *flags: str) -> tuple[str, Path]:
    """An exported 2-GPU bundle started with `rocm-tune run --script` (its Python is /bin/false: it ends at once)."""
    b = tmp_path / "bundle"
    data = tmp_path / "data.json"
    data.write_text(json.dumps([{"instruction": "hi", "input": "", "output": "hello"}] * 8), encoding="utf-8")
    r = run_cli("export", "--dataset", str(data), "--model", "qwen2.5-0.5b", "--gpu", "mi250x", "--gpus", "2", "--micro-batch", "4",
                "--effective-batch", "8", "--allow-unfit", "-o", str(b), *flags)
    assert r.returncode == 0, r.stderr
    r = run_cli("run", "--script", str(b / "run.sh"), "--json", "--env", "LLAMAFACTORY_PYTHON=/bin/false")
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
    assert "ZeRO-2 checkpoint saved at a data-parallel world size of 2" in line and "runs at 1" in line
    assert "ds_to_universal" in line and "zero_to_fp32" in line
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
