"""A recorded run directory (run.json, metrics.jsonl, stdout.log, exit.json) for tests, screenshots
and the snapshot suite: what rocm-tune's trainer writes, with deterministic numbers."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path


def write_sample_run(run_dir: str | os.PathLike, *, steps: int = 60, total_steps: int = 100,
                     start: float = 1_700_000_000.0, step_time: float = 4.0, finished: bool = False,
                     nan_at: int | None = None, name: str = "qwen-lora",
                     pid: int | None = None, run_id: str | None = None, eval_every: int = 20) -> Path:
    """Write a run directory as rocm-tune's launcher and trainer leave it; returns its path."""
    d = Path(run_dir)
    d.mkdir(parents=True, exist_ok=True)
    run_id = run_id or f"20231114-221320-{name}-a1b2"
    meta = {"id": run_id, "name": name, "command": ["rocm-tune", "train", "config.yaml"], "cwd": str(d),
            "env": {}, "created_at": start - 5, "started_at": start, "pid": pid, "pgid": None,
            "supervisor_pid": None, "plan": None, "kind": "train", "total_steps": total_steps}
    if pid is not None:
        from rocm_tune.core.runs.procs import proc_start_time

        start_ticks = proc_start_time(pid)   # the run's process is confirmed by its start time
        if start_ticks is not None:
            meta["pid_start"] = start_ticks
    (d / "run.json").write_text(json.dumps(meta))
    lines = [{"type": "start", "time": start, "total_steps": total_steps, "num_train_epochs": 2,
              "config": {"model_name_or_path": "qwen2.5-7b"}}]
    log = [f"rocm-tune train: {total_steps} steps, 2 epochs", "loading model ..."]
    for s in range(1, steps + 1):
        loss = 2.2 * math.exp(-s / 35) + 0.9 + 0.08 * math.sin(s * 1.7)
        gn = 1.5 + 0.6 * math.cos(s * 0.9) + (0.02 * s)
        lr = 2e-4 * min(1.0, s / 10) * (0.5 * (1 + math.cos(math.pi * s / total_steps)))
        if nan_at is not None and s >= nan_at:
            loss, gn = float("nan"), float("nan")
        t = start + s * step_time
        rec = {"type": "step", "time": t, "step": s, "epoch": round(2 * s / total_steps, 3),
               "loss": "nan" if math.isnan(loss) else round(loss, 4), "grad_norm": "nan" if math.isnan(gn) else round(gn, 4),
               "learning_rate": lr, "tokens_per_s": 1830.0 + 10 * math.sin(s), "samples_per_s": 0.9,
               "step_time_s": step_time}
        lines.append(rec)
        if eval_every and s % eval_every == 0 and (nan_at is None or s < nan_at):
            lines.append({"type": "eval", "time": t, "step": s, "eval_loss": round(loss + 0.05, 4)})
        log.append(f"{{'loss': {rec['loss']}, 'grad_norm': {rec['grad_norm']}, 'learning_rate': {lr:.3e}, "
                   f"'epoch': {rec['epoch']}}}")
    if finished:
        end = start + steps * step_time + 1
        lines.append({"type": "end", "time": end, "status": "finished", "step": steps, "train_loss": 1.1,
                      "runtime_s": end - start})
        (d / "exit.json").write_text(json.dumps({"status": "finished", "returncode": 0, "signal": None,
                                                 "ended_at": end}))
        log.append("training finished")
    with open(d / "metrics.jsonl", "w") as fh:
        for rec in lines:
            fh.write(json.dumps(rec).replace('"nan"', "NaN") + "\n")
    (d / "stdout.log").write_text("\n".join(log) + "\n")
    return d
