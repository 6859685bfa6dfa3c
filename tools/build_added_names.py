"""Re-make rocm_tune/profiles/release_names.py from the libraries' own source (e-ver3, issue 26).

Usage: python3 tools/build_added_names.py LIB=REPO.git [LIB=REPO.git ...]
  e.g. peft=/m/huggingface+peft/repo trl=... accelerate=... deepspeed=... bitsandbytes=... datasets=...
  Every release tag (vX.Y.Z or X.Y.Z) of each git directory is read; no network.
The public names of a library are what its package's __init__.py makes importable: names imported there
(`from .tuners import LoraConfig`), classes and functions defined there, the strings of a lazy `_import_structure`
(TRL, newer PEFT) and of `__all__`. Code written for another release fails on one of them with
`ImportError: cannot import name 'GRPOTrainer' from 'trl'` or `AttributeError: module 'trl' has no attribute ...`.
Per library and name this records the first and the last release that export it, so explain can say which release
added (or removed) the name the log failed on.
"""
from __future__ import annotations

import ast
import pathlib
import re
import subprocess
import sys

OUT = pathlib.Path(__file__).resolve().parents[1] / "rocm_tune" / "profiles" / "release_names.py"
_HEAD = '''"""The public names each release of a library exports from its package (e-ver3, issue 26): data, no logic.

Made by tools/build_added_names.py from the libraries' git tags: per release, the names the package's __init__.py
imports, defines, lists in `__all__` or in a lazy `_import_structure`. Shape: library -> (the releases read in order,
{"FIRST..LAST": names first exported in release FIRST and last in release LAST}). explain uses it to name the release
that has a name a log failed to import (`cannot import name 'X' from 'lib'`, `module 'lib' has no attribute 'X'`).
"""
from __future__ import annotations

'''


def _git(repo: str, *args: str) -> str:
    return subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True, check=True).stdout


def _key(tag: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", tag)[:3])


def _strings(node: ast.AST) -> set[str]:
    return {n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)}


def public_names(src: str) -> set[str]:
    """The names a package __init__.py makes importable (see the module's docstring)."""
    tree = ast.parse(src)
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            out.update(a.asname or a.name for a in node.names if a.name != "*")
        elif isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id in ("__all__", "_import_structure")
                                                  for t in node.targets):
            out.update(_strings(node.value) if not isinstance(node.value, ast.Dict) else
                       set().union(*(_strings(v) for v in node.value.values)) if node.value.values else set())
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in ("extend", "append") and "_import_structure" in ast.unparse(node.func.value):
            out.update(*(_strings(a) for a in node.args))
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            out.add(node.name)
    return {n for n in out if re.fullmatch(r"[A-Za-z]\w*", n)}


def _init_path(repo: str, tag: str, lib: str) -> str | None:
    for p in (f"src/{lib}/__init__.py", f"{lib}/__init__.py"):
        if _git_ok(repo, "cat-file", "-e", f"{tag}:{p}"):
            return p
    return None


def _git_ok(repo: str, *args: str) -> bool:
    return subprocess.run(["git", "-C", repo, *args], capture_output=True).returncode == 0


def read_library(lib: str, repo: str) -> tuple[list[str], dict[str, list[str]]]:
    tags = sorted((t for t in _git(repo, "tag").split() if re.fullmatch(r"v?\d+\.\d+\.\d+", t)), key=_key)
    read: list[str] = []
    spans: dict[str, list[str]] = {}
    for tag in tags:
        path = _init_path(repo, tag, lib)
        if path is None:
            continue
        try:
            names = public_names(_git(repo, "show", f"{tag}:{path}"))
        except SyntaxError:
            continue
        if not names:
            continue
        read.append(tag)
        for n in names:
            spans.setdefault(n, [tag, tag])[1] = tag
    return read, spans


def main(pairs: list[str]) -> None:
    lines = [_HEAD, "RELEASE_NAMES: dict[str, tuple[tuple[str, ...], dict[str, str]]] = {"]
    for pair in pairs:
        lib, repo = pair.split("=", 1)
        read, spans = read_library(lib, repo)
        by_span: dict[str, list[str]] = {}
        for n, (first, last) in spans.items():
            by_span.setdefault(f"{first}..{last}", []).append(n)
        lines.append(f'    "{lib}": (\n        (')
        for i in range(0, len(read), 10):
            lines.append("            " + " ".join(f'"{t}",' for t in read[i:i + 10]))
        lines.append("        ),\n        {")
        for span in sorted(by_span, key=lambda s: (_key(s.split("..")[0]), _key(s.split("..")[1]))):
            names = sorted(by_span[span])
            chunks = [" ".join(names[i:i + 6]) for i in range(0, len(names), 6)]
            body = "\n".join(f'                "{c} "' for c in chunks)
            lines.append(f'            "{span}": (\n{body}\n            ),')
        lines.append("        },\n    ),")
    lines.append("}\n")
    OUT.write_text("\n".join(lines))


if __name__ == "__main__":
    if len(sys.argv) < 2 or any("=" not in a for a in sys.argv[1:]):
        print("usage: build_added_names.py LIB=REPO.git [LIB=REPO.git ...]", file=sys.stderr)
        raise SystemExit(2)
    main(sys.argv[1:])
