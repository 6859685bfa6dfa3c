"""Sub-commands of the runners' command-line programs that do not train: data, no logic.

A script whose command is one of these runs inference, serving, export or evaluation; its ``--model`` flag is not
a training's, so check does not read its flags as the arguments of a training (it says "no training command").
Read from the programs' own route tables:
  swift     modelscope/ms-swift swift/cli/main.py ROUTE_MAPPING (pt, sft, rlhf train; the rest below do not)
  megatron  modelscope/ms-swift swift/cli/_megatron/main.py ROUTE_MAPPING (pt, sft, rlhf train; export does not)
  llamafactory-cli / lmf  hiyouga/LLaMA-Factory src/llamafactory/launcher.py launch() (train trains; the rest
            below do not)
"""
from __future__ import annotations

NOT_TRAINING_SUBCOMMANDS: dict[str, frozenset[str]] = {
    "swift": frozenset({"infer", "merge-lora", "web-ui", "deploy", "rollout", "sample", "export", "eval", "app"}),
    "megatron": frozenset({"export"}),
    "llamafactory-cli": frozenset({"api", "chat", "eval", "export", "webchat", "webui", "env", "version"}),
    "lmf": frozenset({"api", "chat", "eval", "export", "webchat", "webui", "env", "version"}),
}

# the command-line programs whose lines a notebook exported as a script keeps without IPython's `!` (a `%%bash` /
# `%%sh` cell, or a tutorial's shell cell pasted verbatim): a line starting with one of them that Python cannot
# parse is a shell line, not the program's code (huggingface_hub's huggingface-cli / hf, pip, git, ModelScope's
# modelscope, the downloaders and the shell's own file commands)
NOTEBOOK_SHELL_WORDS: tuple[str, ...] = (
    "huggingface-cli", "hf", "pip", "pip3", "git", "git-lfs", "wget", "curl", "modelscope", "apt", "apt-get", "conda",
    "mkdir", "cd", "export", "unzip", "tar", "ls", "rm", "cp", "mv", "nvidia-smi", "rocm-smi", "uv", "sudo",
)
