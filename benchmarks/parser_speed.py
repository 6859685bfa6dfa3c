"""Parser / history speed: full load of 1,000,000-line logs and incremental follow rate.

    python benchmarks/parser_speed.py [--lines 1000000] [--follow-lines 200000]

For each log kind (rocm-tune metrics.jsonl, LLaMA-Factory trainer_log.jsonl, HF Trainer stdout with
tqdm redraws and log dicts) it writes a log of --lines lines in a temp dir, then measures:
- load: a fresh `Watcher(path).poll()` reading the whole file into History (+ alerts), seconds;
- follow: lines/s that `Watcher.poll()` keeps up with when the file grows in batches of 1,000 lines;
- memory: points kept in the loss series (bounded by downsampling) and the peak traced memory.
Targets (issue 6): load < 2 s for 1,000,000 lines, follow >= 10,000 lines/s.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
import tracemalloc

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from rocm_tune.core.runs.watch import parsers
from rocm_tune.core.runs.watch.watch import Watcher


def metrics_lines(n: int, start: int = 1) -> list[str]:
    t0 = 1_700_000_000.0
    out = []
    for i in range(start, start + n):
        out.append(json.dumps({"type": "step", "time": t0 + i * 1.5, "step": i, "epoch": i / 10000,
                               "loss": 2.0 / (1 + i * 1e-5), "grad_norm": 0.8, "learning_rate": 2e-4,
                               "tokens_per_s": 4096.0, "samples_per_s": 4.0, "step_time_s": 1.5,
                               "mem": [{"rank": 0, "allocated_bytes": 10 * 2**30, "reserved_bytes": 12 * 2**30}]}))
    return out


def llamafactory_lines(n: int, start: int = 1, total: int = 10_000_000) -> list[str]:
    out = []
    for i in range(start, start + n):
        out.append(json.dumps({"current_steps": i, "total_steps": total, "loss": 2.0 / (1 + i * 1e-5),
                               "lr": 2e-4, "epoch": i / 10000, "percentage": round(i / total * 100, 2),
                               "elapsed_time": "1:02:03", "remaining_time": "10:00:00"}))
    return out


def hf_stdout_lines(n: int, start: int = 1, total: int = 10_000_000) -> list[str]:
    out = []
    i = start
    while len(out) < n:
        out.append(f" {i * 100 // total:3d}%|          | {i}/{total} [01:02<40:00,  1.50s/it]")
        out.append(f"{{'loss': '{2.0 / (1 + i * 1e-5):.4g}', 'grad_norm': '0.8123', 'learning_rate': '0.0002', "
                   f"'epoch': '{i / 10000:.4g}'}}")
        i += 1
    return out[:n]


LINES_PER_STEP = {"metrics.jsonl": 1, "trainer_log.jsonl": 1, "stdout.log": 2}
KINDS = {
    "metrics.jsonl": metrics_lines,
    "trainer_log.jsonl": llamafactory_lines,
    "stdout.log": hf_stdout_lines,
}


def bench(name: str, gen, lines: int, follow_lines: int, tmp: str, exact: bool = False) -> dict:
    path = os.path.join(tmp, name)
    with open(path, "w") as fh:
        fh.writelines("\n".join(gen(min(100_000, lines - s), start=s // LINES_PER_STEP[name] + 1)) + "\n" for s in range(0, lines, 100_000))
    size = os.path.getsize(path)
    # full load
    t = time.perf_counter()
    c = time.process_time()
    w = Watcher(path, gpus=False)
    w.poll()
    load_s = time.perf_counter() - t
    load_cpu = time.process_time() - c
    steps = w.history.step
    kept = len(w.history.series["loss"])
    exact_s = None
    if exact:  # every line parsed (no sampling of the old part of the first read)
        t = time.perf_counter()
        we = Watcher(path, gpus=False, sample_first_read=False)
        we.poll()
        exact_s = time.perf_counter() - t
        assert we.history.step == steps and we.history.smoothed_loss == w.history.smoothed_loss
        we.close()
    # memory (separate run, tracemalloc slows things down)
    tracemalloc.start()
    w2 = Watcher(path, gpus=False)
    w2.poll()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    w2.close()
    # follow: append batches of 1000 lines and poll after each
    batch = 1000
    poll_time = 0.0
    start = lines // LINES_PER_STEP[name] + 1
    with open(path, "a") as fh:
        for b in range(0, follow_lines, batch):
            fh.write("\n".join(gen(batch, start=start + b // LINES_PER_STEP[name])) + "\n")
            fh.flush()
            t = time.perf_counter()
            w.poll()
            poll_time += time.perf_counter() - t
    w.close()
    return {"log": name, "lines": lines, "MiB": size / 2**20, "load_s": load_s, "load_cpu": load_cpu, "exact_s": exact_s, "steps": steps,
            "loss_points_kept": kept, "peak_MiB": peak / 2**20,
            "follow_lines_per_s": follow_lines / poll_time if poll_time else float("inf")}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lines", type=int, default=1_000_000)
    ap.add_argument("--follow-lines", type=int, default=200_000)
    ap.add_argument("--only", choices=sorted(KINDS), default=None)
    ap.add_argument("--exact", action="store_true", help="also time a first read that parses every line")
    args = ap.parse_args()
    print(f"json backend: {'orjson' if parsers._loads is not json.loads else 'stdlib json'}; python {sys.version.split()[0]}")
    print(f"{'log':<18} {'lines':>9} {'MiB':>7} {'load s':>7} {'cpu s':>6} {'steps':>9} {'kept':>6} {'peak MiB':>9} "
          f"{'follow lines/s':>15}")
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        for name, gen in KINDS.items():
            if args.only and name != args.only:
                continue
            r = bench(name, gen, args.lines, args.follow_lines, tmp, args.exact)
            ok &= r["load_s"] * 1_000_000 / max(1, args.lines) < 2.0 and r["follow_lines_per_s"] >= 10_000
            print(f"{r['log']:<18} {r['lines']:>9} {r['MiB']:>7.1f} {r['load_s']:>7.2f} {r['load_cpu']:>6.2f} {r['steps']:>9} "
                  f"{r['loss_points_kept']:>6} {r['peak_MiB']:>9.1f} {r['follow_lines_per_s']:>15,.0f}"
                  + (f"   every-line read {r['exact_s']:.2f} s" if r["exact_s"] is not None else ""))
    print(f"load average now: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs (wall times grow with it; cpu s is process time)")
    print("targets: load < 2 s per 1,000,000 lines (scaled), follow >= 10,000 lines/s:", "met" if ok else "NOT met")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
