"""Re-make rocm_tune/profiles/deepspeed_config_keys.py from DeepSpeed's own source (e-skew2, issue 26).

Usage: python3 tools/build_deepspeed_config_keys.py DEEPSPEED.git
  DEEPSPEED.git: a git directory of deepspeedai/DeepSpeed (every release tag and the default branch's head are read).
DeepSpeed validates the sections of its JSON (zero_optimization, its offload_param/offload_optimizer, the monitors,
comms_logger, tensor_parallel, compile, ...) with pydantic models derived from DeepSpeedConfigModel
(deepspeed/runtime/config_utils.py: extra="forbid"), so a key the installed release does not declare is refused
(`N validation errors for DeepSpeedZeroConfig` / `<key>` / `Extra inputs are not permitted`; pydantic v1 releases:
`extra fields not permitted`). Per key (a field's name and its alias="..." spelling, the one the JSON uses) this
records the first and the last release that declare it. Needs git; no network.
"""
from __future__ import annotations

import ast
import pathlib
import re
import subprocess
import sys
import textwrap

OUT = pathlib.Path(__file__).resolve().parents[1] / "rocm_tune" / "profiles" / "deepspeed_config_keys.py"
_FILES = re.compile(r"deepspeed/(?:.*/)?\w*config\w*\.py$")
_HEAD = '''"""The keys DeepSpeed's pydantic-validated config sections declare, per release (e-skew2, issue 26): data, no logic.

Made by tools/build_deepspeed_config_keys.py from deepspeedai/DeepSpeed's source at every release tag (v0.1.0 ..
the default branch's head, 'main'): the fields of the DeepSpeedConfigModel classes (extra="forbid") in
deepspeed/**/*config*.py, each under the spelling the JSON uses (its alias="..." when it has one). Shape as
runner_args.RUNNER_ARGS: (oldest release read, newest, {"FIRST..LAST": keys}, the config class names). explain uses it
to tell a key the installed DeepSpeed refuses but another release declares (version skew) from one no release
declares (a typo or another program's key: the configuration).
"""
from __future__ import annotations

'''


def _git(repo: str, *args: str) -> str:
    return subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True, check=True).stdout


def model_keys(src: str) -> tuple[set[str], set[str]]:
    """(JSON keys, class names) of the pydantic config classes of a module: annotated fields, by alias if given."""
    try:
        tree = ast.parse(src)
    except SyntaxError:
        return set(), set()
    keys: set[str] = set()
    classes: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        got = set()
        for s in node.body:
            if not (isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)) or s.target.id.startswith("_") \
                    or "ClassVar" in ast.unparse(s.annotation):
                continue
            alias = next((k.value.value for k in getattr(s.value, "keywords", ()) if k.arg == "alias"
                          and isinstance(k.value, ast.Constant) and isinstance(k.value.value, str)), None)
            got.add(alias or s.target.id)
        if got:
            keys |= got
            classes.add(node.name)
    return keys, classes


def _releases(repo: str) -> list[str]:
    tags = [t for t in _git(repo, "tag").split() if re.fullmatch(r"v\d+\.\d+\.\d+", t)]
    return sorted(tags, key=lambda t: tuple(int(x) for x in t[1:].split("."))) + ["HEAD"]


def scan(repo: str) -> tuple[list[str], dict[str, list[str]], set[str]]:
    seen: dict[str, list[str]] = {}
    classes: set[str] = set()
    releases: list[str] = []
    for rel in _releases(repo):
        names: set[str] = set()
        for f in _git(repo, "ls-tree", "-r", "--name-only", rel).split():
            if _FILES.search(f):
                src = _git(repo, "show", f"{rel}:{f}")
                if "DeepSpeedConfigModel" in src:
                    got, cls = model_keys(src)
                    names |= got
                    classes |= cls
        if not names:
            continue
        label = "main" if rel == "HEAD" else rel.lstrip("v")
        releases.append(label)
        for n in names:
            seen.setdefault(n, []).append(label)
    return releases, seen, classes


def main() -> None:
    releases, seen, classes = scan(sys.argv[1])
    groups: dict[str, list[str]] = {}
    for n, rels in sorted(seen.items()):
        groups.setdefault(f"{rels[0]}..{rels[-1]}", []).append(n)
    order = {r: i for i, r in enumerate(releases)}
    out = ["DEEPSPEED_CONFIG_KEYS: tuple[str, str, dict[str, str], str] = (",
           f'    "{releases[0]}", "{releases[-1]}",', "    {"]
    for span in sorted(groups, key=lambda s: tuple(order[x] for x in s.split(".."))):
        out.append(f'        "{span}": (')
        out += [f'            "{line} "' for line in textwrap.wrap(" ".join(groups[span]), 100)]
        out.append("        ),")
    out.append("    },")
    cls = " ".join(sorted(c for c in classes if c.endswith("Config")))
    out += [f'    "{line} "' for line in textwrap.wrap(cls, 108)]
    out += [")", ""]
    OUT.write_text(_HEAD + "\n".join(out))


if __name__ == "__main__":
    main()
