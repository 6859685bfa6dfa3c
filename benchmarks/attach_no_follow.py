"""Seconds `rocm-tune attach LOG --plain --no-follow` takes on a huge text log (a long torchrun run's stdout, each
line behind its rank prefix: start-up lines, then HF Trainer step dicts under tqdm redraws, then the end). It shows the newest steps and the summary, so
its time should not grow with the log.

    PYTHONPATH=. python3 benchmarks/attach_no_follow.py [--mb 870] [--code DIR] [--keep PATH]

--code: the checkout whose rocm_tune runs (default: this one), to time another tree on the same log.
Prints one line: size, seconds, steps shown, the last line."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HEAD = ("[default0]:***** Running training *****\n  Num examples = 1,000,000\n  Num Epochs = 1\n"
        "[default0]:  Total optimization steps = {total}\n  Number of trainable parameters = 6,738,415,616\n")
# a torchrun launch: every line behind its rank's prefix (torchrun --tee 3), a tqdm redraw and a step dict per step
STEP = ("[default0]:{pct:3d}%|##        | {step}/{total} [01:02<10:00,  1.23s/it]\r"
        "[default0]:{{'loss': {loss:.4f}, 'grad_norm': 0.8125, 'learning_rate': 1.9e-05, 'epoch': {epoch:.4f}}}\n")
END = "[default0]:{{'train_runtime': 12345.6, 'train_samples_per_second': 9.9, 'train_loss': {loss:.4f}, 'epoch': 1.0}}\n"


def write_log(path: str, mb: int) -> int:
    """A log of about `mb` MiB; its number of steps."""
    line_len = len(STEP.format(pct=50, step=500000, total=1000000, loss=1.0, epoch=0.5))
    total = max(10, mb * 2**20 // line_len)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(HEAD.format(total=total))
        block = []
        for step in range(1, total + 1):
            block.append(STEP.format(pct=100 * step // total, step=step, total=total, loss=2.0 - step / total,
                                     epoch=step / total))
            if len(block) == 10000:
                fh.write("".join(block))
                block = []
        fh.write("".join(block) + END.format(loss=1.5))
    return total


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=int, default=870, help="size of the log in MiB (default 870)")
    ap.add_argument("--code", default=ROOT, help="checkout to run (default: this one)")
    ap.add_argument("--keep", help="write the log here and keep it (reused when it exists)")
    a = ap.parse_args(argv)
    path = a.keep or os.path.join(tempfile.mkdtemp(prefix="attach-bench-"), "train.log")
    if not os.path.exists(path):
        write_log(path, a.mb)
    env = {**os.environ, "PYTHONPATH": os.path.abspath(a.code)}
    t0 = time.perf_counter()
    # run in the code's folder: `python -m` puts the working directory before PYTHONPATH
    p = subprocess.run([sys.executable, "-m", "rocm_tune", "attach", path, "--plain", "--no-follow"],
                       capture_output=True, text=True, env=env, cwd=os.path.abspath(a.code), check=False)
    dt = time.perf_counter() - t0
    lines = p.stdout.splitlines()
    steps = sum(ln.startswith("step ") for ln in lines)
    print(f"attach --plain --no-follow: {os.path.getsize(path) / 2**20:.0f} MiB log, {dt:.1f} s, exit {p.returncode}, "
          f"{steps} step lines shown; last: {lines[-1] if lines else p.stderr.strip()[-200:]}")
    if not a.keep:
        os.unlink(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
