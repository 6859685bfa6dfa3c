"""Re-make rocm_tune/profiles/release_pins.py from the libraries' own source (e-ver4, issue 26).

Usage: python3 tools/build_release_pins.py LIB=REPO.git [LIB=REPO.git ...]
  e.g. peft=/work/.mirror/huggingface+peft/repo trl=... accelerate=... llamafactory=... ms-swift=... axolotl=...
       unsloth=... deepspeed=... bitsandbytes=... flash-attn=/work/.mirror/Dao-AILab+flash-attention/repo
  Every release tag of each git directory is read; no network.
Per release this records what the release itself declares it needs of the other packages of the stack:
- setup.py's install_requires (a list literal, or the name of one: REQUIRED_PKGS), setup.cfg's install_requires,
  pyproject.toml's [project] dependencies (unsloth: its `huggingface` extra, what `pip install unsloth` resolves),
  requirements.txt / requirements/framework.txt / requirements/requirements.txt (ms-swift, axolotl, LLaMA-Factory,
  DeepSpeed);
- LLaMA-Factory's runtime gate (extras/misc.py check_dependencies: require_version("transformers>=4.41.2,<=4.46.1")),
  which wins over its requirements file for the packages it checks (the release raises on it).
flash-attn: the torch releases its release workflow (.github/workflows/publish.yml, matrix torch-version) built
wheels for. Consecutive releases with the same pins are one span "FIRST..LAST".
"""
from __future__ import annotations

import ast
import pathlib
import re
import subprocess
import sys
import tomllib

OUT = pathlib.Path(__file__).resolve().parents[1] / "rocm_tune" / "profiles" / "release_pins.py"
# the packages of the stack whose pins a log's version facts can be read against (normalised: lower case, `-`)
TRACKED = ("torch", "transformers", "accelerate", "peft", "trl", "datasets", "tokenizers", "deepspeed",
           "bitsandbytes", "flash-attn", "huggingface-hub", "safetensors", "triton", "xformers", "vllm", "unsloth-zoo",
           "liger-kernel")
_REQ = re.compile(r"^\s*([A-Za-z][A-Za-z0-9_.-]*)\s*(?:\[[^\]]*\])?\s*((?:[<>=!~]=?|===)\s*[\w.*+!-]+"
                  r"(?:\s*,\s*(?:[<>=!~]=?|===)\s*[\w.*+!-]+)*)\s*(?:;.*)?$")
_HEAD = '''"""What each release of a library declares it needs of the other packages of the stack (e-ver4, issue 26): data.

Made by tools/build_release_pins.py from the libraries' git tags (setup.py / setup.cfg install_requires,
pyproject.toml dependencies, requirements files, LLaMA-Factory's check_dependencies gate). Shape: library ->
((FIRST, LAST, ((dependency, specifier), ...)), ...), releases in order, FIRST..LAST the releases that declare the
same pins. FLASH_ATTN_TORCH: flash-attn release -> the torch releases (major.minor) its publish workflow built
wheels for. explain reads a log's version facts against them (FAMILIES.md "Rule 1, refined": a stated requirement).
"""
from __future__ import annotations

'''


def _git(repo: str, *args: str) -> str:
    r = subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True)
    return r.stdout if r.returncode == 0 else ""


def _key(v: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", v)[:4])


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _pins(lines: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for s in lines:
        m = _REQ.match(s.strip())
        if m and _norm(m.group(1)) in TRACKED:
            spec = re.sub(r"\s+", "", m.group(2))
            name = _norm(m.group(1))
            out[name] = spec if name not in out or out[name] == spec else out[name] + "," + spec
    return out


def _setup_py(src: str) -> list[str]:
    try:
        tree = ast.parse(src)
    except SyntaxError:
        return []
    lists = {t.id: n.value for n in ast.walk(tree) if isinstance(n, ast.Assign) for t in n.targets
             if isinstance(t, ast.Name) and isinstance(n.value, (ast.List, ast.Tuple))}
    for n in ast.walk(tree):
        if isinstance(n, ast.keyword) and n.arg == "install_requires":
            v = lists.get(n.value.id) if isinstance(n.value, ast.Name) else n.value
            if isinstance(v, (ast.List, ast.Tuple)):
                return [e.value for e in v.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return []


def _setup_cfg(src: str) -> list[str]:
    m = re.search(r"^install_requires\s*=\s*\n((?:[ \t]+\S.*\n?)+)", src, re.M)
    return m.group(1).splitlines() if m else []


def _pyproject(src: str, extra: str | None) -> list[str]:
    try:
        proj = tomllib.loads(src).get("project", {})
    except tomllib.TOMLDecodeError:
        return []
    deps = list(proj.get("dependencies", []))
    return deps + list(proj.get("optional-dependencies", {}).get(extra, [])) if extra else deps


def _gate(src: str) -> list[str]:
    return re.findall(r"(?:require_version|check_version)\(\s*\"([^\"]+)\"", src.split("def check_dependencies", 1)[-1][:3000]) \
        if "def check_dependencies" in src else []


def release_pins(repo: str, tag: str, lib: str) -> dict[str, str]:
    files = set(_git(repo, "ls-tree", "-r", "--name-only", tag).split())
    lines, gated = [], []
    for gate in ("src/llamafactory/extras/misc.py", "src/llmtuner/extras/misc.py"):
        if gate in files:
            gated += _gate(_git(repo, "show", f"{tag}:{gate}"))
    if "setup.py" in files:
        lines += _setup_py(_git(repo, "show", f"{tag}:setup.py"))
    if "setup.cfg" in files:
        lines += _setup_cfg(_git(repo, "show", f"{tag}:setup.cfg"))
    if "pyproject.toml" in files:
        lines += _pyproject(_git(repo, "show", f"{tag}:pyproject.toml"), "huggingface" if lib == "unsloth" else None)
    for req in ("requirements.txt", "requirements/framework.txt", "requirements/requirements.txt"):
        if req in files:
            lines += _git(repo, "show", f"{tag}:{req}").splitlines()
    pins = {**_pins(lines), **_pins(gated)}     # the runtime gate is what the release enforces: it wins
    pins.pop(lib, None)
    return pins


def _unsloth_version(repo: str, tag: str) -> str | None:
    m = re.search(r"__version__\s*=\s*\"([\d.]+)\"", _git(repo, "show", f"{tag}:unsloth/models/_utils.py"))
    return m.group(1) if m else None


def releases(repo: str, lib: str) -> list[tuple[str, str]]:
    """(version, tag) of every release, in order."""
    tags = _git(repo, "tag").split()
    if lib == "unsloth":
        got = {v: t for t in tags if (v := _unsloth_version(repo, t))}
        return sorted(((v, t) for v, t in got.items()), key=lambda x: _key(x[0]))
    return sorted(((t.lstrip("v"), t) for t in tags if re.fullmatch(r"v?\d+\.\d+\.\d+(?:\.post\d+)?", t)),
                  key=lambda x: _key(x[0]))


def read_library(lib: str, repo: str) -> list[tuple[str, str, tuple[tuple[str, str], ...]]]:
    spans: list[tuple[str, str, tuple[tuple[str, str], ...]]] = []
    for ver, tag in releases(repo, lib):
        pins = tuple(sorted(release_pins(repo, tag, lib).items()))
        if spans and spans[-1][2] == pins:
            spans[-1] = (spans[-1][0], ver, pins)
        else:
            spans.append((ver, ver, pins))
    return [s for s in spans if s[2]]


def flash_attn_torch(repo: str) -> dict[str, tuple[str, ...]]:
    out: dict[str, tuple[str, ...]] = {}
    for ver, tag in releases(repo, "flash-attn"):
        wf = _git(repo, "show", f"{tag}:.github/workflows/publish.yml")
        m = re.search(r"torch-version:\s*\[([^\]]+)\]", wf)
        if m:
            out[ver] = tuple(dict.fromkeys(".".join(v.split(".")[:2]) for v in re.findall(r"\d+\.\d+(?:\.\d+)?",
                                                                                          m.group(1))))
    return out


def main(argv: list[str]) -> int:
    pins: dict[str, list] = {}
    fa: dict[str, tuple[str, ...]] = {}
    for arg in argv:
        lib, _, repo = arg.partition("=")
        if lib == "flash-attn":
            fa = flash_attn_torch(repo)
        else:
            pins[lib] = read_library(lib, repo)
    body = _HEAD + "PINS: dict[str, tuple[tuple[str, str, tuple[tuple[str, str], ...]], ...]] = {\n"
    for lib, spans in pins.items():
        body += f"    {lib!r}: (\n" + "".join(f"        ({a!r}, {b!r}, {p!r}),\n" for a, b, p in spans) + "    ),\n"
    body += "}\n\nFLASH_ATTN_TORCH: dict[str, tuple[str, ...]] = {\n"
    body += "".join(f"    {v!r}: {t!r},\n" for v, t in fa.items()) + "}\n"
    OUT.write_text(body)
    print(f"wrote {OUT} ({sum(len(s) for s in pins.values())} spans, {len(fa)} flash-attn releases)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
