"""Why a run failed or hangs: the root cause from its logs (and config), with numbers.

`diagnose(paths, config=...)` reads each log with bounded work — the whole file when small; else the
first `HEAD_BYTES` and last `TAIL_BYTES` through the catalogue's keyword prefilter and the middle only
at a few sentinel literals — so a 100 MB log answers in about a second, and binary junk or a line
without end cannot break it (lines are cut at `LINE_CAP` characters around a hit).

The root cause is the first real failure in time across files and ranks: a signature of the highest
priority present (catalogue `root` > `weak` > `consequence`); benign lines are never the root while
anything else is there. Watchdog timeouts and launcher exits after another rank's error are named as
its consequences. Numbers come from the lines (OOM tried/total/free/allocated/reserved-but-
unallocated; watchdog SeqNum/op/ranks; host RAM) and, when a config sits beside the log (a rocm-tune
run directory's plan.json, LLaMA-Factory's training_args.yaml / trainer_state.json), from the
estimator: how much an OOM missed by and the smallest change from the plan that fits. The newest
`EVENT_TAIL` bytes also go through the parsers and alert engine of `attach` (a loss that collapsed to
0.0, an overflow streak, NaN in JSON logs). A live run without progress gets each rank's Python stack
(`live_stacks`: py-spy, or a faulthandler the process registered on SIGUSR2 — never a signal to a
process without that handler).

Pure: no torch at import; reads files (and, for a live PID only, /proc and py-spy).
"""

from __future__ import annotations

import functools
import os
import re
import shutil
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from typing import Any

from rocm_tune.core import codes as _codes
from rocm_tune.core.files import log_encoding
from rocm_tune.core.runs import catalogue as cat
from rocm_tune.core.runs.diagnose import arg_skew, enum_skew, name_skew
from rocm_tune.core.runs.watch.alerts import _gib  # one formatting of GiB/MiB for alerts and explain
from rocm_tune.core.runs.diagnose import exception_sources, kernel_platform, last_reading, library_warnings, refusals, resemble
from rocm_tune.core.runs.diagnose import swift_raises
from rocm_tune.core.runs.diagnose import memory_snapshot, silent_hang, teardown, traceback_anatomy
from rocm_tune.core.runs.diagnose.oom_advice import closest_model, oom_config_fix, oom_plan_fix
from rocm_tune.core.runs.watch.parsers import GIB, parse_oom, strip_ansi
from rocm_tune.core.runs.diagnose import arch_skew
from rocm_tune.core.runs.diagnose import version_facts
from rocm_tune.core.runs.diagnose import attention_owner, no_device   # e-hipfa
from rocm_tune.profiles import device_visibility as dvis   # e-hipfa
from rocm_tune.core.runs.diagnose import peer_waits   # e-rank
from rocm_tune.core.runs.diagnose import rank_exceptions   # e-peer2
from rocm_tune.core.runs.diagnose import guarded_imports, run_shapes   # e-new14
from rocm_tune.core.runs.diagnose import release_gates   # e-ver3
from rocm_tune.core.runs.diagnose import patched_forward   # e-new18
from rocm_tune.core.runs.diagnose import collective_sizes, garbage_index   # e-new15
from rocm_tune.core.runs.diagnose.runtime_skew import cuda_library_on_amd, hip_failure, runtime_skew
from rocm_tune.profiles import collective_causes as _cc
from rocm_tune.profiles import amd_errors as _amd   # e-hip4
from rocm_tune.profiles import rocm_builds as _rb   # e-new18
from rocm_tune.profiles import kernel_platform_fixes as kfx
from rocm_tune.profiles import launcher_exits as lx
from rocm_tune.profiles import run_endings

HEAD_BYTES = 1 * 2**20
TAIL_BYTES = 4 * 2**20
FULL_READ_MAX = 256 * 2**20      # above this only head and tail are read (line numbers of the tail unknown)
LINE_CAP = 4096                  # characters of one line looked at, either side of a hit
MAX_LINES = 20000                # distinct candidate lines examined per file
KEYWORD_SATURATION = 300         # a keyword seen this often in a region: its further lines are only counted
SATURATED_STRIDE = 16 * 2**10     # past KEYWORD_SATURATION hits, the next look is this far on
SENTINEL_HITS = 2000             # hits per sentinel examined in the middle of a huge log
EVIDENCE_MAX = 5
PRE_BYTES = 8192                 # bytes before a hit kept for the codes whose traceback says more (PRE_CODES)
PRE_CODES = frozenset({"oom", "python-exception", "host-oom-killed", "child-failed",
                       "import-name-mismatch",    # ex-rocm: where a signature mismatch was raised (an op build)
                       "json-decode-error",       # r3-misc: which reader met the malformed JSON (a config or data)
                       "permission-denied",       # e-cfg4: whether the EACCES was an exec of a script (subprocess)
                       "torch-build-lacks-backend",  # h7-ver: whose import reached the part the torch build lacks
                       "torch-compile-error",     # e-g4: which kernel (attention or not) did not fit the GPU
                       # e-hipfa: whose code (an attention library's, torch's) raised the GPU runtime error
                       "hip-invalid-device-function", "hip-runtime-error", "gpu-memory-fault", "cuda-error"})


# ------------------------------------------------------------------------------ hits
@dataclass
class Hit:
    code: str
    file: str
    file_index: int
    offset: int
    line: int | None
    rank: int | None
    time: float | None
    text: str
    context: str                 # the line and a few after it (multi-line messages)
    fix: str | None = None       # a fix specific to this run (from the alert engine's view of the series)
    pre: str = ""                # what the log said just before (a traceback's frames), for the codes in PRE_CODES
    own_time: bool = True        # `time` is this line's own timestamp (False: the nearest earlier line's)


@dataclass
class FileScan:
    path: str
    size: int
    hits: list[Hit]
    last_progress: int           # offset of the last progress/step line (-1: none)
    finished: bool
    partial: bool                # the middle was only sampled (huge file)
    lines: int | None
    head_text: str               # the first lines (config/command discovery)
    # the newest error-like lines (resemble.error_lines): (offset, line number or None, time, text), for the fallback
    error_lines: list[tuple[int, int | None, float | None, str]] = field(default_factory=list)
    # e-host2: the launcher's teardown records (first failure, other ranks' rows, its own kills) in the log's tail
    ends: teardown.Teardown = field(default_factory=teardown.Teardown)
    # e-fall: the log's text for the last reading (last_reading.py): the whole log up to READING_BYTES, else its
    # head and its tail
    text: str = ""


_RANK_RX = (re.compile(r"^\[(?:rank|default)(\d+)\]:"), re.compile(r"\[(?:[^\]]{0,40} )?Rank (\d+)\]"),
            re.compile(r"\[RANK:(\d+)\]"), re.compile(r"\blocal_rank:? (\d+)"), re.compile(r"\brank(?: |: ?|=)(\d+)\b"),
            re.compile(r"^\S+:\d+:\d+ \[(\d+)\]"))
_TS = re.compile(rb"(20\d\d)-(\d\d)-(\d\d)[ T_](\d\d):(\d\d):(\d\d)(?:[,.](\d{1,6}))?")
_PROGRESS = (b"it/s]", b"s/it]", b"'loss':", b'"loss":', b"s/step]")
# r4-swift, e-cons (issue 26): what a run prints only once it ended well (the sources: profiles/run_endings.py)
_FINISHED = run_endings.FINISHED


def _rank(text: str) -> int | None:
    for rx in _RANK_RX:
        m = rx.search(text)
        if m:
            try:
                r = int(m.group(1))
            except ValueError:
                continue
            if r < 1 << 20:
                return r
    return None


def _time_of(raw: bytes, last: bool = True) -> float | None:
    """The timestamp in `raw`: a line's own is its first; the nearest before a line is the last."""
    m = None
    for m in _TS.finditer(raw):  # noqa: B007 - m after the loop is the first (or the last) stamp
        if not last:
            break
    if m is None:
        return None
    try:
        y, mo, d, h, mi, s = (int(x) for x in m.groups()[:6])
        frac = m.group(7)
        t = datetime(y, mo, d, h, mi, s, tzinfo=timezone.utc).timestamp()
        return t + (int(frac) / 10 ** len(frac) if frac else 0.0)
    except (ValueError, OverflowError):
        return None


def _decode(b: bytes) -> str:
    s = b.decode("utf-8", "replace")
    if "\x1b" in s:
        s = strip_ansi(s)
    return s.replace("\x00", "")


class _Scanner:
    def __init__(self, data: bytes, name: str, index: int, tail_unknown_from: int | None = None):
        self.data = data
        self.name = name
        self.index = index
        self.seen: set[int] = set()
        self.hits: list[Hit] = []
        self.examined = 0
        self.tail_unknown_from = tail_unknown_from

    def _bounds(self, pos: int) -> tuple[int, int]:
        d = self.data
        lo = max(0, pos - LINE_CAP)
        s = d.rfind(b"\n", lo, pos) + 1 if pos else 0
        if s == 0 and lo > 0:
            s = lo
        hi = min(len(d), pos + LINE_CAP)
        e = d.find(b"\n", pos, hi)
        if e < 0:
            e = hi
        return s, e

    def line_at(self, pos: int) -> bool:
        """Examine the line holding `pos` (once). False when the line budget is spent."""
        s, e = self._bounds(pos)
        if s in self.seen:
            return True
        self.seen.add(s)
        self.examined += 1
        if self.examined > MAX_LINES:
            return False
        raw = self.data[s:e]
        text = _decode(raw).rstrip()
        best = None
        for seg in text.split("\r") if "\r" in text else (text,):
            hit = cat.best_match(seg.strip())
            if hit is not None and (best is None or hit[0].priority > best[0].priority):
                best = (hit[0], hit[1], seg.strip())
        if best is None:
            return True
        sig, _, seg = best
        self.hits.append(self.hit_at(s, e, sig.code, seg))
        return True

    def hit_at(self, s: int, e: int, code: str, seg: str) -> Hit:
        """The hit of the line data[s:e] (its text `seg`) for `code`, with its context, time, rank and traceback."""
        raw = self.data[s:e]
        # a few following lines carry the rest of a wrapped message (torch 1.x OOM, tracebacks)
        ce = e
        for _ in range(4):
            if ce >= len(self.data) or ce - e > 2000:
                break
            nxt = self.data.find(b"\n", ce + 1, min(len(self.data), ce + 1 + LINE_CAP))
            ce = nxt if nxt >= 0 else min(len(self.data), ce + 1 + LINE_CAP)
        context = _decode(self.data[s:ce])
        t = _time_of(raw, last=False)
        own = t is not None
        if t is None:
            t = _time_of(self.data[max(0, s - 2048):s])
        pre = _decode(self.data[max(0, s - PRE_BYTES):s]) if code in PRE_CODES else ""
        return Hit(code, self.name, self.index, s, None, _rank(seg), t, seg[:2000], context[:4000], pre=pre,
                   own_time=own)

    def region(self, start: int, end: int, sentinels: Sequence[bytes] | None = None,
               per_sentinel: int | None = None) -> bool:
        """Examine every line of [start, end) holding a sentinel (a sentinel on every line, like a
        per-step warning, is sampled after KEYWORD_SATURATION lines). False when the budget is spent.
        Without `sentinels`: the catalogue's case-folded ones over a lower-cased copy of the region
        (same offsets: only ASCII letters change)."""
        if sentinels is None:
            low = self.data[start:end].lower()
            return self._region(low, 0, end - start, cat.SCAN_FOLDED, per_sentinel, start)
        return self._region(self.data, start, end, sentinels, per_sentinel, 0)

    def _region(self, d: bytes, start: int, end: int, sentinels: Sequence[bytes], per_sentinel: int | None,
                shift: int) -> bool:
        for s in sentinels:
            i = d.find(s, start, end)
            n = 0
            while i >= 0:
                n += 1
                if per_sentinel is not None and n > per_sentinel:
                    break
                if n <= KEYWORD_SATURATION or n % 7 == 0:
                    if not self.line_at(i + shift):
                        return False
                e = d.find(b"\n", i, end)
                if e < 0:
                    break
                # a sentinel on every line (a per-step warning, the loss dicts): past saturation, sample it
                # every SATURATED_STRIDE bytes instead of walking each occurrence
                i = d.find(s, e if n < KEYWORD_SATURATION else e + SATURATED_STRIDE, end)
        return True

    def number_lines(self) -> None:
        d = self.data
        prev, n = 0, 0
        for h in sorted(self.hits, key=lambda h: h.offset):
            if self.tail_unknown_from is not None and h.offset >= self.tail_unknown_from:
                continue
            n += d.count(b"\n", prev, h.offset)
            prev = h.offset
            h.line = n + 1


def _utf16(head: bytes) -> str | None:
    """The UTF-16 codec a log's first bytes show (core/files.log_encoding: a mark, or a NUL every other byte)."""
    codec = (log_encoding(head, final=True) or ("utf-8", 0))[0]
    return None if codec == "utf-8" else codec


def utf16_as_utf8(data: bytes, encoding: str | None = None) -> bytes:
    """A log written as UTF-16 (Windows PowerShell's `>` and Out-File: with a byte-order mark; some tools without:
    core/files.log_encoding) as the UTF-8 the rules read; any other bytes unchanged. `encoding`: the UTF-16 of a
    tail that has no start of its own."""
    found = (encoding, 0) if encoding else log_encoding(data, final=True) or ("utf-8", 0)
    if found[0] == "utf-8":
        return data
    body = data[found[1]:]
    return body[: len(body) & ~1].decode(found[0], "replace").encode("utf-8")


def _read_bounded(path: str) -> tuple[bytes, int, int | None]:
    """(bytes, size, tail_unknown_from): the file, or its head + tail when it is huge; a UTF-16 log as UTF-8."""
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        if size <= FULL_READ_MAX:
            return utf16_as_utf8(f.read(FULL_READ_MAX + 1)), size, None
        head = f.read(HEAD_BYTES)
        f.seek(max(0, size - TAIL_BYTES) & ~1)   # even: a UTF-16 tail starts on a character
        tail = f.read(TAIL_BYTES)
    enc = _utf16(head)
    head, tail = utf16_as_utf8(head), utf16_as_utf8(tail, enc) if enc else tail
    data = head + b"\n" + tail
    return data, size, len(head) + 1


def read_stdin_bounded(stream) -> bytes:
    """All of stdin up to FULL_READ_MAX; beyond it the head and the last TAIL_BYTES."""
    buf = stream.read(FULL_READ_MAX + 1)
    if isinstance(buf, str):
        buf = buf.encode("utf-8", "replace")
    if len(buf) <= FULL_READ_MAX:
        return utf16_as_utf8(buf)
    head = buf[:HEAD_BYTES]
    tail = buf[-TAIL_BYTES:]
    while True:
        chunk = stream.read(TAIL_BYTES)
        if not chunk:
            break
        if isinstance(chunk, str):
            chunk = chunk.encode("utf-8", "replace")
        tail = (tail + chunk)[-TAIL_BYTES:]
    enc = _utf16(head)
    return utf16_as_utf8(head) + b"\n" + (utf16_as_utf8(tail[len(tail) & 1:], enc) if enc else tail)


def scan_bytes(data: bytes, name: str, index: int = 0, size: int | None = None,
               tail_unknown_from: int | None = None) -> FileScan:
    n = len(data)
    sc = _Scanner(data, name, index, tail_unknown_from)
    partial = False
    if n <= HEAD_BYTES + TAIL_BYTES:
        sc.region(0, n)
        tail_start = 0
    else:
        tail_start = n - TAIL_BYTES
        # the end first (where a failing log states its failure), then the start, then the middle sampled
        if sc.region(tail_start, n) and sc.region(0, HEAD_BYTES) and tail_unknown_from is None:
            sc.region(HEAD_BYTES, tail_start, cat.SENTINELS, SENTINEL_HITS)
        partial = True
    # set-up lines are a hang's sign only at the very end of the log (nothing substantive after them)
    sc.hits = [h for h in sc.hits if h.code not in cat.END_ONLY or n - h.offset <= END_ONLY_BYTES]
    # r5-run: the JIT-extension step is a stale-lock wait only when the build/load never went on after it
    sc.hits = [h for h in sc.hits if h.code != "torch-extension-lock-wait"
               or not any(data.find(m, h.offset) >= 0 for m in _EXT_WENT_ON)]
    sc.hits += _traceback_end_hits(sc)
    series, ended = _series_hits(data, name, index)
    sc.hits += series
    if not any(cat.BY_CODE[h.code].priority >= 2 for h in sc.hits):
        sc.hits += _library_warning_hits(sc)
    sc.number_lines()
    last = -1
    for p in _PROGRESS:
        last = max(last, data.rfind(p, tail_start))
    total = data.count(b"\n") if tail_unknown_from is None else None
    lines = None if total is None else total + (1 if data and not data.endswith(b"\n") else 0)
    head_text = _decode(data[:65536])
    errs = [(off, None if total is None else total - data.count(b"\n", off) + 1,
             _time_of(data[off:off + len(text.encode("utf-8", "replace"))], last=False), text)
            for off, text in resemble.error_lines(data)]
    finished = ended or any(data.find(p, tail_start) >= 0 for p in _FINISHED) or \
        _saved_after_full_bar(data, tail_start, max((e[0] for e in errs), default=-1))
    ends = teardown.parse(_decode(data[-TEARDOWN_BYTES:]), max(0, n - TEARDOWN_BYTES))
    text = _decode(data) if n <= READING_BYTES else _decode(data[:READING_BYTES // 8]) + "\n" + \
        _decode(data[n - READING_BYTES * 7 // 8:])
    return FileScan(name, size if size is not None else n, sc.hits, last, finished, partial, lines, head_text, errs,
                    ends, text)


def _traceback_end_hits(sc: _Scanner) -> list[Hit]:
    """e-peer2 (issue 26): the exception line ending a traceback that no rule read (any class: `Exception: msg`, a
    bare `AssertionError` behind a worker's prefix, `torch._dynamo.exc.Unsupported: ...`), as the catch-all's hit:
    a rank's own failure, which the other ranks' waits follow from (rank_exceptions.py)."""
    if rank_exceptions.rx.TRACEBACK_HEAD not in sc.data:
        return []
    known = {h.offset: h for h in sc.hits}
    out = []
    for off, text, head in rank_exceptions.traceback_ends(sc.data):
        e = sc.data.find(b"\n", off)
        if off not in known and text.rstrip().endswith(":"):
            # a message that starts on the next lines (Paddle's `EnforceNotMet: ` then `  Nccl error, ...`; spawn's
            # `ProcessRaisedException: ` then `-- Process 3 terminated ...`): its first line read with the class
            text += " " + next((ln.strip() for ln in _decode(sc.data[e + 1:e + 1 + LINE_CAP]).splitlines()[:3]
                                if ln.strip()), "") if e >= 0 else ""
        h = known.get(off) or sc.hit_at(off, len(sc.data) if e < 0 else e, cat.GENERIC, _decode(text.encode()).strip())
        # the traceback is printed at once when raised: its `Traceback` line's own stamp is the exception's time
        t = _time_of(sc.data[head:sc.data.find(b"\n", head)], last=False)
        if t is not None and not h.own_time:
            h.time, h.own_time = t, True
        if off not in known:
            out.append(h)
    return out


def _library_warning_hits(sc: _Scanner) -> list[Hit]:
    """e-benign (issue 26): in a log where no rule found a cause, the lines that are one of the training libraries'
    own warnings (diagnose/library_warnings.py: transformers, peft, trl, accelerate, DeepSpeed, torch, bitsandbytes,
    read from their sources) — printed bare by transformers' and accelerate's default handlers, behind a rank or a
    progress bar: harmless lines the log is then explained by, as a harmless-warning."""
    hit_at = {h.offset for h in sc.hits}
    out: list[Hit] = []
    # latin-1: one character per byte, so the offsets are the log's own
    found = library_warnings.find(sc.data.decode("latin-1"))
    if not found or not _went_on_after(sc.data, found[-1][0]):
        return out   # a log that stops at a warning (no line after it) is not explained by it: a stop, not harmless
    for off, _line, _warned in found:
        if off in hit_at:
            continue
        s, e = sc._bounds(off)
        raw = sc.data[s:e]
        text = _decode(raw).strip()
        t = _time_of(raw, last=False)
        own = t is not None
        if t is None:
            t = _time_of(sc.data[max(0, s - 2048):s])
        out.append(Hit("harmless-warning", sc.name, sc.index, s, None, _rank(text), t, text[:2000], text[:4000],
                       own_time=own))
    return out


def _went_on_after(data: bytes, start: int) -> bool:
    """Something follows the line at `start`: the program went on past it (a step, a loss line, more output)."""
    e = data.find(b"\n", start)
    return e >= 0 and bool(data[e:].strip())


_BAR = re.compile(run_endings.BAR)
_SAVED_AFTER_BAR = re.compile(run_endings.SAVED_AFTER_BAR)


def _saved_after_full_bar(data: bytes, start: int, last_error: int) -> bool:
    """e-cons (issue 26): every progress bar in the log's tail ended (its last state 100 %, n/n: the training loop,
    evaluation, loading) and a trainer's save comes after the last of them, with no error-like line after it
    (profiles/run_endings.py): the run ended well. A loop still short of its total (the training bar at 40 % under an
    evaluation's 100 %) is a run that stopped inside it."""
    last_state: dict[bytes, bool] = {}
    end = None
    for m in _BAR.finditer(data, start):
        done = m.group(1) == b"100" and m.group(2) == m.group(3) and m.group(3) != b"0"
        last_state[m.group(3)] = done
        end = m if done else None
    if end is None or last_error > end.start() or not all(last_state.values()):
        return False
    return _SAVED_AFTER_BAR.search(data, end.end()) is not None


TEARDOWN_BYTES = 256 * 2**10    # e-host2: the tail of a log read for the launcher's teardown records
READING_BYTES = 512 * 2**10      # e-fall: the text of a log the last reading looks at (head and tail beyond it)
END_ONLY_BYTES = 4096            # cat.END_ONLY signs count only this close to the end of the log
# r5-run: what torch's cpp_extension prints once it holds the build lock (it builds, or loads what was built)
_EXT_WENT_ON = (b"Loading extension module", b"Time to load", b"No modifications detected", b"Building extension module",
                b"Emitting ninja build file")
EVENT_TAIL = 512 * 2**10         # the newest part of a log whose loss series the alert engine reads
_SERIES_CODES = {"loss-collapse": "loss-collapse", "nan-loss": "nan-loss", "nan-grad-norm": "nan-loss",
                 "fp16-overflow-streak": "fp16-overflow-streak"}
_DTYPE = re.compile(r"compute dtype:\s*(torch\.\w+|None|\w+)")


def _series_hits(data: bytes, name: str, index: int) -> tuple[list[Hit], bool]:
    """What only the series of steps shows (a loss that collapsed to 0.0, an overflow streak, NaN in
    structured logs): the newest EVENT_TAIL bytes through the parsers and the alert engine that
    `attach` uses."""
    from rocm_tune.core.runs.watch.alerts import AlertEngine
    from rocm_tune.core.runs.watch.parsers import TextParser, llamafactory_parser, metrics_parser

    start = max(0, len(data) - EVENT_TAIL)
    if start:
        start = data.find(b"\n", start) + 1 or len(data)
    lines = _decode(data[start:]).splitlines()
    first = next((ln.strip() for ln in lines if ln.strip()), "")
    parser: Any
    if first.startswith("{") and '"type"' in first:
        parser = metrics_parser()
    elif first.startswith("{") and '"current_steps"' in first:
        parser = llamafactory_parser()
    else:
        parser = TextParser()
    try:
        events = parser.feed_lines(lines)
    except Exception:   # the parsers never raise; belt and braces for a diagnosis tool
        return [], False
    ended = any(e.kind == "end" and e.get("status") in (None, "finished", "completed") for e in events)
    eng = AlertEngine()
    m = _DTYPE.search(_decode(data[:65536]))
    if m:
        eng.compute_dtype = m.group(1)
    out: list[Hit] = []
    for a in eng.feed_many(events):
        code = _SERIES_CODES.get(a.code)
        if code is None:
            continue
        ev = (a.evidence or "")[:300]
        off = data.find(ev[:200].encode("utf-8", "replace"), start) if ev else -1
        off = off if off >= 0 else start
        s = data.rfind(b"\n", 0, off) + 1
        out.append(Hit(code, name, index, s, None, None, _time_of(data[max(0, s - 2048):off + 1]), ev, ev,
                       fix=a.fix if code == "loss-collapse" else None))
    return out, ended


def scan_file(path: str, index: int = 0) -> FileScan:
    data, size, tuf = _read_bounded(path)
    return scan_bytes(data, path, index, size, tuf)


# ------------------------------------------------------------------------------ config
@dataclass
class ConfigInfo:
    path: str | None = None                      # the file the numbers came from (reported as `config`)
    plan: Mapping[str, Any] | None = None        # plan.json (rocm-tune run dir)
    train: Mapping[str, Any] | None = None       # LLaMA-Factory / HF training arguments (YAML)
    state: Mapping[str, Any] | None = None       # trainer_state.json
    output_dir: str | None = None
    run_dir: str | None = None
    from_log: bool = False                       # the training YAML was the log itself (a pasted config)
    world: int | None = None                     # `world size: N` in the log (LLaMA-Factory, torchrun)
    texts: list[str] = field(default_factory=list)   # the config files beside the log / --config, as text
    files: list[str] = field(default_factory=list)   # their paths

    def knob(self, *names: str):
        rec = (self.plan or {}).get("recommended") if isinstance(self.plan, Mapping) else None
        for src in (self.train, rec):
            if isinstance(src, Mapping):
                for n in names:
                    if src.get(n) is not None:
                        return src[n]
        return None


_WORLD = re.compile(r"(?:world size|world_size|WORLD_SIZE)\s*[:=]\s*(\d{1,7})\b")
_TRAIN_NAMES = ("training_args.yaml", "train.yaml", "llamafactory.yaml", "config.yaml")
_YAML_IN_CMD = re.compile(r"(?:llamafactory-cli|lmf|axolotl\.cli\.train|accelerate launch|swift sft)\S*\s+(?:train\s+|export\s+)?"
                          r"(\S+\.ya?ml)\b")


def find_config(log_paths: Sequence[str], run_dir: str | None = None, output_dir: str | None = None,
                config_path: str | None = None, head_texts: Sequence[str] = ()) -> ConfigInfo:
    """The config beside the logs: plan.json, the training YAML, trainer_state.json, or a YAML named
    on the log's command line."""
    from rocm_tune.core.files import try_read_json, try_read_yaml

    info = ConfigInfo(run_dir=run_dir, output_dir=output_dir)
    dirs: list[str] = []
    for d in (run_dir, output_dir, *(os.path.dirname(os.path.abspath(p)) for p in log_paths if p != "-")):
        if d and d not in dirs and os.path.isdir(d):
            dirs.append(d)
    for d in dirs:
        p = os.path.join(d, "plan.json")
        if info.plan is None and os.path.isfile(p):
            plan = try_read_json(p)
            if isinstance(plan, dict) and isinstance(plan.get("recommended"), dict):
                info.plan, info.path = plan, p
    _read_beside(info, dirs, config_path, log_paths)
    cands = [config_path] if config_path else []
    cands += [os.path.join(d, n) for d in dirs for n in _TRAIN_NAMES]
    cands += [f for f in info.files if f.endswith((".yaml", ".yml")) and f not in cands]
    for text in head_texts:
        for m in _YAML_IN_CMD.finditer(text[:65536]):
            cands.append(m.group(1))
    for p in cands:
        if p and os.path.isfile(p):
            y = try_read_yaml(p)
            if isinstance(y, dict) and y and not {"zero_optimization", "train_micro_batch_size_per_gpu"} & set(y):
                info.train = y
                info.path = info.path or p
                break
    for d in dirs:
        p = os.path.join(d, "trainer_state.json")
        if info.state is None and os.path.isfile(p):
            st = try_read_json(p)
            if isinstance(st, dict):
                info.state = st
                info.path = info.path or p
    if info.output_dir is None:
        od = info.knob("output_dir")
        if isinstance(od, str):
            info.output_dir = od
    for text in head_texts:
        for m in _WORLD.finditer(text[:65536]):
            w = int(m.group(1))
            if 0 < w <= 1 << 20:
                info.world = max(info.world or 0, w)
    if info.train is None:
        for text in head_texts:
            y = _yaml_config_text(text)
            if y:
                info.train, info.from_log = y, True
                break
    return info


BESIDE_EXT = (".yaml", ".yml", ".json", ".sh", ".slurm", ".sbatch", ".toml", ".cfg", ".txt")
# e-ver4: also the package lists a user keeps beside the log (requirements.txt, pip freeze / conda list dumps)
_TXT_CONFIG = re.compile(r"arg|config|cmd|command|launch|setting|param|run|train|script|requirement|freeze|pip[-_.]|"
                         r"conda|environment|packages|versions", re.I)
BESIDE_MAX_FILES = 12
BESIDE_MAX_BYTES = 256 * 1024
_NOT_CONFIG = ("trainer_state.json", "plan.json", "case.json", "metrics.jsonl", "exit.json")


def _read_beside(info: ConfigInfo, dirs: Sequence[str], config_path: str | None,
                 log_paths: Sequence[str] = ()) -> None:
    """The small config-like files beside the log (YAML, DeepSpeed JSON, launch scripts) and --config, as
    text: what they show decides which levers are on and what a truncated log's cause likely was."""
    paths = [config_path] if config_path else []
    for d in dirs:
        try:
            names = sorted(os.listdir(d))[:2000]
        except OSError:
            continue
        paths += [os.path.join(d, n) for n in names if n.endswith(BESIDE_EXT) and n not in _NOT_CONFIG
                  and not n.startswith(("log", "stdout", "stderr"))
                  and (not n.endswith(".txt") or _TXT_CONFIG.search(n))]
    logs = {os.path.abspath(p) for p in log_paths if p != "-"}
    paths = [p for p in dict.fromkeys(paths) if os.path.abspath(p) not in logs]
    for p in paths[:BESIDE_MAX_FILES]:
        try:
            if not os.path.isfile(p) or os.path.getsize(p) > BESIDE_MAX_BYTES:
                continue
            with open(p, "rb") as f:
                info.texts.append(_decode(f.read(BESIDE_MAX_BYTES)))
            info.files.append(p)
        except OSError:
            continue


def _yaml_config_text(text: str) -> dict | None:
    """A training YAML pasted as the 'log' (LLaMA-Factory keys), else None."""
    if "model_name_or_path:" not in text or ("finetuning_type:" not in text and "stage:" not in text):
        return None
    from rocm_tune.core.runners.llamafactory import parse_text    # the one LLaMA-Factory reader

    try:   # files.load_yaml's limits: a hostile config beside the log is no answer, never a crash
        y = parse_text(text)
    except Exception:  # noqa: BLE001
        return None
    return y if isinstance(y, dict) and "model_name_or_path" in y else None


# ------------------------------------------------------------------------------ numbers
def _g1(n: float) -> str:
    return f"{n / GIB:.1f}"


def oom_numbers(text: str) -> dict:
    """tried/total/free/allocated/reserved-but-unallocated from an OOM message and the verdict:
    fragmentation (the reserved-but-free memory could have held the request) vs a real shortage."""
    d = parse_oom(text.replace("\n", " ")) or {}
    out: dict[str, Any] = {k: v for k, v in d.items() if v is not None}
    ru = out.get("reserved_unallocated_bytes")
    if ru is None and out.get("reserved_bytes") is not None and out.get("allocated_bytes") is not None:
        ru = max(0, out["reserved_bytes"] - out["allocated_bytes"])
        out["reserved_unallocated_bytes"] = ru
    tried, free, total = out.get("tried_bytes"), out.get("free_bytes"), out.get("total_bytes")
    if tried is not None and ru is not None:
        # the reserved-but-free memory could have held the request and is a real share of the GPU: the
        # caching allocator's split blocks are the problem (a few MiB of slack on a full GPU is not)
        # the reserved-but-free memory could have held the request: fragmentation when that is a real
        # share of the GPU (a few MiB of slack on a full GPU is a shortage that fragmentation may add to)
        frag = ru >= tried and (ru > 0.05 * total if total else ru >= GIB)
        if tried > 0 and ru >= tried and not frag:
            out["may_fragment"] = True
        out["verdict"] = "fragmentation" if frag else "shortage"
    if tried is not None and free is not None:
        out["short_by_bytes"] = max(0, tried - free)
    return out


def _oom_sentence(n: Mapping[str, Any], on: set[str] | frozenset = frozenset()) -> str:
    bits = []
    if n.get("tried_bytes") is not None:
        bits.append(f"tried to allocate {_gib(n['tried_bytes'])}")
    if n.get("total_bytes") is not None:
        bits.append(f"{_gib(n.get('free_bytes'))} free of {_gib(n['total_bytes'])}")
    if n.get("allocated_bytes") is not None:
        bits.append(f"{_gib(n['allocated_bytes'])} allocated by PyTorch")
    if n.get("reserved_unallocated_bytes") is not None:
        bits.append(f"{_gib(n['reserved_unallocated_bytes'])} reserved but unallocated")
    s = "; ".join(bits)
    if n.get("verdict") == "fragmentation":
        s += " — may be fragmentation: the reserved-but-unallocated memory could have held the request"
        if "expandable_segments" not in on:
            s += ("; set PYTORCH_HIP_ALLOC_CONF=expandable_segments:True (ROCm) / "
                  "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True")
    elif n.get("verdict") == "shortage" and n.get("may_fragment"):
        s += (" — mostly a real shortage; the reserved-but-unallocated memory could have held the request, so "
              "fragmentation may add to it")
    elif n.get("verdict") == "shortage":
        s += " — a real shortage (not fragmentation): the step needs more memory than the GPU has"
    return s


def _sub(d: Mapping[str, Any], key: str) -> dict:
    v = d.get(key)
    return v if isinstance(v, dict) else {}


def _host_ram_numbers(text: str, cfg: ConfigInfo | None) -> dict:
    out: dict[str, Any] = {}
    m = re.search(r"used = ([\d.]+) GB, percent = ([\d.]+)%", text)
    if m:
        used, pct = float(m.group(1)), float(m.group(2))
        out["host_used_bytes"] = int(used * GIB)
        out["host_used_percent"] = pct
        if pct > 0:
            out["host_total_bytes"] = int(used * GIB * 100 / pct)
    if cfg is not None and cfg.plan is not None:
        mem = _sub(cfg.plan, "memory")
        need = mem.get("cpu_offload_bytes")
        hw = _sub(cfg.plan, "hardware")
        if isinstance(need, int):
            out["offload_need_bytes"] = need
        if isinstance(hw.get("cpu_ram_bytes"), int) and "host_total_bytes" not in out:
            out["host_total_bytes"] = hw["cpu_ram_bytes"]
    if "host_total_bytes" not in out and cfg is not None and (cfg.run_dir or cfg.output_dir):
        import psutil

        try:
            out["host_total_bytes"] = int(psutil.virtual_memory().total)
            out["host_total_source"] = "this machine (/proc/meminfo)"
        except (psutil.Error, OSError, ValueError):
            pass
    return out


def _host_ram_sentence(n: Mapping[str, Any]) -> str:
    tot = n.get("host_total_bytes")
    if "host_used_bytes" in n:
        s = f"host RAM {_g1(n['host_used_bytes'])} GiB used ({n['host_used_percent']:g}%)"
        s += f" of {_g1(tot)} GiB" if tot else ""
    elif tot:
        s = f"host RAM {_g1(tot)} GiB" + (f" ({n['host_total_source']})" if n.get("host_total_source") else "")
    else:
        s = ""
    if "offload_need_bytes" in n:
        need = n["offload_need_bytes"]
        o = f"the plan's CPU offload needs {_g1(need)} GiB of pinned host memory per node"
        if tot:
            o += f" ({need / tot * 100:.0f}% of it" + (": too much)" if need > 0.8 * tot else ")")
        s = f"{s}; {o}" if s else o
    return s


def _dir_size(path: str, max_files: int = 20000) -> int:
    from rocm_tune.core.memory.checkpoint_size import dir_bytes

    return dir_bytes(path, limit_files=max_files)


def _disk_numbers(cfg: ConfigInfo | None) -> dict:
    out: dict[str, Any] = {}
    if cfg is None:
        return out
    od = cfg.output_dir
    limit = cfg.knob("save_total_limit")
    if isinstance(limit, int) and not isinstance(limit, bool):
        out["save_total_limit"] = limit
    if od and os.path.isdir(od):
        import glob

        cks = sorted(glob.glob(os.path.join(glob.escape(od), "checkpoint-*")))[-5:]
        sizes = [_dir_size(c) for c in cks if os.path.isdir(c)]
        if sizes:
            out["checkpoint_bytes"] = max(sizes)
            out["checkpoints"] = len(cks)
        try:
            out["free_bytes"] = int(shutil.disk_usage(od).free)
            out["output_dir"] = od
        except OSError:
            pass
    if "checkpoint_bytes" not in out and cfg.plan is not None:
        model = _sub(cfg.plan, "model")
        mem = _sub(cfg.plan, "memory")
        rec = _sub(cfg.plan, "recommended")
        params = model.get("params_total")
        if isinstance(params, int):
            lora = rec.get("method") in ("lora", "qlora")
            hw = _sub(cfg.plan, "hardware")
            world = (hw.get("gpus") or 1) * (hw.get("nodes") or 1)
            if lora:
                tw = mem.get("trainable_weights_bytes") or 0
                out["checkpoint_bytes"] = int(tw * 7)   # adapter + fp32 master/Adam m, v
            else:
                out["checkpoint_bytes"] = int(params * 2 + params * 12)   # bf16 weights + fp32 Adam states
            out["checkpoint_source"] = f"estimated from the plan ({'LoRA adapter' if lora else 'full weights'} + " \
                                       f"optimizer states over {world} rank(s))"
    if "checkpoint_bytes" in out:
        k = (out.get("save_total_limit") or 0) + 1 if out.get("save_total_limit") else None
        if k:
            out["needed_bytes"] = out["checkpoint_bytes"] * k
    return out


def _disk_sentence(n: Mapping[str, Any]) -> str:
    bits = []
    if "checkpoint_bytes" in n:
        s = f"each checkpoint {_g1(n['checkpoint_bytes'])} GiB"
        if "needed_bytes" in n:
            s += (f" x (save_total_limit {n['save_total_limit']} + 1 being written) = {_g1(n['needed_bytes'])} GiB")
        bits.append(s)
    if "free_bytes" in n:
        bits.append(f"{_g1(n['free_bytes'])} GiB free now in {n.get('output_dir')}")
    if "save_total_limit" not in n and "checkpoint_bytes" in n:
        bits.append("no save_total_limit: every checkpoint is kept")
    return "; ".join(bits)


# code -> (regex, the fields its groups fill, how each group is read): the numbers a line carries
_FIELDS: dict[str, tuple[tuple[str, tuple[str, ...], Any], ...]] = {
    "slurm-time-limit": ((r"DUE TO ([A-Z ]+?)\s*(?:\*|$)", ("reason",), lambda g: g.strip().lower()),
                         (r"JOB (\d+)", ("job",), str)),
    "template-error": ((r"Template (\S+) does not exist", ("template",), str),),
    "dataset-error": ((r"Undefined dataset (\S+) in (\S+?)\.?$", ("dataset", "dataset_info"), str),),
    "missing-package": ((r"No module named '?([\w.]+)", ("module",), str),),
    "rocblas-no-tensile-arch": ((r"GPU arch ?: ?(gfx\w+)", ("arch",), str),),
}


def _line_numbers(code: str, text: str) -> dict:
    """Numbers a single signature's line carries."""
    out: dict[str, Any] = {}
    if code == "collective-timeout":
        for key, rx in (("seq", r"SeqNum=(\d+)"), ("op", r"OpType=(\w+)"), ("timeout_ms", r"Timeout\(ms\)=(\d+)"),
                        ("ran_ms", r"ran for (\d+) milliseconds")):
            m = re.search(rx, text)
            if m:
                out[key] = int(m.group(1)) if m.group(1).isdigit() else m.group(1)
    elif code == "version-check-failed":
        pair = cat.requirement_found(text)
        if pair:
            out["requirement"], out["found"] = pair
    elif code == "zero-world-size-mismatch":
        m = cat.BY_CODE[code].match(text)
        if m:
            out["saved_world_size"], out["current_world_size"] = int(m.group(1)), int(m.group(2))
    elif code in _FIELDS:
        for rx, keys, conv in _FIELDS[code]:
            m = re.search(rx, text)
            if m:
                out.update(zip(keys, (conv(g) for g in m.groups())))
    elif code == "unrecognized-model-type":
        m = re.search(r"Unrecognized model in (\S+?)\.?\s+Should", text)
        if m:
            path = m.group(1).rstrip(".")
            out["path"] = path
            if os.path.isdir(path):
                out["is_adapter"] = os.path.isfile(os.path.join(path, "adapter_config.json")) and \
                    not os.path.isfile(os.path.join(path, "config.json"))
    elif code == "deepspeed-batch-mismatch":
        m = re.search(r"(\d+) != (\d+) \* (\d+) \* (\d+)", text)
        if m:
            tb, mb, ga, ws = (int(x) for x in m.groups())
            out.update(train_batch_size=tb, micro_batch=mb, grad_accum=ga, world_size=ws)
    elif code == "child-failed":
        m = re.search(r"exitcode:? *:? *(-?\d+)", text) or re.search(r"return code = (-?\d+)", text)
        if m:
            out["exit_code"] = int(m.group(1))
    return out


# ------------------------------------------------------------------------------ the answer
@dataclass
class Diagnosis:
    code: str
    family: str
    severity: str
    benign: bool
    role: str
    title: str
    first: Hit
    evidence: list[Hit]
    count: int
    cause: str
    fix: str
    confirm: str
    numbers: dict = field(default_factory=dict)
    consequence_of: int | None = None

    def to_dict(self) -> dict:
        f = self.first
        return {"code": self.code, "family": self.family, "severity": self.severity, "benign": self.benign,
                "role": self.role, "title": self.title,
                "first_seen": {"file": f.file, "line": f.line, "rank": f.rank, "time": f.time},
                "count": self.count,
                "evidence": [{"file": h.file, "line": h.line, "rank": h.rank, "time": h.time if h.own_time else None,
                              "text": h.text} for h in self.evidence],
                "cause": self.cause, "fix": self.fix, "confirm": self.confirm, "numbers": _jsonable(self.numbers),
                "consequence_of": self.consequence_of}


def _jsonable(v):
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, float) and v != v:
        return None
    return v


@dataclass
class Explanation:
    status: str                       # failed | hang | finished | running | unknown
    root: int | None
    diagnoses: list[Diagnosis]
    config: str | None
    files: list[str]
    partial: bool = False
    stacks: list[dict] | None = None   # live stack dumps (a running process), None when not taken
    # the log ends on an error-like line no rule named (after every diagnosis' lines): its harmless lines cannot be
    # called the whole story ("NCCL INFO Call to connect returned Connection refused, retrying" as the last line)
    unnamed_end: bool = False
    # e-fall: the last reading's answer for a log with no root and no failure at all (benign_warning), else None
    reading: str | None = None

    @property
    def exit_code(self) -> int:
        return 1 if self.status in ("failed", "hang") else 0

    @property
    def answer(self) -> str:
        """The family `explain` answers: the root cause's; with no root cause, `benign_warning` where the log's
        only signs are harmless lines or the log shows the run finishing (the answer "no failure found; these lines
        are harmless" — never a root), else `unknown`. e-relabel (FAMILIES.md amended rule 4): the hipBLASLt
        fallback warning with the run going on is benign_warning like any harmless line; hipblaslt_warning is only
        the root that says the run died at it (hipblaslt-unsupported-raised)."""
        if self.root is not None:
            return self.diagnoses[self.root].family
        if self.reading is not None:
            return self.reading
        # h8-cfgerr (issue 26): a run the log shows finishing, with no cause found, had no failure — whatever scary
        # lines it printed (ones no rule names, or a retry that only matters when the log ends on it)
        if self.status == "finished" or \
                self.status not in ("failed", "hang") and self.diagnoses and all(d.benign for d in self.diagnoses) \
                and not self.unnamed_end:
            return "benign_warning"
        return "unknown"

    def to_dict(self) -> dict:
        root = self.diagnoses[self.root].to_dict() if self.root is not None else None
        return {"status": self.status, "root": root, "root_index": self.root, "answer": self.answer,
                # e-unk2: the answer is the weak tier's guess by resemblance (no rule read the log)
                "guess": bool(root and root["code"] == resemble.CODE_WEAK),
                "diagnoses": [d.to_dict() for d in self.diagnoses],
                "config": self.config, "files": list(self.files), "partial": self.partial,
                "stacks": self.stacks}


def _earlier(a: Hit, b: Hit) -> int:
    """-1 when a happened before b: by time when both have one, else by file order and offset."""
    if a.time is not None and b.time is not None and a.time != b.time:
        return -1 if a.time < b.time else 1
    ka, kb = (a.file_index, a.offset), (b.file_index, b.offset)
    return -1 if ka < kb else (1 if ka > kb else 0)


def _where_it_stopped(sc: FileScan) -> list[Hit]:
    """The scan's hits, less the signs that count only where the run stopped (a barrier and nothing after)
    when progress or an error of its own came later in the same log, or the run finished: the run went on past
    them."""
    last_error = max((h.offset for h in sc.hits if not cat.BY_CODE[h.code].tail_only
                      and cat.BY_CODE[h.code].priority >= 2), default=-1)
    out = []
    for h in sc.hits:
        if h.code == cat.GENERIC and (_ignored_by_python(h.text, h.pre)
                                     or (sc.finished and h.offset < sc.last_progress)):
            # h7-hip: an exception no rule explains that Python itself reports as ignored (`Exception ignored in:`,
            # `Error in atexit._run_exitfuncs:`), or that the run went past to finish (a retried download, a
            # logger's `ERROR:` note): it stopped nothing
            out.append(replace(h, code="warning-level-note"))
        elif not (cat.BY_CODE[h.code].tail_only and (h.offset < sc.last_progress or h.offset < last_error
                                                     or sc.finished)):
            out.append(h)
        elif (note := _harmless_reading(h.text)) is not None:
            # h7-hip: a line the run went past is at most the harmless note its words also are (torch's `using GPU 0
            # to perform barrier as devices ... are currently unknown` in a run that trained): a finished log then
            # answers "harmless" rather than "unknown"
            out.append(replace(h, code=note))
    return out


_IGNORED_BY_PYTHON = re.compile(r"Exception ignored in\b|Error in atexit\._run_exitfuncs")


def _ignored_by_python(text: str, pre: str) -> bool:
    """The line is CPython's header of an exception it ignored (a __del__, a weakref callback, an atexit handler),
    or the traceback this exception ends is one: the header right above its `Traceback` line says so."""
    if _IGNORED_BY_PYTHON.search(text):
        return True
    tb = pre.rfind("Traceback (most recent call last):")
    return tb >= 0 and bool(_IGNORED_BY_PYTHON.search(pre[max(0, tb - 400):tb]))


def _harmless_reading(text: str) -> str | None:
    """The benign signature a line the run went past also matches, if any; else, for a line its logger printed at
    warning level (c10's `[W ...]`, glog's `W0101`, `WARNING`, `NCCL WARN`), the warning-level note."""
    note = next((s.code for s, _m in cat.match_line(text) if s.benign), None)
    if note is None and _WARN_LEVEL.search(text):
        note = "warning-level-note"
    return note


# e-benign (issue 26): the scale a dynamic loss scaler reports after an overflow — DeepSpeed runtime/fp16/
# loss_scaler.py (`OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 65536, reducing to 32768`), apex amp
# scaler.py (`Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 32768.0`)
_SCALE_TO = re.compile(r"reducing (?:loss scale )?to:?\s*(\d+(?:\.\d*)?(?:[eE][+-]?\d+)?)")


def _scale_numbers(hits: Sequence[Hit]) -> dict:
    """The lowest loss scale the skipped steps' lines report (absent when they report none)."""
    scales = [float(m.group(1)) for h in hits if (m := _SCALE_TO.search(h.text))]
    return {"lowest_scale": min(scales)} if scales else {}


WARNINGS_NAMED = 3


def _warnings_named(hits: Sequence[Hit]) -> list[dict]:
    """e-benign: the library warnings (library, the file that prints it, its words) harmless lines are, distinct, the
    first few."""
    out: list[dict] = []
    for h in hits[:50]:
        w = library_warnings.warning_of(h.text)
        if w is not None and not any(x["warning"] == w.template for x in out):
            out.append({"library": w.library, "source": w.source, "warning": w.template})
            if len(out) >= WARNINGS_NAMED:
                break
    return out


def _diagnoses_of(by_code: dict[str, list[Hit]], config: ConfigInfo | None) -> list[Diagnosis]:
    """One diagnosis per code seen, from its earliest hit, with the numbers its lines carry."""
    diags: list[Diagnosis] = []
    for code, hits in by_code.items():
        sig = cat.BY_CODE[code]
        # one hit per line: two of a code's patterns matching the same line are one piece of evidence
        hits = list({(h.file_index, h.offset): h for h in reversed(hits)}.values())[::-1]
        hits.sort(key=functools.cmp_to_key(_earlier))
        first = hits[0]
        nums = _line_numbers(code, first.context.replace("\n", " ") if code == "deepspeed-batch-mismatch"
                             else first.text)
        if code == "fp16-overflow-skip":
            nums = _scale_numbers(hits)
        if code == "oom":
            nums = oom_numbers(first.context)
        elif code in ("host-ram-nearly-full", "host-oom-killed", "slurm-oom-kill"):
            nums = _host_ram_numbers(first.text, config)
        elif code == "disk-full":
            nums = _disk_numbers(config)
        elif code == "collective-timeout":
            ranks = sorted({h.rank for h in hits if h.rank is not None})
            nums["ranks"] = ranks
        if sig.benign and (named := _warnings_named(hits)):
            nums["warnings"] = named
        d = Diagnosis(code, sig.family, sig.severity, sig.benign, sig.role, sig.title, first, hits[:EVIDENCE_MAX],
                      len(hits), sig.cause, first.fix or sig.fix, sig.confirm, nums)
        diags.append(d)
    return diags


def explain_scans(scans: Sequence[FileScan], config: ConfigInfo | None = None, alive: bool | None = None,
                  exit_info: tuple[int | None, int | None, str] | None = None) -> Explanation:
    """Diagnoses from scanned logs: group hits by code, pick the root, name consequences, add numbers.
    exit_info: (exit code, signal, where it was recorded) of the run's process when known — a SIGKILL
    there is a host-RAM diagnosis even when the log holds no line about it."""
    by_code: dict[str, list[Hit]] = {}
    if exit_info is not None:
        ecode, esig, where = exit_info
        if esig == 9 or ecode in (137, -9):
            how = f"signal {esig}" if esig else f"exit code {ecode}"
            by_code["host-oom-killed"] = [Hit("host-oom-killed", where, len(scans), 0, None, None, None,
                                              f"the training process ended by SIGKILL ({how}), recorded in {where}", "")]
    seen: set[tuple[str, int, int]] = set()
    for sc in scans:
        for h in _where_it_stopped(sc):
            key = (h.code, h.file_index, h.offset)
            if key in seen:
                continue   # the same line found by the scan and by the series
            seen.add(key)
            by_code.setdefault(h.code, []).append(h)
    ends = teardown.merged([sc.ends for sc in scans])
    _drop_launcher_kills(by_code, ends)
    _sigbus_of_a_shm_user(by_code, [sc.head_text for sc in scans] + list(config.texts if config is not None else ()))
    _unequal_collective(by_code)
    if "loss-collapse" in by_code and "rl-loss-zero" in by_code and \
            not any(_NAN_TEXT.search(h.text) for h in by_code["loss-collapse"]):
        del by_code["loss-collapse"]   # an RL trainer's loss of 0.0 with finite gradients: its normal start
    if "loss-collapse" in by_code:
        _collapse_by_precision(by_code, [sc.head_text for sc in scans] + list(config.texts if config else ()))
    diags = _diagnoses_of(by_code, config)
    _memory_snapshot(diags, scans)
    if not any(_priority(d) >= 2 for d in diags):
        asked = _requested_op_not_built(scans)
        if asked is not None:
            diags.append(asked)
    if config is not None and config.from_log and not any(d.first and cat.BY_CODE[d.code].priority >= 2 for d in diags):
        risk = _config_risk(config, scans)
        if risk is not None:
            diags.append(risk)
    # order: by time of first sight
    diags.sort(key=functools.cmp_to_key(lambda a, b: _earlier(a.first, b.first)))
    _promote_overflow_streak(diags, any(sc.finished for sc in scans))
    root = run_shapes.refused_install_root(diags, _choose_root(scans, diags), _earlier)   # e-new14
    if root is not None:
        r = diags[root]
        for i, d in enumerate(diags):
            if i != root and not d.benign:
                d.consequence_of = root
        if r.code == "child-failed" and (first := ends.first()) is not None:
            r.numbers.update(first_exit=first.code, first_rank=first.rank if first.rank is not None
                             else first.local_rank)
        _refine(r, diags, root, config, levers_on(scans, config, r),
                [sc.head_text for sc in scans] + list(config.texts if config is not None else ()) + [r.first.pre])
    finished = any(sc.finished for sc in scans) or _state_finished(config)
    root = _by_resemblance(scans, diags, root, finished or bool(alive))
    if root is not None:
        _name_the_raiser(diags, root)
    status = "unknown"
    if root is not None:
        status = "hang" if cat.BY_CODE.get(diags[root].code, None) is not None and cat.BY_CODE[diags[root].code].hang \
            else "failed"
        if diags[root].code == "config-memory-risk":
            status = "unknown"
    elif finished:
        status = "finished"
    elif alive:
        status = "running"
    if alive and status == "failed" and root is not None and diags[root].code == "collective-timeout":
        status = "hang"
    exp = Explanation(status, root, diags, config.path if config else None, [s.path for s in scans],
                      any(s.partial for s in scans), unnamed_end=not finished and _ends_unnamed(scans, diags))
    if exp.answer == "unknown":
        _last_reading(exp, scans, config)
    if exp.answer == "unknown" and exp.root is None and not finished and not alive:
        _silent_multinode_hang(exp, scans, config)
    return exp


def _memory_snapshot(diags: list[Diagnosis], scans: Sequence[FileScan]) -> None:
    """e-hidden (issue 26, memory_snapshot.py): the user's `free` / `top` / /proc/meminfo snapshot showing the host's
    memory exhausted is a host-RAM diagnosis (weak: the other rules' causes, and a kill line, say more)."""
    if any(d.family == "host_ram_oom" for d in diags):
        return
    for i, sc in enumerate(scans):
        got = memory_snapshot.exhausted(sc.text)
        if got is None:
            continue
        off, line, left = got
        at = max(0, sc.size - len(sc.text[off:].encode("utf-8", "replace")))
        hit = Hit(memory_snapshot.CODE, sc.path, i, at, None, None, None, line, line, own_time=False)
        e = _codes.own(memory_snapshot.CODE)
        diags.append(Diagnosis(memory_snapshot.CODE, "host_ram_oom", e.severity, False, "weak", e.title, hit, [hit], 1,
                               e.cause, e.fix, e.confirm, {"host_ram_left_share": round(left, 3)}))
        return


def _silent_multinode_hang(exp: Explanation, scans: Sequence[FileScan], config: ConfigInfo | None) -> None:
    """e-hidden (issue 26, silent_hang.py): a job launched on two or more nodes whose ranks joined their process group
    and whose log then stops with nothing failing in it (no error line, no launcher exit, no kill) -> a collective
    hang, as a best reading."""
    if any(sc.error_lines or sc.ends.first() is not None for sc in scans):
        return
    texts = [sc.text or sc.head_text for sc in scans] + list(config.texts if config is not None else ())
    launch = silent_hang.silent_hang(texts)
    if launch is None:
        return
    sc = next((s for s in scans if launch in (s.text or s.head_text)), scans[0])
    off = max(0, (sc.text or sc.head_text).find(launch))
    hit = Hit(silent_hang.CODE, sc.path, scans.index(sc), off, None, None, None, launch, launch, own_time=False)
    e = _codes.own(silent_hang.CODE)
    exp.diagnoses.append(Diagnosis(silent_hang.CODE, "nccl_rccl_timeout_hang", e.severity, False, "weak", e.title, hit,
                                   [hit], 1, e.cause, e.fix, e.confirm, {"best_reading": True, "line": launch}))
    exp.root = len(exp.diagnoses) - 1
    exp.status = "hang"


def _after_progress(sc: FileScan) -> str:
    """The part of the scan's reading text after its last progress line (all of its tail when it has none)."""
    tail = sc.text[-65536:]
    if sc.last_progress < 0:
        return tail
    start = sc.size - len(sc.text.encode("utf-8", "replace")[-65536:])
    cut = sc.last_progress - start
    return tail if cut <= 0 else tail.encode("utf-8", "replace")[cut:].decode("utf-8", "replace")


def _last_reading(exp: Explanation, scans: Sequence[FileScan], config: ConfigInfo | None) -> None:
    """e-fall (issue 26): where every rule and the lexicon declined (the answer would be `unknown`), the last
    reading (last_reading.py): the GPU runtime's/library's name for the last failure, else the Python exception's
    class and frames; a log with no failure at all -> benign_warning naming its most prominent warning."""
    diags, root = exp.diagnoses, exp.root
    texts = [sc.head_text for sc in scans] + list(config.texts if config is not None else ())
    blob = "\n".join(texts + [sc.text[-65536:] for sc in scans])
    rocm, nvidia = bool(cat.ROCM_MARKERS.search(blob)), bool(_NVIDIA_MARKERS.search(blob))
    generic = diags[root] if root is not None and diags[root].code == cat.GENERIC else None
    found = [(sc, e) for sc in scans for e in sc.error_lines if e[0] > sc.last_progress]
    lines = [e[3] for _, e in found]
    h = exception_hit(generic) if generic is not None else None
    if h is not None:
        lines += [h.text]
    reading = last_reading.runtime_reading(lines, blob, rocm, nvidia)
    if reading is None:
        # the kernel driver's and the runtimes' lines that carry no error word (`amdgpu: GPU reset begin!`), in the
        # newest part of each log after its last progress
        tails = [ln for sc in scans for ln in _after_progress(sc).splitlines()[-400:]]
        reading = last_reading.runtime_reading(tails, blob, rocm, nvidia)
    if reading is None and h is not None and (fam := last_reading.exception_reading(h.text, _anatomy_of(h))):
        reading = last_reading.Reading(fam[0], last_reading.BEST + f"{fam[0]}, read from the exception's class and "
                                       f"where it was raised: {h.text.strip()[:160]}",
                                       "no rule of rocm-tune knows this exception; its class and the owners of its "
                                       "frames (the user's script, installed packages) give this reading", fam[1],
                                       h.text)
    if reading is not None:
        where = next(((sc, e) for sc, e in found if e[3] == reading.line), None)
        if where is not None:
            sc, (off, line_no, t, _) = where
            hit = Hit(last_reading.CODE, sc.path, scans.index(sc), off, line_no, _rank(reading.line), t, reading.line,
                      reading.line, own_time=t is not None)
        elif h is not None:
            hit = h
        else:
            return
        d = Diagnosis(last_reading.CODE, reading.family, "error", False, "weak", reading.title, hit, [hit], 1,
                      reading.cause, reading.fix, "read the line shown: this is a best reading, no rule confirms it",
                      {**reading.numbers, "best_reading": True, "line": reading.line})
        if generic is not None and root is not None:
            d.evidence = [hit] + [e for e in generic.evidence if e.text != hit.text][:EVIDENCE_MAX - 1]
            diags[root] = d
        else:
            diags.append(d)
            exp.root = len(diags) - 1
        exp.status = "failed"
        return
    if root is None and exp.status not in ("failed", "hang") and not exp.unnamed_end and \
            not any(sc.ends.first() is not None for sc in scans):
        warned = last_reading.warning_reading("\n".join(sc.text for sc in scans))
        if warned is not None:
            sc = scans[0]
            off = max(0, sc.text.find(warned.line))
            hit = Hit(last_reading.CODE_WARNING, sc.path, 0, off, None, _rank(warned.line), None, warned.line,
                      warned.line, own_time=False)
            diags.append(Diagnosis(last_reading.CODE_WARNING, "benign_warning", "info", True, "context", warned.title,
                                   hit, [hit], int(warned.numbers.get("count", 1)), warned.cause, warned.fix,
                                   "the log shows no failure; a later run that fails has its own log to explain",
                                   warned.numbers))
            exp.reading = "benign_warning"


def _name_the_raiser(diags: list[Diagnosis], root: int) -> None:
    """e-peer2 (issue 26): a root that is a rank's own exception, with the other ranks' waits or lost connections as
    its consequences: the answer says which rank raised what first, and that the waits follow from it."""
    r = diags[root]
    if not any(d.consequence_of == root and d.family == peer_waits.COLLECTIVE_FAMILY for d in diags):
        return
    hit = next((h for h in (r.first, *r.evidence) if rank_exceptions.is_exception_line(h.text)), None)
    if hit is None or not peer_waits.is_own_exception(hit.text):
        return
    rank = hit.rank if hit.rank is not None else rank_exceptions.spawned_rank(hit.pre)
    r.numbers["raised_first"] = {"rank": rank, "exception": rank_exceptions.exception_class(hit.text)}
    r.cause = rank_exceptions.said(rank, rank_exceptions.exception_class(hit.text)) + ". " + r.cause


_STILL_FAILING = re.compile(r"\b(?:refused|retrying|timed out|unreachable|failed|failure)\b", re.I)


def _ends_unnamed(scans: Sequence[FileScan], diags: list[Diagnosis]) -> bool:
    """A file that ends on a failing or retrying line no rule named, after every line a diagnosis read in it."""
    for i, sc in enumerate(scans):
        if not sc.error_lines:
            continue
        offset, _n, _t, text = sc.error_lines[-1]
        named = [h.offset for d in diags for h in (d.first, *d.evidence) if h.file_index == i]
        if offset > max(named, default=-1) and offset + len(text) >= sc.size - 2 and _STILL_FAILING.search(text):
            return True
    return False


def _choose_root(scans: Sequence[FileScan], diags: list[Diagnosis]) -> int | None:
    """The index of the root cause among the diagnoses (None when nothing is one): the first in time of the highest
    priority, the likely consequences only when nothing else of that priority is there."""
    root = None
    went_on = {i: sc.last_progress for i, sc in enumerate(scans)}
    # e-cfgerr (issue 26): the family the rules give a catch-all exception (read from its frames and words), so that
    # the surviving ranks' `remote process exited` / a reasonless Slurm cancel rank as the consequence of a rank that
    # raised its own error (a setting refused on rank 0), as they do for every other cause
    heads = [sc.head_text for sc in scans]
    own = {i: fam[0] for i, d in enumerate(diags)
           if d.code == cat.GENERIC and (fam := _exception_family(exception_hit(d), heads)) is not None}
    prio = _priorities(diags, any(sc.finished for sc in scans), went_on, own)
    # e-host2: the rank that failed first (killed for host memory, or raising its own error) over the other ranks'
    # collective lines
    teardown.collective_noise(diags, prio, own, teardown.merged([sc.ends for sc in scans]).first(), went_on,
                              _earlier, PRIORITY_OF["consequence"])
    # e-rank: the other ranks' waits for a peer (watchdog timeouts, store waits, connections the peer closed) under a
    # rank's own failure, whatever the text order
    peer_waits.demote_waits(diags, prio, own, went_on, exception_hit, cat.GENERIC, PRIORITY_OF["consequence"],
                            lambda h: _host_phase_before(h.pre))
    # e-peer2: an exception the run went past (a traceback logged and handled) is no cause of the waits after it
    peer_waits.handled_before_waits(diags, prio, went_on, cat.GENERIC, PRIORITY_OF["consequence"])
    ended = any(sc.finished for sc in scans)
    for d in diags:
        if (ended or _hang_warning_disproven(d, went_on) or _went_past(d, went_on)) and _warned_then_went_on(d):
            d.benign = True   # e-cfgerr: shown as the harmless advisory it turned out to be (e-gen: any warning;
            # e-cons: in a run that ended well, the warning it printed is what the user can let be)
    top = max(prio, default=0)
    if top > 0:
        # the first in time of the highest priority; a likely consequence (a peer that went away, a
        # bare exception) only when nothing else of that priority is there
        cands = [i for i, p in enumerate(prio) if p == top]
        root = min(cands, key=lambda i: (cat.SECONDARY.get(diags[i].code, 0), i))
    if root is not None and diags[root].code in cat.WARNING_CAUSES and any(sc.finished for sc in scans):
        root = None   # r3-misc: a warning that only may cause a failure did not: the run went on to finish
    return root


_SCRIPT_BUG = re.compile(r"(?:^|\s|\]:)(?:NameError|SyntaxError|IndentationError|TabError|UnboundLocalError)\b")


# ex-num (issue 26): what the surviving ranks print when a peer vanished (its process killed or crashed): the
# connection to it reset/closed/refused, NCCL's remote/system errors, a broken pipe
_PEER_LOSS = re.compile(r"Connection (?:reset|closed|refused)|remote process exited|ncclRemoteError|ncclSystemError|"
                        r"unhandled system error|Broken pipe|socketProgress|recv failed|Failed to recv|likely closed|"
                        r"Connection was|by (?:remote )?peer", re.I)


# e-cons (issue 26): what a rank prints while it waits in c10d's store for a key a peer never set (torch
# TCPStore.cpp/socket.cpp: `Socket Timeout`, `Timeout waiting for key: `, `store->get('...') got error: `,
# DistStoreError; distributed_c10d.py's `Waiting in store based barrier`): the peer is gone or stuck
_PEER_WAIT = re.compile(r"Socket Timeout|Timeout waiting for key|store->get\(|DistStoreError|"
                        r"[Ww]aiting in store based barrier")


# r4-hw (issue 26): Slurm's cancel line with no reason (`*** STEP 1.0 ON n1 CANCELLED AT <time> ***`, no `DUE TO`)
# is what slurmstepd prints when srun tears a step down after one of its tasks failed (or someone ran scancel):
# not a time limit, preemption or node failure, which Slurm names
_SLURM_REASON = re.compile(r"DUE TO |walltime|TERM_RUNLIMIT")


# r4-hw (issue 26): a line the program itself logged at warning level (NCCL/RCCL's `NCCL WARN`, Python logging's
# and vLLM's `WARNING`, glog's `W1121 10:22:11`, c10's `[W ...]` / `Warning:`): a trouble the program went on past
_WARN_LEVEL = re.compile(r"\bNCCL WARN\b|(?:^|[\s\]:|])WARNING\b(?!:?\s*(?:CUDA|HIP) error)|^\s*(?:\[rank\d+\]:)?"
                         r"\[?W\d{3,4} \d\d:\d\d|\[W [\w.]+:\d+\]")


def _warned_then_went_on(d: Diagnosis) -> bool:
    """Every line of the diagnosis is a warning-level line (the program said so and kept running)."""
    return bool(d.evidence) and all(_WARN_LEVEL.search(h.text) or run_shapes.fell_back(h.text)   # e-new14: a fallback
                                    for h in d.evidence)


# r4-swift (issue 26): ms-swift prints the traceback of a row it could not preprocess or encode and goes on, then
# says so in the next record (`👆👆👆There are errors in the dataset, the data will be deleted`, `... in the
# template.encode, and another piece of data will be randomly selected`): that exception was handled
_HANDLED_BY_RUNNER = re.compile(r"👆+ ?There are errors in ")


def _hang_warning_disproven(d: Diagnosis, progress: Mapping[int, int]) -> bool:
    """e-cfgerr (issue 26): a hang sign the program logged as a warning (RCCL's `NCCL WARN Missing "iommu=pt" ...
    can lead to system instability or hang!`) with the run's progress after it in the same log: the run did not hang
    there, the warning is an advisory (benign context) — a harmless library warning is never the root of a run that
    went on."""
    sig = cat.BY_CODE.get(d.code)
    return bool(sig is not None and sig.hang and d.evidence and
                all(progress.get(h.file_index, -1) > h.offset for h in d.evidence))


def _went_past(d: Diagnosis, progress: Mapping[int, int]) -> bool:
    """e-gen (issue 26): the run's progress (steps, losses, progress bars) comes after every line of the diagnosis in
    its log. With every line a warning-level record (`_warned_then_went_on`: NCCL's `NCCL WARN NET/IB : No device
    found.` on a node without InfiniBand, which falls back to sockets), the program said it was a warning and went on:
    the same reading `_hang_warning_disproven` gives hang advisories, for any warning — never the root."""
    return bool(d.evidence) and all(progress.get(h.file_index, -1) > h.offset for h in d.evidence)


def _handled_by_runner(d: Diagnosis) -> bool:
    return bool(d.evidence) and all(_HANDLED_BY_RUNNER.search(h.context) for h in d.evidence)


def _priorities(diags: list[Diagnosis], finished: bool = False,
                progress: Mapping[int, int] | None = None, own: Mapping[int, str] | None = None) -> list[int]:
    """Each diagnosis's priority for the root. ex-num: NCCL/RCCL errors that only say a peer went away are the
    surviving ranks' view of a rank that died of its own cause (SIGKILL by the OOM killer, a GPU OOM, a full disk):
    when such a cause from another family is in the log, they rank as consequences. r4-hw: likewise a Slurm
    cancel that names no reason is the teardown after the failed task's own cause; and in a run that finished,
    what was only logged as a warning did not stop it. r4-swift: exceptions the runner handled (it skipped the row
    and went on) are weak, and no cause at all of a run that finished."""
    prio = [0 if (finished or _hang_warning_disproven(d, progress or {}) or _went_past(d, progress or {}))
            and _warned_then_went_on(d) else _priority(d) for d in diags]
    for i, d in enumerate(diags):
        if prio[i] >= 2 and _handled_by_runner(d):
            prio[i] = 0 if finished else PRIORITY_OF["weak"]
    # e-host (issue 26): the reasonless Slurm cancel first, then the peers' NCCL errors, each against the causes still
    # standing: a Slurm cancel with no reason is never the cause that makes an NCCL error a consequence (both were
    # demoted by each other, leaving a bare `srun: error: ... Terminated` as the root)
    for fam, gone in (("slurm_time_limit_preemption", lambda h: not _SLURM_REASON.search(h.text)),
                      ("nccl_rccl_timeout_hang", lambda h: _PEER_LOSS.search(h.text))):
        if not any((own or {}).get(i, d.family) not in (fam, "unknown") and not d.benign and prio[i] >= 2
                   for i, d in enumerate(diags)):
            continue
        for i, d in enumerate(diags):
            if d.family == fam and prio[i] >= 2 and d.evidence and all(gone(h) for h in d.evidence):
                prio[i] = PRIORITY_OF["consequence"]
    for i, d in enumerate(diags):
        # e-src: the peers lost a rank that raised an exception of its own, which no rule named a family for
        if d.family == "nccl_rccl_timeout_hang" and prio[i] >= 2 and d.evidence and \
                all(_PEER_LOSS.search(h.text) or _PEER_WAIT.search(h.text) for h in d.evidence) and \
                _raised_before(diags, d, progress or {}):
            prio[i] = PRIORITY_OF["consequence"]
    for cause, symptom in _COLLECTIVE_SYMPTOM_OF.items():
        # e-g6: NCCL/RCCL's own status for a cause it named (`Duplicate GPU detected` -> ncclInvalidUsage, which torch
        # raises first as `DistBackendError: NCCL error in: ..., invalid usage` and names after `Last error:`)
        if any(d.code == cause for d in diags):
            for i, d in enumerate(diags):
                if d.family == "nccl_rccl_timeout_hang" and d.evidence and all(symptom.search(h.text)
                                                                               for h in d.evidence):
                    prio[i] = min(prio[i], PRIORITY_OF["consequence"])
    for cause, symptom in _SYMPTOM_OF.items():
        if not any(d.code == cause for d in diags):
            continue
        # e-relabel (FAMILIES.md amended rules 2 and 5): the GPU runtime's own report of what the cause did to it
        # is the cause's consequence
        for i, d in enumerate(diags):
            if d.family in ("hip_error", "cuda_error") and d.evidence and all(symptom.search(h.text)
                                                                               for h in d.evidence):
                prio[i] = min(prio[i], PRIORITY_OF["consequence"])
    return prio


# the collective's own exception (Paddle's `OSError: (External) Rccl error`, c10d's DistBackendError): not another cause
_COLLECTIVE_WORDS = re.compile(r"[NnRr]ccl|NCCL|RCCL|gloo|Gloo|c10d|ProcessGroup|DistBackend|DistNetwork|DistStore")


def _raised_before(diags: list[Diagnosis], d: Diagnosis, progress: Mapping[int, int]) -> bool:
    """e-src (issue 26): a Python exception no rule named a family for (the catch-all) raised before the lines of d (a
    peer gone: the connection reset, NCCL's remote error) and on another rank or in another file: the rank that raised
    it exited and the survivors lost it — torch elastic/c10d tear the group down after a worker's own exception. Its
    exception is the lead (read by the fallback), not the collective. e-rank: not an exception the run went on past
    (its progress after it in the same log): handled, it ended no rank."""
    for g in diags:
        if g.code != cat.GENERIC or g.benign or _CRASH.search(g.first.text):
            continue
        h = exception_hit(g)
        if progress.get(h.file_index, -1) > h.offset:
            continue
        if not (_EXC_CLASS.search(h.text) or rank_exceptions.is_exception_line(h.text)) or \
                _PEER_LOSS.search(h.text) or _COLLECTIVE_WORDS.search(h.text):
            continue
        if _earlier(h, d.first) < 0 and \
                (h.file_index != d.first.file_index or h.rank != d.first.rank or h.rank is None):
            return True
    return False


# e-relabel: a cause and the GPU runtime's lines that are only its symptom — no usable device after the device nodes
# refused this user (rocBLAS' `Could not initialize Tensile host: No devices found`), the device-side assert after
# the embedding lookup's own assert on a token id
_SYMPTOM_OF = {
    "gpu-device-permission": re.compile(r"No devices? found|No (?:HIP|CUDA) GPUs are available|hipErrorNoDevice|"
                                        r"no ROCm-capable device|no (?:compatible )?GPUs? (?:were )?(?:discovered|found|"
                                        r"detected)|hsa_init|HSA_STATUS_ERROR_OUT_OF_RESOURCES|hipInit|"
                                        r"hipGetDeviceCount", re.I),
    "token-id-past-embedding": re.compile(r"device-side assert|Assertion `|cuda runtime error \(59\)", re.I),
}


def _by_resemblance(scans: Sequence[FileScan], diags: list[Diagnosis], root: int | None, ended: bool) -> int | None:
    """explain's fallback when no rule reads the deciding line (no root, or only the catch-all exception whose
    family no rule decided) and the run did not finish: the family the log's newest error lines resemble in the
    fit corpus's lexicon (resemble.py), as a weak root `by-resemblance`, when one family wins clearly. Never over a
    rule's answer (a bare native crash the rules leave open included); never a harmless line (error_lines leaves
    them out)."""
    g = diags[root] if root is not None else None
    generic = g if g is not None and g.code == cat.GENERIC and g.family == "unknown" else None
    if (g is not None and generic is None) or (g is None and ended):
        return root
    if generic is not None and _CRASH.search(generic.first.text):
        return root   # a native crash without a message: the rules read it and left it open (no stack named)
    if generic is not None and _SCRIPT_BUG.search(generic.first.text):
        return root   # a programming error the rules left to the script (raised in installed code it is read as
        # the versions by the catalogue's rules): no family resembles a user's own bug
    found = [(sc, e) for sc in scans for e in sc.error_lines if e[0] > sc.last_progress   # the run went on past
             # the lines before its last step; e-src: with an exception as the lead, not the lines the rules read as
             # the other ranks' and the launcher's view of it (a collective timed out or lost its peer, a child failed)
             and not (generic is not None and _teardown_line(e[3], diags))]
    lines = [e[3] for _, e in found]
    if generic is not None and generic.first.text not in lines:
        lines.insert(0, generic.first.text)
    got = resemble.classify(lines)
    if got is not None and got[0] in _TEARDOWN_FAMILIES and generic is not None and \
            peer_waits.is_own_exception(exception_hit(generic).text):
        got = None   # e-peer2: a rank's own exception is the lead; the waits and teardown it caused are never its family
    # e-unk2: the weak tier, shown as a guess - only where explain would answer "unknown": never over a log whose
    # only signs are harmless lines it names and that does not end on an unnamed failing line (its answer is "no
    # failure found"; CV in benchmarks/explain_cv.py: a guess there was always wrong)
    # and never over the catch-all exception's root: a Python exception no rule reads stays itself, shown whole
    # (fit CV: the guesses over it were all wrong; most are a script's or a library's own bug)
    harmless = root is None and bool(diags) and all(d.benign for d in diags) and not _ends_unnamed(scans, diags)
    weak = resemble.guess(lines) if got is None and generic is None and not harmless else None
    if got is not None:
        family, confidence, line = got
    elif weak is not None:
        family, confidence, line = weak[:3]
    else:
        return root
    where = next(((sc, e) for sc, e in found if e[3] == line), None)
    if where is not None:
        sc, (off, line_no, t, _) = where
        hit = Hit(resemble.CODE, sc.path, scans.index(sc), off, line_no, _rank(line), t, line, line, own_time=t is not None)
    elif generic is not None:
        hit = generic.first
    else:
        return root
    if weak is not None:
        title, cause, fix, confirm = resemble.weak_texts(family, confidence, weak[3], line)
        d = Diagnosis(resemble.CODE_WEAK, family, "error", False, "weak", title, hit, [hit], 1, cause, fix, confirm,
                      {"guess": True, "resembles": family, "confidence": round(confidence, 2),
                       "known_cases": weak[3], "line": line})
    else:
        title, cause, fix, confirm = resemble.texts(family, confidence)
        d = Diagnosis(resemble.CODE, family, "error", False, "weak", title, hit, [hit], 1, cause, fix, confirm,
                      {"resembles": family, "confidence": round(confidence, 2), "line": line})
    if generic is not None and root is not None:
        d.evidence = [hit] + [h for h in generic.evidence if h is not hit][:EVIDENCE_MAX - 1]
        diags[root] = d
        return root
    diags.append(d)
    return len(diags) - 1


_TEARDOWN_FAMILIES = frozenset({"nccl_rccl_timeout_hang", "launcher_exit"})


_TEARDOWN_CODES = ("collective-timeout", "nccl-peer-gone", "child-failed")


def _teardown_line(line: str, diags: Sequence[Diagnosis]) -> bool:
    """A line one of the log's collective/launcher diagnoses reads (their rules, not only their first hits; a line
    the fallback cut short by its first characters), or torch's own words for a collective timeout, a lost peer or a
    failed child."""
    for code in _TEARDOWN_CODES:
        if cat.BY_CODE[code].match(line):
            return True
    for d in diags:
        sig = cat.BY_CODE.get(d.code)
        if sig is None or d.family not in _TEARDOWN_FAMILIES:
            continue
        if sig.match(line) or any(h.text[:200] == line[:200] for h in d.evidence):
            return True
    return False


_NAN_TEXT = re.compile(r"\b(?:nan|NaN|NAN|-?inf|Infinity)\b")
_PREC_DTYPE = re.compile(r"compute dtype:\s*torch\.(bfloat16|float16|float32)\b")
_PREC_ON = {p: re.compile(rf"(?:^|[\s'\"{{,-])(?:--)?{p}['\"]?(?:\s*[:=]\s*['\"]?(?:true|True|1)\b|\s+(?:true|True|1)\b|\s*\\?\s*$|\s+--|"
                          rf"\s*:\s*\{{\s*['\"]enabled['\"]\s*:\s*true)|mixed_precision['\"]?\s*[:= ]\s*['\"]?{p}\b",
                          re.M) for p in ("fp16", "bf16")}


def run_precision(texts: Sequence[str]) -> str | None:
    """fp16 | bf16 | fp32 | None: what the run computes in, from LLaMA-Factory's `compute dtype:` line, else the
    fp16/bf16 switches of its command line or config (`--bf16 True`, `bf16: true`, DeepSpeed's
    "fp16": {"enabled": true}, accelerate's mixed_precision); None when it cannot tell or both are on."""
    blob = "\n".join(texts)
    m = _PREC_DTYPE.search(blob)
    if m:
        return {"bfloat16": "bf16", "float16": "fp16"}.get(m.group(1), "fp32")
    on = {p for p, rx in _PREC_ON.items() if rx.search(blob)}
    if not on:   # explain-mem: Lightning / accelerate / autocast / torchtune spellings (see _FP16_EXTRA)
        on = {p for p, rx in (("fp16", _FP16_EXTRA), ("bf16", _BF16_EXTRA)) if re.search(rx, blob, re.M)}
    return on.pop() if len(on) == 1 else None if on else _swift_precision(blob)


# explain-3 (issue 26, third pass): ms-swift (and its `megatron sft`) derives mixed precision from --torch_dtype
# (swift/llm/argument/base_args/model_args.py _init_mixed_precision: bfloat16 -> bf16; float16 or float32 -> fp16)
# unless --fp16/--bf16 are given; elsewhere torch_dtype is only the load dtype and says nothing about training.
_SWIFT_RUN = re.compile(r"\b(?:swift|megatron) (?:sft|pt|rlhf)\b|\[(?:INFO|WARNING|ERROR):swift\]|swift/cli/")
_SWIFT_DTYPE = re.compile(r"--torch_dtype[= ]['\"]?(?:torch\.)?(bfloat16|float16|float32|bf16|fp16|fp32)\b|"
                          r"['\"]?torch_dtype['\"]?\s*[:=]\s*['\"]?torch\.(bfloat16|float16|float32)\b")


def _swift_precision(blob: str) -> str | None:
    """bf16 | fp16 | None: the mixed precision ms-swift derives from its --torch_dtype, for an ms-swift run only."""
    if not _SWIFT_RUN.search(blob):
        return None
    m = _SWIFT_DTYPE.search(blob)
    if not m:
        return None
    return "bf16" if (m.group(1) or m.group(2)) in ("bfloat16", "bf16") else "fp16"


def _collapse_by_precision(by_code: dict[str, list[Hit]], texts: Sequence[str]) -> None:
    """A loss of 0.0 with a NaN grad_norm is fp16 overflow only in an fp16 run: in a bf16 or fp32 run (whose range
    does not overflow) the gradients themselves turned NaN, so the same lines are a NaN loss (nan_loss).
    ex-num (issue 26): the same test as for a NaN loss (_fp16_in_use): with no sign of fp16 at all (no fp16 flag, no
    loss scaler, no GPU without bf16) the collapse is not read as an overflow either."""
    if run_precision(texts) not in ("bf16", "fp32") and _fp16_in_use("\n".join(texts)):
        return
    hits = by_code.pop("loss-collapse")
    by_code.setdefault("nan-loss", []).extend(Hit(**{**h.__dict__, "code": "nan-loss", "fix": None}) for h in hits)


# e-g6: a cause NCCL/RCCL names, and the library's status for it as the callers print it
_COLLECTIVE_SYMPTOM_OF = {
    "nccl-duplicate-gpu": re.compile(r"invalid usage|ncclInvalidUsage|NCCL_DEBUG=WARN for details|Duplicate GPU", re.I),
    # e-hidden: NCCL's other usage / version refusals (profiles/collective_causes.py), the status torch prints for them
    "nccl-launch-mismatch": re.compile(_cc.USAGE_STATUS, re.I),
    "nccl-version-skew": re.compile(_cc.USAGE_STATUS, re.I),
}


def _priority(d: Diagnosis) -> int:
    if d.benign:
        return 0
    return PRIORITY_OF.get(d.role, 2)


PRIORITY_OF = dict(cat.PRIORITY)
OVERFLOW_STREAK = 8      # skipped fp16 steps in one log that make an overflow the cause when nothing else is
# e-benign (issue 26): a streak that leaves the loss scale above 2^8 is the scaler calibrating: DeepSpeed starts at
# 2^initial_scale_power (16 by default, 32 in older configs) and apex at 2^16, halving once per skipped step, so a
# streak from a 2^32 start ends far above where a real overflow drives it (toward min_loss_scale, 1 by default)
CALIBRATED_SCALE = 2.0 ** 8


# r3-ver (issue 26): a SyntaxError's frame has no function (`File ".../x.py", line 512` then the source line):
# read as the function `<syntax>`, so the rules can tell installed code from the user's script
_FRAME = re.compile(r'File "([^"]+)", line \d+(?:, in (\S+)|\s*$)', re.M)
FRAMES_LOOKED_AT = 3
# explain-r2a (issue 26): the frames of a traceback IPython/Jupyter/Colab printed (`/x/y.py in f()`,
# `File /x/y.py:91, in f(...)`, `[/x/y.py](...) in f(...)`), in order with the plain ones
_NB_EXC_FRAME = re.compile(r'^(?:File )?\[?((?:/|~/|[A-Za-z]:\\)\S+?\.py)(?::\d+)?\]?(?:\([^)\n]*\))?,? in '
                           r'(?:[\w<>]+\.)*(\w+)\(', re.M)


def _last_frames(pre: str) -> list[tuple[str, str]]:
    """The last FRAMES_LOOKED_AT (path, function) frames of the traceback text, plain or notebook-printed."""
    found = [(m.start(), m.group(1), m.group(2) or "<syntax>") for m in _FRAME.finditer(pre)]
    found += [(m.start(), m.group(1), m.group(2)) for m in _NB_EXC_FRAME.finditer(pre)]
    return [(path, fn) for _, path, fn in sorted(found)][-FRAMES_LOOKED_AT:]


def _last_statement(pre: str) -> str:
    """The source line Python printed under the traceback's last `File "...", line N, in f` frame ('' if none)."""
    frames = list(_FRAME.finditer(pre))
    if not frames:
        return ""
    for line in pre[frames[-1].end():].splitlines()[1:4]:
        code = re.sub(r"^\s*(?:\[(?:rank|default)\d+\]:)?\s*", "", line)
        if code and not set(code) <= set("^~ "):
            return code
    return ""


_CRASH = re.compile(r"Segmentation fault|Fatal Python error|SIGSEGV|terminate called|core dumped|exit code 139|"
                    r"Aborted \(core dumped\)|"
                    # explain-rocm: the shells' own words for a child that crashed (zsh, job-control lines)
                    r"^(?:zsh|bash|sh): (?:segmentation fault|abort|illegal hardware instruction|bus error|IOT "
                    r"instruction)\b|^\[\d+\]\s+\d+ (?:segmentation fault|abort|illegal hardware instruction|bus error|"
                    r"IOT instruction)\b|"
                    # ex-rocm: Windows' native crash codes (access violation, illegal instruction, divide, stack
                    # overflow, fail-fast) as the Event Log, a crash handler or the exit code print them
                    r"(?i:\bexception code:?\s*0xc0000(?:005|01d|094|0fd|409)\b)|"
                    r"exit(?:ed with)? code:?\s*(?:-1073741819|3221225477|-1073741795|-1073741676|-1073740791)\b", re.M)


# e-gen (issue 26): the catch-all groups every line that reads as an error; its first may be a tool's banner (pytest's
# `____ ERROR collecting tests/x.py ____`, a logger's `ERROR ... Could not load torch`) printed before the exception it
# reports. The rules read the exception itself: the first of the hits that names a Python exception class.
_EXC_CLASS = re.compile(r"(?:^|[\s:\]])(?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception|Exit|Interrupt): ")


def exception_hit(d: Diagnosis) -> Hit:
    """The hit of a catch-all diagnosis that is the Python exception line (else its first hit)."""
    return next((h for h in (d.first, *d.evidence) if _EXC_CLASS.search(h.text)), None) or \
        next((h for h in (d.first, *d.evidence) if rank_exceptions.is_exception_line(h.text)), d.first)   # e-peer2


# e-skew2 (issue 26): the statement that raised a bare or worded AssertionError compares a release (`assert
# version.parse(torch.__version__) >= version.parse("2.2")`, `assert is_torch_version(">=", "2.1")`, packaging's
# Version, transformers' is_torch_greater_or_equal, `sys.version_info >= (3, 9)`): the installed release, not a value
_VERSION_ASSERT = re.compile(r"^assert\b.*(?:__version__|\bversion\.parse\(|\bparse_version\(|\bVersion\(|"
                             r"\bis_\w+_version\(|\bis_\w+_(?:greater|less)_or_equal\(|\bversion_info\b|"
                             r"\b(?:check_min_version|require_version)\()")


def _exception_family(h: Hit, texts: Sequence[str] = ()) -> tuple[str, str] | None:
    """(family, what to do) for the catch-all exception (_exception_rules); e-hip4: a message that refuses the card
    by its gfx is the ROCm stack's (or the attention kernels', or the build's with its arch list shown) where the
    rules would call it the user's settings (config_error); where no rule reads it the last reading does the same."""
    fam = _exception_rules(h, texts)
    if fam is not None and fam[0] == "config_error" and \
            (arch := last_reading.arch_refusal(h.text, "\n".join([h.pre[-6000:], *texts]))) is not None:
        return arch
    return fam


def _exception_rules(h: Hit, texts: Sequence[str] = ()) -> tuple[str, str] | None:
    """(family, what to do) for the catch-all exception: from its last traceback frames and its line,
    else from what its message is about; a crash without a message on a ROCm stack is the GPU runtime's."""
    frames = _last_frames(h.pre[-6000:])
    text = "\n".join(f"{p} {fn}" for p, fn in frames) + "\n" + h.text
    # e-gen8: the older releases' refusals after ms-swift's own raises (ms-swift copies TRL's checks word for word)
    refused = _runner_refusal(h.text, releases=False) or _swift_raise(h.text, (h.pre, *texts)) or \
        _runner_refusal(h.text)
    if refused is not None:
        return refused
    for rx, family, fix in cat.SHADOWING_RULES:    # a module of the user's taken for the package: before the borders
        if rx.search(h.text):
            return family, fix
    if (sourced := _sourced_family(h, frames, texts)) is not None:
        return sourced
    if (skew := traceback_anatomy.border_skew(_anatomy_of(h), h.text)) is not None:
        return skew   # e-ver3: installed code calling another release's API (the border between two packages)
    if _VERSION_ASSERT.search(_last_statement(h.pre[-6000:])) and re.search(r"\bAssertionError\b", h.text):
        return "version_check", ("an installed package asserted the release of a package it needs (the statement "
                                 "compares versions) and the installed one fails it: install the release the "
                                 "assertion asks for (the package's requirements pin it), or the release of the "
                                 "asserting package made for the installed one")
    for rx, family, fix in cat.EXCEPTION_RULES:
        if rx.search(text):
            return _unless_release(h, family, fix)
    if (embedding := _embedding_index_family(h)) is not None:
        return embedding
    statement = _last_statement(h.pre[-6000:])
    for srx, erx, family, fix in cat.STATEMENT_RULES:
        if statement and srx.search(statement) and erx.search(h.text):
            return family, fix
    if _CRASH.search(h.text):
        if any(cat.ROCM_MARKERS.search(t) for t in (h.pre, *texts)):
            return "hip_error", ("a native crash in the ROCm stack: use the PyTorch wheel built for the installed "
                                 "ROCm, check the GPU is supported (HSA_OVERRIDE_GFX_VERSION on consumer cards), and "
                                 "rerun with AMD_LOG_LEVEL=3 / AMD_SERIALIZE_KERNEL=3 to see the failing call")
        return _gpu_init_crash(h, texts)
    if _HANDLED_BY_RUNNER.search(h.context):
        # r4-swift: ms-swift itself says the row it was preprocessing/encoding had errors and skips it
        return "dataset_error", ("rows of the dataset fail ms-swift's preprocessing/template (the traceback above its "
                                 "`There are errors in ...` record names the row's problem): fix or drop those rows; "
                                 "if every row fails, check the dataset format against the model's template")
    msg = h.text.split(":", 1)[1] if ":" in h.text else h.text
    for rx, family, fix in cat.MESSAGE_RULES:
        if rx.search(msg):
            return _unless_release(h, family, fix)
    # e-ver3: where no rule read it, the traceback's anatomy (who raised it, and the message's shape)
    # e-peer2: else its class and who raised it (a config parser's class, a data reader's, the user's own raise)
    return _bare_assert_family(h) or traceback_anatomy.anatomy_family(_anatomy_of(h), h.text) or \
        rank_exceptions.class_family(_anatomy_of(h), h.text, h.pre[-6000:])


_ANATOMY_FRAMES = 16


def _unless_release(h: Hit, family: str, fix: str) -> tuple[str, str]:
    """e-ver3: a rule's config_error over installed code's refusal whose message gives the installed release as the
    reason (`not supported for this version of PEFT, please upgrade`) is the versions (FAMILIES.md amended rule 1)."""
    if family == "config_error" and (rel := traceback_anatomy.release_refusal(_anatomy_of(h), h.text)) is not None:
        return rel[0], rel[1] + "; " + fix
    return family, fix


def _anatomy_of(h: Hit) -> list[traceback_anatomy.Frame]:
    """e-ver3: the last frames of the exception's traceback with their owners (traceback_anatomy.py)."""
    pre = h.pre[-8000:]
    found = [(m.start(), m.group(1), m.group(2) or "<syntax>") for m in _FRAME.finditer(pre)]
    found += [(m.start(), m.group(1), m.group(2)) for m in _NB_EXC_FRAME.finditer(pre)]
    return traceback_anatomy.anatomy([(path, fn) for _, path, fn in sorted(found)][-_ANATOMY_FRAMES:])


def _sourced_family(h: Hit, frames: Sequence[tuple[str, str]], texts: Sequence[str]) -> tuple[str, str] | None:
    """e-g910: the family the raising code decides (exception_sources.py): transformers' attention reshape to a width
    the checkpoint does not have, FLA's TileLang backend, a CUDA-only package an option loads."""
    pre = h.pre[-12000:]
    return (exception_sources.width_skew(frames, _last_statement(pre[-6000:]), h.text)
            or exception_sources.fla_tilelang(pre, h.text)
            or exception_sources.cuda_only_package(h.text, [h.pre, h.context, *texts])
            or guarded_imports.family(h.text, pre, texts) or run_shapes.data_family(h.text, pre, texts))   # e-new14


def _embedding_index_family(h: Hit) -> tuple[str, str] | None:
    """e-swift2: torch.embedding's `index out of range in self`: the table is the one the model's last embedding call
    in the traceback names (token ids past the vocabulary, or positions past max_position_embeddings)."""
    if not cat.EMBEDDING_INDEX_ERROR.search(h.text):
        return None
    pre = h.pre[-6000:]
    best: tuple[int, str, str] | None = None
    for rx, family, fix in cat.EMBEDDING_INDEX_RULES:
        for m in rx.finditer(pre):
            if best is None or m.start() > best[0]:
                best = (m.start(), family, fix)
    return (best[1], best[2]) if best else None


_RELEASE_NAMED = re.compile(r"\d+\.\d+|\bversion\b|\b(?:upgrade|update|downgrade)\b", re.I)
# e-gen8: a runner's check saying the key (or value) the message opens with was retired, never two keys set together
_KEY_RETIRED = re.compile(r"^\s*(?:(?:Support for|The) )?[\w.\-*=:'\"`()\[\] ]{1,80}? (?:is|are|has been|have been|was) "
                          r"(?:deprecated|removed|no longer (?:valid|supported))\b(?!.*\b(?:both|together|combined)\b)",
                          re.I)


def _runner_refusal(line: str, releases: bool = True) -> tuple[str, str] | None:
    """e-src (issue 26): an exception whose message is one a runner raises while checking its arguments (refusals.py,
    from the runners' source): the run's settings, unless its words state a version requirement or a package to
    install (the message rules for those decide) or are about the tokenizer/template, whatever frames the log shows
    of it — before the frame rules, which read the words of a message (`data_collator`, `safetensors`) as the data
    or the download."""
    got = refusals.refusal_of(line, releases)
    if got is None:
        return None
    runner, path = got
    msg = line.split(":", 1)[1] if ":" in line else line
    for rx, family, fix in cat.EXCEPTION_RULES:
        if family in ("version_check", "missing_package") and rx.search(line):
            return family, fix   # its own words ask to install a package, or say the name was removed in a release
    for rx, family, fix in cat.MESSAGE_RULES:
        # a requirement on a release names one (`trl >= 0.20`, `0.7.0 or later`, `version`); `require vllm_mode ==
        # server` is one on a setting
        if family == "version_check" and not _RELEASE_NAMED.search(msg):
            continue
        if family in ("version_check", "missing_package", "tokenizer_template") and rx.search(msg):
            return family, fix
    if _KEY_RETIRED.search(msg):
        # e-gen8: FAMILIES.md, keys renamed between releases stay version_check: the check names a key/value the
        # installed release retired (`--batch-size argument is no longer valid, use --micro-batch-size instead`,
        # `push_to_hub_model_id is deprecated. Please use hub_model_id instead.`, `Support for kto_pair has been
        # removed in DPOTrainer`), not two settings set together
        return "version_check", (f"{runner} retired the setting the message names ({path}): the config was written "
                                 "for an older release; use the spelling the message gives (or the release the recipe "
                                 "was written for)")
    return "config_error", (f"{runner} refused the run's arguments while checking them ({path}): change the setting "
                            "the message names (or the combination of settings it rejects)")


def _swift_raise(line: str, texts: Sequence[str]) -> tuple[str, str] | None:
    """e-swift3 (issue 26): an exception whose message is one ms-swift raises in its template/dataset/model/trainer/
    infer code (swift_raises.py, from ms-swift's source), in a log that shows ms-swift (its logger's records, its
    frames, its CLI): the family its words and file give; one read as the settings yields to the message rules that
    see a release, a package to install or the tokenizer in its words. (ms-swift carries copies of peft's and
    transformers' code: the same words in another runner's log are that runner's, read by the other rules.)"""
    got = swift_raises.raise_of(line)
    if got is None or not any(swift_raises.SWIFT_MARK.search(t) for t in texts):
        return None
    family, path = got
    if family == "config_error":
        msg = line.split(":", 1)[1] if ":" in line else line
        for rx, fam, fix in cat.MESSAGE_RULES:
            if fam in ("version_check", "missing_package", "tokenizer_template") and rx.search(msg) and \
                    (fam != "version_check" or _RELEASE_NAMED.search(msg)):
                return fam, fix
    return family, f"{swift_raises.FIXES[family]} ({path})"


# explain-rocm (issue 26): what starts the GPU runtime (torch's lazy CUDA/HIP init, the runtimes' own init calls)
_GPU_INIT = re.compile(r"torch\.cuda\.(?:is_available|init|device_count|get_device_name|get_device_properties|"
                       r"current_device|set_device)\b|\b_lazy_init\b|torch\._C\._cuda_init|\b(?:hipInit|cuInit|hsa_init)\b")
_NVIDIA_MARKERS = re.compile(r"\b(?:NVIDIA|nvidia-smi|CUDA Version|GeForce|Tesla|libcuda\.so|libcudart|sm_\d{2,3}|"
                             r"\+cu\d{2,3}|cu\d{3}|A100|H100|H200|L40S?|RTX)\b")


def _gpu_init_crash(h: Hit, texts: Sequence[str]) -> tuple[str, str] | None:
    """A native crash (segfault/abort, no message) while the process was starting the GPU runtime — the command
    or the last frames are torch.cuda's init, nothing of the model has run: the GPU runtime/driver stack crashed.
    Which one is the platform's the log shows; without NVIDIA's marks it is ROCm's (the stack this tool serves)."""
    if not _GPU_INIT.search(h.pre[-3000:] + "\n" + h.context):   # the command before it, faulthandler's frames after
        return None
    if any(_NVIDIA_MARKERS.search(t) for t in (h.pre, *texts)):
        return "cuda_error", ("the CUDA driver/runtime crashed while starting: check the driver matches the CUDA "
                              "of the PyTorch wheel (nvidia-smi's CUDA Version >= torch.version.cuda) and reinstall "
                              "the driver")
    return "hip_error", ("the GPU runtime crashed while starting (HIP/HSA init): a ROCm runtime that does not match "
                         "the kernel driver or the GPU (nightly wheels and new APUs are the usual suspects); install "
                         "the PyTorch wheel for the installed ROCm or an earlier/later build, update the amdgpu "
                         "driver/firmware, and rerun with AMD_LOG_LEVEL=4 to see the last runtime call")


_BARE_ASSERT = re.compile(r"(?:^|\s|:)AssertionError\s*$")
_ASSERT_SRC = re.compile(r"^(?:\[(?:rank|default)\d+\]:)?\s*assert\b(.*)$", re.M)
_DATA_WORDS = re.compile(r"\b(?:input_ids|labels|attention_mask|dataset|sample|example|batch|messages|images?|pixel)",
                         re.I)


def _bare_assert_family(h: Hit) -> tuple[str, str] | None:
    """An AssertionError without a message: the `assert` line the traceback shows above it is a precondition
    the library puts on its inputs — on the data when it names them, else on the run's settings."""
    if not _BARE_ASSERT.search(h.text):
        return None
    src = _ASSERT_SRC.findall(h.pre[-2000:])
    if not src:
        return None
    if _DATA_WORDS.search(src[-1]):
        return "dataset_error", f"a check on the data failed (assert{src[-1]}): look at the sample it names"
    return "config_error", (f"a precondition on the run's settings failed (assert{src[-1]}): the model or option "
                            "this code path needs is not what the run configured")


def _promote_overflow_streak(diags: list[Diagnosis], finished: bool = False) -> None:
    """Many `Gradient overflow. Skipping step` lines and no other cause: fp16 overflow is the cause
    (each line alone is the loss scaler calibrating, a harmless sign)."""
    if finished or any(_priority(d) >= 2 for d in diags):
        return
    for d in diags:
        if d.numbers.get("lowest_scale", 0) > CALIBRATED_SCALE:
            continue   # e-benign: the scaler still finding its level from a high start, not a collapse
        if d.code == "fp16-overflow-skip" and d.count >= OVERFLOW_STREAK:
            d.benign, d.role, d.severity = False, "weak", "error"
            d.title = f"fp16 overflow on {d.count} steps: the loss scaler skipped them all"
            d.cause = ("fp16 gradients overflow step after step; each overflow skips the optimizer step and halves "
                       "the loss scale, so the model stops learning")
            d.fix = cat.BY_CODE["fp16-scale-collapsed"].fix


def _state_finished(cfg: ConfigInfo | None) -> bool:
    st = cfg.state if cfg else None
    if not isinstance(st, Mapping):
        return False
    g, m = st.get("global_step"), st.get("max_steps")
    return st.get("should_training_stop") is True or (isinstance(g, int) and isinstance(m, int) and m > 0 and g >= m)


# What the log or its config shows is already on: a fix never suggests it again.
_LEVER_RX: dict[str, re.Pattern] = {
    "gradient_checkpointing": re.compile(
        r"gradient_checkpointing['\"]?\s*[:=]\s*['\"]?(?:True|true|1)\b|--gradient_checkpointing(?:[ =](?:True|true|1))?"
        r"(?:\s|$)|`use_cache=True` is incompatible with gradient checkpointing|[Gg]radient checkpointing (?:is )?"
        r"(?:enabled|on)\b|activation_checkpointing['\"]?\s*[:=]\s*['\"]?(?:True|true)|enable_activation_checkpointing"
        r"['\"]?\s*[:=]\s*['\"]?(?:True|true)|--recompute[-_](?:granularity|activations)|torch\.utils\.checkpoint: the "
        r"use_reentrant parameter|None of the inputs have requires_grad=True|"
        # explain-mem: Unsloth's switch (use_gradient_checkpointing = "unsloth"), FSDP's in accelerate's config
        r"use_gradient_checkpointing['\"]?\s*[:=]\s*['\"]?(?:unsloth|True|true)\b|"
        r"fsdp_activation_checkpointing['\"]?\s*[:=]\s*['\"]?(?:True|true)", re.M),
    "expandable_segments": re.compile(r"expandable_segments\s*:\s*True"),
    "micro_batch_1": re.compile(
        r"(?:per_device_train_batch_size|train_micro_batch_size_per_gpu|micro_batch_size)['\"]?\s*[:= ]\s*['\"]?1\b"
        r"(?![.\d])|Instantaneous batch size per device = 1\b|"
        # explain-mem: Megatron-LM's flag, torchtune's recipe key, Unsloth's banner
        r"--micro[-_]batch[-_]size[ =]1\b|^\s*batch_size:\s*1\s*$|Batch size per device = 1\b", re.M),
    # explain-mem: FSDP's full sharding (accelerate's config, TrainingArguments' fsdp, torchtune's FSDP2 fully_shard)
    # is the same lever as ZeRO-3
    "zero3": re.compile(r"['\"]stage['\"]\s*:\s*3\b|zero_stage['\"]?\s*[:=]\s*3\b|ds_z3|zero3|ZeRO[- ]?3|[Ss]tage 3\b|"
                        r"FULL_SHARD|full_shard|fully_shard\b"),
    "offload": re.compile(r"offload_(?:optimizer|param)['\"]?\s*:\s*\{[^}]{0,80}['\"]device['\"]\s*:\s*['\"](?:cpu|nvme)|"
                          r"offload_(?:optimizer|param)_device['\"]?\s*[:=]\s*['\"]?(?:cpu|nvme)|z3_offload|_offload_config|"
                          # explain-mem: ms-swift's zero3-offload preset, FSDP's offload, Megatron's optimizer offload,
                          # and DeepSpeed's log line for the CPU optimizer it only builds when offloading
                          r"zero[23][-_]offload|fsdp_offload_params['\"]?\s*[:=]\s*['\"]?(?:True|true)|"
                          r"\bcpu_offload['\"]?\s*[:=]\s*['\"]?(?:True|true)|optimizer[-_]cpu[-_]offload|"
                          r"Basic Optimizer = DeepSpeedCPUAdam|"
                          # e-host: DeepSpeed's config dump (`zero_config .... offload_optimizer=DeepSpeedZeroOffload
                          # OptimizerConfig(device='cpu', ...)`; device='none' when off)
                          r"offload_(?:optimizer|param)=DeepSpeedZeroOffload\w*Config\(device='(?:cpu|nvme)'"),
}


_HINT = re.compile(r"try setting PYTORCH_\w+_ALLOC_CONF=\S+")


def levers_on(scans: Sequence[FileScan], cfg: ConfigInfo | None, r: Diagnosis | None = None) -> set[str]:
    """The memory levers the log's head, the root's traceback or the config beside the log show are on."""
    texts = [sc.head_text for sc in scans] + list(cfg.texts if cfg is not None else ())
    if r is not None:
        texts.append(r.first.pre)
    if cfg is not None and isinstance(cfg.train, Mapping):
        t = cfg.train
        if t.get("gradient_checkpointing") is True:
            texts.append("gradient_checkpointing: true")
        if str(t.get("per_device_train_batch_size")) == "1":
            texts.append("per_device_train_batch_size: 1")
    # PyTorch's own OOM hint ("try setting PYTORCH_..._ALLOC_CONF=expandable_segments:True") is not a setting
    blob = _HINT.sub("", "\n".join(texts))
    return {k for k, rx in _LEVER_RX.items() if rx.search(blob)}


# where an OOM outside the training step happened: a function name in its traceback, innermost first
_PHASES: tuple[tuple[str, re.Pattern], ...] = (
    ("pinned", re.compile(r"pin_memory|_pin_tensor|cpu_adam|DeepSpeedCPUAdam")),
    # explain-mem: merging LoRA into the base weights (PEFT, Unsloth's merged/GGUF export, LLaMA-Factory export)
    ("merge", re.compile(r"merge_and_unload|_merge_lora|merge_lora|_unload_and_optionally_merge|save_pretrained_merged|"
                         r"(?:push_to_hub|save_pretrained)_gguf|export_model")),
    ("save", re.compile(r"_save_checkpoint|save_model|save_pretrained|save_checkpoint|_save\b|consolidated_16bit|"
                        r"gather_16bit|get_state_dict|state_dict\b")),
    ("eval", re.compile(r"evaluat|prediction_step|prediction_loop|eval_step|validation_step")),
    ("generation", re.compile(r"\bgenerate\b|_sample\b|greedy_search|beam_search|profile_run")),
    ("step", re.compile(r"training_step|\bbackward\b|optimizer_step|\bstep\b|compute_loss|_inner_training_loop")),
    ("load", re.compile(r"from_pretrained|load_state_dict|_load_pretrained_model|load_checkpoint|partition_parameters|"
                        r"zero\.Init|_convert_to_zero_parameters|deepspeed\.initialize|_configure_optimizer|"
                        r"_setup_zero|prepare_model|load_model|\bto\b|\bcuda\b|_apply\b")),
)


_CALL = re.compile(r"\.(\w+)\(")


# IPython/Jupyter/Colab frames: `File /x/y.py:520, in MatMul4Bit.forward(ctx, ...)` and `[/x/save.py](...) in
# _merge_lora(layer, name)`, with the failing line marked `--> 177 ...` a few lines below
_NB_FRAME = re.compile(r'^(?:File )?\[?(/\S+?\.py)(?::\d+)?\]?(?:\([^)\n]*\))?,? in (?:\w+\.)*(\w+)\([^\n]*\n'
                       r'(?:(?!-+>)[^\n]*\n){0,8}?\s*-+>\s*\d+\s*([^\n]*)', re.M)


def _code_line(text: str, at: int) -> str:
    """The source line a Python traceback prints under a frame (`model.generate(...)` in a function named `run`);
    empty when the next line is another frame."""
    nl = text.find("\n", at)
    if nl < 0:
        return ""
    line = text[nl + 1:text.find("\n", nl + 1) if text.find("\n", nl + 1) >= 0 else len(text)]
    return "" if 'File "' in line else line


def _oom_phase(h: Hit) -> str | None:
    pre = h.pre[-8000:]
    frames = [(m.group(1), m.group(2), _code_line(pre, m.end())) for m in _FRAME.finditer(pre)]
    frames += _NB_FRAME.findall(pre)
    for path, fn, code in reversed(frames):
        # explain-mem: the method called on the frame's source line counts as much as the frame's own name
        called = " ".join(_CALL.findall(code))
        for phase, rx in _PHASES:
            if rx.search(fn) or (phase in ("pinned", "save") and rx.search(path)) or \
                    (phase != "load" and called and rx.search(called)):
                return phase
    return None


_ROCM_EXPANDABLE = ("on ROCm it takes effect only in PyTorch builds that enable it there (2.11+ built for ROCm 7.0 "
                    "or newer, pytorch/pytorch#177974, #179930); an older build prints 'expandable_segments not "
                    "supported on this platform' and ignores it, then max_split_size_mb:512 is the allocator lever")
_PHASE_FIX = {
    "save": ("out of memory while saving: ZeRO-3 gathers the full 16-bit weights on one GPU when "
             "stage3_gather_16bit_weights_on_model_save is true; set it false and convert after training with "
             "zero_to_fp32.py, or save_only_model / a smaller save_steps frequency"),
    "eval": ("out of memory in evaluation: lower per_device_eval_batch_size, set eval_accumulation_steps (moves "
             "predictions to the CPU), prediction_loss_only, or evaluate on shorter samples"),
    "generation": ("out of memory while generating: fewer sequences per batch, a smaller max_new_tokens, "
                   "or no generation during training (predict_with_generate off)"),
    "merge": ("out of memory while merging the adapter into the base weights: the merge dequantizes/upcasts each "
              "layer on the GPU — free the trainer and optimizer first (restart and load only the model), merge on "
              "the CPU or a larger GPU, or keep the LoRA adapter and merge elsewhere"),
    "load": ("out of memory while loading the model (before the first step): the weights do not fit as loaded — "
             "load in bf16 (torch_dtype), shard at load (DeepSpeed ZeRO-3 zero.Init / FSDP / device_map), quantize "
             "(QLoRA), or use more GPUs"),
}


def _oom_levers(n: Mapping[str, Any], on: set[str]) -> str:
    out = []
    if "micro_batch_1" not in on:
        out.append("lower per_device_train_batch_size (raise gradient_accumulation_steps to keep the effective batch)")
    out.append("lower cutoff_len / max sequence length")
    if "gradient_checkpointing" not in on:
        out.append("turn gradient checkpointing on")
    if "zero3" not in on:
        out.append("shard with DeepSpeed ZeRO-3 (or FSDP)")
    if "offload" not in on:
        out.append("offload the optimizer to the CPU (if host RAM allows)")
    out.append("LoRA/QLoRA instead of full fine-tuning")
    return "; ".join(out)


def _frag_sentence(n: Mapping[str, Any], on: set[str]) -> str:
    s = (f"{_gib(n['reserved_unallocated_bytes'])} reserved by PyTorch but unallocated >= the "
         f"{_gib(n['tried_bytes'])} requested: this may be fragmentation")
    if "expandable_segments" in on:
        return s + " (expandable_segments is already set: lower the peak instead, or max_split_size_mb:512)"
    return s + ("; set PYTORCH_HIP_ALLOC_CONF=expandable_segments:True (ROCm) / "
                "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (CUDA) — " + _ROCM_EXPANDABLE)


# PyTorch's OOM message names a per-process cap when one is set (CUDACachingAllocator: "... is free. 1.05 GiB allowed;")
_ALLOWED = re.compile(r"is free\.\s*([\d.]+ [KMGT]iB) allowed;")


def _device_limit_sentence(n: Mapping[str, Any], text: str) -> str | None:
    """explain-mem (issue 26): an OOM whose limit is not the workload — a per-process memory cap, or a device that
    reports only a sliver of memory (an APU/iGPU's firmware carve-out)."""
    m = _ALLOWED.search(text.replace("\n", " "))
    if m:
        return (f"this process is capped at {m.group(1)} (torch.cuda.set_per_process_memory_fraction or the "
                "allocator's per_process_memory_fraction), not by the GPU: raise or remove the cap")
    total = n.get("total_bytes")
    if total is not None and 0 < total < 2 * GIB:
        return (f"the GPU reports only {_gib(total)} in total: on an APU/iGPU that is the memory the firmware carves "
                "out for it — raise the UMA frame buffer in the BIOS (or the GTT limit, amdgpu.gttsize / "
                "ttm.pages_limit); no batch setting makes training fit in that")
    return None


_RCCL_FAILURE_OOM = re.compile(_amd.RCCL_FAILURE_OOM)
_RCCL_HOST_ALLOC = re.compile(_amd.RCCL_HOST_ALLOC_WARN)


def _rccl_pinned_host_oom(r: Diagnosis) -> bool:
    """e-hip4: RCCL's `Cuda failure 'out of memory'` whose next lines are alloc.h's `Failed to CUDA host alloc N
    bytes` failed to get pinned host memory (hipHostMalloc): host_ram_oom, read as host-alloc-failed reads it."""
    if not (_RCCL_FAILURE_OOM.search(r.first.text) and _RCCL_HOST_ALLOC.search(r.first.context)):
        return False
    own = cat.BY_CODE["host-alloc-failed"]
    r.family, r.title, r.cause, r.fix = "host_ram_oom", own.title + " (RCCL's pinned host buffer)", own.cause, own.fix
    return True


_TTM_POOL_ALLOC = re.compile(_amd.TTM_POOL_ALLOC_FRAME)


def _ttm_pages_oom(r: Diagnosis) -> bool:
    """e-amd8: the kernel's page allocator refusing the pages of a GPU buffer (warn_alloc's trace through TTM's
    ttm_pool_alloc_page, profiles/amd_errors.py): the GPU's system-memory share (GTT, an APU's whole memory) ran out."""
    if not _TTM_POOL_ALLOC.search(r.first.text):
        return False
    r.title = "the kernel could not allocate pages for a GPU buffer (amdgpu TTM: GTT / an APU's unified memory)"
    r.cause = ("the amdgpu driver backs GPU buffers in system memory (GTT; on an APU all GPU memory) with pages from "
               "TTM's pool, and the kernel's page allocator had none to give (`page allocation failure` with "
               "ttm_pool_alloc_page in its trace): the GPU allocation failed and the process was killed")
    r.fix = ("need less GPU memory at that point (smaller eval/train batch, shorter sequences, free cached memory "
             "between phases), or give the GPU more: a larger GTT (amdgpu.gttsize / ttm.pages_limit) or UMA "
             "carve-out; when most RAM is free the free lists are fragmented: enable proactive compaction "
             "(vm.compaction_proactiveness) or drop caches before the allocation-heavy phase")
    return True


def _refine_oom(r: Diagnosis, cfg: ConfigInfo | None, on: set[str]) -> None:
    if _rccl_pinned_host_oom(r) or _ttm_pages_oom(r):
        return
    n = r.numbers
    # explain-mem: a logger may print the message before its traceback (vLLM, loguru): then a later hit has the frames
    phase = next((p for p in (_oom_phase(h) for h in [r.first, *r.evidence]) if p), None)
    if phase:
        n["phase"] = phase
    if phase == "pinned" and n.get("tried_bytes") is None:
        r.family, r.title = "host_ram_oom", "pinned host memory could not be allocated (CPU offload / pin_memory)"
        r.cause = ("the allocation that failed was page-locked host memory (DeepSpeed CPU offload buffers, "
                   "pin_memory): the host's RAM or its locked-memory limit ran out, not the GPU")
        r.fix = ("need less pinned host memory: set pin_memory: false in the DeepSpeed offload_optimizer/offload_param "
                 "sections, offload only the optimizer, fewer ranks per node; raise `ulimit -l` in containers")
        return
    frag = n.get("verdict") == "fragmentation" or bool(n.get("may_fragment"))
    parts = [_oom_sentence(n, on)] if n else []
    pf = None
    if cfg is not None and cfg.plan is not None:
        pf = oom_plan_fix(cfg.plan, n)
    elif cfg is not None and cfg.train is not None and not cfg.from_log:
        pf = oom_config_fix(cfg.train, n, cfg.world or 1)
    if pf is not None:
        n["fit"] = pf
        if pf.get("summary"):
            parts.append(pf["summary"])
        if pf.get("change"):
            where = "the plan" if pf.get("source") == "the plan" else "the training YAML"
            r.fix = f"smallest change from {where} that fits: " + pf["fix"]
        else:
            r.fix = pf["fix"]
    else:
        r.fix = _oom_levers(n, on)
    if phase in ("merge", "generation", "eval") and pf is None:
        # explain-mem: outside training the training levers (train batch, cutoff_len, checkpointing, ZeRO) do not apply
        r.fix = _PHASE_FIX[phase]
    elif phase in _PHASE_FIX:
        r.fix = _PHASE_FIX[phase] + "; " + r.fix
    if frag:
        r.fix = _frag_sentence(n, on) + "; " + r.fix
    limit = _device_limit_sentence(n, r.first.context or r.first.text)
    if limit:
        r.fix = limit + "; " + r.fix
    if parts:
        r.title = f"{r.title}: " + parts[0]
        if len(parts) > 1:
            r.cause = r.cause + " (" + parts[1] + ")"
    if phase and phase != "step":
        r.title += f" (during {'model loading' if phase == 'load' else phase})"
        # explain-mem: the catalogue's cause speaks of the training step; say where it happened instead
        r.cause = r.cause.replace("the training step", {"load": "loading the model", "merge": "merging the adapter",
                                                        "save": "saving the checkpoint", "eval": "evaluation",
                                                        "generation": "generation"}.get(phase, phase), 1)


_NO_BF16_GPU = re.compile(r"\b(?:V100|T4|P100|P40|GTX ?1\d{3}|RTX ?20\d0|Titan V|MI50|MI60|MI25|gfx906|gfx900|"
                          r"Radeon VII|Turing|Volta|Pascal)\b")
# explain-mem (issue 26): the other ways a run states its mixed precision — Lightning's start-up line and its
# `precision` argument, accelerate's --mixed_precision flag, autocast's/AMP's dtype argument, torchtune's `dtype`, apex's
# O1/O2 (fp16) opt levels, and a GradScaler (only fp16 needs a loss scaler; bf16 and fp32 do not)
_FP16_EXTRA = (r"Using 16(?:-?bit)? (?:native )?Automatic Mixed Precision|\bprecision['\"]?\s*[:=]\s*['\"]?16(?:-mixed)?\b|"
               r"--mixed[_-]precision[= ]['\"]?fp16\b|autocast\([^)\n]*dtype\s*=\s*torch\.(?:float16|half)\b|"
               r"amp_dtype['\"]?\s*[:=]\s*['\"]?(?:torch\.)?float16\b|\bGradScaler\(|opt_level['\"]?\s*[:=]\s*['\"]?O[12]\b|"
               r"Selected optimization level O[12]|fp16_run\s*[:=]\s*True|--half\b|^\s*dtype:\s*fp16\b|"
               # DeepSpeed's and Megatron-LM's dotted config prints, DeepSpeed's ZeRO optimizer line
               r"\b(?:fp16_enabled|fp16)\s*\.{3,}\s*True\b|Creating torch\.float16 ZeRO stage")
_BF16_EXTRA = (r"Using bfloat16 Automatic Mixed Precision|\bprecision['\"]?\s*[:=]\s*['\"]?bf16(?:-mixed|-true)?\b|"
               r"--mixed[_-]precision[= ]['\"]?bf16\b|autocast\([^)\n]*dtype\s*=\s*torch\.bfloat16\b|"
               r"amp_dtype['\"]?\s*[:=]\s*['\"]?(?:torch\.)?bfloat16\b|^\s*dtype:\s*bf16\b|"
               r"\b(?:bfloat16_enabled|bf16)\s*\.{3,}\s*True\b|Creating torch\.bfloat16 ZeRO stage")
_BF16_ON = re.compile(r"\bbf16['\"]?\s*[:=]\s*['\"]?(?:True|true|1)\b|--bf16(?:\s+(?:True|true|1))?(?:\s|$)|"
                      r"torch_dtype=torch\.bfloat16|mixed_precision['\"]?\s*[:=]\s*['\"]?bf16|" + _BF16_EXTRA, re.M)


# a loss scaler skipping steps: only fp16 has one (DeepSpeed, apex, Megatron, fairseq spellings)
_SCALER_SKIP = re.compile(r"OVERFLOW! Rank \d+ Skipping step|Gradient overflow\.\s+Skipping step|"
                          r"[Oo]verflow detected\. Skipping|fp16 dynamic loss scale overflow")


def _fp16_in_use(blob: str) -> bool:
    """fp16 mixed precision is on (stated, or a GPU without bf16 and no bf16 setting)."""
    # explain-mem (issue 26): the precision the run states decides first. A bf16 run's DeepSpeed config still carries
    # an fp16 block ("enabled": "auto", "loss_scale": 0) and DeepSpeed prints `loss_scale ..... 0` in any run: neither
    # is fp16, only a loss scaler that skips steps is
    stated = run_precision([blob])
    if stated in ("bf16", "fp32"):
        return bool(_SCALER_SKIP.search(blob))
    if stated == "fp16":
        return True
    swift = _swift_precision(blob)   # explain-3: ms-swift's precision from --torch_dtype
    return bool(_FP16_ON.search(blob) or swift == "fp16"
                or (_NO_BF16_GPU.search(blob) and not _BF16_ON.search(blob) and swift != "bf16"))


_PARAM_OFFLOAD = re.compile(r"offload_param['\"]?\s*:\s*\{[^}]{0,80}['\"]device['\"]\s*:\s*['\"](?:cpu|nvme)|"
                            r"offload_param=DeepSpeedZeroOffloadParamConfig\(device='(?:cpu|nvme)'|"
                            r"offload_param_device['\"]?\s*[:=]\s*['\"]?(?:cpu|nvme)|offload_params?['\"]?\s*[:=]\s*"
                            r"['\"]?(?:true|True)")


def _host_ram_fix(blob: str, fix: str) -> str:
    """The host-RAM fix for what the run's config shows: parameter offload on (offload only the optimizer),
    optimizer offload only (no offload, or NVMe), or no offload at all (then loading and workers)."""
    on = {k for k, rx in _LEVER_RX.items() if rx.search(blob)}
    if "offload" not in on:
        return fix
    if _PARAM_OFFLOAD.search(blob):
        return ("the config offloads the parameters to the CPU as well: offload only the optimizer "
                "(offload_param off), or offload to NVMe (device: nvme), fewer ranks per node, or a node with more "
                "RAM; " + fix)
    return ("the config offloads the optimizer to the CPU: its fp32 states (12 bytes per trained parameter, "
            "pinned) must fit in host RAM — offload to NVMe, train fewer parameters (LoRA), use more nodes so "
            "ZeRO shards them, or a node with more RAM; " + fix)


# explain-3 (issue 26, third pass): Megatron-LM prints `loss scale: 1.0` on every iteration of a bf16/fp32 run (its
# ConstantGradScaler of 1.0; megatron/training.py training_log); only a loss scale other than 1 is fp16's dynamic
# scaler. Megatron's own minimum loss scale is 1 too, but an fp16 run reaching it has printed larger scales first.
_LOSS_SCALE_FP16 = r"[Ll]oss[ _]scale(?!\s*[:=]\s*1(?:\.0+)?\b)"
_FP16_ON = re.compile(r"\bfp16['\"]?\s*[:=]\s*['\"]?(?:True|true|1)\b|--fp16(?:\s+(?:True|true|1))?(?:\s|$)|"
                      r"['\"]fp16['\"]\s*:\s*\{\s*['\"]enabled['\"]\s*:\s*(?:true|['\"]auto['\"])|"
                      r"torch_dtype=torch\.float16|mixed_precision['\"]?\s*[:=]\s*['\"]?fp16|" + _LOSS_SCALE_FP16 + r"|OVERFLOW!|"
                      r"Gradient overflow|" + _FP16_EXTRA, re.M)


# the extension being built is flash-attention (pip's command, its wheel, its sources)
_FA_BUILD = re.compile(r"flash[-_]attn|flash-attention|Building wheel for flash|csrc/flash_attn|/flash_attn/")
# e-hip4: flash-attention's own build (pip's wheel build, its setup.py's extension, its CK/CUDA sources) and DeepSpeed's
# op builder, which also compiles with ninja (the two can share a log: a DeepSpeed build wins)
_FA_OWN_BUILD = re.compile(r"Building wheel for flash[-_]attn|building 'flash_attn\w*' extension|"
                           r"csrc[/\\]flash_attn(?:_ck|_rocm)?[/\\]|flash-attention[/\\]csrc[/\\]")
_DS_OP_BUILD = re.compile(r"op_builder[/\\]|DS_BUILD_\w+|deepspeed[/\\]ops[/\\]|Building extension module \w+_op\b")


def _fa_own_build(blob: str) -> bool:
    return bool(_FA_OWN_BUILD.search(blob)) and not _DS_OP_BUILD.search(blob)


# ex-rocm: frames of an extension build: DeepSpeed's op builder (any install layout) and torch's build helpers
_OP_BUILD_FRAME = re.compile(r"(?:^|[/\\\s])op_builder[/\\]\w+\.py|torch[/\\]utils[/\\](?:cpp_extension\.py|hipify[/\\])")


# r3-misc: the library frames that read a config file (DeepSpeed's JSON, TrainingArguments / HfArgumentParser,
# LLaMA-Factory's hparams, accelerate's config, transformers' DeepSpeed integration)
_CONFIG_READER = re.compile(r"deepspeed[/\\]runtime[/\\]config(?:_utils)?\.py|training_args\.py|hf_argparser\.py|"
                            r"hparams[/\\]parser\.py|accelerate[/\\]\S*config\S*\.py|integrations[/\\]deepspeed\.py")
# (LLaMA-Factory's dataset_info.json stays dataset_error: FAMILIES.md puts "bad JSON" of the data's registry there,
# as the corpus labels it - e-cfg4's reading of it as a config reader was taken out at the merge)


def _json_read_by_config(pre: str) -> bool:
    """The malformed JSON was being read by a config reader (the last frame outside the json module)."""
    frames = [p for p, _ in _last_frames(pre[-6000:]) if not re.search(r"[/\\]json[/\\]", p)]
    return bool(frames) and bool(_CONFIG_READER.search(frames[-1]))


# e-cfg4: CPython's subprocess (_execute_child) and os.exec* raising the exec's errno for the program it was given
_EXEC_FRAME = re.compile(r"subprocess\.py$|[/\\]os\.py$")
_SCRIPT_REFUSED = re.compile(r"\[Errno 13\] Permission denied: '[^'\n]*\.(?:py|sh)'")


def _script_exec_refused(pre: str, line: str) -> bool:
    """A PermissionError on a .py/.sh raised while executing it (the last frames are subprocess's/os's exec)."""
    frames = _last_frames(pre[-6000:])
    return bool(_SCRIPT_REFUSED.search(line)) and any(_EXEC_FRAME.search(path) and fn in (
        "_execute_child", "execv", "execve", "execvp", "execvpe", "_execvpe") for path, fn in frames[-3:])


def _in_op_build(pre: str) -> bool:
    """The traceback above an error ends in an extension build (its last frames)."""
    return any(_OP_BUILD_FRAME.search(path) for path, _ in _last_frames(pre[-6000:]))


# ex-rocm (issue 26): DeepSpeed's op report names an op it cannot build (`[WARNING]  async_io requires the dev libaio
# .so object and headers but these were not found`) — harmless for a run that never uses the op, the failure when the
# user asked to build exactly that op (DS_BUILD_AIO=1, DS_BUILD_CPU_ADAM=1...): the install then lacks it.
_DS_OP_CANNOT = re.compile(r"\[WARNING\]\s+(\w+) (?:requires|is not compatible|cannot|will not be|is not supported)")
_DS_BUILD_ON = re.compile(r"\bDS_BUILD_(\w+)=['\"]?1\b")
_DS_BUILD_FLAG = {"async_io": "AIO"}   # the builders' BUILD_VAR where it is not DS_BUILD_<OP NAME>


def _requested_op_not_built(scans: Sequence[FileScan]) -> Diagnosis | None:
    """A DeepSpeed op the log's command asked to build (DS_BUILD_<OP>=1) that DeepSpeed reports it cannot build."""
    asked = set(_DS_BUILD_ON.findall("\n".join(sc.head_text for sc in scans)))
    if not asked:
        return None
    for sc in scans:
        for h in sc.hits:
            m = _DS_OP_CANNOT.search(h.text) if cat.BY_CODE[h.code].benign else None
            if m is None:
                continue
            flag = _DS_BUILD_FLAG.get(m.group(1), m.group(1).upper())
            if flag not in asked:
                continue
            sig = cat.BY_CODE["deepspeed-op-build-failed"]
            hit = Hit(**{**h.__dict__, "code": sig.code})
            return Diagnosis(sig.code, sig.family, sig.severity, False, sig.role,
                             f"DeepSpeed op {m.group(1)} was asked for (DS_BUILD_{flag}=1) but DeepSpeed cannot build "
                             "it here", hit, [hit], 1,
                             f"the build was told to include {m.group(1)} and DeepSpeed's own check found what it "
                             "needs missing (the line names it): the install goes on without the op, and whatever "
                             "needs it (NVMe offload for async_io) fails later",
                             "install what the line names (async_io: the libaio development package of the "
                             "distribution, then CFLAGS/LDFLAGS pointing at it) and rebuild; or drop the op's "
                             "DS_BUILD flag if the run does not need it", "`ds_report` lists the op as compatible "
                             "[OKAY] after the fix", {})
    return None


def _refine(r: Diagnosis, diags: list[Diagnosis], root: int, cfg: ConfigInfo | None,
            levers_on: set[str] | None = None, texts: Sequence[str] | None = None) -> None:
    """Numbers and fixes that need the whole picture (cascades, the config)."""
    _refine_by_code(r, cfg, levers_on or set(), texts or ())
    _refine_versions(r, texts or ())
    _refine_component_path(r)
    _refine_hang_notes(r, diags, cfg)
    _refine_platform(r, texts or ())
    _refine_kernel_platform(r, texts or ())
    _refine_attention_owner(r, texts or ())
    _refine_garbage_index(r, texts or ())
    if r.code in _ARCH_CODES and "build_archs" not in r.numbers:
        _refine_arch(r, "\n".join([r.first.text, r.first.pre, *(texts or ())]))


def _refine_garbage_index(r: Diagnosis, texts: Sequence[str]) -> None:
    """e-new15 (FAMILIES.md "Symptom vs cause"): an index error whose index is garbage (no data or tokenizer makes
    it) on a pre-Vega AMD card the ROCm libraries do not support: the GPU computed it (garbage_index.py)."""
    if r.family not in ("config_error", "dataset_error", "tokenizer_template", "unknown"):
        return
    got = garbage_index.garbage_index([r.first.text, *(h.text for h in r.evidence)])
    card = garbage_index.legacy_card([r.first.text, r.first.pre, *texts]) if got else None
    if got is None or card is None:
        return
    sig = cat.BY_CODE["hip-runtime-error"]
    r.code, r.family, r.severity = sig.code, sig.family, sig.severity
    r.title = (f"an index of {got[0]} into a table of {got[1]}: garbage the GPU computed on {card}, a card the "
               "ROCm libraries do not support")
    r.cause = ("no tokenizer or dataset makes an id like this: a kernel on this pre-Vega card (gfx8 or older, outside "
               "ROCm's supported GPUs) returned wrong results - rocBLAS/Tensile's GEMMs on gfx803 from ROCm 3.7 on are "
               "the known case - and the lookup downstream received them")
    r.fix = ("run on a ROCm release/library build that still produced correct results for this card (gfx803: ROCm "
             "3.5.1, or rocBLAS rebuilt without the Tensile host library), a supported GPU, or the CPU")
    r.confirm = ("rerun the same step on the CPU (or HIP_VISIBLE_DEVICES=\"\"): no index error there confirms the "
                 "GPU's arithmetic, not the data")


_BUILD_CODES = frozenset({"import-name-mismatch", "native-build-failed", "deepspeed-op-build-failed"})


def _refine_build(r: Diagnosis, texts: Sequence[str]) -> None:
    """A build or an import across releases (_BUILD_CODES): whose build failed, and the border a skew crosses."""
    if r.code == "import-name-mismatch" and _in_op_build(r.first.pre):
        # ex-rocm: a call with another release's signature raised while building an extension (DeepSpeed's op builder
        # calling torch's hipify): the op build is what failed, whatever the two releases
        sig = cat.BY_CODE["deepspeed-op-build-failed"]
        r.family = sig.family
        r.title = sig.title + " (its build code calls an API the installed torch does not have)"
        r.fix = ("use a DeepSpeed release made for the installed torch (or the torch it pins): the op builder and "
                 "torch's build helpers (cpp_extension, hipify) must match; " + sig.fix)
    elif r.code == "import-name-mismatch" and (skew := traceback_anatomy.border_skew(
            _anatomy_of(exception_hit(r)), exception_hit(r).text)) is not None:
        # e-ver3: raised where installed code calls another package: the fix names the two sides of the border
        r.fix = skew[1] + "; " + r.fix
    elif r.code == "native-build-failed" and _FA_BUILD.search("\n".join([r.first.pre, *texts])):
        r.family = "flash_attn_error"
        r.fix = cat.BY_CODE["flash-attn-error"].fix + "; " + r.fix
    elif r.code == "deepspeed-op-build-failed" and _fa_own_build("\n".join([r.first.pre, *texts])):
        # e-hip4: the ninja build that stopped is flash-attention's own (its setup.py building flash_attn_2_cuda from
        # csrc/flash_attn_ck on ROCm), not a DeepSpeed op: an attention build for this GPU (native-build-failed's)
        r.family, r.title = "flash_attn_error", "flash-attention's own kernels failed to build for this GPU"
        r.fix = cat.BY_CODE["flash-attn-error"].fix


def _refine_by_code(r: Diagnosis, cfg: ConfigInfo | None, levers_on: set[str], texts: Sequence[str]) -> None:
    """The root's own code: its numbers in the title, and the reading the rest of the log or the config changes."""
    n = r.numbers
    if r.code in _BUILD_CODES:
        _refine_build(r, texts or ())
    elif r.code == "oom":
        _refine_oom(r, cfg, levers_on or set())
    elif r.code in ("host-oom-killed", "host-ram-nearly-full", "slurm-oom-kill", "kernel-oom-killer",
                    "host-alloc-failed"):
        s = _host_ram_sentence(n)
        if s:
            r.title = f"{r.title}: {s}"
        r.fix = _host_ram_fix("\n".join(texts or ()), r.fix)
    elif r.code == "nan-loss" and _fp16_in_use("\n".join(texts or ())):
        r.family = "fp16_overflow"
        r.title += " in fp16 mixed precision: an fp16 overflow"
        r.fix = cat.BY_CODE["fp16-scale-collapsed"].fix
    elif r.code == "nan-loss" and _BF16_ON.search("\n".join(texts or ())):
        r.fix = ("bf16 is already on: lower the learning rate (and warmup), clip gradients (max_grad_norm 0.5-1.0), "
                 "check the data for empty or extreme samples, resume from the last good checkpoint; a short fp32 "
                 "run rules precision out")
    elif r.code == "child-failed":
        _refine_teardown(r, texts or (), levers_on or set())
    elif r.code == "bus-error-signal" and _SIGBUS_EXIT.search("\n".join(h.context for h in r.evidence)) and \
            (user := _shm_user([*(texts or ()), r.first.pre])) is not None:
        r.title = (f"a rank died of SIGBUS (exit -7) and the run keeps data in /dev/shm ({user}): most likely "
                   "/dev/shm is too small or full")
    elif r.code == "gpu-hang" and _iommu_faults_in_collectives(r, texts or ()):
        # h7-hip: the IOMMU refusing the GPUs' DMA in a run whose ranks talk to each other: the peer-to-peer
        # transfers of the collectives are what faults, and what hangs (iommu-p2p-hang's reading and fix)
        sig = cat.BY_CODE["iommu-p2p-hang"]
        r.family = sig.family
        r.title = "the IOMMU faulted the GPUs' DMA (AMD-Vi IO_PAGE_FAULT) in a multi-GPU run: " + sig.title
        r.cause, r.fix, r.confirm = sig.cause, sig.fix, sig.confirm
    elif r.code == "dataset-error" and _SWIFT_ROUTER_KEYERROR.search("\n".join(texts or ())):
        # e-g4: `KeyError: 'train'` (a split name to dataset-error) raised by ms-swift's CLI router: the subcommand
        r.family, r.fix = "config_error", cat.SWIFT_SUBCOMMAND_FIX
        r.title = "`swift` was given a subcommand it does not have (its CLI router has no route for it)"
    elif r.code == "json-decode-error" and _json_read_by_config(r.first.pre):
        # r3-misc: a JSON config (DeepSpeed's ds_config.json, an args file) with a syntax error: the run's settings
        r.family = "config_error"
        r.title = "the run's JSON config file is malformed (it was being read as the run's configuration)"
    elif r.code == "permission-denied" and _script_exec_refused(r.first.pre, r.first.text):
        # e-cfg4: the EACCES is the kernel refusing to execute a script subprocess/os.exec was given (torchrun
        # --no-python, a launcher's command list without `python`): the launch command
        r.family, r.fix = "config_error", cat.BY_CODE["script-not-run-by-python"].fix
        r.title = "the launch command executed a script without its interpreter (it is not executable)"
    elif r.code == "missing-package" and (cuda_only := exception_sources.cuda_only_package(
            r.first.text, [r.first.pre, *(texts or ())])) is not None:
        # e-g910: a CUDA-only package (nvidia-resiliency-ext) an option imports: on ROCm the option is the fix
        r.family, r.fix = cuda_only
    elif r.code == cat.GENERIC:
        fam = _exception_family(exception_hit(r), texts or ())
        if fam is not None:
            r.family, r.fix = fam[0], fam[1] + "; " + r.fix
    elif r.code in ("no-gpu-visible", "hip-init-failed", "invalid-device-ordinal"):
        _refine_device(r, texts or ())
    elif r.code == "disk-full":
        s = _disk_sentence(n)
        if s:
            r.title = f"{r.title}: {s}"
    elif r.code == "collective-timeout":
        _every_rank_stuck(r)


def _refine_device(r: Diagnosis, texts: Sequence[str]) -> None:
    """A GPU the runtime does not show (no-gpu-visible, hip-init-failed, invalid-device-ordinal): masks that stack,
    a user outside the device's group, an index asked of a machine that enumerated none."""
    if r.code == "no-gpu-visible" and _stacked_device_masks("\n".join([r.first.pre, *texts])):
        # e-cfgerr (issue 26): on ROCm the visible-device masks stack — ROCR_VISIBLE_DEVICES picks GPUs first, then
        # HIP_/CUDA_VISIBLE_DEVICES index into what is left — so setting both with the same physical index (a batch
        # system or Ray setting one, the user the other) masks every GPU away (Parsl#3858, SwarmUI#565)
        r.family = "config_error"
        r.title = ("no GPU visible: ROCR_VISIBLE_DEVICES and HIP/CUDA_VISIBLE_DEVICES are both set, and the second "
                   "indexes into what the first left")
        r.fix = ("set only one of them (ROCR_VISIBLE_DEVICES=N, or HIP_VISIBLE_DEVICES=N), or give the second the "
                 "index relative to the first (ROCR_VISIBLE_DEVICES=1 with HIP_VISIBLE_DEVICES=0)")
    elif (reach := no_device.node_out_of_reach("\n".join(texts))) is not None:
        # e-hipfa: the pasted `ls -l /dev/kfd` and `id` show the user outside the node's group (FAMILIES.md
        # amended rule 2: device permission, whatever the runtime then reports)
        sig = cat.BY_CODE["gpu-device-permission"]
        r.code, r.family, r.cause, r.fix, r.confirm = sig.code, sig.family, sig.cause, sig.fix, sig.confirm
        r.title = dvis.NO_ACCESS_TITLE.format(node=reach[0], group=reach[1], user=reach[2])
    elif r.code == "invalid-device-ordinal" and no_device.none_enumerated(r.first.text, texts):
        # e-hipfa: an index asked for on a machine/container where the runtime enumerated no GPU at all
        sig = cat.BY_CODE["no-gpu-visible"]
        r.code, r.family = sig.code, sig.family
        r.title, r.cause, r.fix, r.confirm = dvis.TITLE, dvis.CAUSE, dvis.FIX, sig.confirm


def _every_rank_stuck(r: Diagnosis) -> None:
    """A collective timeout that stayed the root: no rank failed first, every rank waits in it."""
    n = r.numbers
    n["verdict"] = "every rank stuck"
    r.title = (f"{r.title}: {n.get('op', 'a collective')} SeqNum {n.get('seq', '?')} on rank(s) "
               f"{', '.join(map(str, n.get('ranks') or [])) or '?'} — every rank is stuck (no rank failed first)")
    r.fix = ("every rank waits in the same collective: check peer-to-peer (`rocm-tune doctor`: IOMMU — "
             "iommu=pt / intel_iommu=off on the kernel command line), confirm with NCCL_P2P_DISABLE=1; "
             "`py-spy dump --pid PID` on each rank shows where it waits")


# h7-ver (issue 26): what the log itself shows of the versions around a failure another family's rule read first:
# the shared library a binary asks for is there under another soname major (`libroctx64.so.1: cannot open shared
# object file` next to `libroctx64.so.4` of the ROCm it was upgraded to); torch's missing distributed part reached by
# another installed library's own module-level import (transformers importing torch.distributed.tensor under a torch
# build without it); a device plugin's torch (torch_npu, IPEX...) whose torch.cuda fallback ran because the plugin
# and torch releases differ
# e-cfgerr: both layers of ROCm's device masks given a value in what the log shows (a command line, an env dump)
_ROCR_MASK = re.compile(r"\bROCR_VISIBLE_DEVICES=['\"]?[\w,-]")
_HIP_CUDA_MASK = re.compile(r"\b(?:HIP|CUDA)_VISIBLE_DEVICES=['\"]?[\w,-]")


# e-g4: ms-swift's swift/cli/main.py (ROUTE_MAPPING 3.x/4.x, route_mapping 2.x) failing on the subcommand
_SWIFT_ROUTER_KEYERROR = re.compile(r"(?:ROUTE_MAPPING|route_mapping)\[method_name\]\)?[^\n]*\n\s*KeyError: '")


def _stacked_device_masks(blob: str) -> bool:
    return bool(_ROCR_MASK.search(blob) and _HIP_CUDA_MASK.search(blob))


# e-ver3: a JIT-built op loaded from torch's extension cache that lacks a symbol of torch's own C++ library (c10, at,
# torch, caffe2 namespaces) was compiled against another torch: the cache outlived a torch upgrade. FAMILIES.md: an
# extension built for another torch is version_check; deepspeed_build_jit only when the op fails while compiling,
# which the log shows as ninja's compile steps (`[1/3] c++ ...`, not `ninja: no work to do`).
_STALE_JIT_OP = re.compile(r"torch_extensions[/\\](?P<dir>[^/\\\s]+)[/\\](?P<op>\w+)[/\\]\S+\.so: undefined symbol: "
                           r"_ZN?K?(?:3c10|2at|5torch|6caffe2)")
_COMPILED_HERE = re.compile(r"^\s*\[\d+/\d+\] \S*(?:c\+\+|g\+\+|gcc|nvcc|hipcc|clang\+\+)\b", re.M)
_SONAME_MISSING = re.compile(r"\b(lib[\w+-]+?)\.so\.(\d+)(?:\.[\d.]+)?: cannot open shared object file")
_LIB_IMPORTS_TORCH_PART = re.compile(r'[/\\](?:site|dist)-packages[/\\](?!torch[/\\])(\w+)[/\\][^"\n]*", line \d+, '
                                     r"in <module>\n[^\n]*\b(?:import|from) torch\.(?:distributed|_C)\b")
_DEVICE_PLUGIN = re.compile(r"[/\\](?:site|dist)-packages[/\\](torch_npu|torch_mlu|torch_musa|torch_gcu|torch_sdaa|"
                            r"intel_extension_for_pytorch)[/\\]")


# the runtime libraries whose soname major is the ROCm (HIP) or CUDA major, and the runtime versions a log shows
# (a wheel's +rocm6.2 / +cu121, an /opt/rocm-7.1.1 path, `HIP version: 6.3`, `CUDA Version: 12.4`)
_RUNTIME_LIB = {"libamdhip64": "rocm", **{f"lib{n}": "cuda" for n in ("cudart", "cublas", "cublasLt", "cusparse",
                                                                      "cufft", "curand", "cusolver", "nvrtc")}}
_RUNTIME_SEEN = {"rocm": re.compile(r"\+rocm(\d+)\.\d|/opt/rocm-(\d+)\.\d|\b(?:ROCm|HIP) (?:[Vv]ersion:? ?)?(\d+)\.\d"),
                 "cuda": re.compile(r"\+cu(1\d)\d\b|\bCUDA (?:[Vv]ersion:? ?)?(1\d)\.\d")}


def _runtime_major_differs(lib: str, major: str, blob: str) -> re.Match | None:
    """The first mention of the library's runtime (ROCm for libamdhip64, CUDA for libcudart & co.) with another
    major than the soname asked for."""
    rx = _RUNTIME_SEEN.get(_RUNTIME_LIB.get(lib, ""))
    for m in (rx.finditer(blob) if rx else ()):
        if next(g for g in m.groups() if g) != major:
            return m
    return None


_ROCM_BUILT_FOR = re.compile(_rb.BUILT_FOR)
_ROCM_INSTALLED = re.compile(_rb.INSTALLED)


def _last_traceback(pre: str) -> str:
    """The last traceback of the text before a hit (its frames name the package that asked)."""
    tail = pre[-3000:]
    return tail[tail.rfind("Traceback (most recent call last)"):] if "Traceback (most recent call last)" in tail else ""


def _rocm_build_differs(asking: str, blob: str) -> str | None:
    """e-new18: the binary that asked for a ROCm library names the ROCm release it was built for (xla_rocm60,
    +rocm6.2, libbitsandbytes_rocm62.so) and the log shows another ROCm release installed: both, as shown."""
    built = _ROCM_BUILT_FOR.search(asking)
    if built is None:
        return None
    for m in _ROCM_INSTALLED.finditer(blob):
        have = tuple(g for g in m.groups() if g)[:2]
        if have != (built.group("maj"), built.group("min")):
            return f"{built.group(0)} build; {m.group(0).strip()} installed"
    return None


# e-ver (issue 26): a requirement with a version range that setuptools' pkg_resources (DistributionNotFound.report:
# `The '<req>' distribution was not found and is required by <who>`) or transformers' utils/versions.py
# (`... is required by this application`) could not satisfy. When the same log shows that package installed and in
# use (its frames under site-packages, transformers' lazy `Failed to import <pkg>.<module>`, a `<pkg>==<version>`),
# the distribution is there at a version outside the range: the versions, not a missing package
_REQ_NOT_FOUND = re.compile(r"The '([A-Za-z][\w.-]*?)\s*((?:[<>=!~]=?\s*[\w.*+]+\s*,?\s*)+)' distribution was not "
                            r"found")


# e-ver (issue 26): xformers' own note of the torch build its extensions were compiled for (xformers/_cpp_lib.py:
# `xFormers was built for:` / `PyTorch 2.3.1+cu121 with CUDA 1201 (you have 2.3.1+rocm6.0)`), for another torch build
# than the installed one. A note only (a run may never call its ops), it names the cause when what failed is the
# attention op it could not load. e-relabel (FAMILIES.md amended rule 1): another torch release on the same runtime
# (`PyTorch 2.3.0+cu121 ... (you have 2.1.0+cu121)`) too — the fix is the matching wheel either way
_XFORMERS_OTHER_TORCH = re.compile(r"^\s*PyTorch ([^\s(]+) with (?:CUDA|ROCm|HIP) \S+ \(you have (?!\1\))([^\s)]+)\)",
                                     re.M)


def _runtime_word(version: str) -> str:
    """The GPU runtime of a torch version string: `cu` of 2.3.1+cu121, `rocm` of 2.3.1+rocm6.0, '' without one."""
    m = re.search(r"\+([a-z]+)", version)
    return m.group(1) if m else ""


def _installed_in_log(pkg: str, blob: str) -> re.Match | None:
    p = re.escape(pkg).replace("\\-", "[-_]").replace("_", "[-_]")
    return re.search(rf"[/\\](?:site|dist)-packages[/\\]{p}[/\\]|\bFailed to import {p}\.\w|"
                     rf"\b{p}==\d[\w.+]*|^{p}\s+\d+\.\d[\w.+]*\s*$", blob, re.M | re.I)


# e-gen (issue 26): HfArgumentParser's refusal lists the arguments no dataclass declares. When every one of them is
# a TrainingArguments field that a transformers release removed (cat.REMOVED_TRAINING_ARGS), the script or config was
# written for an older transformers (LM-BFF's --evaluate_during_training on 4.x, ROCm/MAD's --overwrite_output_dir on
# 5.x); one current or unknown name among them (a typo, another runner's key, a training key given to webchat) keeps
# it the run's configuration
_HFARG_LIST = re.compile(r"not used by the HfArgumentParser: \[([^\]\n]*)\]")


def _removed_training_args(r: Diagnosis) -> list[str]:
    """The refused argument names when all of them are removed TrainingArguments fields, else []."""
    for h in (r.first, *r.evidence):
        m = _HFARG_LIST.search(h.text)
        if not m:
            continue
        items = re.findall(r"['\"]([^'\"]*)['\"]", m.group(1))
        flags = [i for i in items if i.startswith("-")] if "specified arguments" in h.text else items
        names = [f.lstrip("-").split("=", 1)[0] for f in flags]
        if names and all(n in cat.REMOVED_TRAINING_ARGS for n in names):
            return names
    return []


# e-swift (issue 26): ms-swift's parser refuses what no argument class of the INSTALLED release declares
# (swift/pipelines/base.py, 3.x swift/llm/base.py: `ValueError: remaining_argv: ['--enable_dft_loss', 'true']`). When
# every refused option is an argument some ms-swift release declares (SWIFT_ARG_MAJORS, read from its source at the
# v2.0-v4.x tags), the command was written for another release (a 3.x flag on 2.x, a main-branch flag on the PyPI
# release, `swift` on PATH being an older install); a name no release knows (a typo) keeps it the configuration.
# Likewise a command line whose options exist only in another major than the one whose frames the traceback shows
# (a 2.x `--model_id_or_path/--sft_type` command run by 3.x's argument classes, which then ask for `--model`).
_SWIFT_REMAINING = re.compile(r"remaining_argv: \[([^\]\n]*)\]")
_SWIFT_CMDLINE = re.compile(r"^(?:run sh: `|.*\bswift (?:sft|pt|rlhf|infer|export|deploy|rollout|eval|app|web-ui|merge-lora)\b|"
                            r".*\bmegatron (?:sft|pt|rlhf|export)\b)(.*)$", re.M)
# the major whose argument classes the frames show: 2.x swift/llm/utils/argument.py, 3.x swift/llm/argument/,
# 4.x swift/arguments/ (and swift/pipelines/)
_SWIFT_MAJOR_FRAMES = (("2", re.compile(r"swift[/\\]llm[/\\]utils[/\\]argument\.py")),
                       ("3", re.compile(r"swift[/\\]llm[/\\]argument[/\\]")),
                       ("4", re.compile(r"swift[/\\](?:arguments|pipelines)[/\\]")))


def _swift_flag_names(text: str) -> list[str]:
    return [f.lstrip("-").split("=", 1)[0].replace("-", "_") for f in re.findall(r"(?<![\w-])--[A-Za-z][\w-]*(?:=\S*)?", text)]


@functools.lru_cache(maxsize=1)
def _hf_training_fields() -> frozenset[str]:
    """e-new17: every field some transformers release's (Seq2Seq)TrainingArguments declares. ms-swift's training
    argument classes inherit them in every major (3.x with transformers 4.x, which still has warmup_ratio, group_by_length,
    logging_dir): such a flag on the command line never shows which ms-swift release the command was written for."""
    from rocm_tune.profiles.runner_args import RUNNER_ARGS

    return frozenset(n for names in RUNNER_ARGS["transformers"][2].values() for n in names.split())


def _swift_release_skew(r: Diagnosis, blob: str) -> str | None:
    """The ms-swift options the installed release refused although another release declares them, else None."""
    from rocm_tune.profiles.swift_args import SWIFT_ARG_MAJORS      # ~1,000 names: loaded only for such a log

    for h in (r.first, *r.evidence):
        m = _SWIFT_REMAINING.search(h.text)
        if m:
            names = _swift_flag_names(m.group(1))
            if names and all(n in SWIFT_ARG_MAJORS for n in names):
                return ", ".join(names)
            return None
    frames = r.first.pre[-8000:] or blob
    major = next((mj for mj, rx in _SWIFT_MAJOR_FRAMES if rx.search(frames)), None)
    # e-cli9: a root read without its traceback (pre empty: HfArgumentParser's `Some specified arguments are not used`
    # under swift's parse_args) is judged by the frames the log shows
    if major is None or not re.search(r"swift[/\\]\S*argument", r.first.pre[-3000:] or frames):
        return None
    # e-cli9: the options HfArgumentParser listed as unused (swift's parse_args under it) count as the command's
    listed = [n for h in (r.first, *r.evidence) if (ref := arg_skew.find_refusal(h.text)) and ref.shape == "hfargparser"
              for n in ref.names]
    other = [n for n in [*(n for c in _SWIFT_CMDLINE.finditer(blob) for n in _swift_flag_names(c.group(1))), *listed]
             if n in SWIFT_ARG_MAJORS and major not in SWIFT_ARG_MAJORS[n] and n not in _hf_training_fields()]
    return ", ".join(dict.fromkeys(other)) or None


# e-skew (issue 26): any runner's refusal of argument names (HfArgumentParser, Megatron's argparse, axolotl's pydantic
# schema, a config class's __init__) read against the names that runner's releases declare (arg_skew.py)
_REFUSAL_CODES = ("config-rejected", "python-exception", "import-name-mismatch",
                  "deepspeed-config-validation")     # e-skew2: DeepSpeed's pydantic sections


def _refusal_reading(r: Diagnosis, blob: str) -> arg_skew.Reading | None:
    """How the refused argument names of the root stand against the runner's releases, else None."""
    if r.code not in _REFUSAL_CODES:
        return None
    for h in (r.first, *r.evidence):
        ref = arg_skew.find_refusal(h.context or h.text)
        if ref is not None:
            runners = arg_skew.runners_for(ref, "\n".join([blob, h.pre]), h.pre)
            rd = arg_skew.read_refusal(ref, runners)
            if rd is not None and arg_skew.installed_declares(rd, "\n".join([blob, h.pre])):
                return arg_skew.Reading("", rd.names, ())     # e-skew2: the installed DeepSpeed has the key
            if rd is not None and (sib := arg_skew.launcher_sibling(rd, runners)):
                return replace(rd, sibling=sib)   # e-cli9: torch.distributed.launch's flag on torchrun
            return rd
    return None


# e-skew2 (issue 26): what torch's compile wrapper re-raised (dynamo's BackendCompilerFailed: `backend='inductor'
# raised:` then the exception, torch 2.0's `debug_wrapper raised TypeError: ...` on one line, 2.6+'s InductorError) is
# an API error between two packages - a signature (unexpected keyword, missing or too many positional arguments) or
# an attribute of a module/class that the installed release of it lacks (triton.compiler, CompiledKernel ...): torch's
# inductor and the installed Triton (or another package it calls) are from releases that do not fit. A value error
# (`'NoneType' object is not subscriptable`, Python's own types) is not read as one.
_COMPILE_RERAISE = re.compile(r"(?:BackendCompilerFailed: \S+ raised:?|InductorError:)[ \t]*(?:\r?\n"
                              r"(?:\[(?:rank|default)\d+\]:\s*)?)?(?P<exc>[^\n]*)")
_API_SKEW = re.compile(r"^(?:(?:AttributeError: (?:module '(?P<mod>[\w.]+)'|'(?!NoneType'|str'|int'|float'|bool'|list'|"
                       r"dict'|tuple'|bytes'|set')\w+' object) has no attribute '\w+')|TypeError: [\w.]+\(\) (?:got an "
                       r"unexpected keyword argument '\w+'|missing \d+ required (?:positional|keyword-only) arguments?|"
                       r"takes (?:from \d+ to )?\d+ positional arguments? but \d+ (?:were|was) given))")


def _compile_api_skew(r: Diagnosis) -> str | None:
    """The API error torch's compile wrapper re-raised (one of two packages' signature/attribute), else None."""
    for t in (r.first.context, r.first.text, *(h.text for h in r.evidence)):
        for m in _COMPILE_RERAISE.finditer(t or ""):
            if (a := _API_SKEW.match(m.group("exc").strip())) and not (a.group("mod") or "").startswith(("torch._dynamo",)):
                return a.group(0)
    return None


def _enum_reading(r: Diagnosis) -> enum_skew.EnumReading | None:
    """e-skew2: how an option value an enum of the root refused stands against the library's releases, else None."""
    for t in (r.first.text, r.first.context, *(h.text for h in r.evidence)):
        if t and "is not a valid" in t and (er := enum_skew.read_enum_refusal(t)) is not None:
            return er
        if t and "invalid choice" in t and (er := enum_skew.read_choice_refusal(t)) is not None:
            return er     # e-ver3: argparse's choices of an enum-typed option
    return None


@functools.lru_cache(maxsize=1)
def _release_patterns() -> tuple[tuple[str, tuple[re.Pattern[str], ...]], ...]:
    """The catalogue's patterns of a stated requirement or an ABI break (not transformers' lazy-import wrapper)."""
    return tuple((code, tuple(re.compile(p, cat.BY_CODE[code].flags) for p in cat.BY_CODE[code].patterns
                              if "Failed to import" not in p))
                 for code in ("extension-abi-mismatch", "version-required", "version-check-failed"))


def _attention_release_words(r: Diagnosis) -> tuple[str, str] | None:
    """e-ver3: a flash-attn/xformers failure whose own line states a version requirement or an ABI break (`Flash
    Attention 2 requires flash-attn>=2.1.0`, `flash_attn 2.5.6 does not support torch 2.5, please install
    flash_attn>=2.6.3`, `flash_attn_2_cuda...so: undefined symbol`): FAMILIES.md, the fix is a matching build or
    release, not another attention implementation."""
    text = r.first.context or r.first.text
    for code, rxs in _release_patterns():
        if any(rx.search(text) for rx in rxs):
            return ("the attention library's failure states two releases that do not fit (" + cat.BY_CODE[code].title +
                    "): "
                    "flash-attn (or xformers) and torch/the GPU runtime are not builds of one another",
                    "install the flash-attn (xformers) release or build the message names, made for the installed "
                    "torch and its CUDA/ROCm (a wheel whose name matches torch's version and ABI, or a build from "
                    "source against it); or the torch release that build was made for")
    return None


def _version_reading(r: Diagnosis, blob: str) -> tuple[str, str] | None:
    """(title, fix) when the log shows the root is two releases that do not fit, else None."""
    if r.family != "gpu_oom" and (said := release_gates.release_reading(r.first.context or r.first.text, r.first.pre)):
        return said   # e-ver3: a library's own version gate, a saved dataset's feature type of another release
    if r.family == "flash_attn_error" and (said := _attention_release_words(r)) is not None:
        return said
    if r.family in _COMPONENT_FAMILIES and (said := patched_forward.reading(
            r.first.context or r.first.text, r.first.pre, blob)) is not None:
        return said   # e-new18: a patched forward (Liger, Unsloth...) and transformers of different releases
    if r.code == "deepspeed-op-build-failed" and (m := _STALE_JIT_OP.search(r.first.text)) and \
            not _COMPILED_HERE.search("\n".join([blob, r.first.pre])):
        return (f"the cached op {m.group('op')} (torch_extensions/{m.group('dir')}) lacks a symbol of torch's C++ "
                "library: it was compiled against another torch release than the installed one, and loaded from the "
                "cache without a rebuild",
                f"delete the op's cache (~/.cache/torch_extensions/{m.group('dir')}/{m.group('op')}, or "
                "$TORCH_EXTENSIONS_DIR) so DeepSpeed rebuilds it for the installed torch; for ops prebuilt into the "
                "wheel reinstall deepspeed against this torch (`pip install deepspeed --no-cache-dir`)")
    if r.family == "unknown" and (said := release_gates.library_attribute(r.first.text)):
        return said   # e-ver3: an attribute another release of a library's class has, nothing else known
    if r.code == "config-rejected" and (rank := run_shapes.injected_rank_skew([h.text for h in (r.first, *r.evidence)])):
        return rank   # e-new14: the launcher's --local_rank refused by a script of another release
    if r.code == "config-rejected" and (gone := _removed_training_args(r)):
        return (f"the arguments HfArgumentParser refused ({', '.join(gone)}) are TrainingArguments fields a "
                "transformers release removed: the script or config was written for an older transformers than the "
                "one installed", "install the transformers release the script/runner pins, or drop/rename those "
                "arguments for the installed one (evaluation_strategy -> eval_strategy, per_gpu_* -> per_device_*, "
                "no_cuda -> use_cpu; overwrite_output_dir is gone in 5.x)")
    if r.code in ("config-rejected", "python-exception") and (skew := _swift_release_skew(r, blob)):
        return (f"ms-swift refused options of another ms-swift release ({skew}): the command or recipe was written for "
                "a newer/older ms-swift than the one installed (or `swift` on PATH is another installation)",
                "install the ms-swift release the recipe was written for (`pip install -U ms-swift`, or its main branch "
                "for flags newer than the last release; `which swift` shows which install runs), or rewrite the "
                "command with the installed release's arguments (`swift sft --help`; 2.x -> 3.x: --model, --train_type)")
    if r.code in _REFUSAL_CODES and (er := _enum_reading(r)) is not None and er.span is not None:
        return enum_skew.skew_sentence(er)
    if r.code == "missing-package" and (py := name_skew.python_removed_module(r.first.text)):
        return py
    if r.code == "torch-compile-error" and (api := _compile_api_skew(r)):
        return (f"torch.compile's backend failed on an API error between two packages ({api}): torch's inductor and "
                "the installed Triton (or the package it calls) are from releases that do not fit",
                "install the Triton the torch wheel was built with (`pip install torch` pulls it: pytorch-triton-rocm "
                "for ROCm wheels, triton for CUDA; uninstall a stray `triton` another package pinned), or the torch "
                "release made for the installed Triton; as a stopgap run without compilation (TORCHDYNAMO_DISABLE=1)")
    if (rd := _refusal_reading(r, blob)) is not None and rd.runner:
        return arg_skew.skew_sentence(rd)
    if r.code == "missing-package" and (m := _REQ_NOT_FOUND.search(r.first.text)) and \
            _installed_in_log(m.group(1), "\n".join([blob, r.first.pre])):
        req = m.group(1) + m.group(2).strip().rstrip(",")
        return (f"{m.group(1)} is installed, but not at a version in the range {req} that another package requires",
                f"install a {m.group(1)} release in that range (pip install '{req}'), or the release of the package "
                "requiring it that accepts the installed one (LLaMA-Factory: DISABLE_VERSION_CHECK=1 only where the "
                "newer release is known to work)")
    if r.family == "flash_attn_error" and (m := _XFORMERS_OTHER_TORCH.search("\n".join([blob, r.first.pre]))):
        other = "another GPU runtime" if _runtime_word(m.group(1)) != _runtime_word(m.group(2)) else "another torch release"
        return (f"the xformers wheel was built for {other} than the installed torch ({m.group(0).strip()}):"
                " its attention kernels cannot load, so the attention op has no implementation",
                "install the xformers build for the installed torch and its runtime (for ROCm: pip install xformers "
                "--index-url https://download.pytorch.org/whl/rocmX.Y matching torch), or run without xformers "
                "attention (sdpa)")
    return _runtime_version_reading(r, blob) or _pinned_version_reading(r, blob)


# e-ver4: the families of a failure raised inside a component, which a pin the log's releases break turns into the
# versions (FAMILIES.md "Rule 1, refined"); never a resource, the network, permissions, a compile or a missing install
_COMPONENT_FAMILIES = ("config_error", "unknown", "hip_error", "cuda_error", "flash_attn_error", "dataset_error",
                       "tokenizer_template", "unrecognized_model_type_adapter", "checkpoint_resume_mismatch",
                       "nan_loss", "ddp_error")


def _pinned_version_reading(r: Diagnosis, blob: str) -> tuple[str, str] | None:
    """e-ver4: a failure raised inside a package whose installed release, or the release of a package it pairs with,
    breaks a pin the log shows (a release's declared requirement, a flash-attn wheel's torch): version_facts.py."""
    if r.family not in _COMPONENT_FAMILIES:
        return None
    skew = version_facts.shown_skew(r.first.context or r.first.text, r.first.pre, blob)
    return version_facts.sentence(skew) if skew is not None else None


def _runtime_version_reading(r: Diagnosis, blob: str) -> tuple[str, str] | None:
    """(title, fix) where a missing library, a torch build's missing part, a device plugin or a HIP/CUDA runtime
    failure shows two releases of the runtime that do not fit, else None."""
    if r.code in ("rocm-library-missing", "missing-shared-library"):
        m = _SONAME_MISSING.search(r.first.text)
        if m is None:
            return None
        if vendor := cuda_library_on_amd(m.group(1), "\n".join([blob, r.first.pre])):
            return vendor
        seen = (re.search(rf"\b{re.escape(m.group(1))}\.so\.(?!{m.group(2)}\b)\d+", blob) or
                _runtime_major_differs(m.group(1), m.group(2), blob))
        shown = seen.group(0).strip() if seen else r.code == "rocm-library-missing" and _rocm_build_differs(
            r.first.text + "\n" + _last_traceback(r.first.pre), "\n".join([blob, r.first.pre]))
        if shown:
            return (f"{m.group(1)}.so.{m.group(2)} is asked for but the log shows another release of its runtime "
                    f"({shown}): the binary was built for another ROCm/CUDA release than the one "
                    "installed", "install the build made for the installed ROCm/CUDA (or the runtime release it was "
                    "built for); do not symlink one soname to another")
    elif r.code == "torch-build-lacks-backend":
        m = _LIB_IMPORTS_TORCH_PART.search(r.first.pre[-6000:])
        if m:
            return (f"the installed {m.group(1)} imports a part of torch this torch build does not have: that "
                    f"{m.group(1)} release expects another torch build",
                    f"install a {m.group(1)} release that works with this torch build (or a torch build with the "
                    "component, e.g. a Linux wheel with distributed support)")
    elif r.code == "no-gpu-visible" and (m := _DEVICE_PLUGIN.search(blob + "\n" + r.first.pre)):
        return (f"torch fell back to its CUDA path although {m.group(1)} is installed: the {m.group(1)} and torch "
                "releases do not match, so the plugin did not take over the device calls",
                f"install the torch release {m.group(1)} was built for (its release notes pin it), then rerun")
    if r.family in ("hip_error", "cuda_error") or (r.family != "gpu_oom" and hip_failure(r.first.text)):
        # e-rtver (issue 26): a HIP/CUDA runtime failure (also one another component raised) next to a runtime
        # disagreement the log shows
        return runtime_skew(r.first.text, "\n".join([blob, r.first.pre]))
    return None




_NAMED_REMOVAL_CODES = ("import-name-mismatch", "python-exception", "extension-abi-mismatch")


def _refine_component_path(r: Diagnosis) -> None:
    """e-gen8: torchtune refusing a config's `_component_` path (name_skew.component_name, from its release tags):
    version_check naming the releases that have the name, the settings (misspelt) when no release has it."""
    if r.family not in ("config_error", "unknown") or r.code not in ("config-rejected", "python-exception"):
        return
    got = name_skew.component_name("\n".join([r.first.text, r.first.context or ""]))
    if got is not None:
        r.family = "version_check" if got[0] else "config_error"
        r.title, r.fix = got[1], got[2]


def _refine_versions(r: Diagnosis, texts: Sequence[str]) -> None:
    """A root another family's rule read becomes version_check when the log shows it is two releases' mismatch."""
    blob = "\n".join(texts)
    rd = _refusal_reading(r, blob)
    if r.family in ("hip_error", "cuda_error") and _refine_arch_skew(r, blob):
        return
    if r.family != "version_check":
        got = _version_reading(r, blob)
        if got is not None:
            if r.family in ("hip_error", "cuda_error"):
                # e-rtver: the runtime signature's cause (no kernel for the gfx, a driver...) is not this one's
                r.cause = ("the log shows installed components that do not belong together (builds for different "
                           "ROCm releases, for another vendor's GPUs, or package releases outside the range one of "
                           "them declares); the runtime error is their consequence")
            r.family, r.title, r.fix = "version_check", got[0], got[1]
            return
    elif rd is not None and rd.runner:      # a config class's keyword, already the versions: say which release
        r.title, r.fix = arg_skew.skew_sentence(rd)
        return
    elif (said := release_gates.gate_reading(r.first.context or r.first.text)) is not None:
        r.title, r.fix = said   # e-ver3: already the versions; the library's own gate names which
        return
    elif (pip := version_facts.resolver_skews(r.first.text)) or (
            r.code in ("python-exception", "extension-abi-mismatch") and (pip := [s] if (s := version_facts.shown_skew(
                r.first.context or r.first.text, r.first.pre, blob)) else [])):
        r.title, r.fix = version_facts.sentence(pip[0])   # e-ver4: already the versions; name the two releases
        return
    if rd is not None and not rd.runner:
        _refusal_is_configuration(r, rd)
    elif r.family == "version_check" and r.code in _NAMED_REMOVAL_CODES and not (rd is not None and rd.runner) and \
            (named := name_skew.removed_name(exception_hit(r).text) or
             name_skew.release_name(exception_hit(r).text) or name_skew.added_kwarg(exception_hit(r).text)) is not None:
        r.title, r.fix = named      # e-skew2: which release removed the name, and what replaced it
    elif r.family in ("config_error", "unknown") and r.code in _NAMED_REMOVAL_CODES and \
            (named := name_skew.removed_name(exception_hit(r).text)) is not None:
        # e-tf8: FAMILIES.md "Rule 1, refined": a keyword/attribute/import a named release removed is the releases'
        r.family, (r.title, r.fix) = "version_check", named
    elif r.family == "version_check" and r.code in _NAMED_REMOVAL_CODES and \
            (said := patched_forward.reading(r.first.context or r.first.text, r.first.pre, blob)) is not None:
        r.title, r.fix = said       # e-new18: already the versions; name the patching library
    elif r.family in ("config_error", "unknown") and r.code in _REFUSAL_CODES and \
            (er := _enum_reading(r)) is not None and er.span is None:
        # e-skew2: a value no release of the library's enum declares: the run's configuration
        r.family = "config_error"
        r.title = (f"{er.lib} refused {er.value!r} for {er.cls}: no {er.lib} release declares that value" +
                   (f" (close: {', '.join(er.close)})" if er.close else ""))
        r.fix = ("write one of the values the message lists" + (f" ({' or '.join(er.close)})" if er.close else "") +
                 " and rerun")


def _refine_arch_skew(r: Diagnosis, blob: str) -> bool:
    """e-arch: FAMILIES.md "Rule 1, arch clause": a kernel-less HIP failure with the card's gfx and the build's gfx
    list in view, the card not in it -> version_check naming both (arch_skew.py)."""
    s = arch_skew.read_arch_skew(r.first.text, "\n".join([blob, r.first.pre]))
    if s is None:
        if any(cat.ROCM_MARKERS.search(t) for t in (r.first.text, blob)) or \
                (s := arch_skew.read_sm_skew("\n".join([blob, r.first.pre]))) is None:
            return False
        r.family, (r.title, r.fix) = "version_check", arch_skew.sm_sentence(s)
        r.cause = (f"torch warned that no architecture of the installed wheel covers this card's {s.card}: every "
                   "kernel fails on it, and the CUDA error is the consequence")
        r.numbers.update(arch=s.card, build_archs=list(s.build))
        return True
    r.family, (r.title, r.fix) = "version_check", arch_skew.sentence(s)
    r.cause = (f"the installed build (wheel, library) was compiled for other gfx targets than this card's {s.card}: "
               "it has no code object for the card, so the first kernel fails")
    r.numbers.update(arch=s.card, build_archs=list(s.build))
    return True


def _refusal_is_configuration(r: Diagnosis, rd: arg_skew.Reading) -> None:
    """e-skew: a refused name no release of the runner declares (close to one its newest release does: a typo), or
    one every release declares (another command's or section's), is the configuration."""
    if rd.sibling and r.family in ("config_error", "version_check", "unknown"):
        # e-cli9: torch/distributed/launch.py adds --use-env/--use_env to run.py's parser; torchrun never had it
        r.family = "config_error"
        r.title = (f"torchrun refused --{rd.names[0]}: an option of torch.distributed.launch (the older launcher), "
                   "which torchrun does not take - torchrun always passes the local rank in LOCAL_RANK")
        r.fix = (f"drop --{rd.names[0]} from the torchrun command (the script reads os.environ['LOCAL_RANK']), or run "
                 "the command with `python -m torch.distributed.launch` as it was written")
    elif rd.close and r.family in ("config_error", "version_check", "unknown"):
        r.family = "config_error"
        r.title = (f"the argument {rd.names[0]!r} is one no release of the runner declares (a typo?): "
                   f"close to {', '.join(rd.close)}")
        r.fix = f"write it as the runner spells it ({' or '.join(rd.close)}) and rerun"
    elif r.code == "deepspeed-config-validation":
        # e-skew2: a key no DeepSpeed release declares there (another section's, another program's) is the JSON
        r.family = "config_error"
        r.title = (f"DeepSpeed's config refused the key {rd.names[0]!r}: no DeepSpeed release takes it in that section "
                   "(a key of another section, or of another program's config)")
        r.fix = ("move the key to the section that declares it or remove it (DeepSpeed's config-json docs list each "
                 "section's keys), then rerun")
    elif r.family == "unknown":
        r.family = "config_error"
        r.title = (f"the runner refused the argument {rd.names[0]!r}: no release of it takes it there (a typo, or a "
                   "key of another runner, command or section)")
        r.fix = "remove or correct it (the runner's --help and example configs show the accepted names) and rerun"
    if r.code == "deepspeed-config-validation" and r.family == "config_error":
        r.cause = ("DeepSpeed validates each section of its JSON (zero_optimization, offload_*, the monitors) with a "
                   "pydantic model that forbids keys it does not declare: this key is not one any release declares there")


def _refine_teardown(r: Diagnosis, texts: Sequence[str], levers_on: set[str]) -> None:
    """Only the launcher's teardown is in the log: what the rest of the log tells of the rank that died."""
    if _native_crash_on_rocm(r, texts):
        r.family = "hip_error"
        r.title = ("only the launcher's teardown is in the log, and the rank died of a signal (a native crash) on a "
                   "ROCm stack: most likely the GPU runtime or a ROCm library crashed")
        r.fix = ("rerun the failing rank alone with AMD_LOG_LEVEL=3 and under `gdb -ex r -ex bt --args python ...` to "
                 "see the crashing library; use the PyTorch wheel built for the installed ROCm, check the GPU is "
                 "supported (HSA_OVERRIDE_GFX_VERSION on consumer cards) and the amdgpu driver matches")
    elif "offload" in levers_on:
        _as_host_oom(r, texts, "only the launcher's teardown is in the log, and the run's config offloads to the CPU: "
                     "most likely host RAM ran out (the OOM killer leaves no line in the log)")
    elif _teardown_in_host_memory_phase(r):
        # h7-hip: nothing but the launcher's teardown, no exit code other than SIGKILL's, and the run was loading
        # or tokenizing data (or loading weights) on every rank when a rank vanished: the host OOM killer's kill,
        # which leaves no line in the run's own log
        _as_host_oom(r, texts, "only the launcher's teardown is in the log, and a rank vanished while the run was "
                     "loading data or weights into host RAM: most likely host RAM ran out (the OOM killer leaves no "
                     "line in the log)")
    elif (said := teardown.meaning(r.numbers.get("first_exit"))) is not None:
        # e-host2: what the first failed rank's signal says, when nothing else in the log does
        who = f"rank {r.numbers['first_rank']}" if r.numbers.get("first_rank") is not None else "a rank"
        how = "with" if r.numbers["first_exit"] > 0 else "ended by"
        r.title = f"{r.title}: {who} failed first, {how} {said[0]} (exit {r.numbers['first_exit']}): {said[1]}"


def _as_host_oom(r: Diagnosis, texts: Sequence[str], title: str) -> None:
    """The root becomes the host OOM killer's kill, with its cause, fix (sized from the log) and confirmation."""
    sig = cat.BY_CODE["host-oom-killed"]
    r.family, r.title = "host_ram_oom", title
    r.cause, r.fix, r.confirm = sig.cause, _host_ram_fix("\n".join(texts), sig.fix), sig.confirm


def _refine_hang_notes(r: Diagnosis, diags: list[Diagnosis], cfg: ConfigInfo | None) -> None:
    """A hang on this machine: what `doctor` sees of the IOMMU; other ranks' timeouts named as consequences."""
    if r.code in ("collective-timeout", "iommu-p2p-hang", "barrier-no-progress") and cfg is not None and \
            (cfg.run_dir or cfg.output_dir):
        # a run on this machine: say what `doctor` sees of the IOMMU here
        try:
            from rocm_tune.core.hardware.doctor import iommu_state

            state = iommu_state()
        except Exception:
            state = "unknown"
        r.numbers["iommu_this_machine"] = state
        if state in ("on", "passthrough", "off"):
            r.fix += (f" (this machine: IOMMU {state}" + ("; translated: peer-to-peer between AMD GPUs can hang here)"
                                                          if state == "on" else ")"))
    for d in diags:
        if d.code == "collective-timeout" and d is not r:
            d.numbers["verdict"] = "one rank died first"
            who = f"rank {r.first.rank}" if r.first.rank is not None else "a rank"
            d.title = (f"{d.title}: {d.numbers.get('op', 'a collective')} SeqNum {d.numbers.get('seq', '?')} on "
                       f"rank(s) {', '.join(map(str, d.numbers.get('ranks') or [])) or '?'} — consequence: {who} "
                       f"died first ({r.code})")


# explain-rocm: a rank that ended by a crash signal (SIGSEGV/SIGABRT/SIGBUS/SIGILL), as launchers and shells report it
_CRASH_EXIT = re.compile(r"(?:exitcode|exit code|return code)\s*[:=]?\s*(?:-(?:11|6|7|4)|139|134|135|132)\b|"
                         r"Signal (?:11|6|7|4) \((?:SIGSEGV|SIGABRT|SIGBUS|SIGILL)\)|"
                         r"terminated with signal SIG(?:SEGV|ABRT|BUS|ILL)")


# explain-r2b: SIGBUS as launchers report it (torch elastic, DeepSpeed's launcher, multiprocessing, shells: 128+7)
_SIGBUS_EXIT = re.compile(r"(?:exitcode|exit code|return code)\s*[:=]?\s*(?:-7|135)\b|Signal 7 \(SIGBUS\)|"
                          r"<Signals\.SIGBUS: 7>|terminated with signal SIGBUS")
# DataLoader worker processes on, as configs and command lines set them (HF/LLaMA-Factory/ms-swift/axolotl keys,
# torchtune's dataloader.num_workers, plain scripts' --workers/--num_workers)
_WORKERS_ON = re.compile(r"(?:^|[\s'\"{,-])(?:dataloader_num_workers|num_workers|workers)['\"]?\s*[:= ]\s*['\"]?"
                         r"(?!0\b)\d+\b", re.M)


# e-host (issue 26): what keeps a run's data in /dev/shm, as a log or the config beside it shows it — DataLoader worker
# processes (batches pass through /dev/shm), NCCL/RCCL (its proxy and intra-node transport buffers are /dev/shm
# segments, misc/shmutils.cc), a Docker/Podman container (a 64 MB /dev/shm unless --shm-size/--ipc=host), or /dev/shm
# itself named
_SHM_USERS = (("DataLoader worker processes", _WORKERS_ON),
              ("NCCL/RCCL, whose buffers are /dev/shm segments",
               re.compile(r"\b[NR]CCL (?:INFO|WARN)\b|\bProcessGroupNCCL\b|\bNCCL version \d|via SHM/|\bncclComm")),
              ("a container (Docker's /dev/shm is 64 MB by default)",
               # e-host2: nor one whose /dev/shm was sized by hand (--shm-size)
               re.compile(r"\b(?:docker|podman|nvidia-docker) (?:run|exec|compose)\b(?![^\n]*--(?:ipc[= ]host|shm-size))|"
                          r"^root@[0-9a-f]{12}:|/\.dockerenv", re.M)),
              ("/dev/shm named in the log", re.compile(r"/dev/shm\b")))
# e-host2: several ranks on one node (NCCL/RCCL between them keeps its buffers in /dev/shm), unless /dev/shm was sized
_RANKS_ON_NODE = re.compile(lx.RANKS_ON_NODE, re.M)
_SHM_SET = re.compile(lx.SHM_SET)


def _shm_user(texts: Sequence[str]) -> str | None:
    """What in the run keeps data in /dev/shm (the first of _SHM_USERS the texts show), or None."""
    found = next((what for what, rx in _SHM_USERS if any(rx.search(t) for t in texts)), None)
    if found is None and any(_RANKS_ON_NODE.search(t) for t in texts) and not any(_SHM_SET.search(t) for t in texts):
        return "several ranks on this node, whose NCCL/RCCL buffers are /dev/shm segments"
    return found


def _drop_launcher_kills(by_code: dict[str, list[Hit]], ends: teardown.Teardown) -> None:
    """e-host2: the SIGKILLs torch elastic sent itself to ranks that outlived its SIGTERM timeout (written into its
    table with -9 "for bookkeeping") are its teardown, not the OOM killer's kill."""
    hits = by_code.get("host-oom-killed")
    if hits and ends.forced:
        kept = [h for h in hits if not teardown.launcher_kill(h.text, ends.forced)]
        if kept:
            by_code["host-oom-killed"] = kept
        else:
            del by_code["host-oom-killed"]


def _sigbus_of_a_shm_user(by_code: dict[str, list[Hit]], texts: Sequence[str]) -> None:
    """e-host (FAMILIES.md "host_ram_oom vs launcher_exit", amended "Host memory vs collectives"): a rank's death by
    SIGBUS that only a launcher reports (DeepSpeed's `exits with return code = -7`, torch elastic's `exitcode: -7`, a
    shell's 135), in a run that keeps data in /dev/shm, is the shared memory (bus-error-signal, weak: a specific cause
    in the log still comes first) — also over the other ranks' collective timeouts and NCCL errors, which are what the
    dead rank leaves behind. Without a user of /dev/shm in sight a bare -7 stays the launcher's exit code."""
    if "bus-error-signal" in by_code:
        return
    hits = [h for h in by_code.get("child-failed", ()) if _SIGBUS_EXIT.search(h.context)]
    if hits and _shm_user([*texts, *(h.pre for h in hits), *(h.text for h in hits)]) is not None:
        by_code["bus-error-signal"] = [replace(h, code="bus-error-signal") for h in hits]


def _unequal_collective(by_code: dict[str, list[Hit]]) -> None:
    """e-new15 (FAMILIES.md ddp_error: "mismatched shapes across ranks"): the ranks' watchdog lines for one
    collective (one process group, one SeqNum) with different NumelIn, or different ops, are the mismatch that hung
    it (collective_sizes.py): those lines are also read as collective-shape-mismatch, with the sizes per rank."""
    hits = by_code.get("collective-timeout")
    if not hits or "collective-shape-mismatch" in by_code:
        return
    got = collective_sizes.mismatched(hits)
    if got is None:
        return
    idx, nums = got
    sizes = ", ".join(f"rank {r}: {n}" if r is not None else str(n) for r, n in nums["numel_by_rank"].items())
    fix = (f"the ranks entered {nums['op']} SeqNum {nums['seq']} with different sizes ({sizes} elements): make the "
           "tensor the same shape on every rank - a buffer that changes size per rank (a cache grown from the "
           "inputs) kept out of DDP's buffer broadcast (DDP(broadcast_buffers=False) or the model code's fix), "
           "per-rank lengths padded alike, every rank taking the same steps")
    by_code["collective-shape-mismatch"] = [replace(hits[i], code="collective-shape-mismatch", fix=fix) for i in idx]


def _native_crash_on_rocm(r: Diagnosis, texts: Sequence[str]) -> bool:
    """The launcher's summary says a rank died of a crash signal, and the log shows a ROCm stack."""
    said = "\n".join(h.context for h in r.evidence)
    return bool(_CRASH_EXIT.search(said)) and any(cat.ROCM_MARKERS.search(t) for t in (said, *texts))


_IO_PAGE_FAULT = re.compile(r"AMD-Vi: (?:Event logged )?\[?IO_PAGE_FAULT")
_COLLECTIVES = re.compile(r"\b(?:NCCL|RCCL) (?:INFO|WARN)\b|ProcessGroupNCCL|init_process_group|\bWORLD_SIZE=[2-9]|"
                          r"world_size[=:]\s*[2-9]|nproc_per_node[= ][2-9]|--num_gpus[= ][2-9]|\[rank[1-9]\d*\]")


def _iommu_faults_in_collectives(r: Diagnosis, texts: Sequence[str]) -> bool:
    """Every line of the GPU-fault diagnosis is an IOMMU page fault, and the log shows ranks that communicate."""
    return bool(r.evidence) and all(_IO_PAGE_FAULT.search(h.text) for h in r.evidence) and \
        any(_COLLECTIVES.search(t) for t in (r.first.pre, *texts))


_EXIT_SEEN = re.compile(r"(?:exitcode|exit code|return code|exit status)\s*[:=]?\s*(-?\d+)")
# what every rank does in host RAM before training: read/convert/tokenize the data, load the weights
_HOST_PHASE = re.compile(r"load_dataset|[Ll]oading (?:the )?(?:dataset|data)\b|Generating \w+ split|(?:^|\s)Map(?: "
                         r"\(num_proc=\d+\))?:|Running tokenizer|[Tt]okeniz(?:ing|e the) |Converting format of dataset|"
                         r"[Pp]reprocess(?:ing)? (?:the )?(?:dataset|data)|Loading checkpoint shards|"
                         r"[Ll]oading (?:the )?model\b|load_state_dict|[Ll]oading weights")
_HOST_PHASE_MORE = re.compile(lx.HOST_PHASE_MORE)   # e-host2: the libraries' own words for those steps
_LAUNCHER_LINE = re.compile(r"torch[/.]distributed[/.]elastic|closing signal|Killing subprocess|launch\.py:\d+|"
                            r"WARNING:torch\.distributed|\*{5}|OMP_NUM_THREADS")


def _teardown_in_host_memory_phase(r: Diagnosis) -> bool:
    """The launcher tore the ranks down (no exit code shown, or only SIGKILL's) right after the run's own last lines
    read or tokenized data or loaded weights: the phase in which every rank holds the most in host RAM."""
    said = "\n".join(h.context for h in r.evidence)
    if any(int(m.group(1)) not in (-9, 9, 137) for m in _EXIT_SEEN.finditer(said)):
        return False
    return _host_phase_before(r.first.pre)


def _host_phase_before(pre: str) -> bool:
    """The run's own last lines before a line (launchers' lines left out) read or tokenized data or loaded weights."""
    own = [ln for ln in pre.splitlines() if ln.strip() and not _LAUNCHER_LINE.search(ln)]
    return any(_HOST_PHASE.search(ln) or _HOST_PHASE_MORE.search(ln) or run_shapes.MODEL_BUILD.search(ln)   # e-new14
               for ln in own[-3:])


_NO_KERNEL = re.compile(r"invalid device function|no kernel image|device kernel image is invalid|NoBinaryForGpu|"
                        r"InvalidImage|InvalidKernelImage")


_CUDA_SPELLED = re.compile(r"^(?!.*\b(?:HIP|hip|HSA|hsa)[_ ]).*(?:\bCuda failure|\bCUDA error|cuDNN error|CUDNN_STATUS|NVRM: Xid|"
                           r"fallen off the bus|\.cu:\d+)")


def _refine_platform(r: Diagnosis, texts: Sequence[str]) -> None:
    """HIPified code keeps CUDA's names: PyTorch's ROCm build (on Windows, and its hipBLAS status errors),
    ggml/llama.cpp's HIP backend and other ported kernels print `CUDA error: ...`. On a ROCm stack — the log or the
    config shows it — such an error is the HIP runtime's: explain it as one (no kernel for the GPU's gfx target,
    or a HIP runtime failure)."""
    rocm = any(cat.ROCM_MARKERS.search(t) for t in (r.first.text, *texts))
    if r.family == "hip_error" and r.code == "hip-runtime-error" and not rocm and _CUDA_SPELLED.search(r.first.text) \
            and any(exception_sources.NVIDIA_MARKERS.search(t) for t in (r.first.pre, *texts)):
        # the twin: a runtime failure printed in CUDA's words (NCCL's `Cuda failure`, cuDNN, the NVIDIA driver's
        # Xid) on a log that shows NVIDIA's stack and no ROCm mark is CUDA's (FAMILIES.md: cuda_error, same as
        # hip_error on CUDA); RCCL prints the same `Cuda failure` (hipified NCCL), so no mark at all stays HIP's
        sig = cat.BY_CODE["cuda-error"]
        r.code, r.family, r.severity = sig.code, sig.family, sig.severity
        r.title = sig.title + " (a runtime call failed, in CUDA's words, on a log that shows NVIDIA's stack)"
        r.cause, r.fix, r.confirm = sig.cause, sig.fix, sig.confirm
        return
    if r.family != "cuda_error" or not rocm:
        return
    sig = cat.BY_CODE["hip-invalid-device-function" if _NO_KERNEL.search(r.first.text) else "hip-runtime-error"]
    r.code, r.family, r.severity = sig.code, sig.family, sig.severity
    r.title = sig.title + " (a HIP error, printed as a CUDA error by the ROCm build)"
    r.cause, r.fix, r.confirm = sig.cause, sig.fix, sig.confirm


def _refine_kernel_platform(r: Diagnosis, texts: Sequence[str]) -> None:
    """e-g4 (issue 26): Triton's OutOfResources in an attention kernel, a CUDA attention kernel ZLUDA cannot run,
    PyTorch's CUDA build finding no device under its visibility mask (kernel_platform.py)."""
    lines = [r.first.text, r.first.context, *(h.text for h in r.evidence)]
    in_attention = kernel_platform.attention_out_of_resources(r.code, lines, r.first.pre)
    if in_attention:
        r.family, r.title, r.fix, r.cause = ("flash_attn_error", kfx.ATTENTION_OOR_TITLE, kfx.ATTENTION_OOR_FIX,
                                             kfx.OOR_CAUSE)
    elif in_attention is False or (in_attention is None and kernel_platform.is_out_of_resources(r.code, lines)):
        _out_of_resources_outside_attention(r, lines, texts)
    elif kernel_platform.zluda_attention_kernel(r.family, r.first.text, [r.first.pre, *texts]):
        r.family, r.title, r.fix = "flash_attn_error", kfx.ZLUDA_ATTENTION_TITLE, kfx.ZLUDA_ATTENTION_FIX
        r.cause = kfx.ZLUDA_ATTENTION_CAUSE
    elif (mask := kernel_platform.cuda_build_sees_no_gpu(r.code, r.first.text, [r.first.pre, *texts])) is not None:
        r.family, r.title, r.fix = "config_error", kfx.NO_CUDA_DEVICE_TITLE, kfx.NO_CUDA_DEVICE_FIX
        r.cause = kfx.NO_CUDA_DEVICE_CAUSE
        if mask:
            r.title += f" (the log sets CUDA_VISIBLE_DEVICES={mask})"


def _refine_attention_owner(r: Diagnosis, texts: Sequence[str]) -> None:
    """e-hipfa (issue 26): a HIP/CUDA runtime error raised inside flash-attn's or xformers' attention code (its
    innermost own frame, or its native source in the line) is the attention kernels' (attention_owner.py); the
    version readings (arch clause, runtime skew) came first and keep their version_check."""
    if r.family not in ("hip_error", "cuda_error"):
        return
    who = attention_owner.owner(r.first.text, r.first.pre) or attention_owner.native_owner(r.first.text, texts)
    if who is None:
        return
    r.numbers["raised_in"] = who
    r.family = "flash_attn_error"
    r.title, r.cause, r.fix = attention_owner.reading(who, r.first.text)


def _out_of_resources_outside_attention(r: Diagnosis, lines: Sequence[str], texts: Sequence[str]) -> None:
    """e-g4/e-g6: Triton's OutOfResources outside attention: a library's kernel (its caller frame in an installed
    package) cannot run on this GPU, fixed in the library (hip_error on ROCm, cuda_error on CUDA: kernel_platform.py
    states the rule); the user's own kernel or torch.compile's stays the kernel config's (config_error)."""
    lib = kernel_platform.library_out_of_resources(lines, r.first.pre, texts)
    if lib is None:
        r.fix, r.cause = kfx.OTHER_OOR_FIX + "; " + r.fix, kfx.OOR_CAUSE
        return
    r.family, r.cause = lib["family"], kfx.LIBRARY_OOR_CAUSE
    r.title = kfx.LIBRARY_OOR_TITLE.format(lib=lib["lib"], resource=lib["resource"])
    if "required" in lib:
        r.title += f" (Required: {lib['required']}, Hardware limit: {lib['limit']})"
        r.numbers.update(required=lib["required"], limit=lib["limit"])
    r.fix = kfx.LIBRARY_OOR_FIX.format(lib=lib["lib"])


_ARCH_CODES = frozenset({"rocblas-no-tensile-arch", "hip-invalid-device-function", "hip-missing-code-object",
                         "miopen-error", "hip-runtime-error"})
_GFX = re.compile(r"\b(gfx\d{3,4}[a-z]?)\b")
_OVERRIDE_SET = re.compile(r"HSA_OVERRIDE_GFX_VERSION\s*=\s*['\"]?([\w.]+)")


def _refine_arch(r: Diagnosis, blob: str) -> None:
    """The GPU's gfx target from the log: the override users set for it, unless one is already set
    (then whether it fits)."""
    arch = r.numbers.get("arch")
    if not isinstance(arch, str):
        # e-arch: the card's gfx as the tools print it; a gfx named only in a build's list is not the card's
        card = arch_skew.card_gfx(blob, names=False)
        m = _GFX.search(blob) if card is None and not arch_skew.build_lists(blob) else None
        arch = card[0] if card else m.group(1) if m else None
    if not arch:
        _refine_override_only(r, blob)
        return
    r.numbers["arch"] = arch
    ov = _override_for(arch)
    m = _OVERRIDE_SET.search(_HINT.sub("", blob))
    if m:
        r.numbers["override_set"] = m.group(1)
        if ov and m.group(1) != ov:
            r.fix = (f"{arch}: HSA_OVERRIDE_GFX_VERSION is set to {m.group(1)}, the nearest supported one for this "
                     f"GPU is {ov}; " + r.fix)
        elif ov:
            r.fix = (f"{arch}: HSA_OVERRIDE_GFX_VERSION={ov} is already set and still no kernel: install the PyTorch "
                     f"wheel for the installed ROCm version (torch.version.hip) or build PyTorch/the library with "
                     f"PYTORCH_ROCM_ARCH={arch}; check `rocminfo` sees the GPU as {arch}")
    elif ov:
        r.fix = (f"{arch}: export HSA_OVERRIDE_GFX_VERSION={ov} before starting (the nearest architecture the "
                 f"libraries ship kernels for; unofficial); " + r.fix)


def _target_of_override(version: str) -> str | None:
    """The gfx target an HSA_OVERRIDE_GFX_VERSION value stands for: 10.3.0 -> gfx1030, 9.0.10 -> gfx90a."""
    m = re.fullmatch(r"(\d+)\.(\d+)\.(\d+)", version)
    if not m or int(m.group(3)) > 15:
        return None
    return f"gfx{int(m.group(1))}{int(m.group(2))}{int(m.group(3)):x}"


def _refine_override_only(r: Diagnosis, blob: str) -> None:
    """No gfx target in the log, but HSA_OVERRIDE_GFX_VERSION is set: never suggest it again; the code that failed
    has no kernel for the target the override names (a build without that target: AMDGPU_TARGETS / GPU_TARGETS /
    PYTORCH_ROCM_ARCH), or the failure is not the support matrix at all."""
    if r.code not in ("hip-invalid-device-function", "hip-missing-code-object", "rocblas-no-tensile-arch"):
        return
    m = _OVERRIDE_SET.search(_HINT.sub("", blob))
    if not m:
        return
    ov = m.group(1)
    r.numbers["override_set"] = ov
    tgt = _target_of_override(ov) or "the overridden target"
    r.fix = (f"HSA_OVERRIDE_GFX_VERSION={ov} is already set and still no kernel: the library or program that failed "
             f"has no code for {tgt} — rebuild it for that target (AMDGPU_TARGETS / GPU_TARGETS / "
             f"PYTORCH_ROCM_ARCH={tgt}) or install a build that includes it; check `rocminfo | grep gfx` and that the "
             f"override reaches the process")


def _override_for(arch: str) -> str | None:
    """The HSA_OVERRIDE_GFX_VERSION users set for an RDNA consumer GPU the ROCm libraries do not ship."""
    m = re.fullmatch(r"gfx(10[13]|11[05]|12[0])(\w)", arch)
    if not m:
        return None
    fam = m.group(1)
    return {"101": "10.1.0", "103": "10.3.0", "110": "11.0.0", "115": "11.0.0", "120": "12.0.1"}.get(fam)


def _config_risk(cfg: ConfigInfo, scans: Sequence[FileScan]) -> Diagnosis | None:
    """A pasted training config with no failure in it: the memory the estimator predicts per GPU for
    it (full fine-tuning at several world sizes), as a gpu_oom risk when no common GPU holds it."""
    from rocm_tune.core.errors import UserError
    from rocm_tune.core.memory.estimate import TrainConfig, estimate

    t = cfg.train or {}
    ref = str(t.get("model_name_or_path") or "")
    model = closest_model(ref)
    if model is None:
        return None
    ft = str(t.get("finetuning_type") or "lora")
    method = {"full": "full", "freeze": "freeze"}.get(ft, "qlora" if t.get("quantization_bit") else "lora")
    ds = str(t.get("deepspeed") or "")
    zero = 3 if "z3" in ds or "zero3" in ds else 2 if "z2" in ds or "zero2" in ds else 0
    offload = "optimizer" if "offload" in ds else "none"
    prec = "bf16" if t.get("bf16") else "fp16" if t.get("fp16") else "fp32"
    mb = t.get("per_device_train_batch_size") or 1
    cl = t.get("cutoff_len") or 1024
    per: dict[int, int] = {}
    for world in (1, 2, 4, 8):
        if zero == 0 and world > 1:
            continue
        try:
            c = TrainConfig(method=method, precision=prec, cutoff_len=int(cl), micro_batch=int(mb), gpus=world,
                            zero_stage=zero if world > 1 else 0, offload=offload if world > 1 else "none",
                            runner="llamafactory", attn="sdpa")
            c.validate()
            per[world] = int(estimate(model, c).per_gpu.reserved_bytes)
        except (UserError, ValueError, TypeError):
            continue
    if not per:
        return None
    from rocm_tune.core.memory import fitting
    from rocm_tune.core import vocabulary as V

    best_world = max(per)
    need = per[best_world]
    consumer = fitting.limit_bytes(24 * GIB)   # the largest consumer card (24 GB) at the default headroom
    if fitting.fits(need, 24 * GIB):
        return None
    sig_text = (f"{method} fine-tuning of {model.name} ({model.params.total / 1e9:.1f}B params) "
                f"{'with ZeRO-' + str(zero) if zero else 'without ZeRO'}{' + offload' if offload != 'none' else ''}")
    nums = {"method": method, "zero_stage": zero, "offload": offload, "params_total": int(model.params.total),
            "predicted_per_gpu_bytes": {str(w): v for w, v in per.items()}}
    nums["model"] = model.name
    title = (f"the config alone predicts GPU out of memory on 24 GB cards: {sig_text} needs "
             f"{_g1(need)} GiB per GPU even on {best_world} GPUs (a 24 GB card holds {_g1(consumer)} GiB at "
             f"{V.DEFAULT_HEADROOM:g} headroom)")
    fix = ("offload the optimizer (and parameters) to CPU: LLaMA-Factory examples/deepspeed/ds_z3_offload_config.json, "
           "or use LoRA; `rocm-tune plan --model ... --gpu ... --gpus N` gives a configuration that fits")
    first = Hit("config-memory-risk", scans[0].path if scans else "-", 0, 0, None, None, None,
                f"model_name_or_path: {ref}; finetuning_type: {ft}; deepspeed: {ds or '-'}", "")
    return Diagnosis("config-memory-risk", "gpu_oom", "warning", False, "weak", title, first, [first], 1,
                     "weights, gradients and optimizer states of the configured method do not fit the GPUs' memory "
                     "before activations", fix, "`rocm-tune plan` / `rocm-tune estimate` with the real GPU", nums)


def diagnose(paths: Sequence[str], *, config: ConfigInfo | None = None, run_dir: str | None = None,
             output_dir: str | None = None, config_path: str | None = None, alive: bool | None = None,
             stdin_data: bytes | None = None,
             exit_info: tuple[int | None, int | None, str] | None = None) -> Explanation:
    """Explain the logs at `paths` ("-" = `stdin_data`). Unreadable files are skipped."""
    scans: list[FileScan] = []
    for i, p in enumerate(paths):
        if p == "-":
            scans.append(scan_bytes(stdin_data or b"", "-", i))
            continue
        try:
            scans.append(scan_file(p, i))
        except OSError:
            continue
    if config is None:
        config = find_config([s.path for s in scans], run_dir, output_dir, config_path,
                             [s.head_text for s in scans])
    return explain_scans(scans, config, alive, exit_info)


def explain_text(text: str | bytes, *, config: ConfigInfo | None = None) -> Explanation:
    data = text.encode("utf-8", "replace") if isinstance(text, str) else text
    return diagnose(["-"], stdin_data=data, config=config)


def families_of(exp: Explanation) -> Iterable[str]:
    return [d.family for d in exp.diagnoses]


# ------------------------------------------------------------------------------ live hangs
def _sig_caught(pid: int, signum: int) -> bool:
    """The process installed a handler for `signum` (SigCgt in /proc/PID/status): sending it is safe.
    By hand: psutil does not read signal masks."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("SigCgt:"):
                    return bool(int(line.split()[1], 16) >> (signum - 1) & 1)
    except (OSError, ValueError, IndexError):
        pass
    return False


def _rank_env(pid: int) -> int | None:
    from rocm_tune.core.runs.procs import environ

    env = environ(pid) or {}
    v = env.get("RANK", env.get("LOCAL_RANK"))
    try:
        return int(v) if v is not None else None
    except ValueError:
        return None


_PYSPY_FRAME = re.compile(r"^\s+(\S+) \(([^)]+)\)\s*$", re.M)
_FH_FRAME = re.compile(r'^\s*File "([^"]+)", line (\d+) in (\S+)', re.M)
_FH_HEAD = re.compile(r"^(?:Current thread|Thread) 0x[0-9a-f]+ \(most recent call first\):", re.M)


def _waits_in(stack: str) -> str | None:
    """The innermost frame of the main thread: where the process waits."""
    m = _PYSPY_FRAME.search(stack)
    if m:
        return f"{m.group(1)} ({os.path.basename(m.group(2).split(':')[0])}:{m.group(2).rsplit(':', 1)[-1]})"
    m = _FH_FRAME.search(stack)
    if m:
        return f"{m.group(3)} ({os.path.basename(m.group(1))}:{m.group(2)})"
    return None


def run_identity(run_id: str | None, pid: int | None) -> tuple[str | None, str | None]:
    """(run id, validated cgroup) of the rocm-tune run that `pid` provably belongs to, else (None, None).

    The run is `run_id` (the target's) or the one named by the marker in `pid`'s environment; it must be
    in the run registry, and its cgroup is taken from its run.json only as `stop` takes it
    (launcher._run_identity). A pid or start time written in run.json proves nothing."""
    from rocm_tune.core.errors import UserError
    from rocm_tune.core.runs import procs as _procs
    from rocm_tune.core.runs.launch.launcher import _run_identity
    from rocm_tune.core.runs.registry import find_run

    rid = run_id or (_procs.environ_marker(pid) if pid else None)
    if not rid or not _procs._RUN_ID_OK.match(rid):
        return None, None
    try:
        info = find_run(rid)
    except (UserError, OSError, ValueError):
        return None, None
    if info.id != rid:
        return None, None
    return rid, _run_identity(info)[1]


def live_stacks(pid: int, log_paths: Sequence[str], *, wait_s: float = 2.0, max_procs: int = 64,
                run_id: str | None = None) -> list[dict]:
    """Each live training process's Python stack: `py-spy dump` when installed, else the faulthandler
    a process registered on SIGUSR2. SIGUSR2 goes only to a process proven to be the run's, as `stop`
    requires (procs.confirmed: the run's marker in its environment, or its cgroup; `run_identity`) and
    whose SigCgt shows a SIGUSR2 handler; the dump is read from what their logs grew by. A process that
    is not a rocm-tune run's (a `sleep`, another program's Python, a pid run.json names) is never signalled."""
    import signal
    import subprocess
    import time as _time

    from rocm_tune.core.runs.watch.watch import _proc_children, _proc_cmdline

    procs = [pid]
    for p in procs:
        if len(procs) >= max_procs:
            break
        procs += [c for c in _proc_children(p) if c not in procs]
    python = [p for p in procs if any("python" in os.path.basename(a) for a in _proc_cmdline(p)[:2])] or procs
    out: list[dict] = []
    spy = shutil.which("py-spy")
    if spy:
        for p in python[:max_procs]:
            try:
                r = subprocess.run([spy, "dump", "--pid", str(p)], capture_output=True, text=True, timeout=20)
            except (OSError, subprocess.SubprocessError):
                continue
            if r.returncode == 0 and r.stdout.strip():
                out.append({"pid": p, "rank": _rank_env(p), "method": "py-spy", "stack": r.stdout[-20000:],
                            "waits_in": _waits_in(r.stdout)})
        if out:
            return out
    from rocm_tune.core.runs import procs as _procs

    rid, cgroup = run_identity(run_id, pid)
    targets = [p for p in python if rid and _procs.confirmed(p, rid, cgroup) and _sig_caught(p, signal.SIGUSR2)]
    if not targets:
        return out
    sizes = {}
    for lp in log_paths:
        try:
            sizes[lp] = os.path.getsize(lp)
        except OSError:
            pass
    for p in targets:
        try:
            os.kill(p, signal.SIGUSR2)
        except OSError:
            continue
    deadline = _time.monotonic() + wait_s
    text = ""
    while _time.monotonic() < deadline:
        _time.sleep(0.2)
        chunks = []
        for lp, n0 in sizes.items():
            try:
                with open(lp, "rb") as fh:
                    fh.seek(n0)
                    chunks.append(_decode(fh.read(4 * 2**20)))
            except OSError:
                continue
        text = "\n".join(chunks)
        if len(_FH_HEAD.findall(text)) >= len(targets):
            break
    blocks = [b for b in re.split(r"(?=^(?:\[(?:rank|default)\d+\]:)?(?:Current thread|Thread) 0x)", text, flags=re.M)
              if _FH_HEAD.search(b)]
    for i, b in enumerate(blocks):
        who: int | None = targets[i] if i < len(targets) and len(blocks) == len(targets) else None
        out.append({"pid": who, "rank": _rank(b) if _rank(b) is not None else (_rank_env(who) if who else None),
                    "method": "faulthandler", "stack": b[-20000:], "waits_in": _waits_in(b)})
    return out


def _stall_diagnosis(stacks: list[dict], idle_s: float, where: str) -> Diagnosis:
    waits = [f"pid {d['pid']}" + (f" rank {d['rank']}" if d.get("rank") is not None else "") +
             f": waits in {d['waits_in'] or '?'}" for d in stacks]
    dist = any("distributed" in (d["stack"] or "") or "c10d" in (d["stack"] or "") for d in stacks)
    family = "nccl_rccl_timeout_hang" if dist else "unknown"
    first = Hit("live-stall", where, 0, 0, None, stacks[0].get("rank") if stacks else None, None,
                waits[0] if waits else f"no progress for {idle_s:.0f} s", "")
    ev = [Hit("live-stall", where, 0, 0, None, d.get("rank"), None, w, "") for d, w in zip(stacks, waits)]
    idle = f"{idle_s / 60:.1f} min" if idle_s >= 120 else f"{idle_s:.0f} s"
    title = f"alive but no progress for {idle}" + (f"; {waits[0]}" if waits else "")
    fix = ("every rank waits in a collective: check peer-to-peer (`rocm-tune doctor`: IOMMU, iommu=pt / "
           "intel_iommu=off), confirm with NCCL_P2P_DISABLE=1; a rank missing from the list died or never started"
           if dist else "the stacks show where it waits (data loading, I/O, a lock); fix that call")
    return Diagnosis("live-stall", family, "error", False, "weak", title, first, ev[:EVIDENCE_MAX] or [first],
                     max(1, len(stacks)), "the process is alive and makes no progress", fix,
                     "dump again a minute later: the same frames mean a hang, moving frames a slow step",
                     {"idle_s": round(idle_s, 1), "stacks": len(stacks)})


# ------------------------------------------------------------------------------ targets
def explain_target(spec: str, stdin=None, *, stacks: bool | None = None, stall_s: float = 300.0,
                   config_path: str | None = None) -> Explanation:
    """`rocm-tune explain TARGET`: a log file, "-" (stdin), a run id/dir, an output dir or a PID.
    UserError (one line) when TARGET is none of them. A live process whose logs have not grown for
    `stall_s` seconds (or any live one with stacks=True) gets each rank's stack dumped (`live_stacks`);
    stacks=False never signals anything."""
    if spec == "-":
        data = read_stdin_bounded(stdin) if stdin is not None else b""
        return diagnose(["-"], stdin_data=data, config_path=config_path)
    from rocm_tune.core.errors import UserError
    from rocm_tune.core.runs.watch import watch

    try:
        target = watch.resolve_target(spec)
    except UserError:
        logs = _dir_logs(spec)
        if not logs:
            raise
        return diagnose(logs, output_dir=os.path.abspath(os.path.expanduser(spec)), config_path=config_path)
    paths: list[str] = []
    for s in target.sources:
        if s.kind != "trainer_state" and os.path.isfile(s.path) and s.path not in paths:
            paths.append(s.path)
    if target.run_dir:
        for name in ("stdout.log", "stderr.log"):
            p = os.path.join(target.run_dir, name)
            if os.path.isfile(p) and p not in paths:
                paths.append(p)
    out_dir = target.output_dir
    if out_dir is None:
        for s in target.sources:
            if s.kind == "trainer_state":
                out_dir = s.path
    proc = None
    try:
        proc = watch.process_state(target)
    except Exception:  # a run dir that cannot be read still has logs to explain
        proc = None
    alive = bool(proc is not None and proc.alive)
    exit_info = None
    if proc is not None and proc.alive is False and (proc.exit_code is not None or proc.signal):
        where = os.path.join(target.run_dir, "exit.json") if target.run_dir else f"PID {target.pid}"
        exit_info = (proc.exit_code, proc.signal, where)
    exp = diagnose(paths, run_dir=target.run_dir, output_dir=out_dir, config_path=config_path or target.config_path,
                   alive=alive, exit_info=exit_info)
    pid = (proc.pid if proc is not None and proc.pid else None) or target.pid
    if alive and pid and stacks is not False and exp.root is None:
        import time as _time

        mt = [os.path.getmtime(p) for p in paths if os.path.exists(p)]
        idle = _time.time() - max(mt) if mt else 0.0
        if stacks or idle >= stall_s:
            dumps = live_stacks(pid, paths, run_id=target.run_id)
            exp.stacks = dumps
            if idle >= stall_s:
                exp.diagnoses.append(_stall_diagnosis(dumps, idle, paths[0] if paths else f"PID {pid}"))
                exp.root = len(exp.diagnoses) - 1
                exp.status = "hang"
    if exp.status == "unknown" and exp.root is None and proc is not None:
        if proc.status in ("failed", "lost", "exited") and proc.status != "exited" or \
                (proc.exit_code not in (None, 0)):
            exp.status = "failed"
        elif proc.status == "finished":
            exp.status = "finished"
        elif proc.alive:
            exp.status = "running"
    return exp


def _dir_logs(spec: str, limit: int = 64) -> list[str]:
    """A directory of several logs (one per rank, per node, per Slurm task): all of them, by name."""
    d = os.path.abspath(os.path.expanduser(spec))
    if not os.path.isdir(d):
        return []
    try:
        names = sorted(os.listdir(d))[:10000]
    except OSError:
        return []
    out = [os.path.join(d, n) for n in names if n.endswith((".log", ".txt", ".out", ".err"))
           and os.path.isfile(os.path.join(d, n)) and os.access(os.path.join(d, n), os.R_OK)]
    return out[:limit]


# ------------------------------------------------------------------------------ text
def _wrap(label: str, text: str, width: int) -> list[str]:
    import textwrap

    head = f"  {label:<8}"
    return textwrap.wrap(text, width=width, initial_indent=head, subsequent_indent=" " * len(head),
                         break_long_words=True, break_on_hyphens=False) or [head.rstrip()]


def _cut(text: str, width: int) -> str:
    indent = len(text) - len(text.lstrip(" "))
    text = " " * indent + " ".join(text.split())
    return text if len(text) <= width else text[: width - 3] + "..."


def _where(h: Hit) -> str:
    loc = os.path.basename(h.file) if h.file != "-" else "stdin"
    if h.line is not None:
        loc += f":{h.line}"
    if h.rank is not None:
        loc += f" rank {h.rank}"
    return loc


def render_text(exp: Explanation, width: int = 80) -> str:
    """The human answer, every line at most `width` columns."""
    lines: list[str] = []
    status = exp.status.upper()
    if exp.root is None:
        lines.append(_cut(f"status: {status} — " + ("no failure found in the log" if exp.status != "failed"
                                                     else "the run failed; its log holds no known cause")
                          + ("; the lines that look alarming are harmless (below)"
                             if exp.answer == "benign_warning" and any(d.benign for d in exp.diagnoses) else ""),
                          width))
    else:
        r = exp.diagnoses[exp.root]
        lines.append(_cut(f"status: {status} — " + ("no known cause; a guess: " if r.code == resemble.CODE_WEAK
                                                     else "root cause: ") + f"{r.family} ({r.code})", width))
        lines += _wrap("what", r.title, width)
        lines += _wrap("where", f"{_where(r.first)}" + (f", seen {r.count} times" if r.count > 1 else ""), width)
        lines.append("  evidence")
        for h in r.evidence[:3]:
            lines.append(_cut(f"    {_where(h)}: {h.text.strip()}", width))
        lines += _wrap("cause", r.cause, width)
        lines += _wrap("fix", r.fix, width)
        lines += _wrap("confirm", r.confirm, width)
    cons = [d for i, d in enumerate(exp.diagnoses) if i != exp.root and not d.benign]
    if cons:
        lines.append("  consequences and other signs" if exp.root is not None else "  signs")
        for d in cons:
            lines.append(_cut(f"    {d.code} ({d.family}) at {_where(d.first)}: {d.title}", width))
    benign = [d for d in exp.diagnoses if d.benign]
    if benign:
        lines.append(_cut("  harmless: " + ", ".join(f"{d.code} x{d.count}" for d in benign), width))
        for d in benign:   # e-benign: which library warning, printed where
            if d.code == last_reading.CODE_WARNING:   # e-fall: the last reading's most prominent warning
                lines.append(_cut(f"    best reading, the most prominent {d.numbers.get('warning_kind', 'warning')} "
                                  f"(x{d.count}): {d.first.text.strip()}", width))
            for w in d.numbers.get("warnings", ()):
                lines.append(_cut(f"    {w['library']} warning ({w['source']}): {w['warning']}", width))
    if exp.stacks:
        lines.append("  stacks (live)")
        for st in exp.stacks:
            who = f"pid {st['pid']}" + (f" rank {st['rank']}" if st.get("rank") is not None else "")
            lines.append(_cut(f"    {who} ({st['method']}): waits in {st.get('waits_in') or '?'}", width))
    elif exp.stacks is not None:
        lines.append(_cut("  stacks: none taken (install py-spy, or register faulthandler on SIGUSR2)", width))
    if exp.config:
        lines.append(_cut(f"config: {exp.config}", width))
    if exp.partial:
        lines.append(_cut("note: a huge log: its head and tail were read whole, the middle sampled", width))
    # plain ASCII dashes: one column in every terminal and font
    return "\n".join(line.replace("\u2014", "-")[:width] for line in lines)
