"""Re-make rocm_tune/profiles/runner_refusals.py from the runners' own argument-checking code (e-src, issue 26).

Usage: python3 tools/build_runner_refusals.py MIRROR_DIR [TRANSFORMERS_PKG_DIR ...] [TORCH_PKG_DIR]
MIRROR_DIR holds git directories named owner+name/repo (modelscope+ms-swift, hiyouga+LLaMA-Factory,
huggingface+trl, huggingface+accelerate, deepspeedai+DeepSpeed, axolotl-ai-cloud+axolotl, volcengine+verl,
NVIDIA+Megatron-LM, OpenRLHF+OpenRLHF, huggingface+peft, pytorch+torchtitan, pytorch+torchtune); each
TRANSFORMERS_PKG_DIR is a transformers package (site-packages/transformers; this profile: 5.24.0 installed, 4.46.3
and 4.36.2 unpacked from their wheels, newest first); TORCH_PKG_DIR a torch package (site-packages/torch, folder named
torch; this profile: 2.13.0 installed) for torchrun's checks. Reads, at the refs below, every `raise ValueError/AssertionError/
NotImplementedError/TypeError(msg)` and `assert cond, msg` of the files that check the run's arguments and writes the
messages as templates: the literal text with `\x00` where the f-string / .format / % put a value. Needs git; no
network.
"""
from __future__ import annotations

import ast
import fnmatch
import pathlib
import pprint
import re
import subprocess
import sys

OUT = pathlib.Path(__file__).resolve().parents[1] / "rocm_tune" / "profiles" / "runner_refusals.py"
HOLE = "\x00"
RAISED = ("ValueError", "AssertionError", "NotImplementedError", "TypeError")
MIN_LITERAL = 24          # characters of fixed text a template needs to be told apart from other messages
# (runner, repo, refs, file globs, functions looked at or None for all)
SOURCES = (
    ("ms-swift", "modelscope+ms-swift", ("HEAD",), ("swift/arguments/*.py", "swift/arguments/*/*.py",
                                                    "swift/megatron/arguments/*.py"), None),
    ("ms-swift", "modelscope+ms-swift", ("v3.12.6",), ("swift/llm/argument/*.py", "swift/llm/argument/*/*.py",
                                                       "swift/megatron/argument/*.py"), None),
    ("ms-swift", "modelscope+ms-swift", ("v2.6.1",), ("swift/llm/utils/argument.py",), None),
    # the training pipelines setting the run up from the arguments, and the trainers' argument classes
    ("ms-swift", "modelscope+ms-swift", ("HEAD",), ("swift/pipelines/train/*.py", "swift/trainers/arguments.py"), None),
    ("ms-swift", "modelscope+ms-swift", ("v3.12.6",), ("swift/llm/train/*.py", "swift/trainers/arguments.py",
                                                       "swift/trainers/rlhf_arguments.py"), None),
    ("llamafactory", "hiyouga+LLaMA-Factory", ("HEAD", "v0.9.3", "v0.8.3"), ("src/llamafactory/hparams/*.py",), None),
    ("trl", "huggingface+trl", ("HEAD", "v0.29.1", "v0.15.2", "v0.12.2"), ("trl/trainer/*_config.py",), None),
    ("trl", "huggingface+trl", ("HEAD", "v0.29.1", "v0.15.2", "v0.12.2"), ("trl/trainer/*_trainer.py",), ("__init__",)),
    ("accelerate", "huggingface+accelerate", ("HEAD", "v0.34.2"), ("src/accelerate/state.py", "src/accelerate/utils/dataclasses.py"),
     None),
    ("accelerate", "huggingface+accelerate", ("HEAD",), ("src/accelerate/accelerator.py",), ("__init__",)),
    ("deepspeed", "deepspeedai+DeepSpeed", ("HEAD", "v0.16.9", "v0.14.5"), ("deepspeed/runtime/config.py",
                                                                 "deepspeed/runtime/zero/config.py"), None),
    ("axolotl", "axolotl-ai-cloud+axolotl", ("HEAD",), ("src/axolotl/utils/schemas/*.py",
                                                       "src/axolotl/utils/config/__init__.py"), None),
    ("verl", "volcengine+verl", ("HEAD", "v0.4.1"), ("verl/workers/config/*.py", "verl/trainer/config/*.py"), None),
    ("verl", "volcengine+verl", ("HEAD", "v0.4.1"), ("verl/trainer/ppo/ray_trainer.py",),
     ("_validate_config", "validate_config", "check_mutually_exclusive")),
    ("verl", "volcengine+verl", ("HEAD", "v0.4.1"), ("verl/workers/fsdp_workers.py",), ("__init__",)),
    ("megatron", "NVIDIA+Megatron-LM", ("HEAD",), ("megatron/training/arguments.py",), None),
    ("openrlhf", "OpenRLHF+OpenRLHF", ("HEAD",), ("openrlhf/cli/train_*.py",), None),
    ("peft", "huggingface+peft", ("HEAD",), ("src/peft/tuners/*/config.py", "src/peft/config.py"),
     ("__post_init__", r"_validate\w*")),
    # e-cfg4 (issue 26): the launchers' own checks of their arguments (accelerate launch, the deepspeed runner), the
    # parallel layouts checked against the model's shape (Megatron-Core's TransformerConfig/ModelParallelConfig,
    # torchtitan's ParallelDims) and torchtune's recipes checking their config
    ("accelerate", "huggingface+accelerate", ("HEAD", "v0.34.2"), ("src/accelerate/commands/launch.py",
                                                                  "src/accelerate/utils/launch.py",
                                                                  "src/accelerate/utils/deepspeed.py"), None),
    ("deepspeed", "deepspeedai+DeepSpeed", ("HEAD", "v0.16.9", "v0.14.5"), ("deepspeed/launcher/runner.py",
                                                                          "deepspeed/launcher/launch.py"), None),
    ("megatron", "NVIDIA+Megatron-LM", ("HEAD",), ("megatron/core/transformer/transformer_config.py",
                                                 "megatron/core/model_parallel_config.py"), ("__post_init__",)),
    ("torchtitan", "pytorch+torchtitan", ("HEAD",), ("torchtitan/distributed/parallel_dims.py",), None),
    ("torchtune", "pytorch+torchtune", ("HEAD",), ("recipes/*.py",), ("__init__", "setup", r"_setup\w*")),
)
# e-cfg4: and transformers' DeepSpeed integration checking the DeepSpeed config it is handed (HfDeepSpeedConfig,
# trainer_config_process/finalize, deepspeed_init)
# (the config checks only: deepspeed_load_checkpoint's refusals are the checkpoint's)
TRANSFORMERS_FILES = (("training_args.py", None), ("trainer.py", ("__init__",)),
                      ("integrations/deepspeed.py", ("__init__", "fill_match", r"trainer_config_\w+", "deepspeed_optim_sched",
                                                     "deepspeed_init", "propagate_args_to_deepspeed")))
# e-cfg4: torch's launcher (torchrun / torch.distributed.run) checking --nproc-per-node, --nnodes and the rest
TORCH_FILES = (("distributed/run.py", None), ("distributed/launcher/api.py", None))


def _git(repo: str, *args: str) -> str:
    return subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True, check=True).stdout


def _template(node: ast.AST | None) -> str | None:
    """The message an expression builds, values as HOLE (None when it is no string expression)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else HOLE for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        a, b = _template(node.left), _template(node.right)
        return None if a is None and b is None else (a or HOLE) + (b or HOLE)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        a = _template(node.left)
        return re.sub(r"%[-#0 +]*\d*(?:\.\d+)?[sdrfgxi]", HOLE, a) if a else None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        a = _template(node.func.value)
        return re.sub(r"\{[^{}]*\}", HOLE, a) if a else None
    return None


def _messages(src: str, functions: tuple[str, ...] | None) -> list[tuple[str, str, str]]:
    """(function, exception, template) of each raise/assert in src (in the functions whose names fit the given
    patterns only, when given)."""
    try:
        tree = ast.parse(src)
    except SyntaxError:
        return []
    out = []
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or \
                (functions and not any(re.fullmatch(f, fn.name) for f in functions)):
            continue
        for node in ast.walk(fn):
            if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args:
                name = getattr(node.exc.func, "id", getattr(node.exc.func, "attr", ""))
                msg = _template(node.exc.args[0]) if name in RAISED else None
                if msg is not None:
                    out.append((fn.name, name, msg))
            elif isinstance(node, ast.Assert) and node.msg is not None:
                msg = _template(node.msg)
                if msg is not None:
                    out.append((fn.name, "AssertionError", msg))
    return out


def _usable(msg: str) -> bool:
    fixed = msg.replace(HOLE, "")
    return len(fixed.strip()) >= MIN_LITERAL and len(re.findall(r"[A-Za-z]{2,}", fixed)) >= 4


def collect(mirror: str, transformers_dirs: list[str]) -> list[tuple[str, str, str, str, str]]:
    rows: dict[tuple[str, str], tuple[str, str, str, str, str]] = {}
    for runner, name, refs, globs, functions in SOURCES:
        repo = f"{mirror}/{name}/repo"
        for ref in refs:
            for path in _git(repo, "ls-tree", "-r", "--name-only", ref).split():
                if any(fnmatch.fnmatchcase(path, g) for g in globs):
                    for fn, exc, msg in _messages(_git(repo, "show", f"{ref}:{path}"), functions):
                        if _usable(msg):
                            rows.setdefault((runner, " ".join(msg.split())), (runner, path, fn, exc, msg))
    for tdir in transformers_dirs:
        # a torch package dir (its folder is named torch) gives torchrun's checks, any other a transformers one
        torch = pathlib.Path(tdir).name == "torch"
        runner, prefix = ("torchrun", "torch/") if torch else ("hf-trainer", "src/transformers/")
        for fname, functions in TORCH_FILES if torch else TRANSFORMERS_FILES:
            if not pathlib.Path(tdir, fname).is_file():
                continue   # a partly unpacked wheel, or a release before the file existed
            src = pathlib.Path(tdir, fname).read_text()
            for fn, exc, msg in _messages(src, functions):
                if _usable(msg):
                    rows.setdefault((runner, " ".join(msg.split())), (runner, prefix + fname, fn, exc, msg))
    return sorted(rows.values())


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print("usage: build_runner_refusals.py MIRROR_DIR [TRANSFORMERS_PKG_DIR ...]", file=sys.stderr)
        return 2
    rows = collect(argv[1], argv[2:])
    body = pprint.pformat(tuple(rows), width=118)
    OUT.write_text(
        '"""The refusals the runners raise while checking their arguments (generated by tools/build_runner_refusals.py;\n'
        'do not edit). Each row: (runner, file, function, exception, message template with \\x00 where the code puts a\n'
        'value). explain reads a message that fits one as the run\'s settings (config_error) or, when its words state a\n'
        'version requirement, as the versions."""\n\n'
        f"REFUSALS: tuple[tuple[str, str, str, str, str], ...] = {body}\n")
    print(f"{len(rows)} messages -> {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
