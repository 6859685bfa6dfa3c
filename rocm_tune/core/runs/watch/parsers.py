"""Turn log lines into `Event`s. Parsers never raise, whatever the input.

Formats (taken from the projects' own code and real output, see tests/fixtures/logs/):
- rocm-tune `metrics.jsonl` (docs/internals.md): start / step / eval / error / checkpoint / end objects.
- LLaMA-Factory `trainer_log.jsonl` (LogCallback.on_log): current_steps, total_steps, loss, eval_loss,
  lr, epoch, percentage, elapsed_time "H:MM:SS", remaining_time, throughput (tokens/s),
  total_tokens and, with RECORD_VRAM=1, vram_allocated / vram_reserved in GiB.
- HF `trainer_state.json` `log_history` (whole-file JSON; see `events_from_trainer_state`).
- Text: HF Trainer stdout (`{'loss': 1.23, 'grad_norm': ...}` dicts — transformers 5 prints the values
  as strings — the final `{'train_runtime': ...}` dict, `{'eval_loss': ...}`), tqdm bars
  `12/500 [01:02<40:00, 4.92s/it]`, LLaMA-Factory's `running_log.txt` (logger lines ending in such a
  dict), DeepSpeed (`[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 65536,
  reducing to 32768`, `Overflow detected. Skipping step`, `[Rank 0] step=10, skipped=2, lr=[...]`,
  `RunningAvgSamplesPerSec=`), torchrun per-rank prefixes (`[rank0]:`, `[default0]:`), out-of-memory
  errors (HIP and CUDA, old and new wording) and known failure signatures (see `SIGNATURES`).

Event kinds: start, step, progress, eval, overflow, oom, signal, error, checkpoint, end.
"""

from __future__ import annotations

import ast
import json
import math
import re
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from rocm_tune.core.runs import catalogue as _CATALOGUE  # the one list of failure signatures (pure data + regexes)

try:  # optional C JSON parser (several times faster); the stdlib is the fallback
    import orjson

    _loads: Callable[[Any], Any] = orjson.loads
    _JSONDecodeError: tuple = (orjson.JSONDecodeError, ValueError, TypeError)
except Exception:  # pragma: no cover - depends on the environment
    _loads = json.loads
    _JSONDecodeError = (ValueError, TypeError, RecursionError)

GIB = 2**30
MIB = 2**20
TEXT_LINE_MAX = 8192   # characters of one text-log line that the text parser looks at


class Event(NamedTuple):
    """One thing a log said (immutable). Metric fields are None when the line did not carry them.

    A NamedTuple rather than a frozen dataclass: parsers create one per log line and this is
    4x cheaper to build, which is what lets a 1,000,000-line log load in about a second.
    """

    kind: str                        # start|step|progress|eval|overflow|oom|signal|error|checkpoint|end
    step: int | None = None
    time: float | None = None        # unix seconds when the source gives it (watcher may stamp arrival)
    rank: int | None = None          # from `[rank3]:` / `[default3]:` / `[Rank 3]` prefixes
    loss: float | None = None        # training loss (eval events: eval_loss)
    grad_norm: float | None = None
    learning_rate: float | None = None
    epoch: float | None = None
    total_steps: int | None = None
    tokens_per_s: float | None = None
    samples_per_s: float | None = None
    step_time_s: float | None = None
    data: Mapping[str, Any] | None = None   # everything else (see each parser)
    line: str = ""                   # the text evidence (cleaned line), "" for structured sources

    def get(self, key: str, default: Any = None) -> Any:
        d = self.data
        return default if d is None else d.get(key, default)

    def with_time(self, t: float) -> Event:
        return self._replace(time=t)


# ----------------------------------------------------------------------------- helpers
def num(v: Any) -> float | None:
    """A float from a JSON/log value ("5.733", 1, "nan", "inf"), None when it is not a number."""
    if v is None or isinstance(v, bool):
        return None
    if isinstance(v, float):
        return v
    if isinstance(v, int):
        try:
            return float(v)
        except OverflowError:
            return math.inf if v > 0 else -math.inf
    if isinstance(v, str):
        s = v.strip()
        if not s or len(s) > 64:
            return None
        try:
            return float(s)
        except ValueError:
            return None
    return None


def _int(v: Any) -> int | None:
    f = num(v)
    if f is None or f != f or f in (math.inf, -math.inf):
        return None
    try:
        return int(f)
    except (OverflowError, ValueError):
        return None


def parse_hms(text: Any) -> float | None:
    """'0:00:05' / '1 day, 2:03:04' / '01:02' / '1:02:03' -> seconds; None when not a duration."""
    if not isinstance(text, str):
        return num(text)
    s = text.strip()
    days = 0
    if "day" in s:
        m = re.match(r"(\d+) days?, (.*)$", s)
        if not m:
            return None
        days, s = int(m.group(1)), m.group(2)
    parts = s.split(":")
    if not 1 <= len(parts) <= 3:
        return None
    try:
        vals = [float(p) for p in parts]
    except ValueError:
        return None
    total = 0.0
    for v in vals:
        total = total * 60 + v
    return days * 86400 + total


_UNITS = {"b": 1, "kb": 1000, "mb": 1000**2, "gb": 1000**3, "tb": 1000**4,
          "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}


def parse_size(value: str, unit: str) -> int | None:
    """'1.45', 'GiB' -> bytes. PyTorch's 'GiB/MiB' are binary; DeepSpeed's 'GB' are binary too."""
    try:
        v = float(value)
    except ValueError:
        return None
    u = unit.lower()
    if u in ("gb", "mb", "kb", "tb"):  # torch/DeepSpeed memory reports divide by 1024**n
        u = u[0] + "ib"
    mult = _UNITS.get(u)
    return int(v * mult) if mult else None


# ANSI escape sequences: CSI (colours, cursor moves), OSC (titles/links), and lone ESC + char.
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")


def strip_ansi(text: str) -> str:
    return _ANSI.sub("", text) if "\x1b" in text else text


def split_segments(line: str) -> list[str]:
    """A physical line with `\\r` redraws -> the segments a terminal would have shown in turn."""
    if "\r" in line:
        return [s for s in line.split("\r") if s.strip()]
    return [line]


# ----------------------------------------------------------------------------- JSON sources
def _metrics_mem(mem: Any) -> dict | None:
    if not isinstance(mem, list):
        return None
    out: dict[str, Any] = {}
    for m in mem:
        if isinstance(m, dict) and _int(m.get("rank")) in (0, None):
            a = _int(m.get("allocated_bytes"))
            r = _int(m.get("reserved_bytes"))
            if a is not None:
                out["vram_allocated_bytes"] = a
            if r is not None:
                out["vram_reserved_bytes"] = r
            break
    out["mem"] = [m for m in mem if isinstance(m, dict)]
    return out


_STEP_KEYS = ("loss", "grad_norm", "learning_rate", "epoch", "tokens_per_s", "samples_per_s", "step_time_s")


def event_from_metrics(obj: Any) -> Event | None:
    """One rocm-tune metrics.jsonl object -> Event (None for anything unrecognised)."""
    if not isinstance(obj, dict):
        return None
    typ = obj.get("type")
    t = obj.get("time")
    if type(t) is not float:
        t = num(t)
    step = obj.get("step")
    if type(step) is not int:
        step = _int(step)
    if typ == "step":
        g = obj.get
        mem = g("mem")
        data = None
        if mem is not None:
            m0 = mem[0] if type(mem) is list and len(mem) == 1 and type(mem[0]) is dict else None
            if m0 is not None and m0.get("rank", 0) == 0 and type(m0.get("allocated_bytes")) is int \
                    and type(m0.get("reserved_bytes", 0)) is int:
                data = {"vram_allocated_bytes": m0["allocated_bytes"], "vram_reserved_bytes": m0.get("reserved_bytes"),
                        "mem": mem}
            else:
                data = _metrics_mem(mem)
        F = float
        loss = g("loss")
        if loss.__class__ is not F and loss is not None:
            loss = num(loss)
        gn = g("grad_norm")
        if gn.__class__ is not F and gn is not None:
            gn = num(gn)
        lr = g("learning_rate")
        if lr.__class__ is not F and lr is not None:
            lr = num(lr)
        ep = g("epoch")
        if ep.__class__ is not F and ep is not None:
            ep = num(ep)
        tps = g("tokens_per_s")
        if tps.__class__ is not F and tps is not None:
            tps = num(tps)
        sps = g("samples_per_s")
        if sps.__class__ is not F and sps is not None:
            sps = num(sps)
        st = g("step_time_s")
        if st.__class__ is not F and st is not None:
            st = num(st)
        rank = g("rank")
        total = g("total_steps")
        return Event("step", step, t, rank if rank is None or rank.__class__ is int else _int(rank), loss, gn, lr,
                     ep, total if total is None or total.__class__ is int else _int(total), tps, sps, st, data)
    if typ == "eval":
        return Event("eval", step, t, loss=num(obj.get("eval_loss")), epoch=num(obj.get("epoch")),
                     data={k: v for k, v in obj.items() if k not in ("type", "time", "step")})
    if typ == "start":
        cfg = obj.get("config")
        return Event("start", step, t, total_steps=_int(obj.get("total_steps")),
                     data={"num_train_epochs": num(obj.get("num_train_epochs")),
                           "config": cfg if isinstance(cfg, dict) else None})
    if typ == "end":
        return Event("end", step, t, data={"status": obj.get("status") if isinstance(obj.get("status"), str) else None,
                                           "train_loss": num(obj.get("train_loss")),
                                           "runtime_s": num(obj.get("runtime_s"))})
    if typ == "checkpoint":
        p = obj.get("path")
        return Event("checkpoint", step, t, data={"path": p if isinstance(p, str) else None})
    if typ == "error":
        raw_kind, raw_msg = obj.get("kind"), obj.get("message")
        kind = raw_kind if isinstance(raw_kind, str) else "exception"
        msg = raw_msg if isinstance(raw_msg, str) else ""
        if kind == "oom":
            oom = parse_oom(msg) or {}
            return Event("oom", step, t, data={"error_kind": kind, "message": msg, **oom}, line=msg[:2000])
        return Event("error", step, t, data={"error_kind": kind, "message": msg}, line=msg[:2000])
    return None


_LF_EXTRA = ("reward", "accuracy", "total_tokens", "predict_loss")


def event_from_llamafactory(obj: Any) -> Event | None:
    """One LLaMA-Factory trainer_log.jsonl object -> Event."""
    if not isinstance(obj, dict):
        return None
    g = obj.get
    step = g("current_steps")
    if type(step) is not int:
        step = _int(step)
    total = g("total_steps")
    if type(total) is not int:
        total = _int(total)
    # elapsed/remaining are kept as given ("H:MM:SS"); History parses the newest only
    data: dict[str, Any] = {"elapsed_time": g("elapsed_time"), "remaining_time": g("remaining_time")}
    if "vram_allocated" in obj or "vram_reserved" in obj:
        va = num(g("vram_allocated"))
        vr = num(g("vram_reserved"))
        if va is not None and va == va and abs(va) < 1e9:
            data["vram_allocated_bytes"] = int(va * GIB)
        if vr is not None and vr == vr and abs(vr) < 1e9:
            data["vram_reserved_bytes"] = int(vr * GIB)
    for k in _LF_EXTRA:
        if k in obj:
            data[k] = obj[k]
    if "loss" in obj:
        loss, lr, ep, thr = g("loss"), g("lr"), g("epoch"), g("throughput")
        return Event("step", step, None, None, loss if type(loss) is float else num(loss), num(g("grad_norm")),
                     lr if type(lr) is float else num(lr), ep if type(ep) is float else num(ep), total,
                     thr if thr is None or type(thr) is float else num(thr), None, None, data)
    if "eval_loss" in obj:
        return Event("eval", step, loss=num(obj.get("eval_loss")), epoch=num(obj.get("epoch")), total_steps=total,
                     data=data)
    if step is None and total is None:
        return None
    return Event("progress", step, epoch=num(obj.get("epoch")), total_steps=total, data=data)


def events_from_trainer_state(obj: Any) -> list[Event]:
    """HF `trainer_state.json` (already loaded) -> step/eval/end events from `log_history`."""
    out: list[Event] = []
    if not isinstance(obj, dict):
        return out
    total = _int(obj.get("max_steps"))
    hist = obj.get("log_history")
    if isinstance(hist, list):
        for e in hist:
            if not isinstance(e, dict):
                continue
            step = _int(e.get("step"))
            if "loss" in e:
                out.append(Event("step", step, None, None, num(e.get("loss")), num(e.get("grad_norm")),
                                 num(e.get("learning_rate")), num(e.get("epoch")), total,
                                 None, None, None, None))
            elif "eval_loss" in e:
                out.append(Event("eval", step, loss=num(e.get("eval_loss")), epoch=num(e.get("epoch")),
                                 data={k: v for k, v in e.items() if k.startswith("eval_")}))
            elif "train_runtime" in e:
                out.append(Event("end", step, epoch=num(e.get("epoch")), total_steps=total,
                                 samples_per_s=num(e.get("train_samples_per_second")),
                                 data={"status": None, "train_loss": num(e.get("train_loss")),
                                       "runtime_s": num(e.get("train_runtime"))}))
    # the state says training is over even where log_history has no final train_runtime entry
    # (a checkpoint saved at the last step: checkpoint-48/trainer_state.json of a finished run)
    gstep = _int(obj.get("global_step"))
    if not any(e.kind == "end" for e in out) and (
            obj.get("should_training_stop") is True or (gstep is not None and total and gstep >= total)):
        out.append(Event("end", gstep, epoch=num(obj.get("epoch")), total_steps=total,
                         data={"status": "finished", "train_loss": None, "runtime_s": None}))
    if out and total:
        # give the first event the total so History learns it even without steps
        first = out[0]
        if first.total_steps is None:
            out[0] = Event(first.kind, first.step, first.time, first.rank, first.loss, first.grad_norm,
                           first.learning_rate, first.epoch, total, first.tokens_per_s, first.samples_per_s,
                           first.step_time_s, first.data, first.line)
    return out


def loads_json(text):
    """orjson when available, else (and for NaN/Infinity, which orjson rejects) the stdlib."""
    try:
        return _loads(text)
    except Exception:
        if _loads is json.loads:
            raise
        return json.loads(text)


class JsonlParser:
    """Line parser for a JSON-lines source; `convert` maps one object to an Event (or None)."""

    def __init__(self, convert: Callable[[Any], Event | None]):
        self.convert = convert

    def feed(self, line: str) -> list[Event]:
        s = line.strip()
        if not s or s[0] != "{":
            return []
        try:
            ev = self.convert(loads_json(s))
        except Exception:
            return []
        return [ev] if ev is not None else []

    def skippable(self, line: str) -> bool:
        """True for an ordinary step line that a sampled (stride > 1) read may skip: a step record
        with no NaN/Infinity and no zero loss. Everything else is always parsed."""
        if "NaN" in line or "Infinity" in line or '"loss": 0.0,' in line or '"loss":0.0,' in line:
            return False
        if self.convert is event_from_metrics:
            return '"type": "step"' in line or '"type":"step"' in line
        return '"loss"' in line

    def feed_lines(self, lines: list[str], stride: int = 1) -> list[Event]:
        """Events of `lines`. stride > 1 (first read of a huge file): parse every stride-th ordinary
        step line and every line that is not one (see `skippable`), and count the skipped ones in
        the next parsed step event's data["skipped_lines"]."""
        if stride > 1:
            return self._feed_sampled(lines, stride)
        out: list[Event] = []
        append = out.append
        conv = self.convert
        loads = _loads
        slow = json.loads
        for line in lines:
            if not line or line[0] != "{":
                s = line.strip()
                if not s or s[0] != "{":
                    continue
                line = s
            try:
                obj = loads(line)
            except Exception:
                try:
                    obj = slow(line)  # NaN / Infinity (Python's json writes them), or genuinely bad
                except Exception:
                    continue
            try:
                ev = conv(obj)
            except Exception:
                continue
            if ev is not None:
                append(ev)
        return out


    def _feed_sampled(self, lines: list[str], stride: int) -> list[Event]:
        keep: list[str] = []
        skip = self.skippable
        n = len(lines)
        skipped = 0
        for i, line in enumerate(lines):
            if i % stride == 0 or i == n - 1 or not skip(line):
                keep.append(line)
            else:
                skipped += 1
        evs = self.feed_lines(keep)
        self.skipped_lines = getattr(self, "skipped_lines", 0) + skipped
        return evs


def metrics_parser() -> JsonlParser:
    return JsonlParser(event_from_metrics)


def llamafactory_parser() -> JsonlParser:
    return JsonlParser(event_from_llamafactory)


# ----------------------------------------------------------------------------- out of memory
_OOM_TRIED = re.compile(r"(HIP|CUDA|XPU|MPS)?\s*out of memory\.?\s*Tried to allocate ([\d.]+) ?([KMGT]i?B)", re.IGNORECASE)
_OOM_NEW = re.compile(
    r"GPU (\d+) has a total capac(?:i)?ty of ([\d.]+) ?([KMGT]i?B) of which ([\d.]+) ?([KMGT]i?B) is free", re.IGNORECASE)
_OOM_OLD = re.compile(
    r"\(GPU (\d+); ([\d.]+) ?([KMGT]i?B) total capacity; ([\d.]+) ?([KMGT]i?B) already allocated; "
    r"([\d.]+) ?([KMGT]i?B) free", re.IGNORECASE)
_OOM_INUSE = re.compile(r"(?:this process|Process \d+) has ([\d.]+) ?([KMGT]i?B) memory in use", re.IGNORECASE)
_OOM_ALLOC = re.compile(r"Of the allocated memory ([\d.]+) ?([KMGT]i?B) is allocated by PyTorch", re.IGNORECASE)
_OOM_RESV = re.compile(r"([\d.]+) ?([KMGT]i?B) is reserved by PyTorch but unallocated", re.IGNORECASE)
_OOM_RESV_OLD = re.compile(r"([\d.]+) ?([KMGT]i?B) reserved in total by PyTorch", re.IGNORECASE)
_OOM_ANY = re.compile(r"out of memory|OutOfMemoryError|CUBLAS_STATUS_ALLOC_FAILED|hipErrorOutOfMemory", re.IGNORECASE)


def parse_oom(text: str) -> dict | None:
    """Numbers from a PyTorch out-of-memory message (HIP or CUDA, 1.x and 2.x wording)."""
    if not text or not _OOM_ANY.search(text):
        return None
    d: dict[str, Any] = {"backend": None}
    m = _OOM_TRIED.search(text)
    if m:
        d["backend"] = (m.group(1) or "").upper() or None
        d["tried_bytes"] = parse_size(m.group(2), m.group(3))
    elif re.search(r"\bHIP\b|hipError", text):
        d["backend"] = "HIP"
    elif "CUDA" in text or "CUBLAS" in text:
        d["backend"] = "CUDA"
    m = _OOM_NEW.search(text)
    if m:
        d["gpu"] = int(m.group(1))
        d["total_bytes"] = parse_size(m.group(2), m.group(3))
        d["free_bytes"] = parse_size(m.group(4), m.group(5))
    else:
        m = _OOM_OLD.search(text)
        if m:
            d["gpu"] = int(m.group(1))
            d["total_bytes"] = parse_size(m.group(2), m.group(3))
            d["allocated_bytes"] = parse_size(m.group(4), m.group(5))
            d["free_bytes"] = parse_size(m.group(6), m.group(7))
    for rx, key in ((_OOM_INUSE, "in_use_bytes"), (_OOM_ALLOC, "allocated_bytes"), (_OOM_RESV, "reserved_unallocated_bytes"),
                    (_OOM_RESV_OLD, "reserved_bytes")):
        m = rx.search(text)
        if m:
            d[key] = parse_size(m.group(1), m.group(2))
    return d


# ----------------------------------------------------------------------------- text logs
# Known failure signatures in text logs -> signal name (alerts map them to codes and fixes). The regexes
# are the catalogue's (core/runs/catalogue.py, the one list); every other cause there arrives as a
# "catalogue" signal (see TextParser._signal).
def _from_catalogue(code: str, flags: int = 0) -> re.Pattern:
    return re.compile("|".join(f"(?:{p})" for p in _CATALOGUE.BY_CODE[code].patterns), flags)


SIGNATURES: tuple[tuple[str, re.Pattern], ...] = (
    ("hipblaslt-unsupported", _from_catalogue("hipblaslt-unsupported", re.IGNORECASE)),
    ("version-check", _from_catalogue("version-check-failed")),
    ("mark-ready-twice", _from_catalogue("ddp-mark-ready-twice")),
    ("loss-scale-minimum", _from_catalogue("fp16-loss-scale-minimum")),
    ("collective-timeout", _from_catalogue("collective-timeout", re.IGNORECASE)),
    ("barrier-unknown-device", _from_catalogue("barrier-no-progress")),
    ("traceback", re.compile(r"^Traceback \(most recent call last\)")),
    ("nan-detected", _from_catalogue("nan-loss", re.IGNORECASE)),
)
_SIG_PREFILTER = re.compile(
    r"hipBLASLt|is required for a normal|VersionConflict|incompatible version of|mark a variable ready|"
    r"loss scale already|Watchdog|[NR]CCL|barrier|Traceback|"
    r"nan\b|inf\b|out of memory|OutOfMemory|ALLOC_FAILED|hipErrorOutOfMemory", re.IGNORECASE)

_RANK_PREFIX = re.compile(r"^\[(?:rank|default)(\d+)\]:\s?")
_DS_RANK = re.compile(r"\[Rank (\d+)\]")
_TQDM = re.compile(
    r"(?:^|[\s|:])(\d+)/(\d+) \[([\d:]+)<([\d:?]+)(?:,\s*([\d.]+|\?)\s*(s/it|it/s|s/step|step/s))?")
_TQDM_DESC = re.compile(r"^\s*([^|]*?):?\s*\d+%\|")
_DICT_KV = re.compile(r"""['"]([^'"]{1,80})['"]:\s*(?:'([^']*)'|"([^"]*)"|([^,}\s]+))""")
_OVERFLOW = re.compile(r"OVERFLOW!|[Oo]verflow detected|loss scale overflow!|Gradient overflow\.\s*Skipping step", re.IGNORECASE)
_OVERFLOW_SCALE = re.compile(r"Attempted loss scale: ([\d.]+)(?:, reducing to ([\d.]+))?")
_AMP_SCALE = re.compile(r"reducing loss scale to ([\d.e+]+)", re.IGNORECASE)
_DS_STEP = re.compile(r"\bstep=(\d+), skipped=(\d+), lr=\[([^\],]+)")
_DS_THROUGHPUT = re.compile(r"global_step=(\d+), RunningAvgSamplesPerSec=([\d.]+), CurrSamplesPerSec=([\d.]+)"
                            r"(?:, MemAllocated=([\d.]+)GB, MaxMemAllocated=([\d.]+)GB)?")

_HF_TOTAL = re.compile(r"Total optimization steps = ([\d,]+)")
_TRAIN_KEYS = {"loss", "train_loss", "eval_loss", "train_runtime"}


def parse_dict_text(text: str) -> dict[str, Any] | None:
    """`{'loss': '5.733', 'grad_norm': nan, ...}` (repr of a dict of numbers/strings) -> dict.

    A fast regex handles the HF Trainer's flat dicts (incl. `nan`/`inf`, which literal_eval
    rejects); ast.literal_eval is the fallback for anything nested. Never raises.
    """
    i = text.find("{")
    j = text.rfind("}")
    if i < 0 or j <= i:
        return None
    body = text[i:j + 1]
    if len(body) > 20000:
        return None
    pairs = _DICT_KV.findall(body)
    if pairs:
        out: dict[str, Any] = {}
        for k, a, b, c in pairs:
            out[k] = a if a or (not b and not c and "''" in body) else (b if b else c)
        return out
    try:
        val = ast.literal_eval(body)
    except Exception:
        return None
    return val if isinstance(val, dict) else None


class TextParser:
    """Stateful parser for human-readable training logs (HF/LLaMA-Factory stdout, DeepSpeed, torchrun).

    Keeps the last tqdm position so HF dict lines, which carry no step, get one: the step is
    max(previous step + logging interval, tqdm position), the interval learnt from the first dict.
    """

    def __init__(self) -> None:
        self.last_step = 0
        self.tqdm_step = 0
        self.train_total: int | None = None
        self.interval: int | None = None
        self.first_dict_step: int | None = None
        self.dict_rank: int | None = None

    # public -----------------------------------------------------------------
    def feed(self, line: str) -> list[Event]:
        try:
            return self._feed(line)
        except Exception:  # never let garbage out as an exception
            return []

    def feed_lines(self, lines: list[str], stride: int = 1) -> list[Event]:
        """Events of `lines`. stride > 1 (first read of a huge log): bare tqdm bars and ordinary
        `{'loss': ...}` dicts are parsed only every stride-th time — a skipped dict still advances
        the step count — and every other line (anything with nan/inf/zero loss, OOM, overflow,
        signatures, rank prefixes) is parsed as usual."""
        if stride > 1:
            return self._feed_sampled(lines, stride)
        out: list[Event] = []
        feed = self._feed
        for line in lines:
            try:
                evs = feed(line)
            except Exception:
                continue
            if evs:
                out.extend(evs)
        return out

    def _feed_sampled(self, lines: list[str], stride: int) -> list[Event]:
        out: list[Event] = []
        feed = self._feed
        n = len(lines)
        skipped = 0
        for i, line in enumerate(lines):
            if i % stride and i != n - 1 and self.interval is not None and line:
                c = line[0]
                if c == "{":
                    if line.startswith("{'loss': ") and line[-1] == "}" and "nan" not in line and "inf" not in line \
                            and not line.startswith(("{'loss': 0.0,", "{'loss': '0'", "{'loss': 0,")) \
                            and "'step'" not in line:
                        self.last_step += self.interval  # as _dict would (tqdm resyncs at the next parse)
                        if self.train_total:
                            self.last_step = min(self.last_step, self.train_total)
                        skipped += 1
                        continue
                elif c == " " or c.isdigit():
                    if line[-1] == "]" and ("it/s]" in line or "s/it]" in line) and "Rank" not in line:
                        continue
            try:
                evs = feed(line)
            except Exception:
                continue
            if evs:
                out.extend(evs)
        self.skipped_lines = getattr(self, "skipped_lines", 0) + skipped
        return out

    # internals --------------------------------------------------------------
    def _feed(self, line: str) -> list[Event]:
        if not line:
            return []
        if len(line) > TEXT_LINE_MAX:
            # no log line that carries a metric is this long (an HF dict is ~300 characters): look at
            # its head and tail only, so one 200 MB line costs what 8 KiB do (issue 15 item 9)
            line = line[:TEXT_LINE_MAX // 2] + "\n" + line[-TEXT_LINE_MAX // 2:]
            line = line.replace("\n", " ")
        if "\x1b" in line:
            line = strip_ansi(line)
        if "\r" in line:
            out: list[Event] = []
            for seg in line.split("\r"):
                if seg.strip():
                    out.extend(self._segment(seg))
            return out
        return self._segment(line)

    def _segment(self, seg: str) -> list[Event]:
        seg = seg.strip()
        if not seg:
            return []
        rank = None
        if seg[0] == "[":
            m = _RANK_PREFIX.match(seg)
            if m:
                rank = int(m.group(1))
                seg = seg[m.end():]
                if not seg:
                    return []
        out: list[Event] = []
        if "/it" in seg or "it/s" in seg or "/step" in seg:
            ev = self._tqdm(seg, rank)
            if ev is not None:
                out.append(ev)
            if seg[-1] == "]":  # a bare progress bar (the common case): nothing else on it
                return out
        if "{" in seg and ("loss" in seg or "runtime" in seg):
            ev = self._dict(seg, rank)
            if ev is not None:
                out.append(ev)
                return out
        if "verflow" in seg or "OVERFLOW" in seg:
            ev = self._overflow(seg, rank)
            if ev is not None:
                out.append(ev)
                return out
        if "step=" in seg:
            ev = self._deepspeed(seg, rank)
            if ev is not None:
                out.append(ev)
                return out
        if "Total optimization steps" in seg:
            m = _HF_TOTAL.search(seg)
            if m:
                total = int(m.group(1).replace(",", ""))
                if self.train_total is None:
                    self.train_total = total
                out.append(Event("progress", None, rank=rank, total_steps=total, line=seg[:500]))
                return out
        if _SIG_PREFILTER.search(seg) or any(g in seg for g in _CATALOGUE.PARSER_GATE):
            ev = self._signal(seg, rank)
            if ev is not None:
                out.append(ev)
        return out

    def _rank_of(self, seg: str, rank: int | None) -> int | None:
        if rank is None and "[Rank" in seg:
            m = _DS_RANK.search(seg)
            if m:
                return int(m.group(1))
        return rank

    def _tqdm(self, seg: str, rank: int | None) -> Event | None:
        m = _TQDM.search(seg)
        if not m:
            return None
        n, total = int(m.group(1)), int(m.group(2))
        if total <= 0 or n > total * 10 + 10:
            return None
        desc = ""
        if m.start() > 0:
            desc_m = _TQDM_DESC.match(seg)
            desc = desc_m.group(1).strip() if desc_m else ""
        rate, unit = m.group(5), m.group(6)
        st = None
        if rate and rate != "?":
            r = float(rate)
            if unit in ("s/it", "s/step"):
                st = r
            elif r > 0:
                st = 1.0 / r
        # which bar is training? the first unlabelled step bar, or one whose total matches it.
        if self.train_total is None and not desc:
            self.train_total = total
        if desc or total != self.train_total:
            return None  # another bar (evaluation, dataset map, weight loading)
        self.tqdm_step = n
        # the bar's own elapsed / remaining time ("01:22<02:36"): History keeps the newest
        times = {"elapsed_time": m.group(3), "remaining_time": m.group(4) if "?" not in m.group(4) else None}
        return Event("progress", n, None, rank if rank is not None or "[Rank" not in seg else self._rank_of(seg, rank),
                     None, None, None, None, total, None, None, st, times)

    def _dict(self, seg: str, rank: int | None) -> Event | None:
        d = parse_dict_text(seg)
        if not d or not (_TRAIN_KEYS & d.keys()):
            return None
        epoch = num(d.get("epoch"))
        r = self._rank_of(seg, rank)
        if r is not None:
            # scripts that log on every rank print each step once per rank: follow the first rank seen
            if self.dict_rank is None:
                self.dict_rank = r
            elif r != self.dict_rank:
                return None
        if "loss" in d:
            step = _int(d.get("step")) or _int(d.get("global_step"))
            if step is None:
                if self.first_dict_step is None:
                    step = max(1, self.tqdm_step)
                    self.first_dict_step = step
                    self.interval = step if self.tqdm_step else 1
                else:
                    step = max(self.last_step + (self.interval or 1), self.tqdm_step)
                    if self.train_total:
                        step = min(step, self.train_total)
            self.last_step = max(self.last_step, step)
            data = None
            tps = num(d.get("throughput")) or num(d.get("train_tokens_per_second"))
            extra = {k: v for k, v in d.items() if k not in ("loss", "grad_norm", "learning_rate", "epoch", "step")}
            if extra:
                data = extra
            lr = num(d.get("learning_rate"))
            if lr is None:
                lr = num(d.get("lr"))
            return Event("step", step, None, self._rank_of(seg, rank), num(d.get("loss")), num(d.get("grad_norm")),
                         lr, epoch, self.train_total, tps, None, None, data, seg[:500])
        if "eval_loss" in d:
            return Event("eval", self.last_step or self.tqdm_step or None, rank=rank, loss=num(d.get("eval_loss")),
                         epoch=epoch, data={k: d[k] for k in d if k.startswith("eval_")}, line=seg[:500])
        if "train_runtime" in d:
            return Event("end", self.last_step or self.tqdm_step or None, rank=rank, epoch=epoch,
                         samples_per_s=num(d.get("train_samples_per_second")),
                         data={"status": None, "train_loss": num(d.get("train_loss")),
                               "runtime_s": num(d.get("train_runtime"))}, line=seg[:500])
        return None

    def _overflow(self, seg: str, rank: int | None) -> Event | None:
        if not _OVERFLOW.search(seg) or "Skipping" not in seg and "skipping" not in seg:
            m = _AMP_SCALE.search(seg)
            if not m:
                return None
            return Event("overflow", self.last_step or None, rank=rank,
                         data={"loss_scale": num(m.group(1))}, line=seg[:500])
        data: dict[str, Any] = {}
        m = _OVERFLOW_SCALE.search(seg)
        if m:
            data["attempted_loss_scale"] = num(m.group(1))
            if m.group(2):
                data["loss_scale"] = num(m.group(2))
        m = re.search(r"Rank (\d+)", seg)
        r = rank if rank is not None else (int(m.group(1)) if m else None)
        # the overflow is found in the optimizer step after the last drawn/logged one
        base = max(self.tqdm_step, self.last_step)
        return Event("overflow", base + 1 if base else None, rank=r, data=data or None, line=seg[:500])

    def _deepspeed(self, seg: str, rank: int | None) -> Event | None:
        m = _DS_STEP.search(seg)
        if m:
            step = int(m.group(1))
            return Event("progress", step, rank=self._rank_of(seg, rank), learning_rate=num(m.group(3)),
                         data={"skipped": int(m.group(2)), "source": "deepspeed"})
        m = _DS_THROUGHPUT.search(seg)
        if m:
            data: dict[str, Any] = {"source": "deepspeed"}
            if m.group(5):
                data["vram_allocated_bytes"] = parse_size(m.group(4), "GB")
                data["vram_max_allocated_bytes"] = parse_size(m.group(5), "GB")
            return Event("progress", int(m.group(1)), rank=self._rank_of(seg, rank),
                         samples_per_s=num(m.group(2)), data=data)
        return None

    def _signal(self, seg: str, rank: int | None) -> Event | None:
        rank = self._rank_of(seg, rank)
        if _OOM_ANY.search(seg):
            d = parse_oom(seg)
            if d is not None and ("tried_bytes" in d or "OutOfMemoryError" in seg or "out of memory" in seg.lower()):
                return Event("oom", self.last_step or None, rank=rank, data=d, line=seg[:2000])
        for name, rx in SIGNATURES:
            m = rx.search(seg)
            if m:
                data: dict[str, Any] = {"signal": name}
                if name == "version-check":   # r3-ver: each of the signature's shapes orders its groups its own way
                    data["requirement"], data["found"] = _CATALOGUE.requirement_found(seg) or ("?", "?")
                return Event("signal", self.last_step or None, rank=rank, data=data, line=seg[:2000])
        # the rest of the failure catalogue (core/runs/catalogue.py): causes only, not benign or cascade lines
        hit = _CATALOGUE.best_match(seg)
        if hit is not None and (hit[0].priority >= 3 or hit[0].severity == "warning" and not hit[0].benign) \
                and not hit[0].tail_only:
            return Event("signal", self.last_step or None, rank=rank, data={"signal": "catalogue", "code": hit[0].code},
                         line=seg[:2000])
        return None


def text_parser() -> TextParser:
    return TextParser()


def parser_for(kind: str):
    """Parser object for a source kind: metrics | llamafactory | text (trainer_state is whole-file)."""
    if kind == "metrics":
        return metrics_parser()
    if kind == "llamafactory":
        return llamafactory_parser()
    return TextParser()
