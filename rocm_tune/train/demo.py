"""The tiny real training of `rocm-tune demo`, started the same way from the command and from the app.

`start_demo(work, steps)` builds (or reuses) a tiny random Qwen2 model and a tiny learnable alpaca dataset under
`work` (nothing downloaded), plans them, writes a `rocm-tune train` config into a new run directory and starts it
detached through the launcher of `rocm-tune run` (`core.runs.launch.launcher.start_run`). `rocm-tune demo` then watches
it in a terminal; the app's Model screen (ctrl+t) and its launch without a dataset open the monitor on it.
torch and transformers are imported only when the model is built.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rocm_tune.core.errors import UserError

DEFAULT_STEPS = 60   # about 30 s on 2 CPU cores


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
        from rocm_tune.core.model.architecture import model_from_config
        from rocm_tune.core.plan.planner import PlanRequest, plan
        from rocm_tune.profiles.gpu_profiles import get_gpu_profile

        profile_id = gpu_id
        where = "chosen with --gpu"
        if profile_id is None:
            try:
                from rocm_tune.core.hardware.devices import detect

                samples = detect().sample()
                profile_id = next((s.profile_id for s in samples if getattr(s, "profile_id", None)), None)
                where = "detected"
            except Exception:  # noqa: BLE001 - no usable backend: an example GPU is planned for
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
    except Exception as exc:  # noqa: BLE001 - the planner is optional for the demo
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


def default_dir() -> Path:
    """Where the tiny model and data live when no --dir is given: $XDG_CACHE_HOME/rocm-tune/demo."""
    return _cache_home() / "rocm-tune" / "demo"


def work_dir(given: str | None = None) -> Path:
    """The demo's work directory (`--dir`, else the default), made if missing. A dangling symlink or a symlink loop
    (as the directory, or as the files the demo makes in it) is refused: nothing is written through one."""
    from rocm_tune.core.files import directory_path, existing

    work = directory_path(given, "--dir") if given else default_dir()
    name = f"--dir {str(work)!r}" if given else f"the demo folder {str(work)!r}"
    if work.exists() and not work.is_dir():
        raise UserError(f"{name} exists and is not a directory")
    for f in ("data.json", "tiny-qwen2"):
        there = existing(work / f)
        if there not in (None, "exists"):
            raise UserError(f"{name}: {f} {there}; remove it" + (" or choose another --dir" if given else ""))
    try:
        work.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"cannot create {name}: {exc.strerror}") from None
    return work


@dataclass(frozen=True)
class DemoStart:
    info: Any        # core.runs.registry.RunInfo of the started run
    cfg: dict        # its train config (train.yaml)
    gpu: bool        # trained on a GPU (else CPU)


def start_demo(work: Path, steps: int = DEFAULT_STEPS, gpu_id: str | None = None, quiet: bool = False) -> DemoStart:
    """Prepare the tiny model and data in `work` (an existing directory), plan them, start the run detached."""
    from rocm_tune.core.runs import rundir as rd
    from rocm_tune.core.runs.launch.launcher import start_run

    data, model = prepare_assets(work, quiet)
    plan = plan_demo(model, data, gpu_id, quiet)
    try:
        import torch

        gpu = bool(torch.cuda.is_available())
    except Exception:  # noqa: BLE001 - no usable torch device: CPU
        gpu = False
    _, d = rd.create_run_dir(["true"], name="demo", kind="train", plan=plan, total_steps=steps)
    cfg = demo_config(model, data, d / "output", steps, plan, gpu)
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
    return DemoStart(info, cfg, gpu)
