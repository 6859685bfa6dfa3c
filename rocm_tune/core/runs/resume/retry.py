"""OOM retry: `rocm-tune run --retry-oom N` (issue 21 item 3). Used by the supervisor between attempts.

When an attempt of a LLaMA-Factory bundle run (a `--plan` run or `--script` of a bundle with its plan.json) dies
of GPU out-of-memory (the `oom` alert of `alerts.py`, read from the attempt's part of stdout.log), the supervisor
steps the plan down the way preflight does (rocm_tune/train/preflight/runner.py):
  1. micro-batch halved (the largest divisor <= half of micro x accumulation), accumulation up by as much: the
     same effective batch;
  2. at micro-batch 1: gradient checkpointing on;
  3. then the next ZeRO stage (a deepspeed.json for it is written into the run directory);
and starts the same command again with the changed keys as LLaMA-Factory `key=value` overrides and
`resume_from_checkpoint=` the newest complete checkpoint (none yet: from the start). Each retry and its reason
is recorded in run.json (`restarts`). Never more than N; never for an OOM while the model loads (before
"***** Running training *****" or a first step): that needs a different plan, and the run says so.
Standard library only.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rocm_tune.core.runs import rundir as rd

if TYPE_CHECKING:
    from rocm_tune.core.runs.resume.resume import Target

TRAINING_STARTED = ("***** Running training *****", "Running training")
MAX_SCAN = 4 * 2**20


@dataclass(frozen=True)
class Settings:
    micro_batch: int
    grad_accum: int
    gradient_checkpointing: bool
    zero_stage: int

    def line(self) -> str:
        gc = "on" if self.gradient_checkpointing else "off"
        zero = f"ZeRO-{self.zero_stage}" if self.zero_stage else "no ZeRO"
        return f"micro-batch {self.micro_batch} x accumulation {self.grad_accum}, gradient checkpointing {gc}, {zero}"


def step_down(s: Settings) -> tuple[Settings, str] | None:
    """The next smaller configuration with the same effective batch, and why; None when nothing is left."""
    product = s.micro_batch * s.grad_accum
    if s.micro_batch > 1:
        for d in range(s.micro_batch // 2, 0, -1):
            if product % d == 0:
                return (Settings(d, product // d, s.gradient_checkpointing, s.zero_stage),
                        f"micro-batch {s.micro_batch} -> {d}, accumulation {s.grad_accum} -> {product // d} "
                        "(same effective batch)")
    if not s.gradient_checkpointing:
        return Settings(s.micro_batch, s.grad_accum, True, s.zero_stage), "gradient checkpointing on"
    if s.zero_stage < 3:
        nxt = 2 if s.zero_stage == 0 else s.zero_stage + 1
        return Settings(s.micro_batch, s.grad_accum, True, nxt), f"ZeRO-{s.zero_stage} -> ZeRO-{nxt}"
    return None


@dataclass(frozen=True)
class Scan:
    oom: dict | None             # the oom alert (to_dict) of the attempt, or None
    training_started: bool       # the attempt got past loading (a step, or "Running training")
    alert: dict | None           # the last error alert of the attempt (for notifications)


def scan_attempt(run_dir: str | os.PathLike, offset: int = 0) -> Scan:
    """Alerts in stdout.log from byte `offset` (the attempt's start) on, through the parser and the alert engine."""
    from rocm_tune.core.runs.watch.alerts import AlertEngine, load_context
    from rocm_tune.core.runs.watch.parsers import TextParser

    d = Path(run_dir)
    try:
        with open(d / rd.STDOUT_LOG, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            start = max(offset, size - MAX_SCAN)
            fh.seek(start)
            text = fh.read().decode("utf-8", "replace")
    except OSError:
        return Scan(None, False, None)
    try:
        ctx = load_context(str(d))
    except Exception:  # noqa: BLE001 - a context is a nicety (numbers in the fix)
        ctx = None
    engine = AlertEngine(ctx)
    parser = TextParser()
    started = any(m in text for m in TRAINING_STARTED)
    alerts = []
    for line in text.replace("\r", "\n").split("\n"):
        if line.startswith("[rocm-tune supervisor]"):
            continue
        events = parser.feed(line[:8192])
        for ev in events:
            if ev.kind == "step":
                started = True
        alerts += engine.feed_many(events)
    oom = next((a.to_dict() for a in alerts if a.code == "oom"), None)
    errors = [a for a in alerts if a.severity == "error"]
    last = errors[-1].to_dict() if errors else (alerts[-1].to_dict() if alerts else None)
    return Scan(oom, started, last)


def current_settings(meta: dict, d: Path) -> tuple[Settings, Target] | tuple[None, str]:
    """(the settings the last attempt ran with, its Target) or (None, why no retry is possible)."""
    from rocm_tune.core.errors import UserError
    from rocm_tune.core.runs.resume.resume import run_target

    try:
        target = run_target(meta, d)
    except UserError as exc:
        return None, str(exc)
    if target.runner != "llamafactory":
        return None, "only LLaMA-Factory runs take key=value overrides (the built-in trainer: set a smaller plan)"
    if target.plan is None:
        return None, "the run has no plan.json beside its bundle, so there is no plan to step down"
    from rocm_tune.core.runners import llamafactory
    from rocm_tune.core.runners.common import as_bool, as_int

    cmd = [str(c) for c in meta.get("command") or []]
    cfg = llamafactory.with_overrides(target.user_config, cmd)      # the one LLaMA-Factory reader
    mb = as_int(cfg.get("per_device_train_batch_size"))
    ga = as_int(cfg.get("gradient_accumulation_steps"))
    dis = bool(as_bool(cfg.get("disable_gradient_checkpointing", False)))
    zero = meta.get("retry_zero_stage") or target.plan.recommended.zero_stage
    if not isinstance(mb, int) or not isinstance(ga, int):
        return None, "the bundle's llamafactory.yaml gives no per_device_train_batch_size/gradient_accumulation_steps"
    return Settings(mb, ga, not dis, int(zero)), target


def _deepspeed_json(target, stage: int, d: Path, n: int) -> str:
    """A deepspeed.json for ZeRO `stage` (the plan's, at that stage), written into the run directory."""
    from dataclasses import replace

    from rocm_tune.core.export import deepspeed
    from rocm_tune.core.export.common import ExportOptions, resolve

    plan = target.plan
    plan = replace(plan, recommended=replace(plan.recommended, zero_stage=stage, offload="none"))
    opts = ExportOptions(runner="llamafactory", output_dir=target.output_dir)
    path = d / f"retry-{n}-deepspeed.json"
    rd.write_json_atomic(path, deepspeed.config(resolve(plan, opts), opts))
    return str(path)


def next_attempt(d: Path, meta: dict, scan: Scan, retries_done: int, limit: int) -> tuple[list[str] | None, dict]:
    """(the command of the next attempt, the restart record) or (None, the record saying why not)."""
    from rocm_tune.core.runs.resume.resume import _strip_overrides, newest_complete

    why = {"reason": "oom-retry", "oom": scan.oom}
    if retries_done >= limit:
        return None, {**why, "refused": f"--retry-oom {limit}: {retries_done} retr{'y' if retries_done == 1 else 'ies'}"
                                        " already made"}
    if not scan.training_started:
        return None, {**why, "refused": "GPU out of memory while the model loads (before the first step): a smaller "
                                        "batch cannot help; this needs a different plan (fewer bytes per parameter: "
                                        "a higher ZeRO stage, offload, LoRA/QLoRA, or more GPUs; `rocm-tune plan`)"}
    got = current_settings(meta, d)
    if got[0] is None:
        return None, {**why, "refused": f"not retried: {got[1]}"}
    cur, target = got
    nxt = step_down(cur)
    if nxt is None:
        return None, {**why, "refused": f"nothing left to step down from ({cur.line()})"}
    new, change = nxt
    base = _strip_overrides([str(c) for c in meta.get("first_command") or meta.get("command") or []])
    base = [c for c in base if c.partition("=")[0] not in ("disable_gradient_checkpointing", "deepspeed")
            or "=" not in c]
    cmd = list(base)
    planned_zero = target.plan.recommended.zero_stage
    ck, skipped = newest_complete(target.output_dir)
    rec = {**why, "n_retry": retries_done + 1, "change": change, "before": cur.line(), "after": new.line(),
           "checkpoint": None, "step": None, "skipped": [{"path": c.path, "problem": c.problem} for c in skipped]}
    if ck is not None and new.zero_stage != cur.zero_stage:
        rec["note"] = (f"starts from step 0: {ck.path} was saved " + (f"by ZeRO-{cur.zero_stage}" if cur.zero_stage
                       else "without ZeRO") + f", which DeepSpeed ZeRO-{new.zero_stage} cannot load")
        ck = None
    if ck is not None:
        cmd += [f"resume_from_checkpoint={ck.path}", "overwrite_output_dir=false"]
        rec.update(checkpoint=ck.path, step=ck.global_step)
    cmd += [f"per_device_train_batch_size={new.micro_batch}", f"gradient_accumulation_steps={new.grad_accum}"]
    if new.gradient_checkpointing:
        cmd.append("disable_gradient_checkpointing=false")
    if new.zero_stage != planned_zero:
        cmd.append(f"deepspeed={_deepspeed_json(target, new.zero_stage, d, retries_done + 1)}")
        rec["zero_stage"] = new.zero_stage
    return cmd, rec


def retry_limit(meta: dict) -> int:
    n = meta.get("retry_oom")
    return n if isinstance(n, int) and not isinstance(n, bool) and n > 0 else 0


def dumps(rec: dict) -> str:
    return json.dumps(rec, default=str)
