"""Checkpoint hygiene (issue 21 item 5): how big one checkpoint is, how many are kept, and whether they fit on the
disk where the run writes (`disk-will-fill`).

One checkpoint = the saved weights (an adapter for LoRA/QLoRA: the trainable parameters in their dtype, fp32 under
mixed precision; else the whole model in the checkpoint dtype) + the optimizer state (AdamW: 2 fp32 states per
trainable parameter; 8-bit optimizers 2 bytes; SGD 4; none with save_only_model) + under DeepSpeed ZeRO the
optimizer shards also hold the fp32 master weights (4 bytes per trainable parameter, all ranks together) and
ZeRO-1/2 write the module's weights once more in mp_rank_00_model_states.pt.

Kept on disk: `save_total_limit` + 1 (the Trainer deletes the oldest only after the new one is written), or every
save (total steps / save_steps) when there is no limit. Free space: `shutil.disk_usage` of the nearest existing
parent of the output directory.

Pure apart from `free_bytes`/`dir_bytes` (stat calls); no torch.
"""

from __future__ import annotations

import math
import os
import re
import shutil
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

GIB = 2**30
DEFAULT_SAVE_STEPS = 500   # transformers' TrainingArguments.save_steps, and the exported bundles'
_CKPT = re.compile(r"^checkpoint-(\d+)$")


def _gib(n: float | None) -> str:
    return "?" if n is None else f"{n / GIB:.2f} GiB"


@dataclass(frozen=True)
class CheckpointSize:
    bytes: int
    weights_bytes: int
    optimizer_bytes: int
    zero_bytes: int
    how: str                      # one line: what is counted

    def to_dict(self) -> dict:
        return asdict(self)


def checkpoint_size(params_total: int, params_trainable: int, *, method: str = "lora", precision: str = "bf16",
                    zero_stage: int = 0, optim: str | None = "adamw", save_only_model: bool = False) -> CheckpointSize:
    """The bytes of one checkpoint of this configuration (see the module docstring)."""
    total = max(0, int(params_total or 0))
    trainable = max(0, int(params_trainable or 0))
    half = 4 if precision == "fp32" else 2
    if method in ("lora", "qlora"):
        weights = trainable * (2 if precision in ("pure_bf16", "fp16_pure") else 4)
        what = f"adapter {trainable / 1e6:.1f}M params"
    else:
        weights = total * half
        what = f"weights {total / 1e9:.2f}B params x {half} B"
    o = (optim or "adamw").lower()
    per = 0 if save_only_model else (2 if "8bit" in o else 4 if "sgd" in o else 0 if "adafactor" in o else 8)
    opt = trainable * per
    zero = 0
    if zero_stage and not save_only_model:
        zero = trainable * 4 + (trainable * half if zero_stage < 3 else 0)
    how = what + (f" + optimizer {per} B x {trainable / 1e6:.1f}M trainable" if per else " (weights only)")
    if zero:
        how += f" + ZeRO-{zero_stage} fp32 master shards" + (" and model states" if zero_stage < 3 else "")
    return CheckpointSize(weights + opt + zero, weights, opt, zero, how)


def _sub(plan: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    v = plan.get(key)
    return v if isinstance(v, Mapping) else {}


def size_from_plan(plan: Mapping[str, Any]) -> CheckpointSize | None:
    """One checkpoint of a plan (plan.json / `plan --json`); None when the plan does not say enough."""
    rec, model, mem, ex = (_sub(plan, k) for k in ("recommended", "model", "memory", "execution"))
    total = model.get("params_total")
    if not isinstance(total, int) or total <= 0:
        return None
    method = str(rec.get("method") or "lora")
    zero = int(rec.get("zero_stage") or 0)
    trainable = model.get("params_trainable")
    if not isinstance(trainable, int):
        tw = mem.get("trainable_weights_bytes")
        if method == "full":
            trainable = total
        elif isinstance(tw, (int, float)) and tw > 0:
            # per GPU in the plan's memory block (sharded over the data-parallel ranks under ZeRO-3)
            hw = _sub(plan, "hardware")
            world = int(hw.get("gpus") or 1) * int(hw.get("nodes") or 1) if zero == 3 else 1
            per = 2 if ex.get("trainable_weights") in ("bf16", "fp16") else 4
            trainable = min(total, int(tw) * world // per)
        elif method in ("lora", "qlora"):
            return None
        else:  # freeze without a memory block: the whole model bounds it
            trainable = total
    return checkpoint_size(total, trainable, method=method, precision=str(rec.get("precision") or "bf16"),
                           zero_stage=zero, optim=rec.get("optim"))


def saves(total_steps: int | None, save_steps: int | None = None) -> int | None:
    """How many checkpoints a run of `total_steps` writes (Trainer: every save_steps, and none after the last)."""
    if not total_steps or total_steps <= 0:
        return None
    every = save_steps or DEFAULT_SAVE_STEPS
    return max(1, math.ceil(total_steps / every))


def kept(save_total_limit: int | None, n_saves: int | None) -> int:
    """Checkpoints on disk at the worst moment: limit + 1 while the newest is written, capped by the saves."""
    if save_total_limit and save_total_limit > 0:
        k = save_total_limit + 1
        return min(k, n_saves) if n_saves else k
    return n_saves or 1


def existing_parent(path: str | os.PathLike) -> str:
    p = os.path.abspath(os.fspath(path) or ".")
    while not os.path.exists(p):
        parent = os.path.dirname(p)
        if parent == p:
            break
        p = parent
    return p


def free_bytes(path: str | os.PathLike) -> int | None:
    """Free bytes (for an unprivileged user) on the filesystem of `path` or of its nearest existing parent."""
    try:
        return int(shutil.disk_usage(existing_parent(path)).free)
    except OSError:
        return None


@dataclass(frozen=True)
class DiskCheck:
    path: str
    checkpoint_bytes: int
    how: str
    count: int
    save_total_limit: int | None
    needed_bytes: int
    free_bytes: int | None
    fits: bool | None

    def to_dict(self) -> dict:
        return asdict(self)

    n_saves: int | None = None    # saves of the whole run, when its steps are known
    next_save: bool = False       # a running run's next save (one checkpoint)

    @property
    def message(self) -> str:
        if self.next_save:
            return (f"the next checkpoint needs {_gib(self.checkpoint_bytes)} ({self.how}); only "
                    f"{_gib(self.free_bytes)} free at {self.path}")
        if self.save_total_limit:
            lim = f"save_total_limit {self.save_total_limit} + 1 being written"
        elif self.n_saves:
            lim = f"no save_total_limit: all {self.n_saves} saves are kept"
        else:
            lim = "the first save; no save_total_limit: every later save adds one"
        return (f"checkpoints need {self.count} x {_gib(self.checkpoint_bytes)} ({lim}) = {_gib(self.needed_bytes)}; "
                f"{_gib(self.free_bytes)} free at {self.path}; one checkpoint: {self.how}")

    @property
    def fix(self) -> str:
        return ("set save_total_limit (e.g. 2), save_steps higher, save_only_model: true (no optimizer state), "
                "another output_dir, or free space")


def disk_check(size: CheckpointSize, output_dir: str | os.PathLike, *, total_steps: int | None = None,
               save_steps: int | None = None, save_total_limit: int | None = None,
               free: int | None = None) -> DiskCheck:
    """`free`: the free bytes at output_dir when the caller measured them (a plan's request); else measured here."""
    n = saves(total_steps, save_steps)
    count = kept(save_total_limit, n)
    needed = size.bytes * count
    path = existing_parent(output_dir) if free is None else os.fspath(output_dir)
    free = free_bytes(path) if free is None else free
    return DiskCheck(path, size.bytes, size.how, count, save_total_limit, needed, free,
                     None if free is None else needed <= free, n)


def with_local_disk(req, where: str | os.PathLike | None = None):
    """The plan request for a run started from here: the free space where it writes (the current directory:
    LLaMA-Factory's output_dir is relative), for the plan's disk-will-fill. Plans made without it (for another
    machine, golden files) say nothing about disk."""
    import dataclasses

    path = os.fspath(where if where is not None else os.getcwd())
    free = free_bytes(existing_parent(path))
    return req if free is None else dataclasses.replace(req, disk_free=(path, free))


# ------------------------------------------------------------------------------------------- while running


def dir_bytes(path: str | os.PathLike, limit_files: int = 100000) -> int:
    total = 0
    n = 0
    for root, _dirs, files in os.walk(os.fspath(path)):
        for f in files:
            n += 1
            if n > limit_files:
                return total
            try:
                total += os.lstat(os.path.join(root, f)).st_size
            except OSError:
                pass
    return total


def newest_checkpoint(output_dir: str | os.PathLike) -> str | None:
    best: tuple[int, str] | None = None
    try:
        names = os.listdir(output_dir)
    except OSError:
        return None
    for name in names:
        m = _CKPT.match(name)
        p = os.path.join(output_dir, name)
        if m and os.path.isdir(p) and (best is None or int(m.group(1)) > best[0]):
            best = (int(m.group(1)), p)
    return best[1] if best else None


def next_save_check(output_dir: str | os.PathLike, plan: Mapping[str, Any] | None = None) -> DiskCheck | None:
    """Before the next save: does one more checkpoint fit? The newest checkpoint's measured size, else the plan's.
    None when neither is known."""
    ck = newest_checkpoint(output_dir)
    size = None
    if ck is not None:
        b = dir_bytes(ck)
        if b > 0:
            size = CheckpointSize(b, b, 0, 0, f"measured: {os.path.basename(ck)}")
    if size is None and plan:
        size = size_from_plan(plan)
    if size is None:
        return None
    path = existing_parent(output_dir)
    free = free_bytes(path)
    return DiskCheck(path, size.bytes, size.how, 1, None, size.bytes, free,
                     None if free is None else size.bytes <= free, None, True)


# ------------------------------------------------------------------------------------------- `check`


def check_findings(job, model, cfg) -> list:
    """`check`'s disk-will-fill finding for a config the user has (core.formats.Job, core.model.architecture spec, TrainConfig):
    its output_dir (relative: from the current directory, where such a config is run), save_total_limit,
    save_steps, max_steps and save_only_model. [] when it fits or the model is unknown."""
    from rocm_tune.core.runners.common import Finding
    from rocm_tune.core.memory.estimate import estimate

    if model is None or cfg is None:
        return []
    if str(job.get("save_strategy", "")).strip().lower() == "no":
        return []   # TrainingArguments save_strategy "no" (or a program that saves nothing): no checkpoint
    if getattr(job, "runner", None) == "megatron" and not str(getattr(job, "entry", "")).startswith("megatron ") \
            and job.get("output_dir") is None:
        return []   # Megatron-LM saves only with --save DIR (ms-swift's `megatron sft` has its own default)

    def num(key: str) -> int | None:
        v = job.get(key)
        try:
            n = int(str(v))
        except (TypeError, ValueError):
            return None
        return n if n > 0 else None

    try:
        est = estimate(model, cfg)
    except Exception:  # noqa: BLE001 - a config the estimator cannot take has its own finding
        return []
    only_model = str(job.get("save_only_model", "")).strip().lower() in ("true", "1", "yes")
    size = checkpoint_size(est.params_total, est.params_trainable, method=cfg.method, precision=cfg.precision,
                           zero_stage=cfg.zero_stage, optim=cfg.optim, save_only_model=only_model)
    out_dir = str(job.get("output_dir") or "output")
    chk = disk_check(size, os.path.expanduser(out_dir), total_steps=num("max_steps"), save_steps=num("save_steps"),
                     save_total_limit=num("save_total_limit"))
    if chk.fits is not False:
        return []
    where = job.settings.get("save_total_limit") or job.settings.get("output_dir")
    return [Finding.of("disk-will-fill", getattr(where, "file", job.entry_file),
                       getattr(where, "line", None), f"output_dir {out_dir}: {chk.message}", chk.fix)]


# ------------------------------------------------------------------------------------------- save time (Slurm lead)

SAVES_FILE = "rocm-tune-saves.jsonl"   # rocm_tune.train.callbacks.SAVES_FILE (train imports no core, and back)
PLANNED_WRITE_BPS = 200 * 10**6        # a conservative shared-filesystem write speed for a planned checkpoint
MIN_LEAD_S = 120
MAX_LEAD_S = 65535                      # sbatch --signal's largest lead


def read_saves(directory: str | os.PathLike) -> list[dict]:
    """The timed saves in DIRECTORY/rocm-tune-saves.jsonl (written by the save-on-signal callback, rank 0)."""
    import json

    out = []
    try:
        with open(os.path.join(directory, SAVES_FILE), encoding="utf-8") as fh:
            for line in fh:
                try:
                    rec = json.loads(line)
                except (ValueError, RecursionError):
                    continue
                sec = rec.get("seconds") if isinstance(rec, dict) else None
                if isinstance(sec, (int, float)) and not isinstance(sec, bool) and 0 <= sec < 10**6:
                    out.append(rec)
    except OSError:
        return []
    return out


def plan_key(plan: Mapping[str, Any]) -> tuple | None:
    """What makes two plans save the same checkpoint at the same speed: model, method, adapter rank, ZeRO stage,
    GPUs and nodes."""
    if not isinstance(plan, Mapping):
        return None
    model, rec, hw = _sub(plan, "model"), _sub(plan, "recommended"), _sub(plan, "hardware")
    if not model.get("ref"):
        return None
    return (model.get("ref"), rec.get("method"), rec.get("lora_rank") if rec.get("method") in ("lora", "qlora")
            else None, rec.get("zero_stage") or 0, hw.get("gpus") or 1, hw.get("nodes") or 1)


def measured_save(plan: Mapping[str, Any], dirs: tuple = ()) -> dict | None:
    """The slowest timed save of the newest run of this plan: the given directories first (a bundle's output
    directory, where a Slurm job's saves are timed), then the runs of the registry whose plan.json has the same
    plan_key. {"seconds", "step_s", "bytes", "where"} or None."""
    from rocm_tune.core.files import try_read_json

    def best(saves: list[dict], where: str) -> dict:
        top = max(saves, key=lambda r: r["seconds"])
        steps = [r["step_s"] for r in saves if isinstance(r.get("step_s"), (int, float)) and r["step_s"] > 0]
        return {"seconds": float(top["seconds"]), "step_s": max(steps) if steps else None,
                "bytes": top.get("bytes"), "where": where}

    for d in dirs:
        if d:
            got = read_saves(d)
            if got:
                return best(got, str(d))
    key = plan_key(plan)
    if key is None:
        return None
    try:
        from rocm_tune.core.runs.registry import list_runs

        runs = list_runs()
    except Exception:  # noqa: BLE001 - no registry: nothing measured
        return None
    for info in runs:  # newest first
        d = getattr(info, "dir", None)
        if not d:
            continue
        p = try_read_json(os.path.join(d, "plan.json"))
        if not isinstance(p, dict) or plan_key(p) != key:
            continue
        got = read_saves(d)
        if got:
            return best(got, f"run {info.id}")
    return None


def signal_lead(plan: Mapping[str, Any] | None, dirs: tuple = ()) -> tuple[int, str]:
    """(seconds, why) for sbatch's --signal=B:USR1@LEAD: 3 x a measured save of this plan + one step, else 3 x the
    planned checkpoint at PLANNED_WRITE_BPS + one planned step; at least MIN_LEAD_S."""
    if not plan:
        return 300, "no plan: a fixed 300 s"
    thr = _sub(plan, "throughput")
    sps = thr.get("seconds_per_step")
    planned_step = float(sps) if isinstance(sps, (int, float)) else 0.0
    m = measured_save(plan, dirs)
    if m is not None:
        step = m["step_s"] if m["step_s"] is not None else planned_step
        raw = 3 * m["seconds"] + step
        why = (f"3 x the measured checkpoint save ({m['seconds']:.1f} s, {m['where']}) + one step ({step:.1f} s"
               f"{'' if m['step_s'] is not None else ', planned'})")
    else:
        size = size_from_plan(plan)
        if size is None:
            return 300, "the plan names no model size: a fixed 300 s"
        save = size.bytes / PLANNED_WRITE_BPS
        raw = 3 * save + planned_step
        why = (f"no measured save for this plan: 3 x a planned {_gib(size.bytes)} checkpoint at "
               f"{PLANNED_WRITE_BPS / 1e6:.0f} MB/s ({save:.1f} s) + one planned step ({planned_step:.1f} s)")
    lead = int(min(MAX_LEAD_S, max(MIN_LEAD_S, math.ceil(raw))))
    if lead == MIN_LEAD_S and raw < MIN_LEAD_S:
        why += f" = {raw:.0f} s, raised to the {MIN_LEAD_S} s minimum"
    return lead, why


# ------------------------------------------------------------------------------------ hang timeout (collectives)

SETUP_TIMEOUT_S = 7200   # ddp_timeout in the bundle: argument parsing, dataset preprocessing, model load
MIN_HANG_TIMEOUT_S = 1800  # HF TrainingArguments' own ddp_timeout default


def hang_timeout(plan: Mapping[str, Any] | None) -> tuple[int, str]:
    """(seconds, why): how long one collective may wait once training starts, before the job ends.

    Two phases (issue 25 item 6). Until the Trainer is built, the process group runs with SETUP_TIMEOUT_S
    (`ddp_timeout` in the bundle's YAML): LLaMA-Factory preprocesses the dataset on the local main process while
    the other ranks wait in a barrier (`main_process_first`), which a short timeout would kill. When the Trainer is
    built, the bundle's launcher lowers the process group's timeout to this figure (rocm_tune.train.callbacks
    `make_hang_timeout_callback`): a collective that waits longer is a hang (IOMMU/P2P, a dead rank) and ends
    the job. The longest legitimate wait after that is a checkpoint save (rank 0 writes while the others wait at
    the next collective): 3 x the planned save at PLANNED_WRITE_BPS + one planned step, at least
    MIN_HANG_TIMEOUT_S."""
    if not plan:
        return MIN_HANG_TIMEOUT_S, "no plan: HF's 1800 s"
    thr = _sub(plan, "throughput")
    sps = thr.get("seconds_per_step")
    step = float(sps) if isinstance(sps, (int, float)) and sps > 0 else 0.0
    size = size_from_plan(plan)
    if size is None:
        return MIN_HANG_TIMEOUT_S, f"the plan names no checkpoint size: {MIN_HANG_TIMEOUT_S} s"
    save = size.bytes / PLANNED_WRITE_BPS
    raw = 3 * save + step
    seconds = int(max(MIN_HANG_TIMEOUT_S, math.ceil(raw)))
    why = (f"3 x a planned {_gib(size.bytes)} checkpoint save at {PLANNED_WRITE_BPS / 1e6:.0f} MB/s "
           f"({save:.0f} s) + one step ({step:.0f} s)")
    if seconds == MIN_HANG_TIMEOUT_S and raw < MIN_HANG_TIMEOUT_S:
        why += f" = {raw:.0f} s, raised to the {MIN_HANG_TIMEOUT_S} s minimum"
    return seconds, why
