"""Deterministic app states for snapshot tests and `screenshots/make_screenshots.py`.

Every scene builds the app on fake/recorded data with a fixed clock (GPU telemetry from a
FakeBackend whose clock is frozen, runs from recorded run directories), so two renders of a
scene are identical. `prepare(workdir)` writes the files the scenes use (dataset, run dirs)
into `workdir`, which must be the current directory while the scene runs (paths are relative).
The launch scene shows the run registry as `~/...`: run it with HOME=workdir and no XDG_STATE_HOME.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rocm_tune.tui.app import RocmTuneApp
from rocm_tune.tui.sample_run import write_sample_run

START = 1_700_000_000.0
STEPS, STEP_TIME = 60, 4.0
NOW = START + STEPS * STEP_TIME + 2       # the frozen clock: just after the last logged step
SLOW = 3600.0                              # poll interval: one poll per scene, nothing moves
ANSWERS = {"gpu": "mi50-32gb", "gpus": 2, "model": "qwen2.5-7b", "method": "lora", "effective_batch": 64,
           "priority": "stability", "epochs": 2.0}


def fake_backend(profile: str = "mi50-32gb", count: int = 2) -> Any:
    """Fake GPUs with a frozen clock (same numbers every time)."""
    from rocm_tune.core.hardware.devices.synthetic import FakeBackend

    return FakeBackend(profile, count, seed=7, clock=lambda: NOW)


class FixedHost:
    """The monitor's host CPU/RAM and process owners, fixed (independent of this machine)."""

    def sample(self) -> dict:
        return {"cpu_percent": 37.0, "cpus": 64, "ram_used_bytes": 212 * 2**30, "ram_total_bytes": 503 * 2**30}

    def owner(self, pid: int) -> tuple[str, str]:
        return "alice", "python -m rocm_tune train llamafactory.yaml"


def fake_host() -> Any:
    """A doctor SystemView of a fixed host (IOMMU on without passthrough), independent of this machine."""
    from rocm_tune.core.hardware.doctor import SystemView

    root = Path("host").resolve()

    def no_command(cmd: list, timeout: float | None = None) -> tuple[int, str, str]:
        return 127, "", "not found"

    return SystemView(root=root, env={}, run=no_command,
                      which=lambda name: None, torch_info=lambda: None, module_version=lambda name: None,
                      module_path=lambda name: None, disk_free=lambda path: None, cwd=root)


def prepare(workdir: str | os.PathLike) -> None:
    """Dataset, recorded runs and a fake host the scenes refer to (relative paths under workdir)."""
    w = Path(workdir)
    (w / "host" / "proc").mkdir(parents=True, exist_ok=True)
    (w / "host" / "proc" / "cmdline").write_text("BOOT_IMAGE=/vmlinuz root=/dev/sda1 intel_iommu=on\n")
    (w / "host" / "sys" / "class" / "iommu" / "dmar0").mkdir(parents=True, exist_ok=True)
    rows = [{"instruction": "Summarise the report " + "word " * ((i * 37) % 420),
             "input": "", "output": "Summary " + "token " * ((i * 53) % 610)} for i in range(300)]
    (w / "data.json").write_text(json.dumps(rows))
    write_sample_run(w / "runs" / "qwen-lora", steps=STEPS, total_steps=150, start=START, step_time=STEP_TIME,
                     pid=os.getpid(), run_id="20231114-221320-qwen-lora-a1b2")
    write_sample_run(w / "runs" / "nan-run", steps=40, total_steps=100, start=START - 86400, step_time=STEP_TIME,
                     finished=True, nan_at=33, name="fp16-overflow", run_id="20231113-221320-fp16-overflow-c3d4")
    from rocm_tune.core.runs.registry import register_pointer

    register_pointer("20231114-221320-qwen-lora-a1b2", w / "runs" / "qwen-lora")
    register_pointer("20231113-221320-fp16-overflow-c3d4", w / "runs" / "nan-run")
    c = w / "check"
    (c / "qwen1.5-7b").mkdir(parents=True, exist_ok=True)
    for name, text in CHECK_FILES.items():
        (c / name).write_text(text)
    (c / "qwen1.5-7b" / "config.json").write_text(json.dumps(QWEN15_7B))


# `rocm-tune check` scene: hiyouga/LlamaFactory#3708 (Qwen1.5-7B LoRA, ZeRO-2, cutoff_len 8196 on 4 x RTX 3090, OOM),
# the memory-relevant lines of the posted YAML and launch script, LLaMA-Factory's ds_z2_config.json
CHECK_FILES = {
    "PQ_sft.yaml": "model_name_or_path: /sshfs/pretrains/Qwen/Qwen1.5-7B-Chat/\nstage: sft\ndo_train: true\n"
                   "finetuning_type: lora\nlora_target: q_proj,v_proj\nddp_timeout: 180000000\n"
                   "deepspeed: examples/deepspeed/ds_z2_config.json\ndataset: PQ\ntemplate: qwen\ncutoff_len: 8196\n"
                   "per_device_train_batch_size: 1\ngradient_accumulation_steps: 1\nwarmup_steps: 0.1\nfp16: true\n",
    "launch.sh": "#!/bin/bash\nNPROC_PER_NODE=4\nCUDA_VISIBLE_DEVICES=4,5,6,7 python -m torch.distributed.run \\\n"
                 "    --nproc_per_node $NPROC_PER_NODE \\\n    --nnodes 1 \\\n    --standalone \\\n"
                 "    src/train.py bash/yaml/train/PQ_sft.yaml\n",
    "ds_z2_config.json": json.dumps({"train_batch_size": "auto", "train_micro_batch_size_per_gpu": "auto",
                                     "gradient_accumulation_steps": "auto", "fp16": {"enabled": "auto"},
                                     "bf16": {"enabled": "auto"},
                                     "zero_optimization": {"stage": 2, "allgather_bucket_size": 5e8,
                                                           "overlap_comm": False, "reduce_bucket_size": 5e8,
                                                           "contiguous_gradients": True}}, indent=2) + "\n",
}
# Qwen1.5-7B's published config.json (huggingface.co/Qwen/Qwen1.5-7B/blob/main/config.json), memory keys
QWEN15_7B = {"model_type": "qwen2", "hidden_size": 4096, "intermediate_size": 11008, "num_hidden_layers": 32,
             "num_attention_heads": 32, "num_key_value_heads": 32, "vocab_size": 151936,
             "tie_word_embeddings": False, "torch_dtype": "bfloat16", "max_position_embeddings": 32768}


async def settle(pilot, cond: Callable[[], bool], timeout: float = 15.0) -> None:
    t0 = time.monotonic()
    while not cond():
        if time.monotonic() - t0 > timeout:
            raise TimeoutError("scene did not settle")
        await pilot.pause(0.05)
    from rocm_tune.tui.widgets.fields import QuestionField

    for f in pilot.app.screen.query(QuestionField).results():
        f.ensure_choices()   # data-driven choices load on a timer: load them now, same picture every time
    await pilot.pause(0.1)
    from textual.widgets import Input, TextArea

    for w in pilot.app.screen.query(Input).results():
        w.cursor_blink = False
    for w in pilot.app.screen.query(TextArea).results():
        w.cursor_blink = False
    await pilot.wait_for_scheduled_animations()


def _screen(app) -> str:
    return type(app.screen).__name__


@dataclass(frozen=True)
class Scene:
    name: str
    title: str
    make_app: Callable[[], RocmTuneApp]
    ready: Callable[[Any], Awaitable[None]]    # async (pilot) -> None, drives the app to the state


def _app(start: str, **kw: Any) -> Callable[[], RocmTuneApp]:
    extra = dict(kw)
    answers = dict(ANSWERS, **extra.pop("answers", {}))

    gpus = extra.pop("gpus", ("mi50-32gb", 2))

    def make() -> RocmTuneApp:
        return RocmTuneApp(start=start, clock=lambda: NOW, poll_interval=SLOW, backend=fake_backend(*gpus),
                           answers=dict(answers), doctor_view=fake_host, host_probe=FixedHost(), **extra)
    return make


def _check_app() -> RocmTuneApp:
    """The app as `rocm-tune check check/PQ_sft.yaml check/launch.sh check/ds_z2_config.json --gpu rtx3090
    --model check/qwen1.5-7b` opens it in a terminal."""
    from rocm_tune.core.check.check import check
    from rocm_tune.tui.check_model import CheckSession

    paths = [f"check/{n}" for n in CHECK_FILES]
    opts: dict[str, Any] = {"gpu_id": "rtx3090", "model_ref": "check/qwen1.5-7b"}
    return RocmTuneApp(check=CheckSession(paths, check(paths, **opts), opts), clock=lambda: NOW, poll_interval=SLOW,
                       backend=fake_backend(), doctor_view=fake_host, host_probe=FixedHost())


async def _check(pilot) -> None:
    app = pilot.app
    await settle(pilot, lambda: _screen(app) == "CheckPlanScreen" and app.screen._fixed_report is not None, 30)


async def _hardware(pilot) -> None:
    app = pilot.app
    await settle(pilot, lambda: _screen(app) == "HardwareScreen" and app.screen.query_one("#gpus").row_count == 2
                 and "running checks" not in str(app.screen.query_one("#doctor").render()))


async def _model(pilot) -> None:
    app = pilot.app
    await settle(pilot, lambda: _screen(app) == "ModelScreen" and app.screen.query_one("#presets").option_count > 0)
    from textual.widgets import Input

    inp = app.screen.query_one("#in-model", Input)
    inp.value = "qwen 7b"
    await settle(pilot, lambda: "match 'qwen 7b'" in str(app.screen.query_one("#status").render()))


async def _goal(pilot) -> None:
    app = pilot.app
    await settle(pilot, lambda: _screen(app) == "GoalScreen" and app.state.dataset_stats is not None)


async def _plan(pilot) -> None:
    app = pilot.app
    await settle(pilot, lambda: _screen(app) == "PlanScreen" and app.state.plan_dict is not None, 30)


async def _export(pilot) -> None:
    app = pilot.app
    await settle(pilot, lambda: _screen(app) == "ExportScreen"
                 and app.screen.query_one("#files").option_count > 0, 30)


async def _monitor(pilot) -> None:
    app = pilot.app
    await settle(pilot, lambda: _screen(app) == "MonitorScreen" and app.screen.view is not None
                 and app.screen.view.step is not None and bool(app.screen.view.gpus))


async def _monitor_alert(pilot) -> None:
    app = pilot.app
    await settle(pilot, lambda: _screen(app) == "MonitorScreen" and app.screen.view is not None
                 and bool(app.screen.view.alerts))


async def _launch(pilot) -> None:
    app = pilot.app
    await _plan(pilot)
    await pilot.press("ctrl+l")
    await settle(pilot, lambda: _screen(app) == "LaunchModal", 30)


async def _runs(pilot) -> None:
    app = pilot.app
    await _monitor(pilot)
    await pilot.press("r")
    await settle(pilot, lambda: _screen(app) == "RunListScreen" and app.screen.query_one("DataTable").row_count == 2)
    await settle(pilot, lambda: len(app.screen._curves) == 2)  # the loss sparklines load in a worker


async def _stop(pilot) -> None:
    app = pilot.app
    await _monitor(pilot)
    await pilot.press("s")
    await settle(pilot, lambda: _screen(app) == "ConfirmModal")


async def _compare(pilot) -> None:
    app = pilot.app
    await _runs(pilot)
    await pilot.press("space", "down", "space", "c")
    await settle(pilot, lambda: _screen(app) == "CompareScreen")
    await pilot.pause(0.3)


async def _help(pilot) -> None:
    app = pilot.app
    await _monitor(pilot)
    await pilot.press("f1")
    await settle(pilot, lambda: _screen(app) == "HelpModal")


SCENES: dict[str, Scene] = {s.name: s for s in (
    Scene("hardware", "Hardware: detected GPUs and the profile to plan for", _app("hardware"), _hardware),
    Scene("model", "Model: search the presets", _app("model"), _model),
    Scene("goal", "Goal: method, batch and the dataset's length histogram",
          _app("goal", answers={"dataset": "data.json"}), _goal),
    Scene("plan", "Plan: recommendation, VRAM split, speed, editable settings",
          _app("plan", answers={"dataset": "data.json"}), _plan),
    Scene("check", "rocm-tune check FILE...: your files on the Plan screen, the fix as a diff", _check_app, _check),
    Scene("launch", "Launch (ctrl+l): what will run, confirmed first", _app("plan", answers={"dataset": "data.json"}),
          _launch),
    Scene("export", "Export: formats, files and preview", _app("export", answers={"dataset": "data.json"}), _export),
    Scene("monitor", "Monitor: loss, lr, grad_norm, GPUs, log", _app("monitor", attach="runs/qwen-lora"), _monitor),
    Scene("monitor-alert", "Monitor: an alert with its fix", _app("monitor", attach="runs/nan-run"), _monitor_alert),
    Scene("monitor-8gpu", "Monitor: 8 x MI300X, one row per GPU, the selected one in detail",
          _app("monitor", attach="runs/qwen-lora", gpus=("mi300x", 8)), _monitor),
    Scene("runs", "Run list with loss curves", _app("monitor", attach="runs/qwen-lora"), _runs),
    Scene("compare", "Two runs' loss curves, lined up by step (space marks, c compares)",
          _app("monitor", attach="runs/qwen-lora"), _compare),
    Scene("stop", "Stop asks first", _app("monitor", attach="runs/qwen-lora"), _stop),
    Scene("help", "Help (f1) on the monitor", _app("monitor", attach="runs/qwen-lora"), _help),
)}
