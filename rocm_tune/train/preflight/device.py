"""Device checks: achieved matmul TFLOPS per dtype on each GPU (or the CPU), against the GPU profile.

bf16 is judged by what it does, not by `torch.cuda.is_bf16_supported()` (True on every ROCm GPU,
gfx906 included, where bf16 is emulated): a bf16 rate below `EMULATED_RATIO` x the fp16 rate is
reported as emulated, with both numbers.
"""

from __future__ import annotations

import time

DTYPES = ("fp32", "fp16", "bf16")
EMULATED_RATIO = 0.25      # native bf16 runs at >= ~0.5x fp16 everywhere; emulation is 10-100x slower
BELOW_PROFILE_RATIO = 0.2  # achieved < 20% of the profile's dense rate: something is wrong


def bf16_verdict(rates: dict) -> str:
    """'native' | 'emulated' | 'unknown' from measured TFLOPS {dtype: rate} (pure, no torch)."""
    fp16, bf16 = rates.get("fp16"), rates.get("bf16")
    if not isinstance(fp16, (int, float)) or not isinstance(bf16, (int, float)) or fp16 <= 0:
        return "unknown"
    return "emulated" if bf16 < EMULATED_RATIO * fp16 else "native"


def matmul_tflops(device: str, dtype_name: str, n: int, budget_s: float) -> float | None:
    """Achieved TFLOPS of n x n @ n x n in `dtype_name` on `device`, timed over ~budget_s seconds."""
    import torch

    dtype = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}[dtype_name]
    try:
        a = torch.randn(n, n, device=device).to(dtype)
        b = torch.randn(n, n, device=device).to(dtype)
    except (RuntimeError, TypeError):
        return None
    sync = (lambda: torch.cuda.synchronize(device)) if device.startswith("cuda") else (lambda: None)
    try:
        torch.matmul(a, b)  # warm-up: kernels selected, libraries loaded
        sync()
        iters, t0 = 0, time.perf_counter()
        while True:
            torch.matmul(a, b)
            iters += 1
            if iters % 4 == 0 or iters < 4:
                sync()
                dt = time.perf_counter() - t0
                if dt >= budget_s and iters >= 2:
                    break
    except RuntimeError:
        return None  # dtype not supported by this device's kernels
    return 2.0 * n ** 3 * iters / dt / 1e12


def check_devices(profile=None, *, force_cpu: bool = False, n: int | None = None,
                  budget_s: float | None = None) -> dict:
    """{"backend", "gpus": [{index, name, matmul_tflops, profile_tflops, efficiency, bf16, bf16_claimed}],
    "findings": [...], "seconds"} for every visible GPU (or the CPU, as one entry)."""
    import torch

    from rocm_tune.core.check.preflight import finding

    t0 = time.perf_counter()
    gpu = torch.cuda.is_available() and not force_cpu
    out: dict = {"backend": ("rocm" if getattr(torch.version, "hip", None) else "cuda") if gpu else "cpu",
                 "gpus": [], "findings": []}
    devices = [f"cuda:{i}" for i in range(torch.cuda.device_count())] if gpu else ["cpu"]
    size = n or (4096 if gpu else 256)
    budget = budget_s if budget_s is not None else (0.5 if gpu else 0.15)
    for dev in devices:
        rates = {dt: matmul_tflops(dev, dt, size, budget) for dt in DTYPES}
        rates = {k: round(v, 4) for k, v in rates.items() if v is not None}
        entry = {"device": dev, "index": int(dev.split(":")[1]) if ":" in dev else None,
                 "name": torch.cuda.get_device_name(dev) if gpu else "CPU", "n": size,
                 "matmul_tflops": rates, "bf16": bf16_verdict(rates) if gpu else "not judged on CPU",
                 "bf16_claimed": bool(torch.cuda.is_bf16_supported()) if gpu else None}
        if gpu and profile is not None:
            prof = {"fp32": profile.fp32_tflops, "fp16": profile.fp16_tflops, "bf16": profile.bf16_tflops}
            entry["profile"] = profile.id
            entry["profile_tflops"] = prof
            efficiency = {dt: round(rates[dt] / prof[dt], 3) for dt in rates if prof.get(dt)}
            entry["efficiency"] = efficiency
            low = [dt for dt in ("fp16", "fp32") if dt in efficiency and efficiency[dt] < BELOW_PROFILE_RATIO]
            if low:
                out["findings"].append(finding(
                    "matmul-below-profile",
                    f"{dev} {entry['name']}: {', '.join(f'{dt} {rates[dt]:.3g} TFLOPS vs profile {prof[dt]:g}' for dt in low)}"))
        if gpu and entry["bf16"] == "emulated":
            out["findings"].append(finding(
                "bf16-emulated",
                f"{dev} {entry['name']}: bf16 {rates['bf16']:.3g} TFLOPS vs fp16 {rates['fp16']:.3g} TFLOPS "
                f"(torch.cuda.is_bf16_supported() = {entry['bf16_claimed']}): bf16 is emulated"))
        out["gpus"].append(entry)
    out["seconds"] = round(time.perf_counter() - t0, 3)
    return out
