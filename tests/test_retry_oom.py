"""`rocm-tune run --retry-oom N` (issue 21 item 3) through the real CLI, the real supervisor and a run made to OOM
by construction: an exported bundle whose run.sh starts a small trainer stand-in that reads LLaMA-Factory's
`key=value` overrides, saves a complete HF-style checkpoint every step and dies with torch's OOM error text at step
3 while the micro-batch is above 1. The supervisor steps the plan down (micro-batch halved, accumulation doubled:
the same effective batch), resumes from the last checkpoint, records each retry and never goes past N; an OOM
while the model loads is never retried."""

from __future__ import annotations

import json
import sys
from pathlib import Path


from tests.conftest import run_cli
from tests.helpers_train import wait_for

FAKE = r'''
import json, os, struct, sys, zipfile
import yaml
args = dict(a.split("=", 1) for a in sys.argv[1:] if "=" in a)
cfg = yaml.safe_load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "llamafactory.yaml")))
mb = int(args.get("per_device_train_batch_size", cfg["per_device_train_batch_size"]))
ga = int(args.get("gradient_accumulation_steps", cfg["gradient_accumulation_steps"]))
out = cfg["output_dir"]
with open(os.path.join(os.path.dirname(out), "attempts.jsonl"), "a") as fh:
    fh.write(json.dumps({"mb": mb, "ga": ga, "resume": args.get("resume_from_checkpoint")}) + "\n")
if os.environ.get("OOM_AT_LOAD"):
    print("Loading checkpoint shards ...")
    print("torch.OutOfMemoryError: HIP out of memory. Tried to allocate 9.00 GiB. GPU 0 has a total capacity of "
          "63.98 GiB of which 2.00 GiB is free.")
    sys.exit(1)
start = 0
if args.get("resume_from_checkpoint"):
    start = json.load(open(os.path.join(args["resume_from_checkpoint"], "trainer_state.json")))["global_step"]
print("***** Running training *****", flush=True)
def zipped(path):
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("data.pkl", b"x")
for step in range(start + 1, 7):
    if step == 3 and mb > 1:
        print("Traceback (most recent call last):")
        print("torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
              "63.98 GiB of which 1.10 GiB is free.", flush=True)
        sys.exit(1)
    print(json.dumps({"loss": 2.0 - step / 10, "step": step}), flush=True)
    ck = os.path.join(out, f"checkpoint-{step}")
    os.makedirs(ck, exist_ok=True)
    header = json.dumps({"w": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}).encode()
    open(os.path.join(ck, "adapter_model.safetensors"), "wb").write(struct.pack("<Q", len(header)) + header + b"\0" * 4)
    for name in ("optimizer.pt", "scheduler.pt", "rng_state_0.pth", "rng_state_1.pth"):
        zipped(os.path.join(ck, name))
    json.dump({"global_step": step, "train_batch_size": mb}, open(os.path.join(ck, "trainer_state.json"), "w"))
json.dump({"global_step": 6}, open(os.path.join(out, "trainer_state.json"), "w"))
'''


def _bundle(tmp_path: Path) -> Path:
    b = tmp_path / "bundle"
    data = tmp_path / "data.json"
    data.write_text(json.dumps([{"instruction": "hi", "input": "", "output": "hello"}] * 8), encoding="utf-8")
    r = run_cli("export", "--model", "qwen2.5-0.5b", "--gpu", "mi250x", "--gpus", "2", "--micro-batch", "4",
                "--effective-batch", "8", "--no-gradient-checkpointing", "--dataset", str(data), "--allow-unfit",
                "-o", str(b))
    assert r.returncode == 0, r.stderr
    (b / "fake_train.py").write_text(FAKE, encoding="utf-8")
    (b / "run.sh").write_text(f'#!/usr/bin/env bash\nexec {sys.executable} "$(dirname "$0")/fake_train.py" "$@"\n')
    return b


def _start(b: Path, *flags: str, env=None) -> tuple[str, Path]:
    r = run_cli("run", "--script", str(b / "run.sh"), "--json", *flags, env=env)
    assert r.returncode == 0, r.stderr
    info = json.loads(r.stdout)
    return info["id"], Path(info["dir"])


def _ended(d: Path) -> dict:
    from rocm_tune.core.runs.rundir import load_run

    assert wait_for(lambda: load_run(d).status != "running", timeout=60)
    return json.loads((d / "exit.json").read_text())


def _attempts(b: Path) -> list[dict]:
    return [json.loads(x) for x in (b / "attempts.jsonl").read_text().splitlines()]


def test_retry_oom_2_steps_the_plan_down_and_recovers_from_the_last_checkpoint(tmp_path):
    b = _bundle(tmp_path)
    sink, got = tmp_path / "sink.py", tmp_path / "events.jsonl"
    sink.write_text(f"import sys, json; open({str(got)!r}, 'a').write(json.dumps(json.load(sys.stdin)) + '\\n')\n")
    rid, d = _start(b, "--retry-oom", "2", "--notify", f"{sys.executable} {sink}")
    ex = _ended(d)
    log = (d / "stdout.log").read_text()
    assert ex["status"] == "finished", log[-3000:]
    assert json.loads((b / "output" / "trainer_state.json").read_text())["global_step"] == 6
    att = _attempts(b)
    assert [(a["mb"], a["ga"]) for a in att] == [(4, 1), (2, 2), (1, 4)]  # micro x accum x 2 GPUs = 8 every time
    ck2 = str(b / "output" / "checkpoint-2")
    assert [a["resume"] for a in att] == [None, ck2, ck2]
    meta = json.loads((d / "run.json").read_text())
    r1, r2 = meta["restarts"]
    assert (r1["reason"], r1["n_retry"], r1["checkpoint"], r1["step"]) == ("oom-retry", 1, ck2, 2)
    assert r1["change"] == "micro-batch 4 -> 2, accumulation 1 -> 2 (same effective batch)"
    assert r2["change"] == "micro-batch 2 -> 1, accumulation 2 -> 4 (same effective batch)"
    assert r1["oom"]["code"] == "oom" and r1["previous_exit"]["status"] == "failed"
    assert "OOM retry 1/2" in log and "OOM retry 2/2" in log
    # each retry and the end were notified (retries in the background: the order of the two retries may vary)
    assert wait_for(lambda: got.exists() and len(got.read_text().splitlines()) == 3, timeout=30)
    events = [json.loads(x) for x in got.read_text().splitlines()]
    assert sorted(e["event"] for e in events) == ["finished", "retry", "retry"]
    assert {e["detail"].split(":")[0] for e in events if e["event"] == "retry"} <= {"retry 1", "retry 2"}
    # the monitor's view of the run: finished, with its restarts
    a = run_cli("attach", rid, "--once", "--json", "--no-gpus")
    assert a.returncode == 0 and json.loads(a.stdout)["status"] == "finished"


def test_retry_oom_never_more_than_n(tmp_path):
    b = _bundle(tmp_path)
    _, d = _start(b, "--retry-oom", "1")
    ex = _ended(d)
    assert ex["status"] == "failed" and "OutOfMemoryError" in ex["reason"]
    assert [(a["mb"], a["ga"]) for a in _attempts(b)] == [(4, 1), (2, 2)]
    meta = json.loads((d / "run.json").read_text())
    assert len(meta["restarts"]) == 1
    assert "1 retry already made" in meta["retry_refusals"][0]["refused"]


def test_an_oom_while_the_model_loads_is_not_retried_and_says_why(tmp_path):
    b = _bundle(tmp_path)
    _, d = _start(b, "--retry-oom", "2", "--env", "OOM_AT_LOAD=1")
    ex = _ended(d)
    assert ex["status"] == "failed" and len(_attempts(b)) == 1
    assert "while the model loads" in ex.get("retry", "") and "different plan" in ex["retry"]
    assert "not retried" in (d / "stdout.log").read_text()
    assert "restarts" not in json.loads((d / "run.json").read_text())


def test_retry_oom_needs_a_plan(tmp_path):
    script = tmp_path / "own.sh"
    script.write_text("echo hi\n")
    r = run_cli("run", "--script", str(script), "--retry-oom", "2")
    assert r.returncode == 2 and "--retry-oom 2 needs --plan or --script of an exported bundle" in r.stderr
    r = run_cli("run", "--script", str(script), "--retry-oom", "-1")
    assert r.returncode == 2 and "--retry-oom" in r.stderr
