"""`rocm-tune gpus`: detected GPUs, the backend used, a live sample; `--profiles` lists known GPUs."""

from __future__ import annotations

import argparse
import errno
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from rocm_tune.commands._common import float_range, int_range, print_json
from rocm_tune.core.errors import UserError

BACKENDS = ("amdsmi", "amd-smi", "rocm-smi", "hy-smi", "sysfs", "nvml", "nvidia-smi", "torch", "fake", "replay", "none")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--watch", action="store_true", help="refresh the sample until Ctrl-C")
    parser.add_argument("--interval", type=float_range("--interval", 0.1, 3600), default=2.0,
                        help="seconds between refreshes for --watch / --record (default 2)")
    parser.add_argument("--count", type=int_range("--count", 1, 10_000_000), default=None,
                        help="stop --watch after this many refreshes")
    parser.add_argument("--profiles", action="store_true", help="list the built-in GPU profiles")
    parser.add_argument("--show", metavar="GPU", help="all facts (with sources) of one profile, by id or name")
    parser.add_argument("--backend", metavar="NAME",
                        help=f"use only this backend: {', '.join(BACKENDS)}")
    parser.add_argument("--record", metavar="PATH", help="record --frames samples into a replay JSON file")
    parser.add_argument("--frames", type=int_range("--frames", 1, 100_000), default=None,
                        help="samples to record with --record (default 30)")
    parser.add_argument("--force", action="store_true", help="overwrite an existing --record file")


# ------------------------------------------------------------------------------------------ output

def _gib(n) -> str:
    return "N/A" if not isinstance(n, (int, float)) or isinstance(n, bool) else f"{n / 2**30:.1f}"


def _fmt(v, spec: str = ".0f", unit: str = "") -> str:
    if not isinstance(v, (int, float)) or isinstance(v, bool):
        return "N/A"
    return f"{v:{spec}}{unit}"


def sample_table(samples) -> list[str]:
    head = f"{'#':>2}  {'name':<28} {'profile':<11} {'arch':<8} {'VRAM used/total GiB':>20} {'util':>5} " \
           f"{'temp':>6} {'power/limit W':>14} {'sclk':>6} {'pcie':<13}"
    lines = [head]
    for s in samples:
        vram = f"{_gib(s.vram_used_bytes)}/{_gib(s.vram_total_bytes)}"
        power = f"{_fmt(s.power_w)}/{_fmt(s.power_limit_w)}"
        lines.append(
            f"{s.index:>2}  {str(s.name)[:28]:<28} {str(s.profile_id)[:11]:<11} {str(s.arch)[:8]:<8} {vram:>20} "
            f"{_fmt(s.util_percent, '.0f', '%'):>5} {_fmt(s.temp_c, '.0f', 'C'):>6} {power:>14} "
            f"{_fmt(s.sclk_mhz):>6} {str(s.pcie)[:13]:<13}")
        for pid, name, vram in s.processes[:5]:
            lines.append(f"    pid {pid:<8} {str(name)[:30]:<30} {_gib(vram)} GiB")
    return lines


def _tried_lines(tried) -> list[str]:
    return [f"  {name:<11} {reason}" for name, reason in tried]


def _report(backend, samples) -> dict:
    from rocm_tune.profiles.gpu_profiles import load_gpu_profiles

    profiles = load_gpu_profiles()
    gpus = []
    for s in samples:
        d = s.to_dict()
        prof = profiles.get(s.profile_id) if isinstance(s.profile_id, str) else None
        d["profile"] = None if prof is None else {
            "id": prof.id, "name": prof.display_name, "bf16": prof.bf16, "fa2": prof.fa2,
            "platform": prof.platform, "platform_status": prof.platform_status, "hsa_override": prof.hsa_override}
        gpus.append(d)
    return {
        "backend": backend.name,
        "tried": [{"backend": n, "reason": r} for n, r in getattr(backend, "tried", [])],
        "count": len(samples),
        "gpus": gpus,
    }


def _print_human(backend, samples) -> None:
    tried = getattr(backend, "tried", [])
    if not samples:
        print("No GPU found on this machine.")
        print("Backends tried:")
        print("\n".join(_tried_lines(tried)))
        print("Hint: ROCM_TUNE_FAKE_GPUS=mi50-32gb:2 or ROCM_TUNE_REPLAY=FILE shows the display without a GPU;"
              " `rocm-tune gpus --profiles` lists the known GPUs.")
        return
    extra = ""
    if backend.name == "replay":
        extra = f" ({getattr(backend, 'path', '')})"
    print(f"{len(samples)} GPU(s) via backend {backend.name}{extra}")
    if tried:
        print("skipped before it: " + "; ".join(f"{n} ({r})" for n, r in tried))
    print("\n".join(sample_table(samples)))
    unmatched = [s for s in samples if not isinstance(s.profile_id, str)]
    if unmatched:
        print(f"note: {len(unmatched)} GPU(s) matched no profile; pass --gpu/--vram-gib to plan explicitly")


def _profiles(args) -> int:
    from rocm_tune.profiles.gpu_profiles import load_gpu_profiles

    profiles = load_gpu_profiles()
    order = sorted(profiles.values(), key=lambda p: ({"amd": 0, "hygon": 1, "nvidia": 2}[p.vendor], p.arch, p.vram_gib, p.id))
    if args.json:
        print_json({"profiles": [p.to_dict() for p in order]})
        return 0
    print(f"{'id':<11} {'name':<26} {'arch':<8} {'VRAM':>6} {'torch':>6} {'BW GB/s':>8} {'FP16 TF':>8} {'bf16':<9} "
          f"{'FA2':<6} {'SDPA':<5} {'bnb':<4} {'platform':<20}")
    for p in order:
        sdpa = "yes" if p.sdpa_flash else "math"
        print(f"{p.id:<11} {p.display_name[:26]:<26} {p.arch:<8} {p.nominal_gib:>6g} {p.vram_gib:>6g} {p.mem_bandwidth_gbs:>8g} "
              f"{p.fp16_tflops:>8g} {p.bf16:<9} {p.fa2 or '-'!s:<6} {sdpa:<5} {'yes' if p.bitsandbytes else 'no':<4} "
              f"{p.platform + ' ' + p.platform_status:<20}")
    print(f"{len(order)} profiles. Per-device figures (MI250/MI250X: per GCD); VRAM = marketed GiB, torch = what "
          "PyTorch sees (total_memory), the figure every verdict uses. `rocm-tune gpus --show ID` prints one with its "
          "sources.")
    return 0


def _show(args) -> int:
    from rocm_tune.profiles.gpu_profiles import get_gpu_profile

    p = get_gpu_profile(args.show)
    if args.json:
        print_json(p.to_dict())
        return 0
    d = p.to_dict()
    sources = d.pop("sources")
    notes = d.pop("notes")
    width = max(len(k) for k in d)
    for k, v in d.items():
        if isinstance(v, list):
            v = ", ".join(v)
        print(f"{k:<{width}}  {v}")
    if notes:
        print("notes:")
        for n in notes:
            print(f"  - {n}")
    print("sources:")
    for k, v in sources.items():
        print(f"  {k}: {v}")
    return 0


def _check_combinations(args: argparse.Namespace) -> None:
    """Options that would be silently ignored in the combination given are bad input."""
    if args.profiles and args.show is not None:
        raise UserError(f"--profiles lists every profile and --show {args.show!r} shows one; give only one of them")
    listing = "--profiles" if args.profiles else ("--show" if args.show is not None else None)
    if listing:
        for flag, given in (("--watch", args.watch), ("--record", args.record is not None),
                            ("--backend", args.backend is not None), ("--count", args.count is not None)):
            if given:
                raise UserError(f"{flag} samples the GPUs of this machine; {listing} only reads the built-in profiles")
    if args.record is not None and args.watch:
        raise UserError("--record and --watch do not go together; --record takes --frames samples, --interval apart")
    if args.record is None:
        if args.frames is not None:
            raise UserError(f"--frames {args.frames} only applies to --record PATH")
        if args.force:
            raise UserError("--force only applies to --record PATH (overwrite the file)")
    if args.count is not None and not args.watch:
        raise UserError(f"--count {args.count} only applies to --watch")


def run(args: argparse.Namespace) -> int:
    _check_combinations(args)
    if args.frames is None:
        args.frames = 30
    if args.profiles:
        return _profiles(args)
    if args.show:
        return _show(args)
    from rocm_tune.core.hardware.devices import detect

    if args.backend is not None and args.backend not in BACKENDS:
        raise UserError(f"--backend {args.backend!r} is not known; expected one of: {', '.join(BACKENDS)}")
    if args.record:
        out = Path(args.record)
        if out.is_dir():
            raise UserError(f"--record {str(out)!r} is a directory; give a file path such as {str(out / 'gpus.json')!r}")
        if os.path.lexists(out) and not args.force:  # a symlink (dangling too) is something the user made
            what = "is a symbolic link" if os.path.islink(out) else "already exists"
            raise UserError(f"--record {str(out)!r} {what}; pass --force to replace it")
        if out.parent and not out.parent.exists():
            raise UserError(f"--record {str(out)!r}: directory {str(out.parent)!r} does not exist")
    backend = detect(args.backend)
    try:
        if args.record:
            return _record(backend, args)
        if args.watch:
            return _watch(backend, args)
        samples = backend.sample()
        if args.json:
            print_json(_report(backend, samples))
        else:
            _print_human(backend, samples)
        return 0
    finally:
        close = getattr(backend, "close", None)
        if close:
            close()


def _record(backend, args) -> int:
    from rocm_tune.core.hardware.devices.synthetic import record

    if not backend.sample():
        raise UserError("--record: no GPU found to record (backends tried: "
                        + "; ".join(f"{n}: {r}" for n, r in getattr(backend, "tried", [])) + ")")
    doc = record(backend, args.frames, args.interval, description=f"recorded with rocm-tune gpus --record via {backend.name}")
    target = Path(args.record)
    # a fresh temp name (O_EXCL, random) in the same directory, then rename over the target: nothing is
    # written through a link planted at a fixed name, and the old recording survives a failed write
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(dir=str(target.parent) or ".", prefix=f".{target.name}.", suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(json.dumps(doc, separators=(",", ":")))
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)  # replaces a symlink itself (with --force), never its target
    except OSError as exc:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        why = "disk full (no space left on device)" if exc.errno == errno.ENOSPC else (
            "permission denied" if exc.errno in (errno.EACCES, errno.EPERM) else str(exc.strerror or exc))
        raise UserError(f"--record {args.record!r}: cannot write it: {why}") from None
    if args.json:
        print_json({"path": str(args.record), "frames": len(doc["frames"]), "backend": backend.name})
    else:
        print(f"wrote {len(doc['frames'])} frames from backend {backend.name} to {args.record}"
              f" (play back with ROCM_TUNE_REPLAY={args.record})")
    return 0


def _watch(backend, args) -> int:
    tty = sys.stdout.isatty()
    n = 0
    try:
        while True:
            samples = backend.sample()
            n += 1
            if args.json:
                sys.stdout.write(json.dumps(_report(backend, samples)) + "\n")
            else:
                if tty:
                    sys.stdout.write("\033[H\033[J")
                print(time.strftime("%H:%M:%S") + f"  (every {args.interval:g} s, Ctrl-C to stop)")
                _print_human(backend, samples)
                if not tty:
                    print()
            sys.stdout.flush()
            if args.count is not None and n >= args.count:
                return 0
            time.sleep(args.interval)
    except KeyboardInterrupt:
        return 0
