"""Re-make rocm_tune/profiles/library_warnings.py from the libraries' own warning calls (e-benign, issue 26).

Usage: python3 tools/build_library_warnings.py MIRROR_DIR LIB=PKG_DIR ...
MIRROR_DIR holds git directories named owner+name/repo (huggingface+peft, huggingface+trl, huggingface+accelerate,
deepspeedai+DeepSpeed, bitsandbytes-foundation+bitsandbytes, unslothai+unsloth, unslothai+unsloth-zoo,
linkedin+Liger-Kernel, ROCm+rccl: its WARN()s that adjust a setting and go on, ROCm+rocBLAS: its fallback
warnings); each LIB=PKG_DIR an installed or unpacked package of a library of PACKAGE_FILES (this profile:
torch=site-packages/torch 2.13.0; transformers= 5.24.0 installed, 4.51.3 and 4.46.3 unpacked from their wheels, newest
first; huggingface_hub= 2.4.0 installed and 0.26.5; datasets= 3.2.0; diffusers= 0.32.2). Reads, at the refs below, every call that
prints a warning and goes on — `logger.warning(msg)`, `logger.warning_once(msg)`, `logger.warn(msg)`,
`warnings.warn(msg)`, `warn(msg)`, DeepSpeed's `log_dist(msg, level=logging.WARNING)` — of the files that run
during training, and writes each message as a template: the literal text with `\x00` where the f-string, `.format`
or `%` puts a value. A message the short list of causes (CAUSES below, FAMILIES.md terms) names is left out: its
own rule reads it. Needs git; no network.
"""
from __future__ import annotations

import ast
import fnmatch
import pathlib
import pprint
import re
import subprocess
import sys

OUT = pathlib.Path(__file__).resolve().parents[1] / "rocm_tune" / "profiles" / "library_warnings.py"
HOLE = "\x00"
MIN_LITERAL = 24          # characters of fixed text a template needs to be told apart from other lines
MIN_WORDS = 4
WARN_ATTRS = frozenset({"warning", "warning_once", "warn", "warning_advice", "warn_once", "warning_rank0"})
# (library, repo, refs, file globs)
SOURCES = (
    ("peft", "huggingface+peft", ("HEAD", "v0.15.2", "v0.13.2"), ("src/peft/*.py", "src/peft/*/*.py",
                                                                   "src/peft/*/*/*.py")),
    ("trl", "huggingface+trl", ("HEAD", "v0.19.1", "v0.15.2"), ("trl/trainer/*.py", "trl/models/*.py", "trl/*.py")),
    ("accelerate", "huggingface+accelerate", ("HEAD", "v1.6.0", "v0.34.2"),
     ("src/accelerate/*.py", "src/accelerate/utils/*.py", "src/accelerate/commands/launch.py")),
    ("deepspeed", "deepspeedai+DeepSpeed", ("HEAD", "v0.16.9", "v0.14.5"),
     ("deepspeed/runtime/*.py", "deepspeed/runtime/*/*.py", "deepspeed/runtime/*/*/*.py", "deepspeed/launcher/*.py",
      "deepspeed/__init__.py", "deepspeed/utils/*.py", "deepspeed/accelerator/*.py")),
    ("bitsandbytes", "bitsandbytes-foundation+bitsandbytes", ("HEAD", "0.45.5", "0.43.3"),
     ("bitsandbytes/*.py", "bitsandbytes/*/*.py", "bitsandbytes/*/*/*.py")),
    ("unsloth", "unslothai+unsloth", ("HEAD",), ("unsloth/*.py", "unsloth/models/*.py", "unsloth/kernels/*.py")),
    ("unsloth", "unslothai+unsloth-zoo", ("HEAD",), ("unsloth_zoo/*.py",)),
    ("liger-kernel", "linkedin+Liger-Kernel", ("HEAD",), ("src/liger_kernel/*.py", "src/liger_kernel/*/*.py",
                                                          "src/liger_kernel/*/*/*.py")),
)
PACKAGE_FILES: dict[str, tuple[str, ...]] = {}
TRANSFORMERS_FILES = ("trainer.py", "training_args.py", "trainer_utils.py", "trainer_pt_utils.py", "trainer_callback.py",
                      "modeling_utils.py", "configuration_utils.py", "tokenization_utils_base.py",
                      "tokenization_utils.py", "tokenization_utils_fast.py", "modeling_flash_attention_utils.py",
                      "modeling_attn_mask_utils.py", "cache_utils.py", "optimization.py", "data/data_collator.py",
                      "generation/utils.py", "generation/configuration_utils.py", "integrations/*.py",
                      "models/llama/modeling_llama.py", "models/mistral/modeling_mistral.py",
                      "models/qwen2/modeling_qwen2.py", "models/qwen3/modeling_qwen3.py",
                      "models/gemma/modeling_gemma.py", "models/gemma2/modeling_gemma2.py",
                      "models/phi3/modeling_phi3.py", "models/mixtral/modeling_mixtral.py",
                      "models/auto/*.py")
TORCH_FILES = ("utils/checkpoint.py", "amp/*.py", "cuda/amp/*.py", "cuda/__init__.py", "cuda/memory.py",
               "distributed/distributed_c10d.py", "distributed/run.py", "distributed/elastic/*/*.py",
               "distributed/elastic/*/*/*.py", "distributed/fsdp/*.py", "distributed/checkpoint/*.py",
               "nn/modules/*.py", "nn/parallel/distributed.py", "nn/functional.py", "nn/utils/clip_grad.py",
               "optim/lr_scheduler.py", "optim/optimizer.py", "utils/data/dataloader.py", "_utils.py", "storage.py",
               "backends/cudnn/__init__.py", "backends/cuda/__init__.py", "autograd/graph.py", "_dynamo/*.py",
               "serialization.py", "random.py", "functional.py")
PACKAGE_FILES.update(transformers=TRANSFORMERS_FILES, torch=TORCH_FILES,
                     huggingface_hub=("*.py", "utils/*.py", "inference/*.py"),
                     datasets=("*.py", "utils/*.py", "packaged_modules/*/*.py", "download/*.py", "formatting/*.py"),
                     diffusers=("*.py", "utils/*.py", "loaders/*.py", "models/*.py", "pipelines/*.py",
                                "training_utils.py", "optimization.py"))
# The warnings that ARE a cause in FAMILIES.md terms: left to the rules that read them (catalogue.py), never listed
# as harmless. Each: (words of the message, why).
CAUSES = (
    ("None of the inputs have requires_grad=True",
     "torch/utils/checkpoint.py: with frozen embeddings under reentrant checkpointing no gradient reaches the "
     "checkpointed layers - the loss does not train (enable_input_require_grads / use_reentrant=False)"),
    ("hipBLASLt on an unsupported architecture",
     "torch: hipBLASLt on a GPU without it; hipblaslt_warning when the run dies at it (amended rule 4)"),
    ("compiled without GPU support", "bitsandbytes without a GPU binary: its own rule (fails a QLoRA run)"),
    ("Not enough free disk space", "huggingface_hub warns before the write that fails: disk_full_save"),
    ("loss scale already at minimum", "fp16_overflow"),
    ("Gradient overflow", "fp16 loss scaling: read by the overflow rules (a streak is fp16_overflow)"),
    ("OVERFLOW", "fp16 loss scaling: read by the overflow rules"),
    ("Token indices sequence length", "tokenizer_template's own context rule"),
    ("out of memory", "gpu_oom / host_ram_oom: the allocators' own words"),
    ("write in your cache folder", "hf_cache_permission: the cache directory is not writable (its own rule)"),
    ("does not support bfloat16", "bf16_unsupported: the GPU's capability, left to its rule"),
    # torch/distributed/elastic: the launcher tearing the workers down after one failed or was signalled - the
    # failing rank's cause (or launcher_exit), read by the teardown rules, never harmless
    ("closing signal", "torch elastic multiprocessing/api.py: the agent stops the other workers after a failure"),
    ("Closing process", "torch elastic multiprocessing/api.py: the same teardown"),
    ("forcefully exiting", "torch elastic multiprocessing/api.py: a worker that would not stop"),
    ("death signal", "torch elastic agent/server/api.py: the launcher itself was signalled (Slurm, OOM killer)"),
    ("uninterruptible sleep", "torch elastic local_elastic_agent.py: a worker stuck in the kernel (a hang)"),
    ("keep-alive heartbeat", "torch elastic dynamic_rendezvous.py: a node lost (rendezvous/collective family)"),
    ("already in use", "torch distributed.py: the rendezvous port taken (a launch failure when it persists)"),
    ("NaN", "nan_loss / fp16_overflow: a NaN is read by the loss rules"),
    (" nan ", "nan_loss"),
    ("Inf ", "nan_loss"),
)


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
        return re.sub(r"%(?:\(\w+\))?[-#0 +]*\d*(?:\.\d+)?[sdrfgxi]", HOLE, a) if a else None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        a = _template(node.func.value)
        return re.sub(r"\{[^{}]*\}", HOLE, a) if a else None
    return None


def _is_warning_call(node: ast.Call) -> bool:
    f = node.func
    if isinstance(f, ast.Name):
        return f.id in ("warn", "warning_once", "warn_once")
    if not isinstance(f, ast.Attribute):
        return False
    owner = ast.unparse(f.value).lower()
    if f.attr == "log_dist":   # DeepSpeed: log_dist(message, ranks, level=logging.WARNING)
        return any(k.arg == "level" and "WARN" in ast.unparse(k.value) for k in node.keywords)
    return f.attr in WARN_ATTRS and ("log" in owner or owner in ("warnings", "logging"))


def _named(fn: ast.AST, name: str, before: int) -> str | None:
    """The message a variable holds at a line of its function: its last plain assignment before the line, with the
    `+=` after it (`msg = f"..."; msg += "..."; logger.warning(msg)`)."""
    got: str | None = None
    for node in sorted((n for n in ast.walk(fn) if isinstance(n, (ast.Assign, ast.AugAssign))
                        and n.lineno < before), key=lambda n: n.lineno):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            got = _template(node.value)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and node.target.id == name \
                and isinstance(node.op, ast.Add) and got is not None:
            got += _template(node.value) or HOLE
    return got


def _messages(src: str) -> list[tuple[str, int]]:
    """(template, line) of each warning call in src (a message built in a variable of the function first, too)."""
    try:
        tree = ast.parse(src)
    except SyntaxError:
        return []
    out = []
    scopes = [tree, *(n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))]
    for scope in scopes:
        for node in ast.walk(scope):
            if not (isinstance(node, ast.Call) and node.args and _is_warning_call(node)):
                continue
            arg = node.args[0]
            msg = _named(scope, arg.id, node.lineno) if isinstance(arg, ast.Name) and scope is not tree \
                else _template(arg) if scope is tree else None
            if msg is not None and len(node.args) > 1:   # logging's lazy `%` formatting: logger.warning("%d x", n)
                msg = re.sub(r"%(?:\(\w+\))?[-#0 +]*\d*(?:\.\d+)?[sdrfgxi]", HOLE, msg)
            if msg is not None:
                out.append((msg, node.lineno))
    return out


def _usable(msg: str) -> bool:
    """A message with enough fixed words (on one of its lines) to be told apart, and none of the short list of
    causes."""
    if any(words.lower() in msg.lower() for words, _why in CAUSES):
        return False
    for line in msg.split("\n"):
        fixed = line.replace(HOLE, "")
        if len(fixed.strip()) >= MIN_LITERAL and len(re.findall(r"[A-Za-z]{2,}", fixed)) >= MIN_WORDS:
            return True
    return False


# RCCL (src/**/*.cc): a `WARN("...")` that adjusts a setting and goes on - its words say it ignores, limits, caps,
# disables or falls back, and the statements after it in its block do not return an error or jump to a failure path
RCCL_CALL = re.compile(r'\bWARN\(\s*((?:"(?:[^"\\]|\\.)*"\s*)+)')
RCCL_GOES_ON = re.compile(r"\b(?:ignor\w*|limiting|cap it|setting (?:it )?to|set both to|disabling|falling back|"
                          r"Skipping)\b")
RCCL_FAILS_AFTER = re.compile(r"\breturn\b|\bgoto\b|\babort\b|\bthrow\b|\bexit\(|NCCLCHECK|nccl\w*Error|ncclInvalid")


def _rccl_messages(src: str) -> list[str]:
    out = []
    for m in RCCL_CALL.finditer(src):
        lit = "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', m.group(1))).replace('\\"', '"').replace("\\n", "")
        after = src[m.end():m.end() + 400]
        block = "\n".join(after[after.find(";") + 1:].split("\n")[:3]).split("}")[0]
        if RCCL_GOES_ON.search(lit) and not RCCL_FAILS_AFTER.search(block):
            out.append(re.sub(r"%[-#0 +]*\d*(?:\.\d+)?(?:l{0,2}|z)[sdiuxXfgpc]", HOLE, lit))
    return out


def _norm(msg: str) -> str:
    return " ".join(msg.split())


def collect(mirror: str, packages: list[tuple[str, str]]) -> list[tuple[str, str, str]]:
    rows: dict[str, tuple[str, str, str]] = {}

    def add(lib: str, path: str, src: str) -> None:
        for msg, _line in _messages(src):
            if _usable(msg):
                rows.setdefault(_norm(msg), (lib, path, msg.strip()))

    for lib, name, refs, globs in SOURCES:
        repo = f"{mirror}/{name}/repo"
        for ref in refs:
            for path in _git(repo, "ls-tree", "-r", "--name-only", ref).split():
                if path.endswith(".py") and any(fnmatch.fnmatchcase(path, g) for g in globs):
                    add(lib, path, _git(repo, "show", f"{ref}:{path}"))
    repo = f"{mirror}/ROCm+rccl/repo"
    for path in _git(repo, "ls-tree", "-r", "--name-only", "HEAD", "src").split():
        if path.endswith((".cc", ".cpp", ".h")):
            for msg in _rccl_messages(_git(repo, "show", f"HEAD:{path}")):
                if _usable(msg):
                    rows.setdefault(_norm(msg), ("rccl", path, msg.strip()))
    # rocBLAS (library/src/tensile_host.cpp): its `rocBLAS warning: ...` stream texts that fall back and go on
    repo = f"{mirror}/ROCm+rocBLAS/repo"
    src = _git(repo, "show", "HEAD:library/src/tensile_host.cpp")
    for lit in re.findall(r'"\\n?(rocBLAS warning: [^"]*)"', src):
        if re.search(r"\bfall(?:ing)? back\b", lit) and _usable(lit):
            rows.setdefault(_norm(lit), ("rocblas", "library/src/tensile_host.cpp", lit.strip()))
    for lib, pkg in packages:
        base = pathlib.Path(pkg)
        prefix = "src/transformers/" if lib == "transformers" else f"{lib}/"
        for g in PACKAGE_FILES[lib]:
            for p in sorted(base.glob(g)):
                add(lib, prefix + str(p.relative_to(base)), p.read_text(encoding="utf-8", errors="replace"))
    return sorted(rows.values())


def main(argv: list[str]) -> int:
    packages = [tuple(a.split("=", 1)) for a in argv[2:]]
    if len(argv) < 2 or any(len(p) != 2 or p[0] not in PACKAGE_FILES for p in packages):
        print("usage: build_library_warnings.py MIRROR_DIR LIB=PKG_DIR ... (LIB: " + ", ".join(PACKAGE_FILES) + ")",
              file=sys.stderr)
        return 2
    rows = collect(argv[1], packages)  # type: ignore[arg-type]
    body = pprint.pformat(tuple(rows), width=118)
    causes = pprint.pformat(CAUSES, width=118)
    OUT.write_text(
        '"""The warnings the training libraries print and go on after (generated by tools/build_library_warnings.py;\n'
        'do not edit). Each row: (library, file, message template with \\x00 where the code puts a value), from\n'
        '`logger.warning/_once`, `warnings.warn` and DeepSpeed\'s warning-level `log_dist` calls of transformers 4.46-5.x,\n'
        'peft, trl, accelerate, DeepSpeed (runtime/, zero/, launcher/), torch 2.x (checkpoint, amp, distributed, nn),\n'
        'bitsandbytes, huggingface_hub, datasets, diffusers, unsloth and Liger-Kernel. CAUSES: the words of the\n'
        'warnings that are a cause in FAMILIES.md terms, left to their rules."""\n\n'
        f"CAUSES: tuple[tuple[str, str], ...] = {causes}\n\n"
        f"WARNINGS: tuple[tuple[str, str, str], ...] = {body}\n")
    print(f"{len(rows)} warnings -> {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
