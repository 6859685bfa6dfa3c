"""Re-make rocm_tune/profiles/swift_args.py from a git checkout of modelscope/ms-swift (e-swift, issue 26).

Usage: python3 tools/build_swift_arg_names.py /path/to/ms-swift.git
Reads every @dataclass field of ms-swift's argument modules at each release tag v2.x-v4.x and writes, per name, the
majors that declare it. Needs git; no network (use a local clone).
"""
from __future__ import annotations

import pathlib
import re
import subprocess
import sys
import textwrap

_FIELD = re.compile(r"^    ([a-z][a-z0-9_]*)\s*:\s*[^=\n]+(?:=|$)", re.M)
OUT = pathlib.Path(__file__).resolve().parents[1] / "rocm_tune" / "profiles" / "swift_args.py"


def _git(repo: str, *args: str) -> str:
    return subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True, check=True).stdout


def names_by_major(repo: str) -> dict[str, str]:
    """argument name -> the majors ('2', '34', ...) whose releases declare it."""
    found: dict[str, set[str]] = {}
    tags = [t for t in _git(repo, "tag").split() if re.fullmatch(r"v[234]\.\d+\.\d+", t)]
    for tag in tags:
        files = [f for f in _git(repo, "ls-tree", "-r", "--name-only", tag).split()
                 if f.startswith("swift/") and f.endswith(".py") and "argument" in f]
        for f in files:
            src = _git(repo, "show", f"{tag}:{f}")
            for block in re.split(r"\n(?=@dataclass)", src)[1:]:
                # the class body: its indented lines up to the next top-level statement (docstrings have blank lines)
                body = re.split(r"\n(?=\S)", block.split("\nclass ", 1)[-1])[0]
                for name in _FIELD.findall(body):
                    found.setdefault(name, set()).add(tag[1])
    # ms-swift's training argument classes inherit transformers' (Seq2Seq)TrainingArguments in every major (2.x passes
    # them on too): those names are known to all of them, whichever dataclass declares them at a given tag
    for name in _hf_training_args():
        found[name] = {"2", "3", "4"}
    return {n: "".join(sorted(m)) for n, m in found.items()}


def _hf_training_args() -> set[str]:
    """transformers' Seq2SeqTrainingArguments fields (the installed release) and the ones releases removed."""
    import dataclasses

    from transformers import Seq2SeqTrainingArguments

    from rocm_tune.core.runs.catalogue import REMOVED_TRAINING_ARGS
    return {f.name for f in dataclasses.fields(Seq2SeqTrainingArguments)} | set(REMOVED_TRAINING_ARGS)


def main() -> None:
    by = names_by_major(sys.argv[1])
    groups: dict[str, list[str]] = {}
    for n, m in sorted(by.items()):
        groups.setdefault(m, []).append(n)
    head = OUT.read_text().split("_BY_MAJORS: dict[str, str] = {")[0]
    body = ["_BY_MAJORS: dict[str, str] = {"]
    for m in sorted(groups):
        body.append(f'    "{m}": (')
        body += [f'        "{line} "' for line in textwrap.wrap(" ".join(groups[m]), 110)]
        body.append("    ),")
    body += ["}", "", "SWIFT_ARG_MAJORS: dict[str, str] = {n: m for m, names in _BY_MAJORS.items() for n in names.split()}", ""]
    OUT.write_text(head + "\n".join(body))


if __name__ == "__main__":
    main()
