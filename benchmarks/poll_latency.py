"""Cost of one telemetry sample of all GPUs, per backend that can run on this machine.

Measures (median and p95 over N polls, milliseconds):
  * fake and replay backends (what the TUI/demo use without GPUs)
  * sysfs backend on a fake /sys tree with 8 amdgpu cards (real file reads, real code path)
  * amdsmi / NVML library backends driven by in-process stand-ins of the vendor libraries
    (measures rocm-tune's own overhead on top of the library calls; the real library calls add
    their own cost, which needs real hardware)
  * the amd-smi / rocm-smi / hy-smi / nvidia-smi parsers on the fixture outputs (parsing only)
  * the tool backends end to end with stand-in executables (dominated by process start-up)
  * detect() on this machine
Usage: python benchmarks/poll_latency.py [--polls N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests" / "fixtures" / "devices"))
sys.path.insert(0, str(REPO / "tests"))

# after the sys.path set-up above (the checkout and the test fixtures first): E402 on purpose
from rocm_tune.core.hardware.devices import backends as B  # noqa: E402
from rocm_tune.core.hardware.devices import detect  # noqa: E402
from rocm_tune.core.hardware.devices import parsers as P  # noqa: E402
from rocm_tune.core.hardware.devices.synthetic import FakeBackend, ReplayBackend  # noqa: E402

FIX = REPO / "tests" / "fixtures" / "devices"


def measure(fn, n: int) -> tuple[float, float]:
    fn()  # warm-up (static info is cached by the backends)
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    times.sort()
    return statistics.median(times), times[min(len(times) - 1, int(0.95 * len(times)))]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--polls", type=int, default=200)
    args = ap.parse_args()
    n = args.polls
    rows = []

    def add(name, gpus, fn, polls=n):
        med, p95 = measure(fn, polls)
        rows.append((name, gpus, med, p95))

    add("fake (8 x mi300x)", 8, FakeBackend("mi300x", 8).sample)
    add("replay (k100-x8-near-oom.json)", 8, ReplayBackend(REPO / "rocm_tune/profiles/replay/k100-x8-near-oom.json").sample)

    import fake_sysfs

    with tempfile.TemporaryDirectory() as tmp:
        root = fake_sysfs.build(Path(tmp), [fake_sysfs.MI50] * 4 + [fake_sysfs.MI300X] * 4)
        add("sysfs (fake tree, 8 cards)", 8, B.SysfsBackend(root).sample)

    from test_devices_backends import fake_amdsmi  # the same stand-in the tests use

    add("amdsmi library (stand-in, 8 GPUs)", 8, B.AmdSmiLibBackend(module=fake_amdsmi(8)).sample)

    from types import SimpleNamespace

    mem = SimpleNamespace(total=85899345920, used=2**30, free=0)
    nv = SimpleNamespace(
        nvmlInit=lambda: None, nvmlShutdown=lambda: None, nvmlDeviceGetCount=lambda: 8,
        nvmlDeviceGetHandleByIndex=lambda i: i, nvmlDeviceGetName=lambda h: "NVIDIA H100 80GB HBM3",
        nvmlDeviceGetCudaComputeCapability=lambda h: (9, 0), nvmlDeviceGetUUID=lambda h: f"GPU-{h}",
        nvmlDeviceGetMemoryInfo=lambda h: mem, nvmlDeviceGetUtilizationRates=lambda h: SimpleNamespace(gpu=90, memory=40),
        nvmlDeviceGetTemperature=lambda h, s: 60, nvmlDeviceGetPowerUsage=lambda h: 600000,
        nvmlDeviceGetEnforcedPowerLimit=lambda h: 700000, nvmlDeviceGetClockInfo=lambda h, c: 1980,
        nvmlDeviceGetCurrPcieLinkGeneration=lambda h: 5, nvmlDeviceGetCurrPcieLinkWidth=lambda h: 16,
        nvmlDeviceGetComputeRunningProcesses=lambda h: [])
    add("nvml library (stand-in, 8 GPUs)", 8, B.NvmlBackend(module=nv).sample)

    metric = (FIX / "amd-smi/metric_list.json").read_text()
    rsmi = (FIX / "rocm-smi/mi50_dynamic.json").read_text()
    hysmi = (FIX / "hy-smi/dynamic.txt").read_text()
    nvcsv = (FIX / "nvidia-smi/query_gpu.csv").read_text()
    add("parse amd-smi metric --json (2 GPUs)", 2, lambda: P.parse_amdsmi_metric(metric))
    add("parse rocm-smi --json (2 GPUs)", 2, lambda: P.parse_rocm_smi(rsmi))
    add("parse hy-smi --json (2 DCUs)", 2, lambda: P.parse_rocm_smi(hysmi))
    add("parse nvidia-smi csv (3 GPUs)", 3, lambda: P.parse_nvidia_smi_csv(nvcsv))

    import fake_tools

    with tempfile.TemporaryDirectory() as tmp:
        bin_dir = Path(tmp)
        for name, table, cls in (("amd-smi", fake_tools.AMD_SMI_LIST, B.AmdSmiCliBackend),
                                 ("rocm-smi", fake_tools.ROCM_SMI_MI50, B.RocmSmiBackend),
                                 ("nvidia-smi", fake_tools.NVIDIA_SMI, B.NvidiaSmiBackend)):
            exe = fake_tools.install(bin_dir, name, table)
            b = cls(which=lambda _n, exe=exe: str(exe))
            add(f"{name} tool end to end (stand-in executable)", len(b.sample()), b.sample, polls=max(5, n // 20))

    t0 = time.perf_counter()
    b = detect()
    detect_ms = (time.perf_counter() - t0) * 1000

    print(f"{'backend':<46} {'GPUs':>4} {'median ms':>10} {'p95 ms':>8}")
    for name, gpus, med, p95 in rows:
        print(f"{name:<46} {gpus:>4} {med:>10.3f} {p95:>8.3f}")
    print(f"{'detect() on this machine -> ' + b.name:<46} {'':>4} {detect_ms:>10.1f}")
    lib = [r for r in rows if "library" in r[0] or r[0].startswith("sysfs")]
    worst = max(r[2] for r in lib)
    print(f"\nlibrary/sysfs backends: worst median {worst:.3f} ms per poll of 8 GPUs (target < 50 ms): "
          f"{'OK' if worst < 50 else 'TOO SLOW'}")
    print(json.dumps({"rows": [{"backend": r[0], "gpus": r[1], "median_ms": round(r[2], 4), "p95_ms": round(r[3], 4)}
                               for r in rows], "detect_ms": round(detect_ms, 1)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
