"""Re-make rocm_tune/profiles/launcher_args.py from the launchers' own source (e-ver3, issue 26).

Usage: python3 tools/build_launcher_args.py DEEPSPEED.git
  DEEPSPEED.git: a git directory of deepspeedai/DeepSpeed (every release tag vX.Y.Z and the default branch's head).
The `deepspeed` launcher parses its own flags with argparse (deepspeed/launcher/runner.py parse_args:
`parser.add_argument("--num_gpus", ...)`, then `user_script` and the script's arguments as argparse.REMAINDER), so a
launcher flag the installed release does not declare is refused before the script starts:
`deepspeed: error: unrecognized arguments: --no_ssh`. Per flag (written with '_' for '-', as arg_skew compares them)
this records the first and the last release that declare it; the shape is runner_args.RUNNER_ARGS'. Needs git only.
"""
from __future__ import annotations

import pathlib
import re
import subprocess
import sys

OUT = pathlib.Path(__file__).resolve().parents[1] / "rocm_tune" / "profiles" / "launcher_args.py"
_FLAG = re.compile(r"add_argument\(\s*(?:['\"]-\w['\"]\s*,\s*)?['\"]--([\w-]+)['\"]")
_HEAD = '''"""The flags each release of the `deepspeed` launcher declares (e-ver3, issue 26): data, no logic.

Made by tools/build_launcher_args.py from deepspeedai/DeepSpeed's deepspeed/launcher/runner.py at every release tag
(and the default branch's head, 'main'). Shape as runner_args.RUNNER_ARGS: (oldest release read, newest, {"FIRST..LAST":
flags first and last declared in those releases ('-' written '_')}, class names). explain uses it to tell a flag the
installed launcher refuses (`deepspeed: error: unrecognized arguments: --x`) but another release declares (version
skew) from one no release declares (a typo, or the script's own flag put before the script: the command).
"""
from __future__ import annotations

'''


def _git(repo: str, *args: str) -> str:
    return subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True, check=True).stdout


def _key(tag: str) -> tuple[int, ...]:
    return (10 ** 6,) if tag == "main" else tuple(int(p) for p in re.findall(r"\d+", tag))


def main(repo: str) -> None:
    tags = sorted((t for t in _git(repo, "tag").split() if re.fullmatch(r"v\d+\.\d+\.\d+", t)), key=_key)
    head = _git(repo, "rev-parse", "HEAD").strip()
    read: list[str] = []
    spans: dict[str, list[str]] = {}
    for tag, ref in [*((t, t) for t in tags), ("main", head)]:
        try:
            src = _git(repo, "show", f"{ref}:deepspeed/launcher/runner.py")
        except subprocess.CalledProcessError:
            continue
        flags = sorted({f.replace("-", "_") for f in _FLAG.findall(src)})
        if not flags:
            continue
        read.append(tag)
        for f in flags:
            spans.setdefault(f, [tag, tag])[1] = tag
    by_span: dict[str, list[str]] = {}
    for f, (first, last) in spans.items():
        by_span.setdefault(f"{first}..{last}", []).append(f)
    lines = [_HEAD, "LAUNCHER_ARGS: dict[str, tuple[str, str, dict[str, str], str]] = {",
             f'    "deepspeed-launcher": (\n        "{read[0]}", "{read[-1]}",\n        {{']
    for span in sorted(by_span, key=lambda s: (_key(s.split("..")[0]), _key(s.split("..")[1]))):
        lines.append(f'            "{span}": "{" ".join(sorted(by_span[span]))}",')
    lines += ["        },", '        "",', "    ),", "}", ""]
    OUT.write_text("\n".join(lines))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: build_launcher_args.py DEEPSPEED.git", file=sys.stderr)
        raise SystemExit(2)
    main(sys.argv[1])
