"""Measured memory in every run rocm-tune starts: `RankMemoryCallback`, a transformers `TrainerCallback`.

Each rank appends its memory (allocated, reserved, peak allocated/reserved from torch's caching
allocator), host RSS, tokens/s and the telemetry of its own GPU to `RUN_DIR/ranks/<node>-<rank>.jsonl`
(format and reader: `rocm_tune.core.runs.watch.measured`). RUN_DIR is `$ROCM_TUNE_RUN_DIR` (set by the run
supervisor; export it on the compute nodes of a multi-node job), else the trainer's output_dir.
The node is `$NODE_RANK` / `$GROUP_RANK` (torchrun) / `$SLURM_NODEID`, else 0.

Each sample also carries `param_dtypes`: the elements of the rank's frozen and trainable parameters per
dtype, counted when training begins (after the runner loaded, cast and wrapped the model), i.e. what really
executes, e.g. `{"frozen": {"float32": 494032768}, "trainable": {"float32": 4399104}}`.

Used by the built-in trainer (`rocm_tune.train.trainer`) and by LLaMA-Factory runs started through
`lf_launch` (`rocm_tune/train/lf_launch.py`). Standard library at import (torch and transformers lazily,
rocm-tune's GPU telemetry only if rocm-tune is installed), because every exported bundle carries a copy of
this file as `rocm_tune_callbacks.py` for training machines without rocm-tune. Nothing here can stop a
training: every failure to sample or write is swallowed (a monitor must never kill the run it watches).
"""

from __future__ import annotations

import json
import math
import os
import re
import socket
import time
from pathlib import Path
from typing import Any, Callable

TELEMETRY_EVERY_S = 5.0
RANKS_DIR = "ranks"   # the reader: rocm_tune.core.runs.watch.measured


def append_rank_record(run_dir: str | os.PathLike, rec: dict) -> Path:
    """Append one sample line to RUN_DIR/ranks/<node>-<rank>.jsonl with a single O_APPEND write.

    One write() of a whole line to a file opened with O_APPEND: readers never see a half line from
    a finished write, and two writers never interleave inside a line."""
    d = Path(run_dir) / RANKS_DIR
    d.mkdir(parents=True, exist_ok=True)
    node = re.sub(r"[^A-Za-z0-9._-]+", "-", str(rec.get("node", 0))) or "0"
    path = d / f"{node}-{int(rec.get('rank', 0))}.jsonl"
    line = (json.dumps({"type": "mem", **rec}, allow_nan=False, default=str) + "\n").encode()
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line)
    finally:
        os.close(fd)
    return path


def register_stack_dump() -> bool:
    """SIGUSR2 dumps every thread's Python stack to stderr (the run's log), without stopping the process (SIGUSR1
    is the save-now request of a time limit or preemption):
    `rocm-tune explain RUN` asks a hung rank where it waits (it signals only processes whose /proc status shows
    the handler). False where the platform has no SIGUSR2."""
    try:
        import faulthandler
        import signal

        faulthandler.register(signal.SIGUSR2, all_threads=True, chain=False)
        return True
    except (AttributeError, ValueError, RuntimeError, OSError):
        return False


def leave(code: int) -> None:
    """End a training process with `code`. A rank of a multi-process job (WORLD_SIZE > 1) runs the exit handlers,
    flushes its output and leaves without the interpreter's teardown: there, on gloo, a rank that has finished
    its training can still abort ("terminate called without an active exception", a communication thread
    destroyed while joinable), turning a finished run into a failed one and leaving the other ranks' launcher
    waiting at its exit barrier (seen on CPU with torch 2.13 after `finished at step N`). One process: returns,
    and the caller exits as usual."""
    import sys

    try:
        world = int(os.environ.get("WORLD_SIZE", "1") or 1)
    except ValueError:
        world = 1
    if world <= 1:
        return
    import atexit

    try:
        atexit._run_exitfuncs()   # logging's shutdown and every handler a library registered, as a normal exit does
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # noqa: BLE001, S110 - a closed stream: nothing left to flush
                pass
        os._exit(int(code))


def param_dtypes(model) -> dict | None:
    """{"frozen": {dtype: elements}, "trainable": {dtype: elements}} of a model's parameters (DeepSpeed ZeRO-3
    partitions count their full size, `ds_numel`); None when it cannot be read."""
    try:
        out: dict = {"frozen": {}, "trainable": {}}
        for p in model.parameters():
            n = int(getattr(p, "ds_numel", 0) or p.numel())
            side = out["trainable" if p.requires_grad else "frozen"]
            name = str(p.dtype).replace("torch.", "")
            side[name] = side.get(name, 0) + n
        return out
    except Exception:  # noqa: BLE001 - a sample is a bonus
        return None


def run_dir_for(output_dir: str | None = None) -> str | None:
    d = os.environ.get("ROCM_TUNE_RUN_DIR")
    if d and os.path.isdir(d):
        return d
    return output_dir


def rank_identity() -> dict:
    """node, host, rank, local_rank, world_size of this process from the launcher's environment."""
    env = os.environ

    def geti(*names: str, default: int = 0) -> int:
        for n in names:
            v = env.get(n)
            if v not in (None, ""):
                try:
                    return int(v)
                except ValueError:
                    continue
        return default

    node = env.get("ROCM_TUNE_NODE") or str(geti("NODE_RANK", "GROUP_RANK", "SLURM_NODEID", default=0))
    return {
        "node": node,
        "host": socket.gethostname(),
        "rank": geti("RANK", "SLURM_PROCID", default=0),
        "local_rank": geti("LOCAL_RANK", "SLURM_LOCALID", default=0),
        "world_size": geti("WORLD_SIZE", "SLURM_NTASKS", default=1),
    }


def physical_gpu_index(local_index: int) -> int:
    """The index telemetry tools (rocm-smi, nvidia-smi) use for torch's device `local_index`."""
    for var in ("ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES"):
        v = os.environ.get(var)
        if v:
            parts = [p.strip() for p in v.split(",") if p.strip()]
            if 0 <= local_index < len(parts) and parts[local_index].isdigit():
                return int(parts[local_index])
    return local_index


def rss_bytes() -> int | None:
    """Resident set size of this process (psutil), None where it cannot say."""
    import psutil

    try:
        return int(psutil.Process().memory_info().rss)
    except (psutil.Error, OSError):
        return None


def peak_rss_bytes() -> int | None:
    try:
        import resource

        return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) * 1024
    except Exception:  # noqa: BLE001
        return None


def _finite(v: Any) -> float | None:
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) else None


class _Telemetry:
    """The local GPU's sample from `rocm_tune.core.hardware.devices`, at most every TELEMETRY_EVERY_S seconds."""

    def __init__(self, every: float = TELEMETRY_EVERY_S):
        self.every = every
        self.backend = None
        self.tried = False
        self.last_t = 0.0
        self.last: dict | None = None

    def sample(self, gpu_index: int | None) -> dict | None:
        if gpu_index is None:
            return None
        now = time.time()
        if now - self.last_t < self.every:
            return self.last
        self.last_t = now
        try:
            if not self.tried:
                self.tried = True
                from rocm_tune.core.hardware.devices import detect

                self.backend = detect()
            if self.backend is None:
                return None
            for s in self.backend.sample():
                if getattr(s, "index", None) == gpu_index:
                    out = {}
                    for k in ("util_percent", "vram_used_bytes", "vram_total_bytes", "temp_c", "power_w"):
                        v = getattr(s, k, None)
                        out[k] = v if isinstance(v, (int, float)) and not isinstance(v, bool) else None
                    self.last = out
                    return out
        except Exception:  # noqa: BLE001 - telemetry is a bonus, never a failure
            self.backend = None
        return None


class RankSampler:
    """Writes samples of this rank into RUN_DIR/ranks/; used by the callback and by preflight."""

    def __init__(self, run_dir: str | os.PathLike | None, telemetry: bool = True):
        self.run_dir = str(run_dir) if run_dir else None
        self.ident = rank_identity()
        self.tel = _Telemetry() if telemetry else None
        self.device = "cpu"
        self.gpu_index: int | None = None
        self.param_dtypes: dict | None = None   # set when training begins; carried by every sample
        try:
            import torch

            if torch.cuda.is_available():
                self.device = "cuda"
                self.gpu_index = physical_gpu_index(torch.cuda.current_device())
        except Exception:  # noqa: BLE001
            pass

    def memory(self) -> dict:
        if self.device != "cuda":
            return {"allocated_bytes": None, "reserved_bytes": None, "peak_allocated_bytes": None,
                    "peak_reserved_bytes": None}
        import torch

        return {"allocated_bytes": int(torch.cuda.memory_allocated()),
                "reserved_bytes": int(torch.cuda.memory_reserved()),
                "peak_allocated_bytes": int(torch.cuda.max_memory_allocated()),
                "peak_reserved_bytes": int(torch.cuda.max_memory_reserved())}

    def write(self, *, step: int | None = None, tokens_per_s: float | None = None,
              step_time_s: float | None = None, memory: dict | None = None, source: str | None = None,
              extra: dict | None = None) -> Path | None:
        if not self.run_dir:
            return None
        try:
            mem = memory if memory is not None else self.memory()
            tps = _finite(tokens_per_s)
            rec = {
                "time": round(time.time(), 3), **self.ident, "gpu_index": self.gpu_index, "device": self.device,
                "source": source or ("torch.cuda" if self.device == "cuda" else "host"),
                "step": step, **mem, "rss_bytes": rss_bytes(),
                "tokens_per_s": None if tps is None else round(tps, 2),
                "step_time_s": None if step_time_s is None else _finite(step_time_s),
                "telemetry": self.tel.sample(self.gpu_index) if self.tel else None,
            }
            if self.param_dtypes is not None:
                rec["param_dtypes"] = self.param_dtypes
            if extra:
                rec.update(extra)
            return append_rank_record(self.run_dir, rec)
        except Exception:  # noqa: BLE001 - never stop a training over a sample
            return None


def make_rank_callback(output_dir: str | None = None, token_counter: Callable[[], int] | None = None):
    """A `RankMemoryCallback` instance (transformers imported here, lazily)."""
    from transformers import TrainerCallback

    class RankMemoryCallback(TrainerCallback):
        """Samples this rank at every logging step (and at train begin/end) into RUN_DIR/ranks/."""

        def __init__(self):
            self.sampler: RankSampler | None = None
            self.out_dir = output_dir
            self.tokens = token_counter
            self._t = None
            self._step = 0
            self._tok = 0

        def _counted(self, state) -> int | None:
            if self.tokens is not None:
                try:
                    return int(self.tokens())
                except Exception:  # noqa: BLE001
                    return None
            seen = getattr(state, "num_input_tokens_seen", 0) or 0
            if seen:  # transformers gathers it over all ranks: this rank's share
                return int(seen) // max(1, int(self.sampler.ident["world_size"] if self.sampler else 1))
            return None

        def on_train_begin(self, args, state, control, **kw):
            self.sampler = RankSampler(run_dir_for(self.out_dir or getattr(args, "output_dir", None)))
            model = kw.get("model")
            if model is not None:
                self.sampler.param_dtypes = param_dtypes(model)
            self._t = time.time()
            self._step = state.global_step
            self._tok = self._counted(state) or 0
            self.sampler.write(step=state.global_step)

        def on_log(self, args, state, control, logs=None, **kw):
            if self.sampler is None or not logs or "loss" not in logs:
                return
            # averages since training began: a dataloader that collates ahead makes per-interval token
            # counts jumpy, the running average is not
            now = time.time()
            dt = max(now - (self._t or now), 1e-9)
            dsteps = max(state.global_step - self._step, 1)
            tok = self._counted(state)
            rate = None if tok is None else (tok - self._tok) / dt
            self.sampler.write(step=state.global_step, tokens_per_s=rate, step_time_s=dt / dsteps)

        def on_train_end(self, args, state, control, **kw):
            if self.sampler is not None:
                self.sampler.write(step=state.global_step)

    return RankMemoryCallback()


# ---------------------------------------------------------------------------------------------------------------
# save on a time-limit warning or preemption (issue 21 item 2)

SAVE_NOW_FILE = ".rocm-tune-save-now"   # OUTPUT_DIR/SAVE_NOW_FILE: the exported slurm.sbatch's trap writes it
SAVE_SIGNALS = ("SIGUSR1",)
SAVES_FILE = "rocm-tune-saves.jsonl"    # RUN_DIR/SAVES_FILE: one line per checkpoint save (rank 0), timed


def _tree_bytes(path: str) -> int | None:
    total = 0
    try:
        for root, _dirs, files in os.walk(path):
            for f in files:
                try:
                    total += os.lstat(os.path.join(root, f)).st_size
                except OSError:
                    pass
    except OSError:
        return None
    return total or None


def append_save_record(run_dir: str | os.PathLike, rec: dict) -> None:
    """One line {"type": "save", "step", "seconds", "step_s", "bytes", "at"} (a single O_APPEND write)."""
    Path(run_dir).mkdir(parents=True, exist_ok=True)
    line = (json.dumps({"type": "save", **rec}, allow_nan=False, default=str) + "\n").encode()
    fd = os.open(os.path.join(run_dir, SAVES_FILE), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line)
    finally:
        os.close(fd)


def make_save_on_signal_callback(output_dir: str | None = None):
    """A `SaveOnSignalCallback`: on SIGUSR1 to a rank, or when OUTPUT_DIR/.rocm-tune-save-now appears (what the
    exported Slurm script's trap writes when Slurm warns of the time limit or a preemption: a file reaches every
    rank of every node, where a signal to srun/torchrun does not), the training saves a checkpoint at the end of
    the current optimizer step and stops, so a requeued job resumes from it. Installing the handler never fails
    the run (not the main thread: the file alone)."""
    import signal as _signal

    from transformers import TrainerCallback

    class SaveOnSignalCallback(TrainerCallback):
        def __init__(self):
            self.asked: str | None = None
            self.out_dir = output_dir
            self._save_t0: float | None = None     # the end of the step a save follows
            self._last_step_end: float | None = None
            self._step_s: float | None = None      # the last step's wall time
            for name in SAVE_SIGNALS:
                try:
                    _signal.signal(getattr(_signal, name), self._on_signal)
                except (ValueError, OSError, AttributeError):
                    pass

        def _on_signal(self, signum, frame):  # noqa: ARG002
            self.asked = _signal.Signals(signum).name

        def _flag(self, args) -> str:
            return os.path.join(self.out_dir or getattr(args, "output_dir", None) or ".", SAVE_NOW_FILE)

        def on_step_end(self, args, state, control, **kw):
            if self.asked is None:
                try:
                    if os.path.exists(self._flag(args)):
                        self.asked = SAVE_NOW_FILE
                except OSError:
                    pass
            if self.asked is not None and not control.should_training_stop:
                print(f"[rocm-tune] {self.asked}: saving a checkpoint at step {state.global_step} and stopping "
                      "(time limit or preemption)", flush=True)
                control.should_save = True
                control.should_training_stop = True
            # time the save that follows this step (what `export --slurm` sizes its --signal lead from)
            now = time.time()
            if self._last_step_end is not None:
                self._step_s = now - self._last_step_end
            self._last_step_end = now
            self._save_t0 = now if control.should_save else None
            return control

        def on_evaluate(self, args, state, control, **kw):
            if self._save_t0 is not None:  # an evaluation runs between the step and the save: not save time
                self._save_t0 = time.time()

        def on_save(self, args, state, control, **kw):
            t0, self._save_t0 = self._save_t0, None
            if t0 is None or not getattr(state, "is_world_process_zero", True):
                return
            try:
                out = self.out_dir or getattr(args, "output_dir", None) or "."
                ck = os.path.join(out, f"checkpoint-{state.global_step}")
                rec = {"step": int(state.global_step), "seconds": round(time.time() - t0, 3),
                       "step_s": None if self._step_s is None else round(self._step_s, 3),
                       "bytes": _tree_bytes(ck) if os.path.isdir(ck) else None, "at": time.time()}
                append_save_record(run_dir_for(out) or out, rec)
            except Exception:  # noqa: BLE001 - timing a save never breaks the run
                pass
            self._last_step_end = time.time()  # the next step's time excludes the save

    return SaveOnSignalCallback()


# ------------------------------------------------------------------------------ hang timeout once training starts

HANG_ENV = "ROCM_TUNE_HANG_TIMEOUT"   # rocm_tune.core.export.common.HANG_ENV (train imports no core, and back)


def hang_timeout_from_env(environ: dict | None = None) -> int | None:
    """ROCM_TUNE_HANG_TIMEOUT in seconds (a positive whole number), else None."""
    raw = (os.environ if environ is None else environ).get(HANG_ENV, "").strip()
    if not raw.isascii() or not raw.isdigit():
        return None
    seconds = int(raw)
    return seconds if 0 < seconds <= 10**7 else None


def lower_process_group_timeout(seconds: int) -> bool:
    """Set the default process group's collective timeout to `seconds` (NCCL/RCCL and gloo), so a collective that
    waits longer ends the job. The group was made with `ddp_timeout` (long enough for dataset preprocessing); this
    is called once the Trainer is built. False when there is no process group or torch cannot change it."""
    import datetime

    try:
        import torch.distributed as dist
        from torch.distributed.distributed_c10d import _set_pg_timeout
    except Exception:  # noqa: BLE001 - an older torch: the ddp_timeout stays
        return False
    if not (dist.is_available() and dist.is_initialized()):
        return False
    try:
        _set_pg_timeout(datetime.timedelta(seconds=int(seconds)))
    except Exception:  # noqa: BLE001 - a backend that cannot: the ddp_timeout stays
        return False
    return True


def make_hang_timeout_callback(seconds: int):
    """A TrainerCallback that lowers the process group's timeout to `seconds` when the Trainer is built
    (`on_init_end`: the dataset is preprocessed and the model loaded; DDP/DeepSpeed wrapping and every training,
    evaluation and save collective come after)."""
    from transformers import TrainerCallback

    class HangTimeoutCallback(TrainerCallback):
        def on_init_end(self, args, state, control, **kwargs):  # noqa: ARG002
            if lower_process_group_timeout(seconds):
                if os.environ.get("RANK", "0") in ("0", ""):
                    print(f"[rocm-tune] collective timeout {seconds} s from here on ({HANG_ENV})", flush=True)
            return control

    return HangTimeoutCallback()
