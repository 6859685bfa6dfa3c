"""How long `rocm-tune plan ... --json` takes as a whole process (target < 0.5 s without a dataset),
and how long the in-process search takes, for the field-report scenarios.

Wall time depends on how busy the machine is; the CPU time (user + sys of the child process) is what
the process costs and equals the wall time on an idle machine.

Usage: python benchmarks/plan_speed.py [--runs N]
"""

from __future__ import annotations

import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SCENARIOS = [
    ("report 000: qwen2.5-7b lora r64, 2x MI50", ["--model", "qwen2.5-7b", "--gpu", "mi50-32gb", "--gpus", "2",
                                                  "--lora-rank", "64"]),
    ("report 001: baichuan2-7b full, 4x 16GB DCU", ["--model", "baichuan2-7b-chat", "--gpu", "z100", "--vram-gib",
                                                     "16", "--gpus", "4", "--method", "full", "--cpu-ram-gib", "256"]),
    ("report 003: r1-distill-qwen-32b lora, 8x K100", ["--model", "deepseek-r1-distill-qwen-32b", "--gpu", "k100",
                                                        "--gpus", "8", "--headroom", "0.9"]),
    ("report 004: qwen3-4b dpo qlora, 4x H100", ["--model", "qwen3-4b", "--gpu", "h100-sxm", "--gpus", "4",
                                                  "--stage", "dpo", "--method", "qlora", "--effective-batch", "128"]),
    ("llama-3.1-70b full, 8x MI300X, speed", ["--model", "llama-3.1-70b", "--gpu", "mi300x", "--gpus", "8",
                                               "--method", "full", "--priority", "speed"]),
]


def main() -> int:
    runs = 5
    if "--runs" in sys.argv:
        runs = int(sys.argv[sys.argv.index("--runs") + 1])
    from rocm_tune.core.model.architecture import load_model
    from rocm_tune.core.plan.planner import PlanRequest, plan
    from rocm_tune.profiles.gpu_profiles import get_gpu_profile

    print(f"{'scenario':<48}{'wall median':>12}{'max':>8}{'CPU median':>12}{'in-process':>12}{'estimates':>11}")
    worst = worst_cpu = 0.0
    for label, argv in SCENARIOS:
        times, cpu = [], []
        for _ in range(runs):
            r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            p = subprocess.run([sys.executable, "-m", "rocm_tune", "plan", *argv, "--json"], capture_output=True,
                               text=True, cwd=ROOT, check=False)
            times.append(time.perf_counter() - t0)
            r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu.append((r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime))
            if p.returncode not in (0, 1):
                print(p.stderr)
                return 2
        # in-process search alone
        a = dict(zip(argv[::2], argv[1::2]))
        gpu = get_gpu_profile(a["--gpu"], float(a["--vram-gib"]) if "--vram-gib" in a else None)
        req = PlanRequest(model=load_model(a["--model"]), gpu=gpu, gpus=int(a.get("--gpus", 1)),
                          method=a.get("--method", "lora"), stage=a.get("--stage", "sft"),
                          priority=a.get("--priority", "stability"),
                          effective_batch=int(a["--effective-batch"]) if "--effective-batch" in a else None,
                          lora_rank=int(a["--lora-rank"]) if "--lora-rank" in a else None,
                          headroom=float(a.get("--headroom", 0.85)),
                          cpu_ram_bytes=int(float(a["--cpu-ram-gib"]) * 2**30) if "--cpu-ram-gib" in a else None)
        t0 = time.perf_counter()
        result = plan(req)
        inproc = time.perf_counter() - t0
        med = statistics.median(times)
        worst = max(worst, max(times))
        worst_cpu = max(worst_cpu, statistics.median(cpu))
        print(f"{label:<48}{med:>11.3f}s{max(times):>7.3f}s{statistics.median(cpu):>11.3f}s"
              f"{inproc * 1000:>10.1f}ms{result.searched:>11}")
    with open("/proc/loadavg", encoding="ascii") as fh:
        load = fh.read().split()[0]
    print(f"\nslowest whole process: wall {worst:.3f} s, CPU {worst_cpu:.3f} s (target < 0.5 s; load average {load})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
