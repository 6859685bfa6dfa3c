"""Telemetry value types: the `NA` sentinel, immutable `GpuSample` snapshots and the backend protocol."""

from __future__ import annotations

import re
from dataclasses import dataclass, fields
from typing import Any, Protocol, runtime_checkable


class _NAType:
    """A metric the backend cannot give. Falsy, prints "N/A", becomes null in JSON (`to_dict`)."""

    _instance: _NAType | None = None

    def __new__(cls) -> _NAType:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return "NA"

    def __str__(self) -> str:
        return "N/A"

    def __format__(self, spec: str) -> str:
        # keep alignment/width, drop numeric formatting: f"{NA:>6.1f}" -> "   N/A"
        m = re.match(r"^([^<>=^]?[<>=^])?(\d+)?", spec or "")
        align = (m.group(1) or ">") if m else ">"
        width = m.group(2) if m and m.group(2) else ""
        return format("N/A", f"{align}{width}")

    def __reduce__(self):
        return (_NAType, ())

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


NA: Any = _NAType()


def is_na(value: Any) -> bool:
    return value is NA


def json_value(value: Any) -> Any:
    """NA -> None, tuples -> lists (recursively), everything else unchanged."""
    if value is NA:
        return None
    if isinstance(value, (tuple, list)):
        return [json_value(v) for v in value]
    return value


@dataclass(frozen=True)
class GpuSample:
    """One snapshot of one GPU. Every metric may be `NA`; nothing here raises."""

    index: int
    name: str
    profile_id: Any = NA            # str | NA: matched rocm-tune GPU profile
    arch: Any = NA                  # "gfx942" / "sm_90" | NA
    vram_used_bytes: Any = NA       # int | NA
    vram_total_bytes: Any = NA      # int | NA
    util_percent: Any = NA          # float 0..100 | NA
    temp_c: Any = NA                # float | NA (junction/hotspot when known, else edge)
    power_w: Any = NA               # float | NA
    power_limit_w: Any = NA         # float | NA
    sclk_mhz: Any = NA              # float | NA (graphics / SM clock)
    mclk_mhz: Any = NA              # float | NA (memory clock)
    pcie: Any = NA                  # str | NA, e.g. "16.0 GT/s x16"
    processes: tuple = ()           # ((pid, name, vram_bytes | NA), ...)
    timestamp: float = 0.0          # unix seconds

    @property
    def vram_free_bytes(self) -> Any:
        if self.vram_used_bytes is NA or self.vram_total_bytes is NA:
            return NA
        return max(0, self.vram_total_bytes - self.vram_used_bytes)

    @property
    def vram_percent(self) -> Any:
        if self.vram_used_bytes is NA or not self.vram_total_bytes:
            return NA
        return 100.0 * self.vram_used_bytes / self.vram_total_bytes

    def to_dict(self) -> dict:
        out = {f.name: json_value(getattr(self, f.name)) for f in fields(self)}
        out["processes"] = [
            {"pid": p[0], "name": p[1], "vram_bytes": json_value(p[2])} for p in self.processes
        ]
        return out

    @classmethod
    def from_dict(cls, data: dict) -> GpuSample:
        """Inverse of `to_dict` (None -> NA). Raises ValueError/TypeError on malformed input."""
        if not isinstance(data, dict):
            raise TypeError(f"expected a GPU sample object, got {type(data).__name__}")
        kw: dict[str, Any] = {}
        ints = ("vram_used_bytes", "vram_total_bytes")
        floats = ("util_percent", "temp_c", "power_w", "power_limit_w", "sclk_mhz", "mclk_mhz")
        for f in fields(cls):
            if f.name not in data:
                continue
            v = data[f.name]
            if f.name == "processes":
                procs = []
                for p in v or []:
                    if isinstance(p, dict):
                        procs.append((int(p.get("pid", 0)), str(p.get("name", "")),
                                      NA if p.get("vram_bytes") is None else int(p["vram_bytes"])))
                    else:
                        pid, name, mem = p
                        procs.append((int(pid), str(name), NA if mem is None else int(mem)))
                kw["processes"] = tuple(procs)
            elif v is None:
                kw[f.name] = NA
            elif f.name in ints:
                kw[f.name] = int(v)
            elif f.name in floats:
                kw[f.name] = float(v)
            elif f.name == "index":
                kw[f.name] = int(v)
            elif f.name == "timestamp":
                kw[f.name] = float(v)
            else:
                kw[f.name] = str(v)
        if "index" not in kw or "name" not in kw:
            raise ValueError("a GPU sample needs at least 'index' and 'name'")
        return cls(**kw)


@runtime_checkable
class Backend(Protocol):
    """A telemetry source. `sample()` never raises; a failing read gives NA metrics or ()."""

    name: str

    def sample(self) -> tuple[GpuSample, ...]: ...
