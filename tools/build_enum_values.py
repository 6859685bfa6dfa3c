"""Re-make rocm_tune/profiles/enum_values.py from the libraries' own source (e-skew2, issue 26).

Usage: python3 tools/build_enum_values.py TRANSFORMERS_WHEELS_DIR ACCELERATE.git PEFT.git
  TRANSFORMERS_WHEELS_DIR: transformers wheels of several releases (`pip download --no-deps transformers==X`; the table
  was made from 4.20.1 4.30.2 4.36.2 4.38.2 4.41.2 4.45.2 4.46.3 4.51.3 4.57.1 4.57.6 5.0.0 5.17.0 5.18.0) plus the
  installed transformers (5.24.0); ACCELERATE.git, PEFT.git: git directories of huggingface/accelerate and
  huggingface/peft (every release tag vX.Y.Z and the default branch's head are read).
The option values a run's config names are checked by enums (transformers' ExplicitEnum: OptimizerNames, SchedulerType,
IntervalStrategy, SaveStrategy, FSDPOption, QuantizationMethod...; accelerate's DistributedType, PrecisionType,
DynamoBackend...; PEFT's PeftType, TaskType): a value the installed release does not have is refused with
`ValueError: X is not a valid <Enum>, please select one of [...]` (transformers/utils/generic.py ExplicitEnum._missing_)
or Python's `ValueError: 'X' is not a valid <Enum>`. Per enum this records, for each value, the first and the last
release read that declare it. Needs git; no network.
"""
from __future__ import annotations

import ast
import pathlib
import re
import subprocess
import sys
import textwrap
import zipfile

OUT = pathlib.Path(__file__).resolve().parents[1] / "rocm_tune" / "profiles" / "enum_values.py"
_TF_FILES = ("training_args.py", "trainer_utils.py", "utils/generic.py", "debug_utils.py",
             "utils/quantization_config.py")
_HEAD = '''"""The values of the option enums of transformers, accelerate and PEFT, per release (e-skew2, issue 26): data, no logic.

Made by tools/build_enum_values.py from the libraries' source: transformers' wheels of the releases listed in each
entry (its training_args.py, trainer_utils.py, utils/generic.py, debug_utils.py, utils/quantization_config.py),
accelerate's and PEFT's every release tag and default branch ('main'). Per enum class: (library, the releases read in
order, {"FIRST..LAST": values first declared in release FIRST and last declared in release LAST of those read}).
explain uses it to tell an option value the installed release refuses but another release declares (version skew)
from one no release declares (a typo: the configuration).
"""
from __future__ import annotations

'''


# an option whose enum a later release replaced (transformers 4.47's save_strategy: IntervalStrategy -> SaveStrategy,
# which adds "best"): a value of the successor refused by the predecessor is the release, not a typo
_SUCCESSORS = '''# enum -> the enum a later release checks the same option with (transformers/training_args.py: save_strategy)
ENUM_SUCCESSORS: dict[str, tuple[str, ...]] = {"IntervalStrategy": ("SaveStrategy",)}
'''


def _git(repo: str, *args: str) -> str:
    return subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True, check=True).stdout


def enum_values(src: str) -> dict[str, set[str]]:
    """enum class -> its string values, for the classes of a module whose bases name an Enum."""
    try:
        tree = ast.parse(src)
    except SyntaxError:
        return {}
    out: dict[str, set[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and any(ast.unparse(b).endswith("Enum") for b in node.bases):
            vals = {s.value.value for s in node.body if isinstance(s, ast.Assign) and len(s.targets) == 1
                    and isinstance(s.targets[0], ast.Name) and isinstance(s.value, ast.Constant)
                    and isinstance(s.value.value, str)}
            if vals:
                out[node.name] = vals
    return out


def _key(v: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", v)[:3]) if v != "main" else (10 ** 6,)


def scan_transformers(wheels: str) -> list[tuple[str, dict[str, set[str]]]]:
    import transformers
    srcs: dict[str, list[str]] = {}
    for whl in pathlib.Path(wheels).glob("transformers-*.whl"):
        with zipfile.ZipFile(whl) as z:
            have = set(z.namelist())
            srcs[whl.name.split("-")[1]] = [z.read(f"transformers/{f}").decode() for f in _TF_FILES
                                            if f"transformers/{f}" in have]
    inst = pathlib.Path(transformers.__file__).parent
    srcs[transformers.__version__] = [(inst / f).read_text() for f in _TF_FILES if (inst / f).exists()]
    return [(v, _merge(srcs[v])) for v in sorted(srcs, key=_key)]


def scan_repo(repo: str, wanted: re.Pattern) -> list[tuple[str, dict[str, set[str]]]]:
    tags = sorted((t for t in _git(repo, "tag").split() if re.fullmatch(r"v\d+\.\d+\.\d+", t)), key=_key)
    out = []
    for rel in [*tags, "HEAD"]:
        files = [f for f in _git(repo, "ls-tree", "-r", "--name-only", rel).split() if wanted.search(f)]
        got = _merge([_git(repo, "show", f"{rel}:{f}") for f in files])
        if got:
            out.append(("main" if rel == "HEAD" else rel.lstrip("v"), got))
    return out


def _merge(srcs: list[str]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for s in srcs:
        for cls, vals in enum_values(s).items():
            out.setdefault(cls, set()).update(vals)
    return out


def render(lib: str, scanned: list[tuple[str, dict[str, set[str]]]], taken: set[str]) -> list[str]:
    releases = [r for r, _ in scanned]
    lines: list[str] = []
    classes = sorted({c for _, got in scanned for c in got} - taken)
    for cls in classes:
        seen: dict[str, list[str]] = {}
        for rel, got in scanned:
            for v in got.get(cls, ()):
                seen.setdefault(v, []).append(rel)
        groups: dict[str, list[str]] = {}
        for v, rels in sorted(seen.items()):
            groups.setdefault(f"{rels[0]}..{rels[-1]}", []).append(v)
        order = {r: i for i, r in enumerate(releases)}
        lines += [f'    "{cls}": ("{lib}", {{']
        for span in sorted(groups, key=lambda s: tuple(order[x] for x in s.split(".."))):
            body = textwrap.wrap(" ".join(groups[span]), 96)
            lines.append(f'        "{span}": ' + (f'"{body[0]}",' if len(body) == 1 else "(\n" + "\n".join(
                f'            "{b} "' for b in body) + "\n        ),"))
        lines.append("    }),")
        taken.add(cls)
    return lines


def main() -> None:
    wheels, acc, peft = sys.argv[1:4]
    taken: set[str] = set()
    scans = {"transformers": scan_transformers(wheels),
             "accelerate": scan_repo(acc, re.compile(r"^src/accelerate/utils/dataclasses\.py$")),
             "peft": scan_repo(peft, re.compile(r"^src/peft/utils/(?:peft_types|config)\.py$"))}
    body = ["# library -> the releases read, in order", "ENUM_RELEASES: dict[str, tuple[str, ...]] = {"]
    for lib, scanned in scans.items():
        body += [f'    "{lib}": (', *(f"        {line}" for line in textwrap.wrap(
            " ".join(f'"{r}",' for r, _ in scanned), 104)), "    ),"]
    body += ["}", "# enum class -> (library, {\"FIRST..LAST\": values first and last declared in those releases})",
             "ENUM_VALUES: dict[str, tuple[str, dict[str, str]]] = {"]
    for lib, scanned in scans.items():
        body += render(lib, scanned, taken)
    body += ["}", _SUCCESSORS]
    OUT.write_text(_HEAD + "\n".join(body))


if __name__ == "__main__":
    main()
