"""Journey 000 (field report 000): Qwen2.5-7B-Instruct LoRA on 2 x AMD MI50 32GB (gfx906), LLaMA-Factory.

The report's "golden" config is fp32 (`--bf16 False --fp16 False`) because gfx906 emulates bf16 and Qwen2.5
overflows in fp16. But stock LLaMA-Factory on ROCm then loads the bf16 checkpoint in bf16 anyway
(/work/shared/knowledge/runners.md). The journey: wizard answers -> a plan that says fp32 executes -> export ->
`rocm-tune run --script bundle/run.sh` -> the training processes really hold fp32 frozen and trainable weights,
as recorded by the bundle's own launcher -> `rocm-tune attach RUN --once --json` shows steps, loss and measured
vs predicted per rank -> `rocm-tune stop RUN` -> a resumed run (`export --resume`) continues the step count.

Run on CPU: the 2 x MI50 are 2 CPU processes on gloo, Qwen2.5-7B is a tiny random Qwen2 saved as a **bf16**
checkpoint (`--model-path`). On CPU stock LLaMA-Factory would infer fp32 by itself (no GPU, no bf16), so the
training processes only are made to see what they see on any ROCm GPU: `is_torch_bf16_gpu_available()` answers
True (tests/journeys/probe/sitecustomize.py, JOURNEY_BF16_GPU=1). The negative control shows that this is
enough for stock `llamafactory-cli train` of the same YAML to train the checkpoint with bf16 frozen weights.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest
import yaml

from tests.conftest import run_cli
from tests.journeys.helpers import cli_json, free_port, note, read_probes, run_script, train_env

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1500)]

ANSWERS = {"gpu": "mi50-32gb", "gpus": 2, "model": "qwen2.5-7b", "method": "lora", "lora_rank": 64,
           "effective_batch": 64, "epochs": 5}
GiB = 2**30
SAVE_STEPS = 5  # saves far apart: the stop lands between two saves, never inside one (see _stop_between_saves)
WAIT = 600  # upper bound (s) for a loaded 2-core machine; every wait ends on a condition the run makes true


@pytest.fixture(scope="module")
def tiny_bf16(tiny, tmp_path_factory):
    """The tiny Qwen2 of the real-stack fixtures, saved as a bf16 checkpoint (config dtype bfloat16)."""
    import torch
    from transformers import AutoModelForCausalLM

    out = tmp_path_factory.mktemp("tiny-bf16") / "model"
    shutil.copytree(tiny, out)
    model = AutoModelForCausalLM.from_pretrained(tiny, dtype=torch.float32)
    model.to(torch.bfloat16).save_pretrained(out)
    cfg = json.loads((out / "config.json").read_text(encoding="utf-8"))
    assert "bfloat16" in (cfg.get("dtype"), cfg.get("torch_dtype")), cfg
    return out


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    """1200 tiny alpaca records: enough optimizer steps at the plan's batch (64) to stop a run in the middle."""
    from rocm_tune.train.tiny import make_tiny_dataset

    return make_tiny_dataset(tmp_path_factory.mktemp("data000") / "tiny.json", n=1200)


@pytest.fixture(scope="module")
def planned(tmp_path_factory, dataset):
    """(folder, what the wizard printed, plan.json) of `rocm-tune wizard --answers` for report 000's setup."""
    d = tmp_path_factory.mktemp("j000")
    answers = d / "answers.yaml"
    answers.write_text(yaml.safe_dump({**ANSWERS, "dataset": str(dataset)}), encoding="utf-8")
    r = run_cli("wizard", "--answers", str(answers), "-o", str(d / "plan.json"))
    assert r.returncode == 0, r.stderr
    return d, r.stdout, json.loads((d / "plan.json").read_text(encoding="utf-8"))


def _export(planned_dir: Path, model: Path, out: Path, *extra: str) -> Path:
    """`export --plan`: the wizard's plan, trained on the tiny bf16 checkpoint (--model-path)."""
    r = run_cli("export", "--plan", str(planned_dir / "plan.json"), "--model-path", str(model), "--save-steps",
                str(SAVE_STEPS), "--logging-steps", "1", "--master-port", str(free_port()), "-o", str(out), *extra)
    assert r.returncode == 0, r.stderr
    return out


def test_the_wizards_plan_says_fp32_executes(planned):
    _d, wizard_out, plan = planned
    rec = plan["recommended"]
    assert rec["precision"] == "fp32" and rec["method"] == "lora" and rec["lora_rank"] == 64
    assert plan["hardware"]["gpu"] == "mi50-32gb" and plan["hardware"]["gpus"] == 2
    ex = plan["execution"]
    assert ex["frozen_weights"] == "fp32" and ex["trainable_weights"] == "fp32" and ex["compute"] == "fp32", ex
    assert ex["checkpoint"] == "bf16" and ex["autocast"] is None and ex["ignores_request"] is False, ex
    assert "lf_launch" in ex["launch"] and "--compute-dtype fp32" in ex["launch"], ex
    # planned for that regime: 7.6 B frozen parameters in fp32 are 28 GiB, not the checkpoint's 14 (per GPU:
    # divided by the GPUs under ZeRO-3)
    shards = plan["hardware"]["gpus"] if rec["zero_stage"] == 3 else 1
    frozen = plan["memory"]["frozen_weights_bytes"] * shards
    assert abs(frozen / (4 * plan["model"]["params_total"]) - 1) < 0.03, (frozen / GiB, plan["model"])
    assert plan["memory"]["reserved_bytes"] <= 0.85 * plan["hardware"]["vram_bytes"]
    # and the user is told, in the wizard's output and in `plan`
    assert "lf_launch.py --compute-dtype fp32" in wizard_out, wizard_out
    shown = run_cli("plan", "--model", "qwen2.5-7b", "--gpu", "mi50-32gb", "--gpus", "2", "--lora-rank", "64")
    assert shown.returncode == 0, shown.stderr
    assert "frozen weights fp32" in shown.stdout and "lf_launch" in shown.stdout, shown.stdout


def test_the_apps_plan_screen_shows_that_fp32_executes(dataset):
    """The same answers in the app (Textual Pilot; the two MI50 are rocm-tune's fake device backend): the Plan
    screen says what executes — fp32 frozen and trainable weights, through the bundle's lf_launch."""
    import asyncio

    from rocm_tune.core.hardware.devices.synthetic import FakeBackend
    from rocm_tune.tui.app import RocmTuneApp
    from tests.helpers_tui import wait_for

    async def go():
        app = RocmTuneApp(start="plan", answers={**ANSWERS, "dataset": str(dataset)},
                          backend=FakeBackend("mi50-32gb", 2, seed=1), poll_interval=5.0)
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_for(pilot, lambda: type(app.screen).__name__ == "PlanScreen" and app.state.plan_dict)
            # what executes sits below the verdict, memory and warnings (the pane's details, issue 25 item 10)
            details = app.screen.query_one("#details")
            await wait_for(pilot, lambda: "executes" in str(details.render()))
            return str(details.render()), app.state.plan_dict

    text, plan = asyncio.run(go())
    assert plan["recommended"]["precision"] == "fp32"
    assert "executes frozen fp32, trainable fp32, compute fp32" in text, text
    assert "lf_launch" in text, text


# report 000's own "golden" config: plain DDP through torchrun (no ZeRO), fp32 asked for, LoRA r64 / alpha 128
GOLDEN = ["--model", "qwen2.5-7b", "--gpu", "mi50-32gb", "--gpus", "2", "--method", "lora", "--lora-rank", "64",
          "--lora-alpha", "128", "--precision", "fp32", "--zero", "0", "--launcher", "torchrun", "--allow-unfit"]


def _dtypes_of(recs: list[dict], side: str) -> list[set]:
    return [set(r[side]) for r in recs]


def test_negative_control_stock_llamafactory_trains_the_bf16_checkpoint_in_bf16(realstack, tiny_bf16, dataset,
                                                                                 tmp_path, record_property):
    """Report 000's DDP config, exported: stock `llamafactory-cli train` of the bundle's YAML, in processes that
    see a ROCm GPU's bf16 answer, trains the bf16 checkpoint with **bf16** frozen weights although the YAML says
    `bf16: false, fp16: false` (report 000's silent regime); the bundle's own run.sh, on the same YAML, trains it
    in fp32 (its launcher pins the dtype and records it per rank).

    (Under ZeRO-3, which the wizard's plan picks for fp32 on 32 GB, DeepSpeed's zero.Init casts the weights to the
    JSON's dtype — fp32 with fp16 and bf16 off — so there stock LLaMA-Factory would keep fp32 too: the negative
    control needs the DDP regime, where LLaMA-Factory alone decides the dtype.)"""
    note(record_property, "000: MI50 stood in by CPU processes that see is_torch_bf16_gpu_available() == True")
    b = tmp_path / "golden"
    r = run_cli("export", *GOLDEN, "--model-path", str(tiny_bf16), "--dataset", str(dataset), "--save-steps", "500",
                "--master-port", str(free_port()), "-o", str(b))
    assert r.returncode == 0, r.stderr
    lf = yaml.safe_load((b / "llamafactory.yaml").read_text(encoding="utf-8"))
    assert lf["bf16"] is False and lf["fp16"] is False and "deepspeed" not in lf
    # 1. stock LLaMA-Factory, its own 2-process launch (FORCE_TORCHRUN=1)
    stock = tmp_path / "stock.sh"
    stock.write_text(f'cd "{b}" && exec llamafactory-cli train llamafactory.yaml "$@"\n', encoding="utf-8")
    env = train_env(realstack, probe_out=tmp_path / "probe-stock", bf16_gpu=True,
                    extra={"FORCE_TORCHRUN": "1", "NPROC_PER_NODE": "2", "MASTER_PORT": str(free_port())})
    rc, out = run_script(stock, "max_steps=1", f"output_dir={tmp_path / 'out-stock'}", env=env)
    assert rc == 0, out[-6000:]
    recs = read_probes(tmp_path / "probe-stock")
    assert [x["rank"] for x in recs] == [0, 1] and all(x["bf16_gpu_patched"] for x in recs), recs
    assert _dtypes_of(recs, "frozen_dtypes") == [{"bfloat16"}] * 2, f"stock LLaMA-Factory kept bf16? {recs}"
    assert _dtypes_of(recs, "trainable_dtypes") == [{"float32"}] * 2, recs  # LoRA adapters are cast to fp32
    # 2. the bundle's run.sh, same YAML, same processes' view of the GPU
    out_dir = tmp_path / "out-bundle"
    env = train_env(realstack, probe_out=tmp_path / "probe-bundle", bf16_gpu=True)
    rc, out = run_script(b / "run.sh", "max_steps=1", f"output_dir={out_dir}", env=env)
    assert rc == 0, out[-6000:]
    recs = read_probes(tmp_path / "probe-bundle")
    assert _dtypes_of(recs, "frozen_dtypes") == [{"float32"}] * 2, recs
    recorded = _rank_params(out_dir)  # no rocm-tune run here: the launcher writes into output_dir/ranks
    assert sorted(recorded) == ["0-0.jsonl", "0-1.jsonl"], recorded
    assert all(set(x["frozen"]) == {"float32"} == set(x["trainable"]) for x in recorded.values()), recorded


def _steps(output_dir: Path) -> list[int]:
    log = output_dir / "trainer_log.jsonl"
    if not log.exists():
        return []
    rows = []
    for line in log.read_text(encoding="utf-8").splitlines():
        try:
            rows.append(json.loads(line))
        except ValueError:
            continue  # a line being written
    return [r["current_steps"] for r in rows if "loss" in r]


def _complete_checkpoints(output_dir: Path) -> list[int]:
    return sorted(int(p.name.split("-")[1]) for p in output_dir.glob("checkpoint-*")
                  if (p / "trainer_state.json").is_file())


def _just_saved(output_dir: Path) -> bool:
    """A checkpoint was completely written (trainer_state.json is its last file) at the last logged step: the next
    save is SAVE_STEPS steps away, so a stop now does not cut one in half. (A stop during a save leaves a partial
    checkpoint-N that LLaMA-Factory's automatic resume would pick: a hazard of any SIGTERM, not of this journey.)"""
    done, steps = _complete_checkpoints(output_dir), _steps(output_dir)
    return bool(done and steps) and done[-1] == steps[-1]


def _wait(cond, what: str, run_dir: Path):
    t0 = time.monotonic()
    while not cond():
        exit_json = run_dir / "exit.json"
        if exit_json.exists():
            log = (run_dir / "stdout.log").read_text(encoding="utf-8", errors="replace")
            raise AssertionError(f"the run ended before {what}: {exit_json.read_text()}\n{log[-5000:]}")
        if time.monotonic() - t0 > WAIT:
            raise AssertionError(f"{what} not reached in {WAIT} s")
        time.sleep(0.05)


def _rank_params(run_dir: Path) -> dict[str, dict]:
    """{file name: the last `param_dtypes` recorded} of RUN_DIR/ranks/*.jsonl, written by the bundle's launcher."""
    out = {}
    for f in sorted((run_dir / "ranks").glob("*.jsonl")):
        for line in f.read_text(encoding="utf-8").splitlines():
            rec = json.loads(line)
            if rec.get("param_dtypes"):
                out[f.name] = rec["param_dtypes"]
    return out


def test_bundle_run_keeps_fp32_is_watched_stopped_and_resumed(realstack, tiny_bf16, planned, tmp_path,
                                                             record_property):
    note(record_property, "000: 2 x MI50 stood in by 2 CPU processes (gloo), tiny bf16 Qwen2, bf16 'GPU' answer")
    d = planned[0]
    b = _export(d, tiny_bf16, tmp_path / "bundle")
    out_dir = Path(yaml.safe_load((b / "llamafactory.yaml").read_text(encoding="utf-8"))["output_dir"])
    probe1 = tmp_path / "probe1"
    env = train_env(realstack, probe_out=probe1, bf16_gpu=True)
    run1 = tmp_path / "run1"
    started = cli_json("run", "--script", str(b / "run.sh"), "--dir", str(run1), "--json", env=env)
    rid = started["id"]
    # watch it while it trains: steps, loss, measured next to predicted, per rank
    _wait(lambda: len(_steps(out_dir)) >= 2, "two logged steps", run1)
    snap = cli_json("attach", rid, "--once", "--json", "--no-gpus", env=env)
    assert snap["status"] == "running" and snap["step"] >= 2 and snap["loss"] is not None, snap
    assert snap["total_steps"] and snap["total_steps"] > snap["step"]
    measured, predicted = snap["measured"], snap["predicted"]
    assert measured and [r["rank"] for r in measured["ranks"]] == [0, 1], measured
    for r in measured["ranks"]:
        # a CPU rank has no GPU memory to measure (null), its host memory and speed it has
        assert r["device"] == "cpu" and r["rss_bytes"] > 0 and r["world_size"] == 2, r
        pd = r.get("param_dtypes")
        assert pd and set(pd["frozen"]) == {"float32"} and set(pd["trainable"]) == {"float32"}, r
    assert predicted and predicted["peak_allocated_bytes"] and predicted["gpus"] == 2, predicted
    assert (predicted["frozen_weights"], predicted["trainable_weights"]) == ("fp32", "fp32"), predicted
    assert snap["dtype_mismatches"] == [], snap["dtype_mismatches"]
    # stop it as the user does, after a checkpoint was saved
    _wait(lambda: _just_saved(out_dir), "a saved checkpoint", run1)
    stopped = cli_json("stop", rid, "--grace", "30", "--json", env=env)
    assert stopped["status"] == "stopped", stopped
    after = cli_json("attach", rid, "--once", "--json", "--no-gpus", env=env)
    assert after["status"] == "stopped" and after["step"] >= SAVE_STEPS, after
    text = run_cli("attach", rid, "--once", "--no-gpus", env=env).stdout
    assert "measured 2 rank(s) on 1 node(s) (predicted peak" in text, text  # what the user reads ...
    assert text.count("params: frozen fp32, trainable fp32") == 2, text  # ... per rank
    # what the training processes held: the bundle's launcher recorded it per rank ...
    params = _rank_params(run1)
    assert sorted(params) == ["0-0.jsonl", "0-1.jsonl"], sorted(params)
    for name, rec in params.items():
        assert set(rec["frozen"]) == {"float32"}, f"{name}: frozen weights are not fp32: {rec}"
        assert set(rec["trainable"]) == {"float32"}, f"{name}: {rec}"
    # ... and the probe inside the same processes agrees
    for rec in read_probes(probe1):
        assert set(rec["frozen_dtypes"]) == {"float32"} and rec["bf16_gpu_patched"], rec
    done = _complete_checkpoints(out_dir)
    last_logged = max(_steps(out_dir))
    # resume: the same plan exported with --resume, into the same output directory
    b2 = _export(d, tiny_bf16, tmp_path / "bundle-resume", "--resume", "--output-dir", str(out_dir))
    probe2 = tmp_path / "probe2"
    env2 = train_env(realstack, probe_out=probe2, bf16_gpu=True)
    run2 = tmp_path / "run2"
    rid2 = cli_json("run", "--script", str(b2 / "run.sh"), "--dir", str(run2), "--json", env=env2)["id"]
    _wait(lambda: bool(read_probes(probe2)) and max(_steps(out_dir)) > last_logged, "a step after the resume",
          run2)
    snap2 = cli_json("attach", rid2, "--once", "--json", "--no-gpus", env=env2)
    cli_json("stop", rid2, "--grace", "30", "--json", env=env2)
    first = read_probes(probe2)
    assert {r["global_step"] for r in first} == {max(done)}, (first, done)  # resumed from the last checkpoint
    assert snap2["step"] > max(done), (snap2["step"], done)
    assert set(first[0]["frozen_dtypes"]) == {"float32"}, first
