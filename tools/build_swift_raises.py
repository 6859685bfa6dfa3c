"""Re-make rocm_tune/profiles/swift_raises.py from ms-swift's own code outside its argument classes (e-swift3, issue 26).

Usage: python3 tools/build_swift_raises.py MIRROR_DIR
MIRROR_DIR holds modelscope+ms-swift/repo (a git directory). Reads, at the refs below (4.x HEAD, 3.x, 2.x), every
`raise SomeError(msg)` and `assert cond, msg` of ms-swift's template, dataset, model, trainers, megatron, infer,
plugin, hub and utils code, writes each message as a template (the literal text with `\x00` where the f-string /
.format / % put a value) and gives it the family of FAMILIES.md its words and its file decide (`_family` below: a
release requirement -> version_check, a package to install -> missing_package, the dataset's rows/columns/files ->
dataset_error, an unknown model type -> unrecognized_model_type_adapter, the hub -> model_download, memory ->
gpu_oom, else the run's settings -> config_error). The argument classes' own refusals are runner_refusals.py's
(tools/build_runner_refusals.py) and are left out here. Needs git; no network.
"""
from __future__ import annotations

import ast
import fnmatch
import pathlib
import pprint
import re
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from tools.build_runner_refusals import _template  # noqa: E402  (same template rules as the argument refusals)

OUT = pathlib.Path(__file__).resolve().parents[1] / "rocm_tune" / "profiles" / "swift_raises.py"
HOLE = "\x00"
MIN_LITERAL = 24
REFS = ("HEAD", "v4.2.3", "v4.0.0", "v3.12.6", "v3.9.3", "v3.7.3", "v3.5.3", "v3.3.1", "v3.0.0", "v2.6.1", "v2.4.2",
        "v2.2.5", "v2.0.5", "v1.7.3")
GLOBS = ("swift/*.py", "swift/*/*.py", "swift/*/*/*.py", "swift/*/*/*/*.py", "swift/*/*/*/*/*.py")
SKIP = ("swift/ui/*", "swift/*/ui/*", "swift/arguments/*", "swift/llm/argument/*", "swift/megatron/argument*",
        "swift/megatron/arguments/*", "swift/llm/utils/argument.py", "tests/*", "examples/*")

# a release requirement: the words, or a comparison with a dotted release (`vllm >= 0.6.0`, `v2.7.3 and above`) --
# not a model's name with a dot (`Qwen2.5`) nor a comparison of a value (`<= 0`)
_VERSION = re.compile(r"\b(?:upgrade|downgrade|update the|version|versions)\b|(?:[<>=]=?|!=)\s*v?\d+\.\d+|"
                      r"\bv?\d+\.\d+(?:\.\d+)?\s+(?:or|and)\s+(?:later|higher|above|newer)\b", re.I)
_NEWER_TRANSFORMERS = re.compile(r"pip install\b.*\b(?:git\+https://github\.com/huggingface/)?transformers\b", re.I)
_INSTALL = re.compile(r"\bpip install\b|\bplease install\b|\bnot installed\b|\bneeds? to (?:be )?install|"
                      r"\binstall\s+`?[\w.-]+`?\s+(?:first|to use)\b", re.I)
# a row longer than the run's max_length (the template's refusal; explain reads these as the rows, r4-swift)
# or rows/columns/samples the dataset lacks, wherever the code that says so lives
_ROW_LENGTH = re.compile(r"\bmax_length\b.*\b(?:appropriate|larger|exceed|increas)|\blength of row\b|"
                         r"\b(?:larger|longer) than (?:the )?max_length\b|\bincreas\w* `?max_length\b|"
                         r"\bdataset columns\b|\btrain_dataset is None\b|\bdataset has enough samples\b", re.I)
_MEMORY = re.compile(r"\bout of memory\b|\bOOM\b", re.I)
_HUB = re.compile(r"\b(?:download|hub_token|snapshot|modelscope hub|huggingface hub|repo_id|hub)\b", re.I)
_MODEL_TYPE = re.compile(r"\bmodel_type\b.*\b(?:not (?:registered|supported|found|exist)|unknown|unsupported)|"
                         r"\b(?:unknown|unsupported) model_type\b|\bnot (?:find|found) (?:the )?model_type\b|"
                         # the registry has no model type for the checkpoint (swift/model/model_meta.py, register.py)
                         r"automatically match `model_type`\.|no suitable `model_type`|explicitly pass the `?model_type",
                         re.I)
_DATA = re.compile(r"\b(?:dataset|datasets|dataset_name|columns?|rows?|row\[|messages?|conversations?|"
                   r"role|roles|assistant|system|query|response|rejected_response|history|images?|videos?|audios?|media|"
                   r"objects?|bbox|label|labels|jsonl?|csv|sample|samples|tools?_call|tool_calls|solution)\b", re.I)
# the code's registry, the inference backend or the model's processor config, not a row
_REGISTRY = re.compile(r"\bregistered\b|\btemplate_type\b|\bDATASET_MAPPING\b|\bvLLM\b|\bbackend\b|"
                       r"processing config|\bprefix\b|\{\{SYSTEM\}\}", re.I)
_DATA_FILES = ("swift/dataset/", "swift/llm/dataset/", "swift/llm/utils/dataset.py", "swift/llm/utils/preprocess.py",
               "swift/llm/dataset/preprocessor/")
_TEMPLATE_FILES = ("swift/template/", "swift/llm/template/", "swift/llm/utils/template.py", "swift/agent_template/",
                   "swift/plugin/agent_template/", "swift/llm/utils/vision_utils.py", "swift/llm/template/vision_utils")


def _family(path: str, exc: str, msg: str) -> str:
    """The FAMILIES.md family of a raise site, from its words first, then its file."""
    fixed = msg.replace(HOLE, " ")
    if _INSTALL.search(fixed) or exc in ("ImportError", "ModuleNotFoundError"):
        return "version_check" if _VERSION.search(fixed) or _NEWER_TRANSFORMERS.search(fixed) else "missing_package"
    if _VERSION.search(fixed):
        return "version_check"
    if _MEMORY.search(fixed):
        return "gpu_oom"
    if _ROW_LENGTH.search(fixed):
        return "dataset_error"
    if _MODEL_TYPE.search(fixed):
        return "unrecognized_model_type_adapter"
    if path.startswith(("swift/hub/", "swift/llm/utils/hub")) and _HUB.search(fixed):
        return "model_download"
    if path.startswith(_DATA_FILES) and not _REGISTRY.search(fixed):
        return "dataset_error"
    if path.startswith(_TEMPLATE_FILES) and _DATA.search(fixed) and not _REGISTRY.search(fixed):
        return "dataset_error"
    return "config_error"


def _named(tree: ast.AST) -> dict[str, str]:
    """Messages put in a name before the raise (`msg = f'...'; raise ValueError(msg)`): the last string assigned to
    each name in the module (ms-swift's functions reuse `msg`/`error_msg` for one message each)."""
    names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            t = _template(node.value)
            if t is not None:
                names[node.targets[0].id] = t
    return names


def _message_of(node: ast.AST | None, scope: dict[str, str]) -> str | None:
    if isinstance(node, ast.Name):
        return scope.get(node.id)
    return _template(node)


def _messages(src: str) -> list[tuple[str, str]]:
    """(exception, template) of each raise/assert in src, also of a message first put in a name."""
    try:
        tree = ast.parse(src)
    except SyntaxError:
        return []
    out = []
    for fn in [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))] + [tree]:
        scope = _named(fn) if fn is not tree else {}
        for node in ast.walk(fn):
            if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args:
                name = getattr(node.exc.func, "id", getattr(node.exc.func, "attr", ""))
                msg = _message_of(node.exc.args[0], scope)
                if msg is not None and name.endswith(("Error", "Exception")):
                    out.append((name, msg))
            elif isinstance(node, ast.Assert) and node.msg is not None:
                msg = _message_of(node.msg, scope)
                if msg is not None:
                    out.append(("AssertionError", msg))
    return list(dict.fromkeys(out))


# ms-swift's short dumps of the value it refused (`messages: {}`, `assistant_message: {}`, `len(box): {}`): kept
# for the data/template code only (dataset_error), where they name the row's field; explain matches them only from
# the message's start and with the same exception class
_SHORT = re.compile(r"^[A-Za-z_][\w.\[\]'()\-]*(?: [\w.\[\]'()\-]+){0,3}: \x00")


def _usable(msg: str, family: str = "") -> bool:
    first = msg.split("\n", 1)[0]
    longest = max((p.strip() for p in first.split(HOLE)), key=len)
    if len(longest) >= MIN_LITERAL and len(re.findall(r"[A-Za-z]{2,}", longest)) >= 4:
        return True
    return family == "dataset_error" and bool(_SHORT.match(first)) and len(first.split(HOLE)[0]) >= 6


def _git(repo: str, *args: str) -> str:
    return subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True, check=True).stdout


def collect(mirror: str) -> list[tuple[str, str, str, str, str]]:
    from rocm_tune.profiles.runner_refusals import REFUSALS
    known = {" ".join(r[4].split()) for r in REFUSALS if r[0] == "ms-swift"}
    repo = f"{mirror}/modelscope+ms-swift/repo"
    rows: dict[str, tuple[str, str, str, str, str]] = {}
    for ref in REFS:
        for path in _git(repo, "ls-tree", "-r", "--name-only", ref).split():
            if not any(fnmatch.fnmatchcase(path, g) for g in GLOBS) or any(fnmatch.fnmatchcase(path, s) for s in SKIP):
                continue
            for exc, msg in _messages(_git(repo, "show", f"{ref}:{path}")):
                key = " ".join(msg.split())
                family = _family(path, exc, msg)
                if _usable(msg, family) and key not in known:
                    rows.setdefault(key, (family, ref, path, exc, msg))
    return sorted(rows.values(), key=lambda r: (r[2], r[4]))


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: build_swift_raises.py MIRROR_DIR", file=sys.stderr)
        return 2
    rows = collect(argv[1])
    body = pprint.pformat(tuple(rows), width=118)
    OUT.write_text(
        '"""ms-swift\'s own raise sites outside its argument classes (generated by tools/build_swift_raises.py; do not\n'
        'edit). Each row: (family, ref, file, exception, message template with \\x00 where the code puts a value).\n'
        'explain reads an exception line whose message fits one as that family (diagnose/swift_raises.py)."""\n\n'
        f"SWIFT_RAISES: tuple[tuple[str, str, str, str, str], ...] = {body}\n")
    print(f"{len(rows)} messages -> {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
