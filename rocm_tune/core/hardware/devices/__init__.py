"""GPU detection and live telemetry.

    from rocm_tune.core.hardware.devices import detect
    backend = detect()            # first backend that sees a GPU, or a "none" backend
    backend.name, backend.tried   # which one, and why the ones before it were skipped
    for s in backend.sample():    # tuple[GpuSample, ...]; never raises, missing metrics are NA
        ...

Order: amdsmi, amd-smi, rocm-smi, hy-smi, sysfs, nvml, nvidia-smi, torch, none.
`ROCM_TUNE_FAKE_GPUS="mi50-32gb:2"` or `ROCM_TUNE_REPLAY=path.json` make `detect()` use the fake or
replay backend (for the TUI, the demo and tests on machines without GPUs).
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping

from rocm_tune.core.hardware.devices.types import NA, Backend, GpuSample, is_na, json_value
from rocm_tune.core.errors import UserError

BACKEND_ORDER = ("amdsmi", "amd-smi", "rocm-smi", "hy-smi", "sysfs", "nvml", "nvidia-smi", "torch")
SPECIAL_BACKENDS = ("fake", "replay", "none")


class NoneBackend:
    """No GPU found. `tried` says which backends were tried and why each was skipped."""

    name = "none"
    kind = "none"

    def __init__(self, tried=()):
        self.tried = list(tried)
        self.probe_ms = {}

    def probe(self) -> int:
        return 0

    def sample(self) -> tuple[GpuSample, ...]:
        return ()

    def close(self) -> None:
        pass


def make_backend(name: str, root: str = "/", runner=None, which=None, sys_root: str | None = None):
    """Instantiate one real backend by name (no probing)."""
    from rocm_tune.core.hardware.devices import backends as B

    if name == "amdsmi":
        return B.AmdSmiLibBackend()
    if name == "amd-smi":
        return B.AmdSmiCliBackend(runner, which)
    if name == "rocm-smi":
        return B.RocmSmiBackend(runner, which)
    if name == "hy-smi":
        return B.HySmiBackend(runner, which)
    if name == "sysfs":
        return B.SysfsBackend(root, sys_root)
    if name == "nvml":
        return B.NvmlBackend()
    if name == "nvidia-smi":
        return B.NvidiaSmiBackend(runner, which)
    if name == "torch":
        return B.TorchBackend(root)
    raise UserError(f"unknown backend {name!r}; expected one of: {', '.join(BACKEND_ORDER + SPECIAL_BACKENDS)}")


def detect(prefer: str | None = None, *, root: str = "/", env: Mapping[str, str] | None = None,
           runner=None, which=None, order: tuple[str, ...] | None = None, sys_root: str | None = None):
    """The first backend (in `BACKEND_ORDER`, or only `prefer`) that reports at least one GPU.

    Returns that backend with `.tried` = [(name, reason), ...] for the ones skipped before it, or a
    `NoneBackend` whose `.tried` lists every backend and its reason. Never raises for a missing GPU;
    UserError only for a bad `prefer` name or a bad fake/replay specification.
    """
    from rocm_tune.core.hardware.devices import backends as B
    from rocm_tune.core.hardware.devices.synthetic import FakeBackend, ReplayBackend, parse_fake_spec

    env = os.environ if env is None else env
    if prefer is not None and prefer not in BACKEND_ORDER + SPECIAL_BACKENDS:
        raise UserError(f"unknown backend {prefer!r}; expected one of: {', '.join(BACKEND_ORDER + SPECIAL_BACKENDS)}")
    if prefer == "none":
        return NoneBackend([("none", "requested")])
    replay = env.get("ROCM_TUNE_REPLAY")
    fake = env.get("ROCM_TUNE_FAKE_GPUS")
    if prefer == "replay" or (prefer is None and replay):
        if not replay:
            raise UserError("--backend replay needs ROCM_TUNE_REPLAY=path/to/replay.json")
        replay_backend = ReplayBackend(replay)
        replay_backend.tried = []
        return replay_backend
    if prefer == "fake" or (prefer is None and fake):
        pid, n = parse_fake_spec(fake or "mi50-32gb:2")
        try:
            fake_backend = FakeBackend(pid, n)
        except UserError as exc:  # name the variable: the user passed no --gpu
            raise UserError(f"ROCM_TUNE_FAKE_GPUS={fake!r}: {exc}") from None
        fake_backend.tried = []
        return fake_backend

    names = (prefer,) if prefer else (order or BACKEND_ORDER)
    tried: list[tuple[str, str]] = []
    probe_ms: dict[str, float] = {}
    for name in names:
        backend = make_backend(name, root=root, runner=runner, which=which, sys_root=sys_root)
        t0 = time.perf_counter()
        try:
            n = backend.probe()
        except B.BackendUnavailable as exc:
            tried.append((name, str(exc)))
            probe_ms[name] = (time.perf_counter() - t0) * 1000
            continue
        except Exception as exc:  # noqa: BLE001 - a broken vendor library must not break detection
            tried.append((name, f"{type(exc).__name__}: {exc}"))
            probe_ms[name] = (time.perf_counter() - t0) * 1000
            continue
        probe_ms[name] = (time.perf_counter() - t0) * 1000
        if n > 0:
            backend.tried = tried
            backend.probe_ms = probe_ms
            return backend
        tried.append((name, "no GPU reported"))
    none = NoneBackend(tried)
    none.probe_ms = probe_ms
    return none


def __getattr__(name: str):  # lazy re-exports keep `import rocm_tune.core.hardware.devices` cheap
    if name in ("FakeBackend", "ReplayBackend", "parse_fake_spec", "record"):
        from rocm_tune.core.hardware.devices import synthetic

        return getattr(synthetic, name)
    if name in ("match_profile", "normalize_arch", "gfx_from_target_version", "hsa_version_for_gfx"):
        from rocm_tune.core.hardware.devices import matching

        return getattr(matching, name)
    raise AttributeError(name)


__all__ = [
    "BACKEND_ORDER",
    "NA",
    "Backend",
    "FakeBackend",
    "GpuSample",
    "NoneBackend",
    "ReplayBackend",
    "detect",
    "is_na",
    "json_value",
    "make_backend",
    "match_profile",
]
