"""Measured memory and speed of every rank of a run: `read_measured(run_dir) -> Measured | None`.

Every rank of a run rocm-tune starts (the built-in trainer, LLaMA-Factory through
`python -m rocm_tune.train.lf_launch`, preflight) appends one JSON object per line to
`RUN_DIR/ranks/<node>-<rank>.jsonl` (written by `rocm_tune.train.callbacks`). One line = one sample:

```
{"type": "mem", "time": 1764000000.0, "node": "0", "host": "gpu-a", "rank": 1, "local_rank": 1,
 "world_size": 4, "gpu_index": 1, "device": "cuda", "source": "torch.cuda", "step": 20,
 "allocated_bytes": ..., "reserved_bytes": ..., "peak_allocated_bytes": ..., "peak_reserved_bytes": ...,
 "rss_bytes": ..., "tokens_per_s": 1234.5, "step_time_s": 0.8,
 "telemetry": {"util_percent": 97, "vram_used_bytes": ..., "vram_total_bytes": ..., "temp_c": 61,
               "power_w": 250.0} | null}
```
Byte counts are ints (null where the device has none: a CPU rank has no GPU memory; `source` then says
where a number came from, e.g. "fake-tensor probe" for preflight on CPU). Peaks are cumulative, so the
last line of a file holds the rank's peak; only the tail of each file is read.

Because the files live in the run directory, a multi-node job on a shared filesystem shows every node's
ranks here, on the login node, without SSH. Standard library only.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

RANKS_DIR = "ranks"
PREFLIGHT_JSON = "preflight.json"
_FILE_RE = re.compile(r"^(?P<node>[A-Za-z0-9._-]+)-(?P<rank>\d+)\.jsonl$")
_TAIL_BYTES = 65536


def _int(v) -> int | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, float) and v == v and abs(v) != float("inf"):
        return int(v)
    return None


def _num(v) -> float | None:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    f = float(v)
    return f if f == f and abs(f) != float("inf") else None


@dataclass(frozen=True)
class RankMeasured:
    """The latest sample of one rank (peaks are cumulative since the rank started)."""

    node: str
    rank: int
    host: str | None = None
    local_rank: int | None = None
    world_size: int | None = None
    gpu_index: int | None = None          # physical index of the rank's GPU on its node (telemetry's index)
    device: str | None = None             # "cuda" (also ROCm/HIP) | "cpu"
    source: str | None = None             # "torch.cuda" | "fake-tensor probe" | "host"
    step: int | None = None
    time: float | None = None
    allocated_bytes: int | None = None
    reserved_bytes: int | None = None
    peak_allocated_bytes: int | None = None
    peak_reserved_bytes: int | None = None
    rss_bytes: int | None = None
    tokens_per_s: float | None = None
    step_time_s: float | None = None
    telemetry: dict | None = None
    samples: int = 0                      # lines read (from the tail of the file)
    # what really executes: {"frozen": {dtype: elements}, "trainable": {dtype: elements}} when training began
    param_dtypes: dict | None = None

    def to_dict(self) -> dict:
        return {
            "node": self.node, "rank": self.rank, "host": self.host, "local_rank": self.local_rank,
            "world_size": self.world_size, "gpu_index": self.gpu_index, "device": self.device,
            "source": self.source, "step": self.step, "time": self.time,
            "allocated_bytes": self.allocated_bytes, "reserved_bytes": self.reserved_bytes,
            "peak_allocated_bytes": self.peak_allocated_bytes, "peak_reserved_bytes": self.peak_reserved_bytes,
            "rss_bytes": self.rss_bytes, "tokens_per_s": self.tokens_per_s, "step_time_s": self.step_time_s,
            "telemetry": self.telemetry, "param_dtypes": self.param_dtypes,
        }


def _sub(d: dict, key: str) -> dict:
    """``d[key]`` when it is a dict, else an empty dict."""
    v = d.get(key)
    return v if isinstance(v, dict) else {}


def _dtype_counts(v) -> dict | None:
    """A recorded param_dtypes object, validated: two sides of {dtype name: element count}."""
    if not isinstance(v, dict):
        return None
    out: dict = {}
    for side in ("frozen", "trainable"):
        counts = v.get(side)
        if not isinstance(counts, dict):
            return None
        good = {str(k)[:32]: i for k, n in list(counts.items())[:16] if (i := _int(n)) is not None and i >= 0}
        out[side] = good
    return out


@dataclass(frozen=True)
class Measured:
    run_dir: str
    ranks: tuple[RankMeasured, ...] = field(default_factory=tuple)

    @property
    def nodes(self) -> tuple[str, ...]:
        seen: list[str] = []
        for r in self.ranks:
            if r.node not in seen:
                seen.append(r.node)
        return tuple(seen)

    def by_node(self) -> dict[str, tuple[RankMeasured, ...]]:
        return {n: tuple(r for r in self.ranks if r.node == n) for n in self.nodes}

    def _max(self, attr: str) -> int | None:
        vals = [getattr(r, attr) for r in self.ranks if getattr(r, attr) is not None]
        return max(vals) if vals else None

    @property
    def peak_allocated_bytes(self) -> int | None:
        return self._max("peak_allocated_bytes")

    @property
    def peak_reserved_bytes(self) -> int | None:
        return self._max("peak_reserved_bytes")

    @property
    def rss_bytes(self) -> int | None:
        return self._max("rss_bytes")

    @property
    def tokens_per_s(self) -> float | None:
        """The job's rate: the sum of the ranks' latest rates."""
        vals = [r.tokens_per_s for r in self.ranks if r.tokens_per_s is not None]
        return round(sum(vals), 2) if vals else None

    @property
    def sources(self) -> tuple[str, ...]:
        return tuple(sorted({r.source for r in self.ranks if r.source}))

    def to_dict(self) -> dict:
        return {
            "run_dir": self.run_dir,
            "nodes": list(self.nodes),
            "ranks": [r.to_dict() for r in self.ranks],
            "peak_allocated_bytes": self.peak_allocated_bytes,
            "peak_reserved_bytes": self.peak_reserved_bytes,
            "rss_bytes": self.rss_bytes,
            "tokens_per_s": self.tokens_per_s,
            "sources": list(self.sources),
        }


def _tail_lines(path: Path, max_bytes: int = _TAIL_BYTES) -> list[bytes]:
    try:
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            start = max(0, size - max_bytes)
            fh.seek(start)
            data = fh.read()
    except OSError:
        return []
    lines = data.split(b"\n")
    if start > 0 and lines:
        lines = lines[1:]  # the first one is cut
    return [ln for ln in lines if ln.strip()]


def read_rank_file(path: str | os.PathLike) -> RankMeasured | None:
    """The latest complete sample of one rank file (a torn last line is skipped), None if none."""
    p = Path(path)
    m = _FILE_RE.match(p.name)
    if not m:
        return None
    last: dict | None = None
    n = 0
    peak_a = peak_r = None
    rate = step_time = None   # the last logged rate (an end-of-training sample carries none)
    dtypes = None
    for raw in _tail_lines(p):
        try:
            rec = json.loads(raw)
        except ValueError:
            continue
        if not isinstance(rec, dict) or rec.get("type", "mem") != "mem":
            continue
        n += 1
        last = rec
        a, r = _int(rec.get("peak_allocated_bytes")), _int(rec.get("peak_reserved_bytes"))
        if a is not None:
            peak_a = a if peak_a is None else max(peak_a, a)
        if r is not None:
            peak_r = r if peak_r is None else max(peak_r, r)
        if _num(rec.get("tokens_per_s")) is not None:
            rate, step_time = _num(rec.get("tokens_per_s")), _num(rec.get("step_time_s"))
        dtypes = _dtype_counts(rec.get("param_dtypes")) or dtypes
    if last is None:
        return None
    tel = last.get("telemetry")
    rank_no = _int(last.get("rank"))
    return RankMeasured(
        node=str(last.get("node", m.group("node"))),
        rank=rank_no if rank_no is not None else int(m.group("rank")),
        host=last.get("host") if isinstance(last.get("host"), str) else None,
        local_rank=_int(last.get("local_rank")),
        world_size=_int(last.get("world_size")),
        gpu_index=_int(last.get("gpu_index")),
        device=last.get("device") if isinstance(last.get("device"), str) else None,
        source=last.get("source") if isinstance(last.get("source"), str) else None,
        step=_int(last.get("step")),
        time=_num(last.get("time")),
        allocated_bytes=_int(last.get("allocated_bytes")),
        reserved_bytes=_int(last.get("reserved_bytes")),
        peak_allocated_bytes=peak_a,
        peak_reserved_bytes=peak_r,
        rss_bytes=_int(last.get("rss_bytes")),
        tokens_per_s=rate,
        step_time_s=step_time,
        telemetry=tel if isinstance(tel, dict) else None,
        samples=n,
        param_dtypes=dtypes,
    )


def ranks_dir(run_dir: str | os.PathLike) -> Path:
    return Path(run_dir) / RANKS_DIR


def read_measured(run_dir: str | os.PathLike) -> Measured | None:
    """Every rank's latest sample under RUN_DIR/ranks/, ordered by (node, rank); None when there is none."""
    d = ranks_dir(run_dir)
    try:
        names = os.listdir(d)
    except OSError:
        return None
    ranks = [r for r in (read_rank_file(d / n) for n in names if _FILE_RE.match(n)) if r is not None]
    if not ranks:
        return None

    def key(r: RankMeasured):
        return (int(r.node) if r.node.isdigit() else 1 << 30, r.node, r.rank)

    ranks.sort(key=key)
    return Measured(run_dir=str(Path(run_dir)), ranks=tuple(ranks))


def read_predicted(run_dir: str | os.PathLike) -> dict | None:
    """What the plan of the run (RUN_DIR/plan.json) predicted per GPU and for speed; None without a plan.

    {"peak_allocated_bytes", "reserved_bytes", "cpu_offload_bytes", "tokens_per_s", "seconds_per_step",
     "gpus", "nodes", "vram_bytes"}: byte ints, None where the plan has no number."""
    from rocm_tune.core.files import MAX_STATE_BYTES, try_read_json

    plan = try_read_json(Path(run_dir) / "plan.json", None, MAX_STATE_BYTES)  # bounded, depth/number limits
    if not isinstance(plan, dict):
        return None
    mem = _sub(plan, "memory")
    ex = _sub(plan, "execution")
    thr = _sub(plan, "throughput")
    hw = _sub(plan, "hardware")
    return {
        "peak_allocated_bytes": _int(mem.get("peak_allocated_bytes")),
        "reserved_bytes": _int(mem.get("reserved_bytes")),
        "cpu_offload_bytes": _int(mem.get("cpu_offload_bytes")),
        "tokens_per_s": _num(thr.get("tokens_per_s")),
        "seconds_per_step": _num(thr.get("seconds_per_step")),
        "gpus": _int(hw.get("gpus")),
        "nodes": _int(hw.get("nodes")),
        "vram_bytes": _int(hw.get("vram_bytes")),
        # what the plan says executes (its execution block): compared with the dtypes the ranks record
        "frozen_weights": ex.get("frozen_weights") if isinstance(ex.get("frozen_weights"), str) else None,
        "trainable_weights": ex.get("trainable_weights") if isinstance(ex.get("trainable_weights"), str) else None,
    }


def rank_file_name(node: str | int, rank: int) -> str:
    node_s = re.sub(r"[^A-Za-z0-9._-]+", "-", str(node)) or "0"
    return f"{node_s}-{int(rank)}.jsonl"


def attach_fields(target) -> dict:
    """{"measured": Measured.to_dict() | None, "predicted": read_predicted(...) | None} for a watch Target
    (its run directory, else its output directory, where the ranks write without a run dir)."""
    dirs = [d for d in (getattr(target, "run_dir", None), getattr(target, "output_dir", None)) if d]
    measured = None
    for d in dirs:
        m = read_measured(d)
        if m is not None:
            measured = m.to_dict()
            break
    predicted = None
    out_dir = getattr(target, "output_dir", None)
    for d in dirs + ([str(Path(out_dir).parent)] if out_dir else []):   # a bundle's output dir: plan.json one up
        predicted = read_predicted(d)
        if predicted is not None:
            break
    return {"measured": measured, "predicted": predicted, "dtype_mismatches": dtype_mismatches(measured, predicted)}


def human_lines(measured: dict | None, predicted: dict | None) -> list[str]:
    """Short text lines for `attach --once`: every node's ranks, predicted vs measured."""
    if not measured:
        return []
    g = 2**30

    def gib(n) -> str:
        return "-" if not isinstance(n, int) else f"{n / g:.2f} GiB"

    lines = []
    pred = ""
    if predicted and predicted.get("peak_allocated_bytes") is not None:
        pred = f" (predicted peak {gib(predicted['peak_allocated_bytes'])}, reserved {gib(predicted.get('reserved_bytes'))})"
    lines.append(f"  measured {len(measured['ranks'])} rank(s) on {len(measured['nodes'])} node(s){pred}")
    for r in measured["ranks"]:
        where = f"node {r['node']}" + (f" ({r['host']})" if r.get("host") else "")
        dev = f"gpu{r['gpu_index']}" if r.get("gpu_index") is not None else (r.get("device") or "?")
        tok = f", {r['tokens_per_s']:.0f} tok/s" if isinstance(r.get("tokens_per_s"), (int, float)) else ""
        src = f" [{r['source']}]" if r.get("source") and r.get("source") != "torch.cuda" else ""
        lines.append(f"    {where} rank {r['rank']} {dev}: peak {gib(r.get('peak_allocated_bytes'))} allocated, "
                     f"{gib(r.get('peak_reserved_bytes'))} reserved, host RSS {gib(r.get('rss_bytes'))}{tok}{src}")
        dtypes = dtype_summary(r.get("param_dtypes"))
        if dtypes:
            lines.append(f"      params: frozen {dtypes['frozen'] or '-'}, trainable {dtypes['trainable'] or '-'}")
    for problem in dtype_mismatches(measured, predicted):
        lines.append(f"  ! {problem}")
    return lines


_SHORT = {"float32": "fp32", "bfloat16": "bf16", "float16": "fp16", "int8": "int8", "uint8": "uint8"}


def dtype_summary(param_dtypes) -> dict | None:
    """{"frozen": "fp32", "trainable": "fp32"}: each side's dtypes by elements, largest first ("bf16+fp32")."""
    if not isinstance(param_dtypes, dict):
        return None
    out = {}
    for side in ("frozen", "trainable"):
        counts = _sub(param_dtypes, side)
        names = sorted(counts, key=lambda k: -(counts[k] if isinstance(counts[k], int) else 0))
        out[side] = "+".join(_SHORT.get(n, n) for n in names)
    return out


def dtype_mismatches(measured: dict | None, predicted: dict | None) -> list[str]:
    """Ranks whose recorded parameter dtypes are not what the plan says executes (e.g. bf16 frozen weights under
    a plan that pins fp32): one line each."""
    if not measured or not predicted:
        return []
    out = []
    for r in measured.get("ranks") or []:
        got = dtype_summary(r.get("param_dtypes"))
        if not got:
            continue
        for side, key in (("frozen", "frozen_weights"), ("trainable", "trainable_weights")):
            want = predicted.get(key)
            # quantised (int/uint) storage is QLoRA's, not a mismatch of the float dtype
            floats = [d for d in got[side].split("+") if d and not d.startswith(("int", "uint"))]
            if want and floats and floats[0] != want:
                out.append(f"rank {r.get('rank')}: {side} parameters are {got[side]}, the plan says {want}")
    return out
