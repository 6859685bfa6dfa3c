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
