"""Issue 21 item 1, "a ZeRO-2 run resumes at another world size through the universal checkpoint": a real
LLaMA-Factory 0.9.5 + DeepSpeed 0.19.8 full fine-tune under ZeRO-2 on 2 CPU processes (gloo), started from an
exported bundle with `rocm-tune run --script`, stopped with `rocm-tune stop` after it saved ZeRO checkpoints, then
`rocm-tune resume RUN --gpus 1`: DeepSpeed's own ds_to_universal converts the newest complete checkpoint (run by
the run's Python), the relaunch reads a new DeepSpeed JSON in the run dir with `checkpoint.load_universal`, and the
run finishes on 1 process in the same run dir with one loss curve (the steps continue from the checkpoint).

Without the conversion DeepSpeed refuses it (`ZeRORuntimeException: The checkpoint being loaded used a DP world
size of 2 but the current world size is 1`, seen here): the resumed run finishing at world size 1 is the proof
that the universal checkpoint was loaded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.realstack.test_realstack import _tiny_bundle
from tests.realstack.test_resume_lf import EPOCHS, STEPS, _status, _wait

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]


def _loss_steps(out: Path) -> list[int]:
    rows = [json.loads(x) for x in (out / "trainer_log.jsonl").read_text(encoding="utf-8").splitlines() if x]
    return [row["current_steps"] for row in rows if "loss" in row]


def test_zero2_run_stopped_on_two_processes_resumes_on_one_through_the_universal_checkpoint(
        realstack, tiny, data_file, tmp_path):
    b = _tiny_bundle(tmp_path, tiny, data_file, "--gpus", "2", "--launcher", "torchrun", "--method", "full",
                     "--zero", "2")
    user_ds = (b / "deepspeed.json").read_text(encoding="utf-8")
    assert json.loads(user_ds)["zero_optimization"]["stage"] == 2
    y = b / "llamafactory.yaml"
    text = y.read_text(encoding="utf-8").replace("save_steps: 500", "save_steps: 1")
    text = text.replace("num_train_epochs: 1.0", f"num_train_epochs: {EPOCHS}.0")  # no save_total_limit: the converted checkpoint stays
    y.write_text(text, encoding="utf-8")
    env = {"PYTHONPATH": "", "LLAMAFACTORY_PYTHON": realstack.python,
           "PATH": f"{realstack.root / 'bin'}:/usr/local/bin:/usr/bin:/bin", "DS_ACCELERATOR": "cpu",
           "HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": "1", "CUDA_VISIBLE_DEVICES": "", "TOKENIZERS_PARALLELISM": "false"}
    flags = [x for k, v in env.items() for x in ("--env", f"{k}={v}")]
    r = run_cli("run", "--script", str(b / "run.sh"), "--name", "zero2", "--json", *flags)
    assert r.returncode == 0, r.stderr
    run = json.loads(r.stdout)
    rid, run_dir = run["id"], Path(run["dir"])
    out = b / "output"
    _wait(lambda: (out / "checkpoint-2" / "trainer_state.json").exists() or _status(run_dir) != "running", 600,
          "checkpoint-2 of the first attempt")
    s = run_cli("stop", rid, "--grace", "5", "--json", timeout=120)
    assert s.returncode == 0, s.stdout + s.stderr
    assert json.loads(s.stdout)["status"] == "stopped", s.stdout
    assert not (out / "trainer_state.json").exists(), "the run finished before it was stopped"
    first = _loss_steps(out)
    assert first and first[-1] < STEPS

    # what it would do: convert with DeepSpeed's tool, say what is kept
    r = run_cli("resume", rid, "--gpus", "1", "--dry-run", "--json", timeout=300)
    assert r.returncode == 0, r.stderr
    dry = json.loads(r.stdout)
    ck = Path(dry["checkpoint"]["path"])
    tag = dry["checkpoint"]["deepspeed_tag"]
    assert (dry["checkpoint"]["zero_stage"], dry["checkpoint"]["world_size"]) == (2, 2)
    conv = dry["convert"]
    assert conv["kind"] == "universal" and conv["deepspeed"].startswith("0.19") and not conv["already_converted"]
    assert conv["output"] == str(ck / f"{tag}_universal") and conv["python"] == realstack.python
    assert "optimizer state" in conv["kept"] and "step count" in conv["kept"]
    assert not (ck / f"{tag}_universal").exists() and not (ck / "latest_universal").exists()  # a dry run converts nothing

    r = run_cli("resume", rid, "--gpus", "1", "--json", timeout=600)
    assert r.returncode == 0, r.stderr
    res = json.loads(r.stdout)
    assert res["id"] == rid and res["dir"] == str(run_dir)
    plan = res["resume"]
    ck_step = plan["checkpoint"]["global_step"]
    assert plan["checkpoint"]["path"] == str(ck) and ck_step >= 2
    assert (plan["world_before"], plan["world_after"], plan["micro_batch"], plan["grad_accum"],
            plan["effective_batch"]) == (2, 1, 4, 2, 8)
    # DeepSpeed's own conversion ran: one folder per parameter with Adam's moments, latest_universal names it
    uni = ck / f"{tag}_universal"
    assert (ck / "latest_universal").read_text(encoding="utf-8").strip() == uni.name
    params = {p.name: {f.name for f in p.iterdir()} for p in (uni / "zero").iterdir() if p.is_dir()}
    assert "model.layers.1.mlp.down_proj.weight" in params and "model.embed_tokens.weight" in params, sorted(params)
    # every trained parameter has its fp32 master and Adam's moments (a tied lm_head only its weights)
    with_state = [p for p, files in params.items() if {"fp32.pt", "exp_avg.pt", "exp_avg_sq.pt", "step.pt"} <= files]
    assert set(params) - set(with_state) <= {"lm_head.weight"}, params
    # the relaunch reads a new JSON in the run dir; the user's JSON is as it was
    new_ds = run_dir / "deepspeed-universal.json"
    assert json.loads(new_ds.read_text(encoding="utf-8"))["checkpoint"] == {"load_universal": True}
    assert (b / "deepspeed.json").read_text(encoding="utf-8") == user_ds
    meta = json.loads((run_dir / "run.json").read_text(encoding="utf-8"))
    assert f"deepspeed={new_ds}" in meta["command"] and f"resume_from_checkpoint={ck}" in meta["command"]
    assert meta["command"][meta["command"].index("--nproc_per_node") + 1] == "1"
    (restart,) = meta["restarts"]
    assert restart["converted"]["output"] == str(uni) and restart["world_after"] == 1

    _wait(lambda: _status(run_dir) != "running", 600, "the resumed run to end")
    log = (run_dir / "stdout.log").read_text(encoding="utf-8", errors="replace")
    assert "DP world size" not in log, log[-4000:]
    assert _status(run_dir) == "finished", log[-4000:]
    assert f"global step {ck_step}" in log and "world size: 1" in log
    state = json.loads((out / "trainer_state.json").read_text(encoding="utf-8"))
    assert state["global_step"] == STEPS
    steps = _loss_steps(out)
    resumed = steps[len(first):]
    # one loss curve: the first attempt's steps, then checkpoint + 1 .. the end (never from step 1 again)
    assert resumed == list(range(ck_step + 1, STEPS + 1)), steps
    assert steps.count(1) == 1
