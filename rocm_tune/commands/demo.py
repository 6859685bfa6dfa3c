"""`rocm-tune demo [--headless] [--steps N] [--dir DIR]`: plan, launch and watch a tiny real training.

Works on any machine, GPU or not: builds a tiny random Qwen2 model (2 layers, hidden 64) and a tiny
learnable alpaca dataset locally (nothing downloaded), plans it, writes a `rocm-tune train` config,
starts it detached through the same launcher as `rocm-tune run`, and shows the live monitor (the TUI
on a terminal, else one line per step). The run keeps going if the monitor is closed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from rocm_tune.commands._common import int_range, print_json
from rocm_tune.core.errors import UserError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--headless", action="store_true",
                        help="no monitor: wait for the end, print a summary, exit 0 when it finished")
    parser.add_argument("--plain", action="store_true", help="line-per-step view instead of the full-screen monitor")
    parser.add_argument("--steps", type=int_range("--steps", 2, 100_000), default=60,
                        help="training steps (default 60; about 30 s on 2 CPU cores)")
    parser.add_argument("--dir", metavar="DIR",
                        help="work directory for the tiny model and data (default: $XDG_CACHE_HOME/rocm-tune/demo)")
    parser.add_argument("--gpu", metavar="PROFILE", default=None,
                        help="GPU profile to plan for when none is detected (default mi50-32gb)")
    parser.add_argument("--json", action="store_true", help="with --headless: print the summary as one JSON object")


def _cache_home() -> Path:
    base = os.environ.get("XDG_CACHE_HOME")
    return Path(base) if base and os.path.isabs(base) else Path.home() / ".cache"


def _say(msg: str, quiet: bool = False) -> None:
    if not quiet:
        print(msg, flush=True)


def prepare_assets(work: Path, quiet: bool = False) -> tuple[Path, Path]:
    """Tiny dataset + tiny model under `work` (reused when already there)."""
    from rocm_tune.train.tiny import make_tiny_dataset, make_tiny_model

    data = work / "data.json"
    model = work / "tiny-qwen2"
    if not data.is_file():
        make_tiny_dataset(data)
    if not (model / "config.json").is_file() or not (model / "tokenizer.json").is_file():
        _say(f"building a tiny random Qwen2 model (2 layers, hidden 64) in {model} ...", quiet)
        os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
        make_tiny_model(model, data)
    return data, model


def plan_demo(model_dir: Path, data: Path, gpu_id: str | None, quiet: bool = False) -> dict | None:
    """plan.json for the tiny model via the planner; None (with a note) when it is not usable."""
    try:
        from rocm_tune.core.model import model_from_config
        from rocm_tune.core.planner import PlanRequest, plan
        from rocm_tune.profiles.gpu_profiles import get_gpu_profile

        profile_id = gpu_id
        where = "chosen with --gpu"
        if profile_id is None:
            try:
                from rocm_tune.core.devices import detect

                samples = detect().sample()
                profile_id = next((s.profile_id for s in samples if getattr(s, "profile_id", None)), None)
                where = "detected"
            except Exception:
                profile_id = None
        if not profile_id:
            profile_id, where = "mi50-32gb", "no GPU detected: planned for an example GPU"
        gpu = get_gpu_profile(profile_id)
        cfg = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
        spec = model_from_config(cfg, name="tiny-qwen2", source="path", location=str(model_dir))
        req = PlanRequest(model=spec, gpu=gpu, method="full", effective_batch=8, epochs=2,
                          model_ref=str(model_dir))
        result = plan(req).to_dict()
        result.setdefault("goal", {})["dataset"] = str(data)
        rec = result.get("recommended") or {}
        _say(f"plan ({gpu.id}, {where}): {rec.get('method')} {rec.get('precision')}, micro_batch "
             f"{rec.get('micro_batch')} x grad_accum {rec.get('grad_accum')}, cutoff_len {rec.get('cutoff_len')}, "
             f"attn {rec.get('attn')}", quiet)
        return result
    except UserError:
        raise
    except Exception as exc:  # the planner is optional for the demo
        _say(f"planner not usable here ({type(exc).__name__}: {str(exc)[:120]}); using the demo's own settings", quiet)
        return None


def demo_config(model_dir: Path, data: Path, out_dir: Path, steps: int, plan: dict | None, gpu: bool) -> dict:
    """The train config: the plan's precision/attention where they apply, CPU-sized batch and schedule."""
    rec = (plan or {}).get("recommended") or {}
    prec = rec.get("precision") if gpu else "fp32"   # on CPU: fp32 (no fp16 autocast on CPU)
    attn = {"eager": "disabled", "sdpa": "sdpa", "fa2": "fa2"}.get(rec.get("attn") or "sdpa", "sdpa")
    cutoff = int(rec.get("cutoff_len") or 128)
    return {
        "model_name_or_path": str(model_dir),
        "train_file": str(data),
        "stage": "sft",
        "do_train": True,
        "finetuning_type": "full",
        "cutoff_len": max(64, min(cutoff, 512)),
        "per_device_train_batch_size": 8,
        "gradient_accumulation_steps": 1,
        "learning_rate": 3.0e-3,
        "lr_scheduler_type": "cosine",
        "warmup_ratio": 0.05,
        "max_steps": steps,
        "logging_steps": 2 if steps <= 200 else 10,
        "save_steps": max(1, steps // 2),
        "output_dir": str(out_dir),
        "overwrite_output_dir": True,
        "bf16": prec == "bf16",
        "fp16": prec == "fp16",
        "pure_bf16": prec == "pure_bf16",
        "disable_gradient_checkpointing": True,
        "flash_attn": attn,
        "report_to": "none",
        "seed": 42,
        "nan_policy": "stop",
    }


def read_metrics(path: Path) -> list[dict]:
    out = []
    try:
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                try:
                    rec = json.loads(line)
                except ValueError:
                    continue
                if isinstance(rec, dict):
                    out.append(rec)
    except OSError:
        pass
    return out


def summary(run_id: str) -> dict:
    from rocm_tune.core.runs.registry import find_run

    info = find_run(run_id)
    recs = read_metrics(info.metrics_path)
    losses = [r["loss"] for r in recs if r.get("type") == "step" and isinstance(r.get("loss"), (int, float))]
    end: dict = next((r for r in reversed(recs) if r.get("type") == "end"), {})
    took = None
    if info.started_at and info.ended_at:
        took = info.ended_at - info.started_at
    return {
        "id": info.id, "dir": info.dir, "status": info.status, "returncode": info.returncode,
        "steps": end.get("step", info.step), "total_steps": info.total_steps,
        "first_loss": losses[0] if losses else None, "last_loss": losses[-1] if losses else None,
        "train_loss": end.get("train_loss"), "seconds": None if took is None else round(took, 1),
    }


def _print_summary(s: dict) -> None:
    def f(x):
        return "-" if x is None else f"{x:.4f}"

    print(f"demo run {s['id']}: {s['status']}" + (f" (exit code {s['returncode']})" if s["returncode"] else ""))
    print(f"  steps {s['steps']}/{s['total_steps']}, loss {f(s['first_loss'])} -> {f(s['last_loss'])}, "
          f"{s['seconds'] if s['seconds'] is not None else '-'} s")
    print(f"  run dir: {s['dir']}")


def _wait(run_id: str, timeout: float = 3600) -> None:
    from rocm_tune.core.runs.registry import find_run

    end = time.time() + timeout
    while time.time() < end and find_run(run_id).status == "running":
        time.sleep(0.5)


def run(args: argparse.Namespace) -> int:
    from rocm_tune.core.runs import rundir as rd
    from rocm_tune.core.runs.launcher import start_run

    if args.json and not args.headless:
        raise UserError("--json needs --headless (without it the demo streams the training, which is not one "
                        "JSON object)")
    if args.plain and args.headless:
        raise UserError("--plain and --headless do not go together: --headless shows no monitor at all")
    quiet = bool(args.json)
    t0 = time.time()
    from rocm_tune.core.files import directory_path, existing

    # a dangling symlink or a symlink loop (as --dir, or as the files the demo makes in it) is refused:
    # nothing is written through one
    work = directory_path(args.dir, "--dir") if args.dir else _cache_home() / "rocm-tune" / "demo"
    if work.exists() and not work.is_dir():
        raise UserError(f"--dir {str(work)!r} exists and is not a directory")
    for f in ("data.json", "tiny-qwen2"):
        there = existing(work / f)
        if there not in (None, "exists"):
            raise UserError(f"--dir {str(work)!r}: {f} {there}; remove it or choose another --dir")
    try:
        work.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"cannot create --dir {str(work)!r}: {exc.strerror}") from None
    if args.gpu is not None:
        from rocm_tune.profiles.gpu_profiles import get_gpu_profile

        get_gpu_profile(args.gpu)  # UserError for an unknown profile
    data, model = prepare_assets(work, quiet)
    plan = plan_demo(model, data, args.gpu, quiet)
    try:
        import torch

        gpu = bool(torch.cuda.is_available())
    except Exception:
        gpu = False
    _, d = rd.create_run_dir(["true"], name="demo", kind="train", plan=plan, total_steps=args.steps)
    cfg = demo_config(model, data, d / "output", args.steps, plan, gpu)
    from rocm_tune.train.config import config_to_yaml

    (d / "train.yaml").write_text(config_to_yaml(cfg), encoding="utf-8")
    command = [sys.executable, "-m", "rocm_tune", "train", str(d / "train.yaml")]
    env = {"TOKENIZERS_PARALLELISM": "false", "TRANSFORMERS_VERBOSITY": "error",
           "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    if not gpu:
        env["CUDA_VISIBLE_DEVICES"] = ""
    rd.update_run_json(d, command=command, env=env)
    (d / rd.METRICS_JSONL).touch()  # monitors that start before the trainer pick the right source
    info = start_run(d)
    _say(f"started run {info.id} on {'GPU' if gpu else 'CPU'} ({args.steps} steps, full fine-tuning, "
         f"{cfg['per_device_train_batch_size']} samples/step); it runs detached: "
         f"`rocm-tune attach {info.id}`, `rocm-tune stop {info.id}`", quiet)
    _say(f"  run dir: {info.dir}   (set up in {time.time() - t0:.1f} s)", quiet)

    if args.headless:
        _wait(info.id)
        s = summary(info.id)
        if args.json:
            print_json(s)
        else:
            _print_summary(s)
        return 0 if s["status"] == "finished" else 1

    code = None
    if sys.stdout.isatty() and not args.plain:
        from rocm_tune.tui.app import run_app

        code = run_app(attach=info.id)
    if code is None:
        from rocm_tune.core.runs.watch import stream_plain

        try:
            stream_plain(info.id)
        except KeyboardInterrupt:
            print(f"\nmonitor closed; the run goes on: rocm-tune attach {info.id} / rocm-tune stop {info.id}")
            return 0
    s = summary(info.id)
    if s["status"] != "running":
        _print_summary(s)
    else:
        print(f"the run goes on in the background: rocm-tune attach {info.id} / rocm-tune stop {info.id}")
    return 0 if s["status"] in ("finished", "running") else 1
