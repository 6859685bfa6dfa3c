"""`rocm-tune check` over the example configurations each runner ships: answered / unknown / error per runner,
and the unknown reasons grouped. No labels: the figure is how many of a runner's own examples get a verdict.

    PYTHONPATH=. python3 benchmarks/runner_examples.py [--llamafactory DIR] [--axolotl DIR] [--torchtune DIR]
        [--swift DIR] [--gpu mi300x] [--gpus 8] [-v]

Each DIR is that repository's checkout (or its examples folder); a runner not given, or whose folder is missing,
is skipped. Get the folders from a mirror, e.g.

    git --git-dir=/work/.mirror/hiyouga+LLaMA-Factory/repo archive HEAD examples | tar -x -C /tmp/x/LLaMA-Factory

Files checked (one `check FILE` each, as a user would run it on the example):
  LLaMA-Factory  examples/**/*.yaml, not the accelerate launch configs (examples/**/accelerate/)
  axolotl        examples/**/*.yml|*.yaml
  torchtune      recipes/configs/**/*.yaml
  ms-swift       examples/train/**/*.sh, examples/megatron/**/*.sh and examples/models/**/*.sh
A script is given with the config files beside it that it names (`swift sft examples/.../sft.yaml`), as a user
would pass them.
"""

from __future__ import annotations

import argparse
import glob
import os
import re
import sys
from collections import Counter, defaultdict

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from rocm_tune.core.check.check import check
from rocm_tune.core.errors import UserError

# runner -> (folder under the checkout, glob patterns under it, path parts that are not training configs)
RUNNERS = {
    "llamafactory": ("examples", ("**/*.yaml",), ("/accelerate/",)),
    "axolotl": ("examples", ("**/*.yml", "**/*.yaml"), ()),
    "torchtune": ("recipes/configs", ("**/*.yaml",), ()),
    "swift": ("examples", ("train/**/*.sh", "megatron/**/*.sh", "models/**/*.sh"), ()),
}


NOT_TRAINING = "no training command or training config in the files"


def example_files(runner: str, root: str) -> list[str]:
    sub, patterns, skip = RUNNERS[runner]
    base = os.path.join(root, sub) if os.path.isdir(os.path.join(root, sub)) else root
    found: set[str] = set()
    for pat in patterns:
        found.update(glob.glob(os.path.join(base, pat), recursive=True))
    return sorted(f for f in found if not any(s in f.replace(os.sep, "/") for s in skip))


def named_beside(script: str) -> list[str]:
    """The config files (.yaml/.yml/.json) in the script's own folder that the script names."""
    if not script.endswith(".sh"):
        return []
    with open(script, encoding="utf-8", errors="replace") as fh:
        text = fh.read()
    here = os.path.dirname(script)
    names = {os.path.basename(m) for m in re.findall(r"[\w./-]+\.(?:ya?ml|json)\b", text)}
    return sorted(os.path.join(here, n) for n in names if os.path.isfile(os.path.join(here, n)))


def _group(reason: str) -> str:
    """The reason without the file's own values (numbers, quoted names), so that alike reasons count together."""
    r = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", reason)
    r = re.sub(r"\d+(\.\d+)?", "N", r)
    return r[:110]


def run(runner: str, files: list[str], gpu: str, gpus: int, root: str) -> tuple[Counter, dict]:
    counts: Counter = Counter()
    reasons: dict[str, list[str]] = defaultdict(list)
    for f in files:
        rel = os.path.relpath(f, root)
        try:
            rep = check([f, *named_beside(f)], gpu_id=gpu, gpus=gpus)
        except UserError as exc:
            counts["error"] += 1
            reasons["error: " + _group(str(exc))].append(rel)
            continue
        except Exception as exc:  # noqa: BLE001 - a crash is counted and named, not raised: this is a survey
            counts["crash"] += 1
            reasons[f"crash: {type(exc).__name__}: {_group(str(exc))}"].append(rel)
            continue
        if rep.verdict == "unknown" and (rep.reason or "").startswith(NOT_TRAINING):
            counts["no-train"] += 1        # an inference / export / evaluation script: "no training" is the answer
            reasons["(no training) " + _group(rep.reason or "?")].append(rel)
        elif rep.verdict == "unknown":
            counts["unknown"] += 1
            reasons[_group(rep.reason or "?")].append(rel)
        else:
            counts["answered"] += 1
            counts[rep.verdict] += 1
    return counts, reasons


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for r in RUNNERS:
        ap.add_argument(f"--{r}", metavar="DIR")
    ap.add_argument("--gpu", default="mi300x")
    ap.add_argument("--gpus", type=int, default=8)
    ap.add_argument("-v", "--verbose", action="store_true", help="list every file of each unknown reason")
    a = ap.parse_args(argv)
    total: Counter = Counter()
    all_reasons: list[tuple[str, str, list[str]]] = []
    print(f"check --gpu {a.gpu} --gpus {a.gpus} over each runner's own examples")
    print(f"{'runner':14s} {'files':>5s} {'answered':>8s} {'fits':>5s} {'oom':>4s} {'no-train':>8s} {'unknown':>7s} "
          f"{'error':>5s}")
    for runner in RUNNERS:
        root = getattr(a, runner)
        if not root or not os.path.isdir(root):
            continue
        files = example_files(runner, root)
        counts, reasons = run(runner, files, a.gpu, a.gpus, root)
        total.update(counts)
        total["files"] += len(files)
        err = counts["error"] + counts["crash"]
        print(f"{runner:14s} {len(files):5d} {counts['answered']:8d} {counts['fits']:5d} {counts['oom']:4d} "
              f"{counts['no-train']:8d} {counts['unknown']:7d} {err:5d}")
        all_reasons += [(runner, k, v) for k, v in reasons.items()]
    err = total["error"] + total["crash"]
    print(f"{'all':14s} {total['files']:5d} {total['answered']:8d} {total['fits']:5d} {total['oom']:4d} "
          f"{total['no-train']:8d} {total['unknown']:7d} {err:5d}")
    print("no-train: an inference / export / evaluation file, answered \"no training command\" (the right answer); "
          "error: a file check refuses (one-line error)")
    print("\nunknown / error reasons, grouped (numbers and quoted names folded):")
    for runner, reason, fs in sorted(all_reasons, key=lambda x: (-len(x[2]), x[0], x[1])):
        print(f"  {len(fs):3d} {runner:12s} {reason}")
        for f in fs if a.verbose else fs[:2]:
            print(f"        {f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
