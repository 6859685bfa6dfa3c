"""Make rocm_tune/profiles/release_refusals.py: the argument refusals of the runners' OLDER releases (e-gen8, issue 26).

Usage: python3 tools/build_release_refusals.py MIRROR_DIR
tools/build_runner_refusals.py reads the runners' current code (and one or two tags each); a log written by an older
release (LLaMA-Factory's llmtuner 0.6/0.7, Axolotl's validate_config before the pydantic schema, TRL 0.7-0.11, accelerate
0.2x, DeepSpeed 0.11-0.13, PEFT 0.7-0.13, Megatron-LM 23.04-core_r0.11, verl 0.2-0.3, OpenRLHF 0.5-0.8, torchtune's
recipes 0.3-0.5) carries refusals those no longer raise. This reads, at the tags below, the
same files with the same rules (every `raise ValueError/AssertionError/NotImplementedError/TypeError(msg)` and
`assert cond, msg`, values as holes) and keeps the messages runner_refusals.py does not already hold, each with the
tag and commit it was read at. Needs git; no network. MIRROR_DIR holds owner+name/repo git directories.
"""
from __future__ import annotations

import fnmatch
import pathlib
import pprint
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from tools.build_runner_refusals import _git, _messages, _usable  # noqa: E402  (the same reading rules)

OUT = pathlib.Path(__file__).resolve().parents[1] / "rocm_tune" / "profiles" / "release_refusals.py"
# (runner, repo, refs (newest first: a message is cited at the newest tag that has it), file globs, functions or None)
SOURCES = (
    ("llamafactory", "hiyouga+LLaMA-Factory", ("v0.9.0", "v0.7.1", "v0.6.3", "v0.5.3"),
     ("src/llamafactory/hparams/*.py", "src/llmtuner/hparams/*.py"), None),
    ("axolotl", "axolotl-ai-cloud+axolotl", ("v0.9.2", "v0.7.1", "v0.6.0", "v0.4.0"),
     ("src/axolotl/utils/schemas/*.py", "src/axolotl/utils/config/__init__.py",
      "src/axolotl/utils/config/models/input/v0_4_1/*.py", "src/axolotl/utils/config.py"), None),
    ("trl", "huggingface+trl", ("v0.24.0", "v0.19.1", "v0.11.4", "v0.9.6", "v0.7.11"), ("trl/trainer/*_config.py",),
     None),
    ("trl", "huggingface+trl", ("v0.24.0", "v0.19.1", "v0.11.4", "v0.9.6", "v0.7.11"), ("trl/trainer/*_trainer.py",),
     ("__init__",)),
    ("accelerate", "huggingface+accelerate", ("v1.2.1", "v0.28.0", "v0.21.0"),
     ("src/accelerate/state.py", "src/accelerate/utils/dataclasses.py", "src/accelerate/commands/launch.py",
      "src/accelerate/utils/launch.py"), None),
    ("accelerate", "huggingface+accelerate", ("v1.2.1", "v0.28.0", "v0.21.0"), ("src/accelerate/accelerator.py",),
     ("__init__",)),
    ("deepspeed", "deepspeedai+DeepSpeed", ("v0.13.5", "v0.11.2"),
     ("deepspeed/runtime/config.py", "deepspeed/runtime/zero/config.py", "deepspeed/launcher/runner.py",
      "deepspeed/launcher/launch.py"), None),
    ("peft", "huggingface+peft", ("v0.13.2", "v0.10.0", "v0.7.1"), ("src/peft/tuners/*/config.py", "src/peft/config.py"),
     ("__post_init__", r"_validate\w*")),
    ("megatron", "NVIDIA+Megatron-LM", ("core_r0.11.0", "core_r0.8.0", "23.04"),
     ("megatron/training/arguments.py", "megatron/arguments.py"), None),
    ("megatron", "NVIDIA+Megatron-LM", ("core_r0.11.0", "core_r0.8.0"),
     ("megatron/core/transformer/transformer_config.py", "megatron/core/model_parallel_config.py"), ("__post_init__",)),
    ("verl", "volcengine+verl", ("v0.3.0.post1", "v0.2.0.post2"), ("verl/trainer/ppo/ray_trainer.py",),
     ("_validate_config", "validate_config", "check_mutually_exclusive")),
    ("verl", "volcengine+verl", ("v0.3.0.post1", "v0.2.0.post2"), ("verl/workers/fsdp_workers.py",), ("__init__",)),
    ("openrlhf", "OpenRLHF+OpenRLHF", ("v0.8.0", "v0.5.0"), ("openrlhf/cli/train_*.py",), None),
    ("torchtune", "pytorch+torchtune", ("v0.5.0", "v0.3.1"), ("recipes/*.py",), ("__init__", "setup", r"_setup\w*")),
)


def collect(mirror: str) -> list[tuple[str, str, str, str, str, str]]:
    from rocm_tune.profiles.runner_refusals import REFUSALS

    have = {(r[0], " ".join(r[4].split())) for r in REFUSALS}
    rows: dict[tuple[str, str], tuple[str, str, str, str, str, str]] = {}
    for runner, name, refs, globs, functions in SOURCES:
        repo = f"{mirror}/{name}/repo"
        for ref in refs:
            sha = _git(repo, "rev-list", "-n", "1", ref).strip()
            for path in _git(repo, "ls-tree", "-r", "--name-only", ref).split():
                if not any(fnmatch.fnmatchcase(path, g) for g in globs):
                    continue
                for fn, exc, msg in _messages(_git(repo, "show", f"{ref}:{path}"), functions):
                    key = (runner, " ".join(msg.split()))
                    if _usable(msg) and key not in have:
                        rows.setdefault(key, (runner, path, fn, exc, msg, f"{ref}@{sha[:12]}"))
    return sorted(rows.values())


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: build_release_refusals.py MIRROR_DIR", file=sys.stderr)
        return 2
    rows = collect(argv[1])
    body = pprint.pformat(tuple(rows), width=118)
    OUT.write_text(
        '"""The argument refusals of the runners\' older releases that runner_refusals.py (their current code) does not\n'
        'hold (generated by tools/build_release_refusals.py; do not edit). Each row: (runner, file, function, exception,\n'
        'message template with \\x00 where the code puts a value, "tag@commit" it was read at)."""\n\n'
        f"RELEASE_REFUSALS: tuple[tuple[str, str, str, str, str, str], ...] = {body}\n")
    print(f"{len(rows)} messages -> {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
