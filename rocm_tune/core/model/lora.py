"""Which linear layers of a model a LoRA ``target_modules`` value wraps, the way PEFT decides it.

PEFT (peft/tuners/tuners_utils.py ``check_target_module_exists``): a *string* target_modules is a regular
expression that must ``re.fullmatch`` a module's full key (``model.layers.3.self_attn.q_proj``); a *list* matches a
key that equals an entry or ends with ``"." + entry`` (so ``q_proj`` and ``self_attn.q_proj`` both wrap the query
projections); names that match nothing are ignored as long as something matches. The configs users bring carry
all three spellings (Axolotl's ``lora_target_modules: 'model.language_model.layers.[\\d]+.(mlp|self_attn)...'``,
module paths, plain names) and lists printed as a string (``"['q_proj', 'v_proj']"``).

The module tree itself is not known without the model's code, so a regular expression is tried against the keys
the common layouts give a decoder layer's linears (``model.layers.N``, ``model.language_model.layers.N`` of the
VLMs of transformers >= 4.52, ``language_model.model.layers.N`` of the older ones, ...)."""

from __future__ import annotations

import ast
import re

NAME_CHARS = re.compile(r"^[A-Za-z0-9_.]+$")

# where a decoder layer sits in the module tree of the common layouts
_LAYER_PREFIXES = ("model.layers.0.", "model.language_model.layers.0.", "language_model.model.layers.0.",
                   "model.language_model.model.layers.0.", "model.model.layers.0.", "language_model.layers.0.",
                   "model.text_model.layers.0.", "transformer.h.0.", "model.decoder.layers.0.",
                   "base_model.model.model.layers.0.", "layers.0.",
                   "llm.model.layers.0.", "llm.layers.0.",          # MiniCPM-V / MiniCPM-o (model.llm)
                   "transformer.encoder.layers.0.")                 # ChatGLM / GLM-4 (self_attention.query_key_value)
# the parent module of each kind of linear in those layouts
_PARENTS = {"attn": ("self_attn", "attn", "attention", "self_attention", "cross_attn", "linear_attn", "mixer"),
            "mlp": ("mlp", "feed_forward", "ffn", "mixer"),
            "shared_expert": ("mlp.shared_expert", "mlp.shared_experts", "feed_forward.shared_expert"),
            "expert": ("mlp.experts.0", "block_sparse_moe.experts.0", "feed_forward.experts.0"),
            "router": ("mlp", "block_sparse_moe", "feed_forward")}


def split_targets(value) -> tuple[str, ...]:
    """The targets of a config value: a list, "a,b" (LLaMA-Factory), a list printed as a string, or one regular
    expression (a string with characters no module name has), kept whole."""
    if isinstance(value, (list, tuple)):
        return tuple(str(v).strip() for v in value if str(v).strip())
    s = str(value).strip()
    if s.startswith("[") and s.endswith("]"):
        try:
            v = ast.literal_eval(s)
        except (ValueError, SyntaxError):
            v = None
        if isinstance(v, (list, tuple)):
            return tuple(str(x).strip() for x in v if str(x).strip())
    parts = [x.strip().strip("'\"[] ") for x in s.split(",")]
    if len(parts) > 1 and all(NAME_CHARS.match(p) for p in parts if p):
        return tuple(p for p in parts if p)
    return (s,) if s else ()


def is_regex(target: str) -> bool:
    return not NAME_CHARS.match(target)


def valid_target(target: str) -> bool:
    """A module name or path, or a regular expression that compiles."""
    if not isinstance(target, str) or not target or target != target.strip():
        return False
    if not is_regex(target):
        return True
    try:
        re.compile(target)
    except re.error:
        return False
    return True


def _keys(group) -> list[str]:
    return [f"{pre}{parent}.{group.name}" for pre in _LAYER_PREFIXES for parent in _PARENTS.get(group.kind, ())]


def _matches(target: str, group) -> bool:
    if is_regex(target):
        rx = re.compile(target)
        return any(rx.fullmatch(k) for k in _keys(group))
    if target == group.name:
        return True
    # a module path: PEFT matches a key ending with "." + target; the layouts above stand for the key
    return "." in target and any(k.endswith("." + target) for k in _keys(group))


def wrapped_groups(groups, targets: tuple[str, ...]) -> tuple[list, list[str]]:
    """(the groups any target matches, the targets that match none)."""
    hit = [g for g in groups if any(_matches(t, g) for t in targets)]
    unmatched = [t for t in targets if not any(_matches(t, g) for g in groups)]
    return hit, unmatched


# The module names other architectures give the same roles (transformers' modeling files): the fused q/k/v
# projection (Baichuan W_pack, ChatGLM/Falcon/GPT-NeoX/BLOOM query_key_value, GPT-2/Qwen-1/StarCoder c_attn, Phi-3
# qkv_proj, MPT/Phi-2 Wqkv, InternLM2 wqkv), the attention output (dense, out_proj, wo), the MLP's up/gate
# (dense_h_to_4h, c_fc, fc1, w1, w3, gate_up_proj) and down (dense_4h_to_h, fc2, w2) projections. A target that
# names no linear of the model as known (a preset of another naming, or a shape assumed from the name) is read by
# its role, said; PEFT would refuse a name the real model lacks, so a name of no known role stays refused.
ROLES = {
    "qkv": ("q_proj", "k_proj", "v_proj", "query_proj", "key_proj", "value_proj"),
    "out": ("o_proj",),
    "up": ("gate_proj", "up_proj"),
    "down": ("down_proj",),
}
ALIASES = {
    "w_pack": "qkv", "query_key_value": "qkv", "c_attn": "qkv", "qkv_proj": "qkv", "wqkv": "qkv", "qkv": "qkv",
    "in_proj": "qkv", "query": "qkv", "key": "qkv", "value": "qkv", "q": "qkv", "k": "qkv", "v": "qkv",
    "query_proj": "qkv", "key_proj": "qkv", "value_proj": "qkv",      # DeBERTa-v2/v3 (PEFT's default for it)
    "dense": "out", "out_proj": "out", "wo": "out", "o": "out", "attention.dense": "out",
    "self_attention.dense": "out", "attn.c_proj": "out", "c_proj": "out",
    "dense_h_to_4h": "up", "c_fc": "up", "fc1": "up", "w1": "up", "w3": "up", "gate_up_proj": "up", "wi": "up",
    "dense_4h_to_h": "down", "fc2": "down", "w2": "down", "mlp.c_proj": "down", "wo_mlp": "down",
}


def by_role(groups, targets: tuple[str, ...]) -> tuple[tuple[str, ...], list[str]] | None:
    """Targets that match no linear of the model, read by the roles their names have in other architectures:
    (the model's own names for those roles, [target -> names, ...]) or None when a target has no known role."""
    names = {g.name for g in groups}
    out: list[str] = []
    said: list[str] = []
    for t in targets:
        leaf = t.split(".")[-1] if not is_regex(t) else t
        role = ALIASES.get(t.lower()) or ALIASES.get(leaf.lower()) \
            or next((r for r, ns in ROLES.items() if leaf.lower() in ns), None)
        if role is None:
            return None
        # the Llama-style names, else the model's own names of that role (q_proj on ChatGLM -> query_key_value)
        mine = [n for n in ROLES[role] if n in names] or [n for n in sorted(names) if ALIASES.get(n.lower()) == role]
        if not mine:
            return None
        out += [n for n in mine if n not in out]
        said.append(f"{t} -> {', '.join(mine)}")
    return tuple(out), said
