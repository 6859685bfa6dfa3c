"""Alerts: what is going wrong in a run, the evidence, and the fix.

`AlertEngine.feed(event)` looks at each parsed event (NaN/Inf, loss collapse, fp16 overflow streaks,
out of memory, known failure lines); `AlertEngine.check(history, now, process, gpus)` does the
time-dependent checks (stall, process exit) with an injectable clock (`now`). Each code fires once
per engine (a stall fires once per stall episode). Codes are stable (README "## Codes", `CODES`, core/codes.py).
Where the planner already explains a risk, `Alert.related` names its warning code in
`rocm_tune.core.plan.warnings.WARNINGS` (e.g. `fp16-overflow-risk`, `iommu-p2p-hang-risk`, `does-not-fit`).
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rocm_tune.core.files import try_read_json, try_read_yaml
from rocm_tune.core.runs.watch.history import _finite, _json_num
from rocm_tune.core import codebook as _codebook
from rocm_tune.core.runs import catalogue as _catalogue
from rocm_tune.core.runs.watch.parsers import GIB, Event

# code -> (severity, one-line meaning): a view of the alert entries of the one registry of codes (core/codes.py for
# the run-time checks, core/runs/catalogue.py for the failure signatures, joined in core/codebook.py). The fix text
# is built per alert (it uses the run's numbers).
CODES: dict[str, tuple[str, str]] = {c.code: (c.severity, c.title) for c in _codebook.of("alert")}


@dataclass(frozen=True)
class Alert:
    code: str                     # stable kebab-case code (CODES)
    severity: str                 # error | warning | info
    title: str                    # what happened, one line, with the numbers
    evidence: str                 # the log line or the numbers that show it
    fix: str                      # what to do
    step: int | None = None
    time: float | None = None
    related: tuple[str, ...] = ()  # planner warning codes (rocm_tune.core.plan.warnings.WARNINGS)
    data: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict:
        d = {"code": self.code, "severity": self.severity, "title": self.title, "evidence": self.evidence,
             "fix": self.fix, "step": self.step, "time": self.time, "related": list(self.related),
             "data": {k: _jsonable(v) for k, v in self.data.items()}}
        return d


def _jsonable(v):
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    return _json_num(v)


def _bad(x: float | None) -> bool:
    """NaN or +-Inf (None is not bad: it is unknown)."""
    return x is not None and not _finite(x)


def _gib(n: float | None) -> str:
    if n is None:
        return "?"
    if abs(n) < GIB:
        return f"{n / 2**20:.2f} MiB"
    return f"{n / GIB:.2f} GiB"


@dataclass(frozen=True)
class RunContext:
    """What alerts may know about the run's configuration (for concrete fixes)."""

    plan: Mapping[str, Any] | None = None           # plan.json
    train_config: Mapping[str, Any] | None = None   # LLaMA-Factory / rocm-tune YAML
    config_path: str | None = None
    gpus: int | None = None

    def knob(self, *names: str):
        """First of `names` found in the plan's `recommended` block or the training YAML."""
        rec = (self.plan or {}).get("recommended") if isinstance(self.plan, Mapping) else None
        for src in (self.train_config, rec):
            if isinstance(src, Mapping):
                for n in names:
                    if n in src and src[n] is not None:
                        return src[n]
        return None


def load_context(run_dir: str | None = None, config_path: str | None = None) -> RunContext:
    """RunContext from RUN_DIR/plan.json and a training YAML (LLaMA-Factory names), when present."""
    plan = None
    cfg = None
    if run_dir:
        plan = try_read_json(os.path.join(run_dir, "plan.json"))
        if config_path is None:
            for name in ("train.yaml", "llamafactory.yaml", "config.yaml"):
                if os.path.exists(os.path.join(run_dir, name)):
                    config_path = os.path.join(run_dir, name)
                    break
    if config_path:
        cfg = try_read_yaml(config_path)
    gpus = None
    if isinstance(plan, dict):
        hw = plan.get("hardware")
        if isinstance(hw, dict) and isinstance(hw.get("gpus"), int):
            gpus = hw["gpus"] * (hw.get("nodes") or 1 if isinstance(hw.get("nodes"), int) else 1)
    return RunContext(plan=plan if isinstance(plan, dict) else None, train_config=cfg, config_path=config_path,
                      gpus=gpus)


# ------------------------------------------------------------------------------ fixes
FIX_NAN = ("lower the learning rate (e.g. /2-/10) and clip gradients (max_grad_norm 0.5-1.0); with fp16 switch to "
           "bf16 where the GPU has it natively, or fp32 on GPUs without bf16 (gfx906/MI50); resume from the last "
           "good checkpoint")
FIX_COLLAPSE = ("the model's activations overflow in fp16 (Qwen2.5 is known for it): train in bf16 where the GPU "
                "has it natively, otherwise fp32 (fp16: false and bf16: false); restart from the last checkpoint "
                "before the collapse")
FIX_OVERFLOW = ("fp16 keeps overflowing: use bf16 on GPUs with native bf16, or fp32 on GPUs without it (MI50/gfx906); "
                "if you must stay on fp16, lower the learning rate and set DeepSpeed fp16.initial_scale_power "
                "to 16 and loss_scale_window 1000 so a scale is found")
FIX_HANG = ("dump each rank's stack (`rocm-tune explain RUN --stacks`: py-spy, or the SIGUSR2 handler every run "
            "rocm-tune starts registers), then check peer-to-peer: `rocm-tune doctor` (IOMMU check; "
            "on Intel hosts `intel_iommu=off` or `iommu=pt` on the kernel command line fixes P2P hangs between AMD GPUs); "
            "to confirm, rerun with NCCL_P2P_DISABLE=1 (slow but runs) and NCCL_DEBUG=INFO")
FIX_IDLE = ("the GPUs are doing nothing: the process waits on something else — data loading or tokenisation on the "
            "CPU, a barrier or a rank that died, disk (checkpoint save), or a dead NFS mount; `rocm-tune explain RUN "
            "--stacks` shows where each rank waits; check the other ranks' logs")
FIX_STALL = ("no GPU data to tell a hang from a long step: `rocm-tune explain RUN --stacks` shows where each rank "
             "waits; "
             "`rocm-tune gpus` shows whether the GPUs work")
FIX_HIPBLASLT = ("harmless: PyTorch uses hipBLAS/rocBLAS instead (expected on gfx906/gfx90a/gfx1030 with stock wheels); "
                 "set TORCH_BLAS_PREFER_HIPBLASLT=0 to silence it")
FIX_MARK_READY = ("use non-reentrant gradient checkpointing (gradient_checkpointing_kwargs={'use_reentrant': False}) "
                  "and set ddp_find_unused_parameters: false (LLaMA-Factory YAML), or turn gradient checkpointing off")
FIX_TIMEOUT = ("a rank stopped answering: check the other ranks for an earlier error (OOM, NaN), then peer-to-peer "
               "(`rocm-tune doctor`, IOMMU); raise ddp_timeout only if steps are legitimately slower than it")


def oom_fix(ctx: RunContext | None, oom: Mapping[str, Any]) -> str:
    """Concrete re-plan advice after an OOM, from the run's plan.json / YAML when available."""
    ctx = ctx or RunContext()
    parts: list[str] = []
    if isinstance(ctx.plan, Mapping) and ctx.plan.get("version") != 1:
        # a rocm-tune plan: the estimator says by how much it missed and the smallest change that fits
        from rocm_tune.core.runs.diagnose.oom_advice import oom_plan_fix

        pf = oom_plan_fix(ctx.plan, oom)
        if pf is not None and pf.get("change"):
            parts.append("smallest change from the plan that fits: " + pf["fix"])
            resv, total = oom.get("reserved_unallocated_bytes"), oom.get("total_bytes")
            if resv and total and resv > 0.05 * total:
                parts.append(f"{_gib(resv)} is reserved but unallocated (fragmentation): set "
                             "PYTORCH_HIP_ALLOC_CONF=expandable_segments:True (ROCm) / "
                             "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True")
            return "; ".join(parts)
        if pf is not None:
            parts.append(pf["fix"])
    elif isinstance(ctx.train_config, Mapping):
        # a LLaMA-Factory YAML and no plan: the same estimate, the GPU's size from the OOM message
        from rocm_tune.core.runs.diagnose.oom_advice import oom_config_fix

        pf = oom_config_fix(ctx.train_config, oom, ctx.gpus or 1)
        if pf is not None and pf.get("change"):
            parts.append("smallest change from the training YAML that fits: " + pf["fix"])
    mb = ctx.knob("per_device_train_batch_size", "micro_batch")
    ga = ctx.knob("gradient_accumulation_steps", "grad_accum")
    cl = ctx.knob("cutoff_len")
    try:
        mb = int(mb) if mb is not None else None
        ga = int(ga) if ga is not None else None
        cl = int(cl) if cl is not None else None
    except (TypeError, ValueError, OverflowError):  # a YAML .inf / JSON Infinity
        mb = ga = cl = None
    if mb and mb > 1:
        new_mb = max(1, mb // 2)
        new_ga = (ga or 1) * mb // new_mb
        parts.append(f"per_device_train_batch_size {mb} -> {new_mb} with gradient_accumulation_steps {ga or 1} -> "
                     f"{new_ga} (same effective batch {mb * (ga or 1)} per GPU)")
    if cl and cl > 256:
        parts.append(f"cutoff_len {cl} -> {cl // 2} (run `rocm-tune dataset` to see how many samples that truncates)")
    elif not parts:
        parts.append("lower cutoff_len (activations grow with it) or per_device_train_batch_size, raising "
                     "gradient_accumulation_steps to keep the effective batch")
    gc = ctx.knob("gradient_checkpointing")
    dis = ctx.knob("disable_gradient_checkpointing")
    if gc is False or dis is True:
        parts.append("turn gradient checkpointing on")
    zero = ctx.knob("zero_stage")
    offload = ctx.knob("offload")
    if offload in (None, "none"):
        parts.append("offload the optimizer to CPU (DeepSpeed ZeRO-2/3 offload_optimizer)"
                     if zero not in (None, 0, "0") else "shard and offload with DeepSpeed ZeRO-3 + optimizer offload")
    resv = oom.get("reserved_unallocated_bytes")
    total = oom.get("total_bytes")
    if resv and total and resv > 0.05 * total:
        parts.append(f"{_gib(resv)} is reserved but unallocated (fragmentation): set "
                     "PYTORCH_HIP_ALLOC_CONF=expandable_segments:True (ROCm) / PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True")
    parts.append("re-plan with the new limits: `rocm-tune plan ... --cutoff-len N --micro-batch M`")
    return "; ".join(parts)


ZERO_LOSS_STEPS = 3  # logged steps of exactly 0.0 loss that make a loss collapse without any other sign


# ------------------------------------------------------------------------------ engine
class AlertEngine:
    """Fires alerts from events and from time. Each code fires once (stall: once per episode)."""

    def __init__(self, context: RunContext | None = None, *, overflow_streak: int = 5,
                 overflow_streak_cold: int = 20, stall_factor: float = 5.0, stall_min_s: float = 120.0,
                 busy_util: float = 50.0, low_power_frac: float = 0.5):
        self.context = context or RunContext()
        self.overflow_streak = overflow_streak
        self.overflow_streak_cold = overflow_streak_cold
        self.stall_factor = stall_factor
        self.stall_min_s = stall_min_s
        self.busy_util = busy_util
        self.low_power_frac = low_power_frac
        self.fired: dict[str, Alert] = {}
        self.active: list[Alert] = []          # alerts that still hold (stall clears on a new step)
        self._history: list[Alert] = []
        self._streak = 0
        self._streak_start: int | None = None
        self._last_overflow_step: int | None = None
        self._seen_good_step = False
        self._zero_streak = 0
        self._prev_loss: float | None = None
        self._stall_step: int | None = None    # step at which the current stall fired
        self.compute_dtype: str | None = None  # from a `compute dtype: torch.float16` log line (LLaMA-Factory)

    # precision: what the run computes in (the fix for a loss collapse depends on it) --------------
    def precision(self) -> str | None:
        """fp16 | bf16 | fp32 | None: from the log's `compute dtype:` line, else the config / plan."""
        if self.compute_dtype is not None:
            d = self.compute_dtype.lower()
            if "float16" in d and "bfloat16" not in d or d in ("fp16", "half"):
                return "fp16"
            if "bfloat16" in d or d == "bf16":
                return "bf16"
            return "fp32"  # "None" / torch.float32: no mixed precision
        ctx = self.context
        if ctx.knob("fp16") is True:
            return "fp16"
        if ctx.knob("bf16", "pure_bf16") is True:
            return "bf16"
        p = ctx.knob("precision")
        if isinstance(p, str):
            return {"pure_bf16": "bf16"}.get(p, p)
        if ctx.train_config is not None and ctx.knob("fp16", "bf16") is False:
            return "fp32"
        return None

    def _fp16_possible(self) -> bool:
        return self.precision() in (None, "fp16")

    def collapse_fix(self) -> str:
        prec = self.precision()
        if prec in ("fp32", "bf16"):
            return (f"the run computes in {prec}, so this is not an fp16 overflow: check that the labels are not all "
                    "masked (a wrong template, or cutoff_len shorter than the prompts leaves no response tokens), "
                    "that the dataset is not empty or duplicated into one trivial sample, and lower the learning "
                    "rate; restart from the last checkpoint before the collapse")
        return FIX_COLLAPSE

    @property
    def all(self) -> list[Alert]:
        """Every alert fired so far, in order."""
        return list(self._history)

    def _fire(self, alert: Alert) -> list[Alert]:
        if alert.code in self.fired:
            return []
        self.fired[alert.code] = alert
        self.active.append(alert)
        self._history.append(alert)
        return [alert]

    def check_disk(self, output_dir: str | None, now: float, alive: bool | None, step: int | None = None) -> list[Alert]:
        """disk-will-fill: before the next save, the free space where the run writes against one checkpoint (the
        newest one on disk, measured; else the plan's size). Once per engine."""
        if not output_dir or alive is not True or "disk-will-fill" in self.fired:
            return []
        from rocm_tune.core.memory.checkpoint_size import next_save_check

        chk = next_save_check(output_dir, self.context.plan)
        if chk is None or chk.fits is not False:
            return []
        return self._fire(self._mk("disk-will-fill", f"the next checkpoint ({_gib(chk.checkpoint_bytes)}) will not "
                                   f"fit: {_gib(chk.free_bytes)} free at {chk.path}", chk.message, chk.fix, None,
                                   now=now, step=step, checkpoint_bytes=chk.checkpoint_bytes,
                                   free_bytes=chk.free_bytes, path=chk.path))

    def _mk(self, code: str, title: str, evidence: str, fix: str, ev: Event | None = None,
            related: tuple[str, ...] = (), now: float | None = None, **data) -> Alert:
        sev = CODES[code][0]
        return Alert(code, sev, title, evidence[:2000], fix, ev.step if ev else data.pop("step", None),
                     (ev.time if ev and ev.time is not None else now), related, data)

    def feed_many(self, events: Iterable[Event]) -> list[Alert]:
        out: list[Alert] = []
        feed = self.feed
        for ev in events:
            if ev[0] != "progress":
                a = feed(ev)
                if a:
                    out.extend(a)
        return out

    def feed(self, ev: Event) -> list[Alert]:
        kind = ev.kind
        if kind == "step":
            return self._step(ev)
        if kind == "overflow":
            return self._overflow(ev)
        if kind == "oom":
            return self._oom(ev)
        if kind == "signal":
            return self._signal(ev)
        if kind == "error":
            ek = ev.get("error_kind")
            if ek == "nan_loss":
                return self._fire(self._mk("nan-loss", f"loss became NaN/Inf at step {ev.step}", ev.line or str(ev.get("message")),
                                           FIX_NAN, ev, ("fp16-overflow-risk",)))
            if ek == "nan_grad":
                return self._fire(self._mk("nan-grad-norm", f"grad_norm became NaN/Inf at step {ev.step}",
                                           ev.line or str(ev.get("message")), FIX_NAN, ev, ("fp16-overflow-risk",)))
            if ev.line:
                return self._signal(ev)
        return []

    def feed_aux_step(self, ev: Event) -> list[Alert]:
        """A step from a secondary source (same steps as the primary): only its NaN/Inf checks."""
        out: list[Alert] = []
        evidence = ev.line or f"step {ev.step}: loss={ev.loss} grad_norm={ev.grad_norm}"
        if _bad(ev.loss):
            out += self._fire(self._mk("nan-loss", f"loss is {ev.loss} at step {ev.step}", evidence, FIX_NAN, ev,
                                       ("fp16-overflow-risk",), loss=ev.loss))
        if _bad(ev.grad_norm):
            if ev.loss == 0.0:
                out += self._fire(self._mk(
                    "loss-collapse", f"loss collapsed to 0.0 at step {ev.step} (grad_norm {ev.grad_norm})", evidence,
                    self.collapse_fix(), ev, ("fp16-overflow-risk",) if self._fp16_possible() else (),
                    loss=ev.loss, grad_norm=ev.grad_norm, precision=self.precision()))
            elif "loss-collapse" not in self.fired:
                out += self._fire(self._mk("nan-grad-norm", f"grad_norm is {ev.grad_norm} at step {ev.step}", evidence,
                                           FIX_NAN, ev, ("fp16-overflow-risk",), grad_norm=ev.grad_norm))
        return out

    def _step(self, ev: Event) -> list[Alert]:
        loss, gn = ev.loss, ev.grad_norm
        # fast path: an ordinary step (finite positive loss, finite or no grad_norm, no stall pending)
        if loss.__class__ is float and 0.0 < loss < math.inf and (gn is None or 0.0 <= gn < math.inf) \
                and self._stall_step is None:
            self._prev_loss = loss
            self._zero_streak = 0
            self._seen_good_step = True
            return []
        out: list[Alert] = []
        evidence = ev.line or f"step {ev.step}: loss={loss} grad_norm={gn} lr={ev.learning_rate}"
        if loss is not None and loss == 0.0:
            # on the loss series alone: a loss of exactly 0.0 for 3 logged steps (2 after a positive
            # loss, 1 with a NaN grad_norm) is never real training (LLaMA-Factory's trainer_log.jsonl
            # has no grad_norm at all)
            self._zero_streak += 1
            after_good = self._prev_loss is not None and self._prev_loss > 0.0
            if _bad(gn) or (after_good and self._zero_streak >= 2) or self._zero_streak >= ZERO_LOSS_STEPS:
                gn_text = f" (grad_norm {gn})" if gn is not None else ""
                out += self._fire(self._mk(
                    "loss-collapse", f"loss collapsed to 0.0 at step {ev.step}{gn_text}", evidence,
                    self.collapse_fix(), ev, ("fp16-overflow-risk",) if self._fp16_possible() else (),
                    loss=loss, grad_norm=gn, precision=self.precision()))
        elif loss is not None and loss != 0.0:
            self._zero_streak = 0
        if _bad(loss):
            out += self._fire(self._mk("nan-loss", f"loss is {loss} at step {ev.step}", evidence, FIX_NAN, ev,
                                       ("fp16-overflow-risk",), loss=loss))
        if _bad(gn) and "loss-collapse" not in self.fired and not _bad(loss):
            out += self._fire(self._mk("nan-grad-norm", f"grad_norm is {gn} at step {ev.step}", evidence, FIX_NAN, ev,
                                       ("fp16-overflow-risk",), grad_norm=gn))
        if loss is not None and not _bad(loss):
            self._prev_loss = loss
            if loss > 0:
                self._seen_good_step = True
        if self._stall_step is not None and ev.step != self._stall_step:
            self._clear_stall()
        return out

    def _overflow(self, ev: Event) -> list[Alert]:
        # consecutive = on consecutive optimizer steps (same step for other ranks' lines). The first
        # skips of a run are the dynamic loss scaler calibrating from its initial scale: normal, so a
        # streak that starts at the beginning needs `overflow_streak_cold` skips.
        step = ev.step
        last = self._last_overflow_step
        if step is None or last is None or 0 <= step - last <= 1:
            if step is not None and last is not None and step == last and ev.rank not in (None, 0):
                return []  # the same skip reported by another rank
            self._streak += 1
        else:
            self._streak = 1
        if self._streak == 1:
            self._streak_start = step
        if step is not None:
            self._last_overflow_step = step
        scale = ev.get("loss_scale")
        cold = self._streak_start is None or self._streak_start <= 2
        limit = self.overflow_streak_cold if cold else self.overflow_streak
        at_min = scale is not None and scale <= 1
        if self._streak >= limit or at_min:
            return self._fire(self._mk(
                "fp16-overflow-streak",
                f"{self._streak} fp16 overflow skips in a row" + (f", loss scale now {scale:g}" if scale is not None else ""),
                ev.line or f"{self._streak} overflow events", FIX_OVERFLOW, ev, ("fp16-overflow-risk",),
                streak=self._streak, loss_scale=scale))
        return []

    def _oom(self, ev: Event) -> list[Alert]:
        d = dict(ev.data or {})
        tried, free, total = d.get("tried_bytes"), d.get("free_bytes"), d.get("total_bytes")
        title = "GPU out of memory"
        if d.get("backend"):
            title = f"{d['backend']} out of memory"
        bits = []
        if tried is not None:
            bits.append(f"tried to allocate {_gib(tried)}")
        if d.get("gpu") is not None:
            bits.append(f"on GPU {d['gpu']}")
        if total is not None:
            bits.append(f"{_gib(free)} free of {_gib(total)}")
        if bits:
            title += ": " + ", ".join(bits)
        if ev.step:
            title += f" (step {ev.step})"
        return self._fire(self._mk("oom", title, ev.line or str(d.get("message", "")), oom_fix(self.context, d), ev,
                                   ("does-not-fit",), **{k: v for k, v in d.items() if k != "message"}))

    def _signal(self, ev: Event) -> list[Alert]:
        sig = ev.get("signal")
        line = ev.line
        if sig == "hipblaslt-unsupported":
            return self._fire(self._mk("hipblaslt-unsupported", "hipBLASLt unsupported on this GPU (falls back to hipBLAS)",
                                       line, FIX_HIPBLASLT, ev))
        if sig == "version-check":
            req, found = ev.get("requirement") or "?", ev.get("found") or "?"
            pkg = req.split(">")[0].split("<")[0].split("=")[0].split("!")[0]
            fix = (f"install a version in range: pip install '{req}' — or, if you know the newer {pkg} works "
                   f"(e.g. DeepSpeed on ROCm), run with DISABLE_VERSION_CHECK=1 (rocm-tune exports it in run.sh env)")
            return self._fire(self._mk("version-check-failed", f"{pkg}: found {found}, LLaMA-Factory requires {req}", line,
                                       fix, ev, requirement=req, found=found, package=pkg))
        if sig == "mark-ready-twice":
            return self._fire(self._mk("ddp-mark-ready-twice", "DDP marked a parameter ready twice (reentrant "
                                       "gradient checkpointing with LoRA/unused parameters)", line, FIX_MARK_READY, ev))
        if sig == "loss-scale-minimum":
            return self._fire(self._mk("fp16-loss-scale-minimum", "fp16 loss scale reached its minimum (training stops)",
                                       line, FIX_OVERFLOW, ev, ("fp16-overflow-risk",), streak=self._streak))
        if sig == "collective-timeout":
            return self._fire(self._mk("collective-timeout", "a collective operation timed out (RCCL/NCCL watchdog)",
                                       line, FIX_TIMEOUT, ev, ("iommu-p2p-hang-risk",)))
        if sig == "catalogue":
            entry = _catalogue.by_code(str(ev.get("code")))
            if entry is None:
                return []
            related = ("iommu-p2p-hang-risk",) if entry.family == "nccl_rccl_timeout_hang" else ()
            return self._fire(self._mk(entry.code, entry.title, line, f"{entry.fix} (confirm: {entry.confirm})", ev,
                                       related, family=entry.family, cause=entry.cause))
        if sig == "nan-detected":
            return self._fire(self._mk("nan-loss", "the log reports a NaN/Inf loss or gradient", line, FIX_NAN, ev,
                                       ("fp16-overflow-risk",)))
        return []

    # ---------------------------------------------------------------- time-dependent
    def _clear_stall(self) -> None:
        for code in ("stall", "stall-gpus-idle", "stall-collective-hang"):
            if code in self.fired:
                del self.fired[code]
        self.active = [a for a in self.active if not a.code.startswith("stall")]
        self._stall_step = None

    def check(self, history, now: float, process: Any = None, gpus: Sequence[Any] = ()) -> list[Alert]:
        """Stall and exit checks. `process` has .alive/.status/.exit_code/.signal (watch.ProcessState)."""
        out: list[Alert] = []
        alive = getattr(process, "alive", None)
        status = getattr(process, "status", None)
        # step advanced since the stall fired? (sources without step events move only the step)
        if self._stall_step is not None and history.step != self._stall_step:
            self._clear_stall()
        known_error = any(a.severity == "error" for a in self.fired.values())
        if alive is False and getattr(process, "pid", None) is None and known_error and status == "failed":
            return out  # a log that ends in an error an alert already names (oom, nan ...): no second alert
        deliberate = status == "stopped" and bool(getattr(process, "stopped_by_user", False))
        if alive is False and status not in (None, "finished", "running", "unknown") and not deliberate:
            code = getattr(process, "exit_code", None)
            sig = getattr(process, "signal", None)
            how = f"exit code {code}" if code is not None else (f"signal {sig}" if sig else "exit status unknown")
            reason = getattr(process, "reason", None)
            pid = getattr(process, "pid", None)
            ev_line = (f"process {pid if pid else '?'} {status}: {how}; last step {history.step}"
                       + (f"; {reason}" if reason else ""))
            fix = "read the end of the log for the error (`rocm-tune attach TARGET --plain` or stdout.log)"
            if reason and reason.startswith("disk full"):
                fix = "free space where the run directory and the output directory are, then resume from the last checkpoint"
            elif reason and "SIGKILL" not in reason and "out-of-memory" not in reason:
                fix = f"the run failed with: {reason[:300]}; " + fix
            if code in (137, -9) or sig == 9:
                fix = ("killed by SIGKILL — often the kernel OOM killer (host RAM: CPU offload, dataloader workers); "
                       "check `dmesg | tail`; " + fix)
            elif self.fired:
                fix = "see the alerts above: " + ", ".join(self.fired) + "; " + fix
            title = f"training process {status} ({how})"
            if reason and (code is None and not sig):
                title = f"training process {status}: {reason[:160]}"
            elif reason and (sig == 9 or code in (137, -9)):
                title = f"training process {status} ({how}): {reason[:120]}"
            out += self._fire(self._mk("process-exited", title, ev_line, fix, None,
                                       now=now, step=history.step, exit_code=code, signal=sig, status=status,
                                       reason=reason))
            return out
        if alive is not True or history.ended:
            return out
        last = history.last_step_time
        st = history.median_step_time_s()
        if last is None or st is None or "stall" in self.fired or "stall-gpus-idle" in self.fired \
                or "stall-collective-hang" in self.fired:
            return out
        limit = max(self.stall_factor * st, self.stall_min_s)
        waited = now - last
        if waited < limit:
            return out
        evidence = (f"no new step for {waited:.0f} s (median step {st:.1f} s, limit {limit:.0f} s); "
                    f"last step {history.step}")
        samples = [g for g in gpus or () if getattr(g, "util_percent", None) is not None]
        state = classify_gpus(samples, self.busy_util, self.low_power_frac)
        if state is not None:
            evidence += "; GPUs: " + state[1]
        if state is not None and state[0] == "busy-low-power":
            a = self._mk("stall-collective-hang", f"stalled {waited / 60:.1f} min at step {history.step}: GPUs busy "
                         "at low power, probably a collective hang (RCCL/NCCL; see the IOMMU check)", evidence,
                         FIX_HANG, None, ("iommu-p2p-hang-risk",), now=now, step=history.step, waited_s=waited,
                         median_step_s=st)
        elif state is not None and state[0] == "idle":
            a = self._mk("stall-gpus-idle", f"stalled {waited / 60:.1f} min at step {history.step}: GPUs idle",
                         evidence, FIX_IDLE, None, ("iommu-p2p-hang-risk",), now=now, step=history.step,
                         waited_s=waited, median_step_s=st)
        else:
            a = self._mk("stall", f"no new step for {waited / 60:.1f} min at step {history.step}", evidence,
                         FIX_STALL if state is None else "the GPUs are computing: probably a long evaluation or "
                         "checkpoint save; if it lasts, " + FIX_STALL, None, now=now, step=history.step,
                         waited_s=waited, median_step_s=st)
        self._stall_step = history.step
        out += self._fire(a)
        return out


def _val(x):
    if x is None:
        return None
    try:
        if not x and not isinstance(x, (int, float)):
            return None  # NA sentinel is falsy
        return float(x)
    except (TypeError, ValueError):
        return None


def classify_gpus(samples: Sequence[Any], busy_util: float = 50.0, low_power_frac: float = 0.5):
    """('busy-low-power' | 'idle' | 'busy', description) from GpuSamples, None without data.

    A collective hang spins GPU kernels waiting for peers: utilisation reads high (the kernel is
    resident) while the power draw stays low; real compute is high utilisation at high power.
    """
    utils, fracs = [], []
    for g in samples:
        u = _val(getattr(g, "util_percent", None))
        if u is None:
            continue
        utils.append(u)
        p, lim = _val(getattr(g, "power_w", None)), _val(getattr(g, "power_limit_w", None))
        if p is not None and lim:
            fracs.append(p / lim)
    if not utils:
        return None
    avg_u = sum(utils) / len(utils)
    desc = f"util {avg_u:.0f}%"
    if fracs:
        avg_p = sum(fracs) / len(fracs)
        desc += f", power {avg_p * 100:.0f}% of limit"
    else:
        avg_p = None
    if avg_u >= busy_util:
        if avg_p is not None and avg_p < low_power_frac:
            return "busy-low-power", desc
        return "busy", desc
    if avg_u < 10:
        return "idle", desc
    return "busy" if avg_p is not None and avg_p >= low_power_frac else "idle", desc


def check_events(events: Iterable[Event], context: RunContext | None = None) -> list[Alert]:
    """All alerts a sequence of events raises (convenience for tests and one-shot snapshots)."""
    eng = AlertEngine(context)
    return eng.feed_many(events)
