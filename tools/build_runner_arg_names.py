"""Re-make rocm_tune/profiles/runner_args.py from the runners' own source (e-skew, issue 26).

Usage: python3 tools/build_runner_arg_names.py LF.git TRL.git PEFT.git MEGATRON.git EOLE.git ACCELERATE.git \
           TRANSFORMERS_WHEELS_DIR
  LF.git ... ACCELERATE.git: git directories of hiyouga/LLaMA-Factory, huggingface/trl, huggingface/peft,
  NVIDIA/Megatron-LM, eole-nlp/eole, huggingface/accelerate (every release tag and the default branch's
  head are read; `fetch`/`git clone --bare` gives one);
  TRANSFORMERS_WHEELS_DIR: transformers wheels of several releases (`pip download --no-deps transformers==4.41.2`;
  the table was made from 4.20.1 4.30.2 4.38.2 4.41.2 4.45.2 4.46.3 4.51.3 4.57.1 5.0.0), plus the installed
  transformers (5.24.0).
Per runner it records, for every argument name its releases declare (dataclass / pydantic fields of the argument
and config classes, Megatron's argparse flags), the first and the last release (in release order) that declare it.
Needs git; no network.
"""
from __future__ import annotations

import ast
import pathlib
import re
import subprocess
import sys
import textwrap
import zipfile
from collections.abc import Callable, Iterable

OUT = pathlib.Path(__file__).resolve().parents[1] / "rocm_tune" / "profiles" / "runner_args.py"

# which files of a tag hold the argument / config classes
_FILES: dict[str, Callable[[str], bool]] = {
    "llamafactory": lambda f: bool(re.match(r"src/(?:llmtuner|llamafactory)/hparams/\w+\.py$", f)),
    "trl": lambda f: bool(re.match(r"trl/(?:trainer|experimental/\w+|scripts|commands)/\w*(?:config|utils)\w*\.py$", f)),
    "peft": lambda f: bool(re.match(r"src/peft/(?:config|tuners/.*config|utils/config|tuners/\w+)\.py$", f)),
    "megatron": lambda f: bool(re.match(r"megatron/(?:training/)?arguments\.py$|megatron/\w+/arguments\.py$", f)),
    # eole's pydantic config (eole/config/*.py, model_config extra="forbid": unknown keys are refused)
    "eole": lambda f: bool(re.match(r"eole/config/\w+\.py$", f)),
    # `accelerate launch`'s flags and the config file's keys (commands/config/config_args.py dataclasses)
    "accelerate": lambda f: bool(re.match(r"src/accelerate/commands/(?:launch|config/config_args)\.py$", f)),
}
# Megatron's newer releases make flags from the config dataclasses too (megatron/training/argument_utils.py)
_MEGATRON_DATACLASS_FILES = re.compile(r"megatron/core/(?:transformer/transformer_config|model_parallel_config)\.py$|"
                                       r"megatron/training/(?:config|models)(?:/\w+)?\.py$")


def _git(repo: str, *args: str) -> str:
    return subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True, check=True).stdout


def class_fields(src: str) -> tuple[set[str], set[str]]:
    """(field names, class names) of the classes in a module: annotated class-level assignments."""
    try:
        tree = ast.parse(src)
    except SyntaxError:
        return set(), set()
    names: set[str] = set()
    classes: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            got = {s.target.id for s in node.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
                   and not s.target.id.startswith("_") and "ClassVar" not in ast.unparse(s.annotation)}
            if got:
                names |= got
                classes.add(node.name)
    return names, classes


def argparse_flags(src: str) -> set[str]:
    """The long options of the add_argument calls of a module, as attribute names (--num-layers -> num_layers)."""
    try:
        tree = ast.parse(src)
    except SyntaxError:
        return set()
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add_argument":
            for a in node.args:
                if isinstance(a, ast.Constant) and isinstance(a.value, str) and a.value.startswith("--"):
                    out.add(a.value[2:].replace("-", "_"))
    return out


def _releases(repo: str) -> list[str]:
    """Release tags in the order they were made, then the default branch's head ('main')."""
    tags = [t for t in _git(repo, "tag").split() if re.search(r"\d", t) and "rc" not in t and "alpha" not in t]
    dated = sorted((int(_git(repo, "log", "-1", "--format=%ct", t).strip() or 0), t) for t in tags)
    return [t for _, t in dated] + ["HEAD"]


def scan_repo(runner: str, repo: str) -> tuple[list[str], dict[str, list[str]], set[str]]:
    """(releases read, name -> releases declaring it, class names) for one runner's git directory."""
    wanted = _FILES[runner]
    seen: dict[str, list[str]] = {}
    classes: set[str] = set()
    releases: list[str] = []
    for rel in _releases(repo):
        files = [f for f in _git(repo, "ls-tree", "-r", "--name-only", rel).split()
                 if wanted(f) or (runner == "megatron" and _MEGATRON_DATACLASS_FILES.search(f))]
        names: set[str] = set()
        for f in files:
            src = _git(repo, "show", f"{rel}:{f}")
            if runner == "accelerate":
                names |= argparse_flags(src) | class_fields(src)[0]
            elif runner == "megatron":
                # a dataclass field's flag can carry its own spelling (argparse_meta={"arg_names": ["--norm-epsilon"]})
                names |= argparse_flags(src) if wanted(f) else class_fields(src)[0] | {
                    a.replace("-", "_") for a in re.findall(r"[\"']--([A-Za-z][\w-]*)[\"']", src)}
            else:
                got, cls = class_fields(src)
                names |= got
                classes |= cls
        if not names:
            continue
        label = "main" if rel == "HEAD" else rel
        releases.append(label)
        for n in names:
            seen.setdefault(n, []).append(label)
    return releases, seen, classes


def scan_transformers(wheels: str) -> tuple[list[str], dict[str, list[str]], set[str]]:
    """The same for transformers' (Seq2Seq)TrainingArguments, one wheel per release plus the installed release."""
    import transformers

    def key(v: str) -> tuple[int, ...]:
        return tuple(int(x) for x in re.findall(r"\d+", v)[:3])
    srcs: dict[str, str] = {}
    for whl in pathlib.Path(wheels).glob("transformers-*.whl"):
        with zipfile.ZipFile(whl) as z:
            srcs[whl.name.split("-")[1]] = "\n".join(z.read(f"transformers/{m}.py").decode()
                                                     for m in ("training_args", "training_args_seq2seq"))
    inst = pathlib.Path(transformers.__file__).parent
    srcs[transformers.__version__] = "\n".join((inst / f"{m}.py").read_text() for m in ("training_args",
                                                                                          "training_args_seq2seq"))
    seen: dict[str, list[str]] = {}
    releases = sorted(srcs, key=key)
    for v in releases:
        for n in class_fields(srcs[v])[0]:
            seen.setdefault(n, []).append(v)
    return releases, seen, {"TrainingArguments", "Seq2SeqTrainingArguments"}


def _render(runner: str, releases: list[str], seen: dict[str, list[str]], classes: Iterable[str]) -> list[str]:
    groups: dict[str, list[str]] = {}
    for n, rels in sorted(seen.items()):
        groups.setdefault(f"{rels[0]}..{rels[-1]}", []).append(n)
    order = {r: i for i, r in enumerate(releases)}
    out = [f'    "{runner}": (', f'        "{releases[0]}", "{releases[-1]}",', "        {"]
    for span in sorted(groups, key=lambda s: tuple(order[x] for x in s.split(".."))):
        out.append(f'            "{span}": (')
        out += [f'                "{line} "' for line in textwrap.wrap(" ".join(groups[span]), 100)]
        out.append("            ),")
    out.append("        },")
    cls = " ".join(sorted(c for c in classes if re.search(r"(?:Config|Arguments|Args)$", c)))
    out += [f'        "{line} "' for line in textwrap.wrap(cls, 104)] or ['        ""']
    out.append("    ),")
    return out


def main() -> None:
    lf, trl, peft, mega, eole, acc, wheels = sys.argv[1:8]
    body = ["RUNNER_ARGS: dict[str, tuple[str, str, dict[str, str], str]] = {"]
    body += _render("transformers", *scan_transformers(wheels))
    for runner, repo in (("llamafactory", lf), ("trl", trl), ("peft", peft), ("megatron", mega), ("eole", eole),
                         ("accelerate", acc)):
        body += _render(runner, *scan_repo(runner, repo))
    body += ["}", ""]
    head = OUT.read_text().split("RUNNER_ARGS: dict[")[0]
    OUT.write_text(head + "\n".join(body))


if __name__ == "__main__":
    main()
