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
from dataclasses import dataclass
from typing import Any, Callable, Mapping

try:  # optional C JSON parser (several times faster); the stdlib is the fallback
    import orjson as _orjson  # type: ignore

    _loads: Callable[[Any], Any] = _orjson.loads
    _JSONDecodeError: tuple = (_orjson.JSONDecodeError, ValueError, TypeError)
except Exception:  # pragma: no cover - depends on the environment
    _orjson = None
    _loads = json.loads
    _JSONDecodeError = (ValueError, TypeError, RecursionError)

GIB = 2**30
MIB = 2**20


@dataclass(frozen=True, slots=True)
class Event:
    """One thing a log said. Metric fields are None when the line did not carry them."""

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

    def with_time(self, t: float) -> "Event":
        return Event(self.kind, self.step, t, self.rank, self.loss, self.grad_norm, self.learning_rate,
                     self.epoch, self.total_steps, self.tokens_per_s, self.samples_per_s,
                     self.step_time_s, self.data, self.line)


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


def event_from_metrics(obj: Any) -> Event | None:
    """One rocm-tune metrics.jsonl object -> Event (None for anything unrecognised)."""
    if not isinstance(obj, dict):
        return None
    typ = obj.get("type")
    t = num(obj.get("time"))
    step = _int(obj.get("step"))
    if typ == "step":
        data = _metrics_mem(obj.get("mem"))
        return Event("step", step, t, _int(obj.get("rank")), num(obj.get("loss")), num(obj.get("grad_norm")),
                     num(obj.get("learning_rate")), num(obj.get("epoch")), _int(obj.get("total_steps")),
                     num(obj.get("tokens_per_s")), num(obj.get("samples_per_s")), num(obj.get("step_time_s")),
                     data)
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
        kind = obj.get("kind") if isinstance(obj.get("kind"), str) else "exception"
        msg = obj.get("message") if isinstance(obj.get("message"), str) else ""
        if kind == "oom":
            oom = parse_oom(msg) or {}
            return Event("oom", step, t, data={"error_kind": kind, "message": msg, **oom}, line=msg[:2000])
        return Event("error", step, t, data={"error_kind": kind, "message": msg}, line=msg[:2000])
    return None


def event_from_llamafactory(obj: Any) -> Event | None:
    """One LLaMA-Factory trainer_log.jsonl object -> Event."""
    if not isinstance(obj, dict):
        return None
    step = _int(obj.get("current_steps"))
    total = _int(obj.get("total_steps"))
    data: dict[str, Any] = {}
    el = parse_hms(obj.get("elapsed_time"))
    rem = parse_hms(obj.get("remaining_time"))
    if el is not None:
        data["elapsed_s"] = el
    if rem is not None:
        data["remaining_s"] = rem
    va = num(obj.get("vram_allocated"))
    vr = num(obj.get("vram_reserved"))
    if va is not None and va == va and abs(va) < 1e9:
        data["vram_allocated_bytes"] = int(va * GIB)
    if vr is not None and vr == vr and abs(vr) < 1e9:
        data["vram_reserved_bytes"] = int(vr * GIB)
    for k in ("reward", "accuracy", "total_tokens", "percentage", "predict_loss"):
        if k in obj:
            data[k] = obj[k]
    if "loss" in obj:
        return Event("step", step, None, None, num(obj.get("loss")), num(obj.get("grad_norm")),
                     num(obj.get("lr")), num(obj.get("epoch")), total, num(obj.get("throughput")), None, None,
                     data or None)
    if "eval_loss" in obj:
        return Event("eval", step, loss=num(obj.get("eval_loss")), epoch=num(obj.get("epoch")), total_steps=total,
                     data=data or None)
    if step is None and total is None:
        return None
    return Event("progress", step, epoch=num(obj.get("epoch")), total_steps=total, data=data or None)


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

    def feed_lines(self, lines: list[str]) -> list[Event]:
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


def metrics_parser() -> JsonlParser:
    return JsonlParser(event_from_metrics)


def llamafactory_parser() -> JsonlParser:
    return JsonlParser(event_from_llamafactory)


# ----------------------------------------------------------------------------- out of memory
_OOM_TRIED = re.compile(r"(HIP|CUDA|XPU|MPS)?\s*out of memory\.?\s*Tried to allocate ([\d.]+) ?([KMGT]i?B)", re.I)
_OOM_NEW = re.compile(
    r"GPU (\d+) has a total capac(?:i)?ty of ([\d.]+) ?([KMGT]i?B) of which ([\d.]+) ?([KMGT]i?B) is free", re.I)
_OOM_OLD = re.compile(
    r"\(GPU (\d+); ([\d.]+) ?([KMGT]i?B) total capacity; ([\d.]+) ?([KMGT]i?B) already allocated; "
    r"([\d.]+) ?([KMGT]i?B) free", re.I)
_OOM_INUSE = re.compile(r"this process has ([\d.]+) ?([KMGT]i?B) memory in use", re.I)
_OOM_ALLOC = re.compile(r"Of the allocated memory ([\d.]+) ?([KMGT]i?B) is allocated by PyTorch", re.I)
_OOM_RESV = re.compile(r"([\d.]+) ?([KMGT]i?B) is reserved by PyTorch but unallocated", re.I)
_OOM_RESV_OLD = re.compile(r"([\d.]+) ?([KMGT]i?B) reserved in total by PyTorch", re.I)
_OOM_ANY = re.compile(r"out of memory|OutOfMemoryError|CUBLAS_STATUS_ALLOC_FAILED|hipErrorOutOfMemory", re.I)


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
# Known failure signatures in text logs -> signal name (alerts map them to codes and fixes).
SIGNATURES: tuple[tuple[str, re.Pattern], ...] = (
    ("hipblaslt-unsupported", re.compile(r"hipBLASLt on an unsupported architecture|hipBLASLt.{0,40}not supported", re.I)),
    ("version-check", re.compile(r"(\w[\w\-]*(?:[<>=!~]=?[\w.*+]+,?)+) is required for a normal functioning of this module, but found ([\w\-]+==?[\w.+]+)")),
    ("mark-ready-twice", re.compile(r"Expected to mark a variable ready only once")),
    ("loss-scale-minimum", re.compile(r"Current loss scale already at minimum")),
    ("collective-timeout", re.compile(r"Watchdog caught collective operation timeout|NCCL timeout|RCCL timeout|ProcessGroupNCCL.*Timeout", re.I)),
    ("barrier-unknown-device", re.compile(r"using GPU \d+ to perform barrier as devices used by this process are currently unknown")),
    ("traceback", re.compile(r"^Traceback \(most recent call last\)")),
    ("nan-detected", re.compile(r"\b(?:loss|grad(?:ient)?s?(?:_norm)?) (?:is|are|became) (?:nan|inf)\b", re.I)),
)
_SIG_PREFILTER = re.compile(
    r"hipBLASLt|is required for a normal|mark a variable ready|loss scale already|Watchdog|[NR]CCL|barrier|Traceback|"
    r"nan\b|inf\b|out of memory|OutOfMemory|ALLOC_FAILED|hipErrorOutOfMemory", re.I)

_RANK_PREFIX = re.compile(r"^\[(?:rank|default)(\d+)\]:\s?")
_DS_RANK = re.compile(r"\[Rank (\d+)\]")
_TQDM = re.compile(
    r"(?:^|[\s|:])(\d+)/(\d+) \[([\d:]+)<([\d:?]+)(?:,\s*([\d.]+|\?)\s*(s/it|it/s|s/step|step/s))?")
_TQDM_DESC = re.compile(r"^\s*([^|]*?):?\s*\d+%\|")
_DICT_KV = re.compile(r"""['"]([^'"]{1,80})['"]:\s*(?:'([^']*)'|"([^"]*)"|([^,}\s]+))""")
_OVERFLOW = re.compile(r"OVERFLOW!|[Oo]verflow detected|loss scale overflow!|Gradient overflow\.\s*Skipping step", re.I)
_OVERFLOW_SCALE = re.compile(r"Attempted loss scale: ([\d.]+)(?:, reducing to ([\d.]+))?")
_AMP_SCALE = re.compile(r"reducing loss scale to ([\d.e+]+)", re.I)
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

    # public -----------------------------------------------------------------
    def feed(self, line: str) -> list[Event]:
        try:
            return self._feed(line)
        except Exception:  # never let garbage out as an exception
            return []

    def feed_lines(self, lines: list[str]) -> list[Event]:
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

    # internals --------------------------------------------------------------
    def _feed(self, line: str) -> list[Event]:
        if not line:
            return []
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
        if _SIG_PREFILTER.search(seg):
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
        is_train = total == self.train_total and not desc
        data = {"bar": "train" if is_train else "other", "n": n, "total": total,
                "elapsed_s": parse_hms(m.group(3)), "remaining_s": parse_hms(m.group(4)) if "?" not in m.group(4) else None}
        if desc:
            data["desc"] = desc[:80]
        if not is_train:
            return None
        self.tqdm_step = n
        return Event("progress", n, rank=self._rank_of(seg, rank), total_steps=total, step_time_s=st, data=data)

    def _dict(self, seg: str, rank: int | None) -> Event | None:
        d = parse_dict_text(seg)
        if not d or not (_TRAIN_KEYS & d.keys()):
            return None
        epoch = num(d.get("epoch"))
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
                if name == "version-check":
                    data["requirement"] = m.group(1).rstrip(".,")
                    data["found"] = m.group(2).rstrip(".,")
                return Event("signal", self.last_step or None, rank=rank, data=data, line=seg[:2000])
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
