"""GPUs for machines without any: a fake backend (synthetic telemetry) and a replay backend.

Replay file format (JSON, written by `rocm-tune gpus --record` or by hand):
    {"format": "rocm-tune-replay", "version": 1, "description": "...", "interval_s": 1.0,
     "frames": [{"t": 0.0, "gpus": [<GpuSample.to_dict()>, ...]}, ...]}
A bare list of frames is accepted too. Playback loops; `t` is seconds from the first frame.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from pathlib import Path

from rocm_tune.core.hardware.devices.types import NA, GpuSample
from rocm_tune.core.errors import UserError


class FakeBackend:
    """`count` GPUs of one profile with deterministic, slowly varying "training" telemetry."""

    kind = "synthetic"
    tried: list[tuple[str, str]]  # set by devices.detect: the backends skipped before this one

    def __init__(self, profile_id: str = "mi50-32gb", count: int = 1, seed: int = 0,
                 clock: Callable[[], float] = time.time):
        from rocm_tune.profiles.gpu_profiles import get_gpu_profile

        if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= 64:
            raise UserError(f"fake GPU count must be between 1 and 64, got {count!r}")
        self.profile = get_gpu_profile(profile_id)
        self.count = count
        self.seed = seed
        self.clock = clock
        self.name = "fake"
        rng = random.Random(seed)
        self._phase = [rng.uniform(0, 2 * math.pi) for _ in range(count)]
        self._base_mem = [rng.uniform(0.55, 0.75) for _ in range(count)]

    def probe(self) -> int:
        return self.count

    def sample(self) -> tuple[GpuSample, ...]:
        now = self.clock()
        p = self.profile
        limit = {"amd": 300.0, "hygon": 300.0, "nvidia": 350.0}.get(p.vendor, 300.0)
        if p.vram_gib >= 128:
            limit = 750.0
        out = []
        for i in range(self.count):
            wave = math.sin(now / 7.0 + self._phase[i])
            util = max(0.0, min(100.0, 88.0 + 10.0 * wave))
            used = int(p.vram_bytes * min(0.97, self._base_mem[i] + 0.03 * (1 + math.sin(now / 31.0 + i))))
            out.append(GpuSample(
                index=i, name=p.display_name, profile_id=p.id, arch=p.arch,
                vram_used_bytes=used, vram_total_bytes=p.vram_bytes, util_percent=round(util, 1),
                temp_c=round(55.0 + 0.25 * util + 2 * wave, 1), power_w=round(limit * (0.25 + 0.7 * util / 100), 1),
                power_limit_w=limit, sclk_mhz=round(1500 + 200 * wave), mclk_mhz=1000.0,
                pcie="16 GT/s x16", processes=((40000 + i, "python3", int(used * 0.98)),), timestamp=now,
            ))
        return tuple(out)

    def close(self) -> None:
        pass


def parse_fake_spec(spec: str) -> tuple[str, int]:
    """'mi50-32gb:2' -> ('mi50-32gb', 2); 'mi300x' -> ('mi300x', 1). UserError names the bad value."""
    text = (spec or "").strip()
    if not text:
        raise UserError("ROCM_TUNE_FAKE_GPUS is empty; expected PROFILE[:COUNT], e.g. mi50-32gb:2")
    pid, _, count = text.partition(":")
    try:
        n = int(count) if count else 1
    except ValueError:
        raise UserError(f"ROCM_TUNE_FAKE_GPUS={spec!r}: count {count!r} must be an integer 1..64") from None
    if not 1 <= n <= 64:
        raise UserError(f"ROCM_TUNE_FAKE_GPUS={spec!r}: count must be between 1 and 64")
    if not pid.strip():
        raise UserError(f"ROCM_TUNE_FAKE_GPUS={spec!r} names no GPU profile; expected PROFILE[:COUNT], e.g. mi50-32gb:2")
    return pid.strip(), n


MAX_REPLAY_BYTES = 512 * 2**20  # `gpus --record --frames 100000` (its most) of 8 GPUs writes ~300 MiB


class ReplayBackend:
    """Plays recorded snapshots back in real time, looping."""

    kind = "synthetic"
    tried: list[tuple[str, str]]  # set by devices.detect: the backends skipped before this one

    def __init__(self, path: str | Path, clock: Callable[[], float] = time.monotonic, loop: bool = True,
                 speed: float = 1.0):
        self.path = Path(path)
        self.name = "replay"
        self.clock = clock
        self.loop = loop
        self.speed = speed
        self.description = ""
        self.frames = self._load()
        self.duration = self.frames[-1][0] + self._interval
        self._start = clock()

    def _load(self) -> list[tuple[float, tuple[GpuSample, ...]]]:
        from rocm_tune.core.files import read_json

        # a regular file only (a FIFO or /dev/zero is refused before a byte is read), at most
        # MAX_REPLAY_BYTES, brackets nested at most files.MAX_NESTING deep: one-line UserErrors
        doc = read_json(self.path, "ROCM_TUNE_REPLAY file", expect=None, max_bytes=MAX_REPLAY_BYTES)
        self._interval = 1.0
        if isinstance(doc, dict):
            self.description = str(doc.get("description", ""))
            try:
                self._interval = float(doc.get("interval_s", 1.0))
            except (TypeError, ValueError):
                self._interval = 1.0
            frames_doc = doc.get("frames")
        else:
            frames_doc = doc
        if not isinstance(frames_doc, list) or not frames_doc:
            raise UserError(f"replay file {str(self.path)!r} has no frames (expected {{\"frames\": [...]}})")
        if not (0 < self._interval < 3600):
            self._interval = 1.0
        frames = []
        for n, fr in enumerate(frames_doc):
            try:
                t = float(fr.get("t", n * self._interval))
                gpus = tuple(GpuSample.from_dict(g) for g in fr["gpus"])
            except (AttributeError, KeyError, TypeError, ValueError) as exc:
                raise UserError(f"replay file {str(self.path)!r}: frame {n} is malformed ({exc})") from None
            frames.append((t, gpus))
        frames.sort(key=lambda f: f[0])
        t0 = frames[0][0]
        return [(t - t0, g) for t, g in frames]

    def probe(self) -> int:
        return max(len(g) for _t, g in self.frames)

    def frame_at(self, elapsed: float) -> tuple[GpuSample, ...]:
        if self.loop and self.duration > 0:
            elapsed = elapsed % self.duration
        chosen = self.frames[0][1]
        for t, gpus in self.frames:
            if t <= elapsed:
                chosen = gpus
            else:
                break
        return chosen

    def sample(self) -> tuple[GpuSample, ...]:
        now_wall = time.time()
        elapsed = (self.clock() - self._start) * self.speed
        from dataclasses import replace

        return tuple(replace(g, timestamp=now_wall) for g in self.frame_at(elapsed))

    def close(self) -> None:
        pass


def record(backend, frames: int, interval: float, sleep: Callable[[float], None] = time.sleep,
           description: str = "") -> dict:
    """Sample `backend` `frames` times, `interval` s apart, into a replay document."""
    out = []
    t0 = None
    for n in range(frames):
        samples = backend.sample()
        ts = samples[0].timestamp if samples else time.time()
        t0 = ts if t0 is None else t0
        out.append({"t": round(ts - t0, 3), "gpus": [s.to_dict() for s in samples]})
        if n + 1 < frames:
            sleep(interval)
    return {"format": "rocm-tune-replay", "version": 1, "description": description,
            "backend": getattr(backend, "name", "?"), "interval_s": interval, "frames": out}


__all__ = ["NA", "FakeBackend", "ReplayBackend", "parse_fake_spec", "record"]
