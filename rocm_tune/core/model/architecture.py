"""Model architecture from a Hugging Face ``config.json``: sizes, linear layers and exact parameter counts.

``load_model(ref)`` accepts a directory holding ``config.json``, the file itself, a hub id found offline in
the Hugging Face or ModelScope cache, or a preset name from ``rocm_tune/profiles/models/``.
``model_from_config(dict)`` does the counting; the counts equal what ``transformers`` instantiates
(checked on the meta device in ``tests/test_model_counts.py``).

Only the standard library and ``yaml`` are imported here (start-up speed, import hygiene).
"""

from __future__ import annotations

import builtins
import difflib
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rocm_tune.core.model import cache as model_cache
from rocm_tune.core.errors import UserError
from rocm_tune.core.files import MAX_CONFIG_BYTES, read_json
from rocm_tune.profiles.model_presets import PRESET_DIR

__all__ = [
    "SUPPORTED_FAMILIES",
    "LinearGroup",
    "ModelSpec",
    "ParamCounts",
    "list_presets",
    "load_model",
    "model_from_config",
    "search_presets",
]


# --------------------------------------------------------------------------------------------------
# Data
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LinearGroup:
    """One kind of linear layer inside a decoder layer.

    ``kind`` is "attn" | "mlp" | "expert" | "shared_expert" | "router".  Note for LoRA counting:
    in transformers >= 5 the routed experts of MoE models are fused 3-D parameters and the router is
    not an ``nn.Linear`` either, so PEFT's "all-linear" targets do not wrap kinds "expert"/"router";
    they are listed here because they hold weights (names are the per-expert ones from the original
    modeling code: gate_proj/up_proj/down_proj, or w1/w3/w2 for Mixtral).
    """

    name: str
    in_features: int
    out_features: int
    count: int  # instances per layer (num_experts for routed expert linears)
    layers: int  # number of decoder layers that contain it
    bias: bool
    kind: str

    @property
    def params_per_instance(self) -> int:
        return self.in_features * self.out_features + (self.out_features if self.bias else 0)

    @property
    def params(self) -> int:
        """Parameters of this group over the whole model."""
        return self.params_per_instance * self.count * self.layers


@dataclass(frozen=True)
class ParamCounts:
    embed: int
    lm_head: int  # 0 when tied to the embedding
    attention: int
    mlp: int
    experts: int
    shared_experts: int
    router: int
    norms: int
    other: int
    total: int
    per_layer: tuple[int, ...]  # params of each decoder layer, in order

    def to_dict(self) -> dict:
        return {
            "embed": self.embed,
            "lm_head": self.lm_head,
            "attention": self.attention,
            "mlp": self.mlp,
            "experts": self.experts,
            "shared_experts": self.shared_experts,
            "router": self.router,
            "norms": self.norms,
            "other": self.other,
            "total": self.total,
            "per_layer": list(self.per_layer),
        }


@dataclass(frozen=True)
class ModelSpec:
    name: str
    family: str  # HF model_type (text model_type for multimodal wrappers, e.g. gemma3 -> gemma3_text)
    source: str  # "preset" | "path" | "hf-cache" | "modelscope-cache" | "hub" (config.json kept) | "assumed"
    location: str | None  # where config.json was found
    hidden_size: int
    intermediate_size: int
    num_layers: int
    num_attention_heads: int
    num_kv_heads: int
    head_dim: int
    vocab_size: int
    tie_word_embeddings: bool
    max_position_embeddings: int
    torch_dtype: str | None
    num_experts: int  # 0 for dense models
    num_experts_per_tok: int
    moe_intermediate_size: int
    num_shared_experts: int
    shared_expert_intermediate_size: int
    moe_layers: int
    mlp_act: str
    gated_mlp: bool
    linears: tuple[LinearGroup, ...]
    params: ParamCounts
    config: dict = field(repr=False, compare=False)
    warnings: tuple[str, ...] = ()
    # family knowledge the estimator needs, normalised here (never recomputed from family names elsewhere)
    norms_per_layer: int = 2  # RMSNorm/LayerNorm modules per decoder layer (gemma2/gemma3/glm4: 4)
    qk_norm: bool = False  # q_norm/k_norm on the projections (per head: qwen3, gemma3; full width: olmo2, cohere)
    norm_fp32_product: bool = False  # Gemma-style norms multiply by (1 + weight) in fp32
    sdpa_supported: bool = True  # False where transformers runs eager attention anyway (gemma2 soft-capping)
    final_logit_softcapping: float | None = None  # tanh soft-capping of the logits (gemma2)
    # preset metadata (empty for non-presets)
    hub_id: str | None = None
    size_label: str | None = None
    aliases: tuple[str, ...] = ()
    # facts about what was counted that are not warnings (a VLM preset's "language model only", the counter used)
    notes: tuple[str, ...] = ()
    # how the user's reference was identified (identify_model: a key of HOW) and the stored weights' quantization
    identified_by: str | None = None
    identified: str | None = None
    quantization: str | None = None   # AWQ, GPTQ-Int4, bnb-4bit, int4, int8, FP8 (None: 16/32-bit weights)
    quant_bits: int | None = None
    # routed experts as one nn.Linear per expert (transformers 4.x Mixtral/Qwen-MoE/DeepSeek/Jamba/OLMoE...):
    # bitsandbytes quantizes them with the rest; False where the architecture stores them as fused 3-D parameters
    # even there (Llama 4, gpt-oss, Granite MoE, DBRX): those stay 16-bit under QLoRA (bitsandbytes#1849)
    experts_as_linears: bool = True
    # the router is an nn.Linear where the experts are (LoRA all-linear wraps it); False where it is a bare weight
    # parameter (DeepSeek-V2/V3 MoEGate / DeepseekV3TopkRouter: self.weight = nn.Parameter(...))
    router_as_linear: bool = True
    # a vision-language model's vision tower (core/model/vision.VisionTower) where its vision_config is known
    vision: object = field(default=None, compare=False)

    @property
    def is_moe(self) -> bool:
        return self.num_experts > 0

    @property
    def active_params(self) -> int:
        """Parameters touched per token (routed experts counted top-k of num_experts)."""
        if not self.num_experts:
            return self.params.total
        active_experts = self.params.experts * self.num_experts_per_tok // self.num_experts
        return self.params.total - self.params.experts + active_experts

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "family": self.family,
            "source": self.source,
            "location": self.location,
            "hub_id": self.hub_id,
            "size_label": self.size_label,
            "hidden_size": self.hidden_size,
            "intermediate_size": self.intermediate_size,
            "num_layers": self.num_layers,
            "num_attention_heads": self.num_attention_heads,
            "num_kv_heads": self.num_kv_heads,
            "head_dim": self.head_dim,
            "vocab_size": self.vocab_size,
            "tie_word_embeddings": self.tie_word_embeddings,
            "max_position_embeddings": self.max_position_embeddings,
            "torch_dtype": self.torch_dtype,
            "num_experts": self.num_experts,
            "num_experts_per_tok": self.num_experts_per_tok,
            "moe_intermediate_size": self.moe_intermediate_size,
            "num_shared_experts": self.num_shared_experts,
            "shared_expert_intermediate_size": self.shared_expert_intermediate_size,
            "moe_layers": self.moe_layers,
            "mlp_act": self.mlp_act,
            "gated_mlp": self.gated_mlp,
            "params": self.params.to_dict(),
            "active_params": self.active_params,
            "linears": [
                {
                    "name": g.name,
                    "in_features": g.in_features,
                    "out_features": g.out_features,
                    "count": g.count,
                    "layers": g.layers,
                    "bias": g.bias,
                    "kind": g.kind,
                }
                for g in self.linears
            ],
            "warnings": list(self.warnings),
            "notes": list(self.notes),
            "identified_by": self.identified_by,
            "identified": self.identified,
            "quantization": self.quantization,
            "quant_bits": self.quant_bits,
        }


SUPPORTED_FAMILIES: tuple[str, ...] = (
    "bert",
    "t5",
    "roberta",
    "xlm-roberta",
    "deberta-v2",
    "llama",
    "mistral",
    "mixtral",
    "qwen2",
    "qwen2_moe",
    "qwen3",
    "qwen3_moe",
    "qwen3_5_text",
    "qwen3_5_moe_text",
    "gemma",
    "gemma2",
    "gemma3_text",
    "gemma3",
    "phi3",
    "deepseek_v2",
    "deepseek_v3",
    "glm",
    "glm4",
    "granite",
    "olmo2",
    "seed_oss",
    "smollm3",
    "kimi_k2",
    "olmo3",
    "ernie4_5",
    "hunyuan_v1_dense",
    "starcoder2",
    "phi",
    "cohere",
    "baichuan",
    "chatglm",
    "bailing_moe_v2",
    "internlm2",
    "gpt_oss",
    "llama4_text",
    "gpt_neox",
    "gpt_neo",
    "gpt2",
    "opt",
    "qwen2_5_vl",
    "kimi_vl",
)


# --------------------------------------------------------------------------------------------------
# Config reading helpers
# --------------------------------------------------------------------------------------------------


class _Cfg:
    """Read typed values from a config dict; every failure is a one-line UserError naming the key."""

    def __init__(self, cfg: dict, label: str, defaults: dict | None = None):
        self.cfg = cfg
        self.label = label
        self.defaults = defaults or {}

    def raw(self, *keys: str) -> Any:
        for k in keys:
            if k in self.cfg and self.cfg[k] is not None:
                return self.cfg[k]
        for k in keys:
            if k in self.defaults and self.defaults[k] is not None:
                return self.defaults[k]
        return None

    def has(self, *keys: str) -> bool:
        return self.raw(*keys) is not None

    def int(
        self,
        *keys: str,
        default: int | None = None,
        min_value: int = 1,
        required: bool = True,
        max_value: int = 10**9,
    ) -> int:
        v = self.raw(*keys)
        if v is None:
            if default is not None:
                return default
            if not required:
                return 0
            raise UserError(
                f"{self.label}: config is missing required field {keys[0]!r}"
                + (f" (or {', '.join(repr(k) for k in keys[1:])})" if len(keys) > 1 else "")
            )
        if isinstance(v, bool) or not isinstance(v, (int, float)) or (isinstance(v, float) and not v.is_integer()):
            raise UserError(f"{self.label}: {keys[0]}={v!r} must be an integer >= {min_value}")
        v = int(v)
        if v < min_value:
            raise UserError(f"{self.label}: {keys[0]}={v} must be an integer >= {min_value}")
        if v > max_value:
            raise UserError(f"{self.label}: {keys[0]}={v} is absurdly large (at most {max_value:,} allowed)")
        return v

    def bool(self, *keys: str, default: bool = False) -> bool:
        v = self.raw(*keys)
        if v is None:
            return default
        if isinstance(v, bool):
            return v
        if isinstance(v, (int, float)) and v in (0, 1):
            return bool(v)
        raise UserError(f"{self.label}: {keys[0]}={v!r} must be true or false")

    def str(self, *keys: str, default: builtins.str | None = None) -> builtins.str | None:
        v = self.raw(*keys)
        if v is None:
            return default
        if not isinstance(v, str):
            raise UserError(f"{self.label}: {keys[0]}={v!r} must be a string")
        return v

    def int_list(self, key: builtins.str) -> tuple[builtins.int, ...]:
        v = self.raw(key)
        if v is None:
            return ()
        if not isinstance(v, (list, tuple)) or not all(isinstance(x, int) and not isinstance(x, bool) for x in v):
            raise UserError(f"{self.label}: {key}={v!r} must be a list of integers")
        return tuple(v)


_MAX_LAYERS = 10_000

# Defaults of transformers' Gemma3TextConfig: released Gemma 3 config.json files rely on them
# (their text_config omits e.g. vocab_size and head_dim).
_GEMMA3_TEXT_DEFAULTS = {
    "vocab_size": 262_208,
    "hidden_size": 2304,
    "intermediate_size": 9216,
    "num_hidden_layers": 26,
    "num_attention_heads": 8,
    "num_key_value_heads": 4,
    "head_dim": 256,
    "hidden_activation": "gelu_pytorch_tanh",
    "max_position_embeddings": 131_072,
    "attention_bias": False,
    "tie_word_embeddings": True,
}

_CHATGLM_DEFAULTS = {
    "num_layers": 28,
    "padded_vocab_size": 65024,
    "hidden_size": 4096,
    "ffn_hidden_size": 13696,
    "kv_channels": 128,
    "num_attention_heads": 32,
    "seq_length": 2048,
    "add_bias_linear": False,
    "add_qkv_bias": False,
    "multi_query_attention": False,
    "multi_query_group_num": 1,
    "rmsnorm": True,
    "post_layer_norm": True,
}


# --------------------------------------------------------------------------------------------------
# Architecture description (internal) -> counts
# --------------------------------------------------------------------------------------------------


@dataclass
class _Arch:
    family: str
    hidden: int
    inter: int
    layers: int
    heads: int
    kv_heads: int
    head_dim: int
    vocab: int
    tie: bool
    max_pos: int
    act: str
    gated: bool = True
    # attention
    attn: str = "std"  # "std" | "mla"
    q_bias: bool = False
    k_bias: bool = False
    v_bias: bool = False
    o_bias: bool = False
    fused_qkv: str | None = None  # module name of a fused q/k/v projection
    o_name: str = "o_proj"
    qkv_names: tuple[str, str, str] = ("q_proj", "k_proj", "v_proj")   # separate q/k/v projections' module names
    qk_norm: bool = False  # per-head q_norm/k_norm (qwen3, gemma3): head_dim weights each
    qk_norm_full: bool = False  # q_norm/k_norm over all heads (olmo2, cohere): (heads + kv_heads) * head_dim
    # MLA (deepseek v2/v3)
    q_lora_rank: int = 0
    kv_lora_rank: int = 0
    qk_nope: int = 0
    qk_rope: int = 0
    v_head_dim: int = 0
    # MLP
    mlp_bias: bool = False
    fused_gate_up: str | None = None
    mlp_names: tuple[str, str, str] = ("gate_proj", "up_proj", "down_proj")
    # norms
    norm_bias: bool = False  # LayerNorm with bias vs RMSNorm
    norms_per_layer: int = 2
    final_norm: bool = True
    # MoE
    num_experts: int = 0
    top_k: int = 0
    moe_inter: int = 0
    expert_names: tuple[str, str, str] = ("gate_proj", "up_proj", "down_proj")
    router_name: str = "gate"
    router_bias: bool = False
    expert_bias: bool = False  # gpt_oss: gate_up_proj_bias / down_proj_bias per expert
    shared_inter: int = 0  # total intermediate size of the shared expert MLP (0 = none)
    n_shared: int = 0
    shared_gate: bool = False  # qwen2_moe shared_expert_gate (H -> 1)
    moe_layer: Callable[[int], bool] | None = None
    lm_head_bias: bool = False
    attn_sinks: int = 0  # gpt_oss: one learned sink logit per attention head, per layer (self_attn.sinks)
    # hybrid decoders (Qwen3.5, Qwen3-Next): a gated full attention (q_proj doubled: query + output gate) on some
    # layers, a Gated DeltaNet linear attention on the others
    attn_out_gate: bool = False
    linear_layer: Callable[[int], bool] | None = None
    lin_k_heads: int = 0
    lin_v_heads: int = 0
    lin_k_dim: int = 0
    lin_v_dim: int = 0
    lin_conv: int = 0
    # Gemma 4 (models/gemma4 Gemma4TextAttention): the full-attention layers use their own head width and KV heads,
    # and with attention_k_eq_v no v_proj (the keys serve as values); None: every layer as the fields above
    global_layer: Callable[[int], bool] | None = None
    global_head_dim: int = 0
    global_kv_heads: int = 0
    global_k_eq_v: bool = False
    # Llama 3.2 Vision (models/mllama MllamaCrossAttentionDecoderLayer): layers whose attention reads the image
    # tokens; the same q/k/v/o shapes, plus per-head q_norm/k_norm and two tanh gates (one scalar each)
    cross_layer: Callable[[int], bool] | None = None
    extra_params: int = 0  # model-level parameters not covered above
    extra_embed_rows: int = 0  # token-embedding rows beyond the vocabulary the lm_head predicts (Llama 3.2 Vision: 8)
    embed_dim: int = 0  # width of the token embedding (and an untied lm_head's input) when not hidden (OPT-350m)
    warnings: list[str] = field(default_factory=list)


def _layer_parts(a: _Arch, i: int) -> tuple[list[tuple[str, int, int, int, bool, str]], int, bool]:
    """Linears (name, in, out, count, bias, kind) and norm params of decoder layer ``i``; and whether it is MoE."""
    H = a.hidden
    lin: list[tuple[str, int, int, int, bool, str]] = []
    norms = a.norms_per_layer * H * (2 if a.norm_bias else 1)

    # attention
    if a.linear_layer is not None and a.linear_layer(i):
        lin += _gated_deltanet(a)
        norms += a.lin_v_dim  # the gated RMSNorm over each value head (linear_attn.norm)
    elif a.attn == "mla":
        q_hd = a.qk_nope + a.qk_rope
        if a.q_lora_rank:
            lin.append(("q_a_proj", H, a.q_lora_rank, 1, a.q_bias, "attn"))
            lin.append(("q_b_proj", a.q_lora_rank, a.heads * q_hd, 1, False, "attn"))
            norms += a.q_lora_rank
        else:
            lin.append(("q_proj", H, a.heads * q_hd, 1, False, "attn"))
        lin.append(("kv_a_proj_with_mqa", H, a.kv_lora_rank + a.qk_rope, 1, a.q_bias, "attn"))
        norms += a.kv_lora_rank
        lin.append(("kv_b_proj", a.kv_lora_rank, a.heads * (a.qk_nope + a.v_head_dim), 1, False, "attn"))
        lin.append((a.o_name, a.heads * a.v_head_dim, H, 1, a.o_bias, "attn"))
    else:
        glob = a.global_layer is not None and a.global_layer(i)
        hd = a.global_head_dim if glob else a.head_dim
        q_out = a.heads * hd
        kv_out = (a.global_kv_heads if glob else a.kv_heads) * hd
        if glob and a.global_k_eq_v:
            lin += [(a.qkv_names[0], H, q_out, 1, a.q_bias, "attn"), (a.qkv_names[1], H, kv_out, 1, a.k_bias, "attn")]
        elif a.fused_qkv:
            lin.append((a.fused_qkv, H, q_out + 2 * kv_out, 1, a.q_bias, "attn"))
        else:
            qn, kn, vn = a.qkv_names
            lin.append((qn, H, q_out * (2 if a.attn_out_gate else 1), 1, a.q_bias, "attn"))
            lin.append((kn, H, kv_out, 1, a.k_bias, "attn"))
            lin.append((vn, H, kv_out, 1, a.v_bias, "attn"))
        lin.append((a.o_name, q_out, H, 1, a.o_bias, "attn"))
        if a.qk_norm:
            norms += 2 * hd * (2 if a.norm_bias else 1)
        if a.qk_norm_full:
            norms += (a.heads + a.kv_heads) * a.head_dim
        if a.cross_layer is not None and a.cross_layer(i):
            norms += 2 * hd       # cross_attn q_norm, k_norm (its two tanh gates: _attn_extra)

    # MLP / MoE
    is_moe = bool(a.num_experts) and (a.moe_layer is None or a.moe_layer(i))
    if is_moe:
        g, u, d = a.expert_names
        E, mi, eb = a.num_experts, a.moe_inter, a.expert_bias
        lin.append((a.router_name, H, E, 1, a.router_bias, "router"))
        lin.append((g, H, mi, E, eb, "expert"))
        lin.append((u, H, mi, E, eb, "expert"))
        lin.append((d, mi, H, E, eb, "expert"))
        if a.shared_inter:
            si = a.shared_inter
            lin.append(("gate_proj", H, si, 1, False, "shared_expert"))
            lin.append(("up_proj", H, si, 1, False, "shared_expert"))
            lin.append(("down_proj", si, H, 1, False, "shared_expert"))
            if a.shared_gate:
                lin.append(("shared_expert_gate", H, 1, 1, False, "shared_expert"))
    else:
        g, u, d = a.mlp_names
        inter = a.inter
        if a.gated:
            if a.fused_gate_up:
                lin.append((a.fused_gate_up, H, 2 * inter, 1, a.mlp_bias, "mlp"))
            else:
                lin.append((g, H, inter, 1, a.mlp_bias, "mlp"))
                lin.append((u, H, inter, 1, a.mlp_bias, "mlp"))
        else:
            lin.append((u, H, inter, 1, a.mlp_bias, "mlp"))
        lin.append((d, inter, H, 1, a.mlp_bias, "mlp"))
    return lin, norms, is_moe


def _gated_deltanet(a: _Arch) -> list[tuple[str, int, int, int, bool, str]]:
    """The nn.Linear modules of a Gated DeltaNet layer (transformers models/qwen3_5 Qwen3_5GatedDeltaNet,
    models/qwen3_next Qwen3NextGatedDeltaNet): fused q/k/v, the output gate z, the per-head beta (b) and decay (a)
    inputs, the output projection."""
    H, kd, vd, nv = a.hidden, a.lin_k_heads * a.lin_k_dim, a.lin_v_heads * a.lin_v_dim, a.lin_v_heads
    return [("in_proj_qkv", H, 2 * kd + vd, 1, False, "attn"), ("in_proj_z", H, vd, 1, False, "attn"),
            ("in_proj_b", H, nv, 1, False, "attn"), ("in_proj_a", H, nv, 1, False, "attn"),
            ("out_proj", vd, H, 1, False, "attn")]


def _attn_extra(a: _Arch, i: int) -> int:
    """Attention parameters of layer ``i`` that are no nn.Linear: gpt_oss's sinks; a Gated DeltaNet's depthwise
    causal conv over q/k/v (no bias), its dt_bias and A_log (one per value head)."""
    if a.linear_layer is not None and a.linear_layer(i):
        conv_dim = 2 * a.lin_k_heads * a.lin_k_dim + a.lin_v_heads * a.lin_v_dim
        return conv_dim * a.lin_conv + 2 * a.lin_v_heads
    if a.cross_layer is not None and a.cross_layer(i):
        return a.attn_sinks + 2    # Llama 3.2 Vision: cross_attn_attn_gate and cross_attn_mlp_gate, one scalar each
    return a.attn_sinks


def _build_spec(a: _Arch, config: dict, name: str, source: str, location: str | None, dtype: str | None) -> ModelSpec:
    H, V = a.hidden, a.vocab
    embed = (V + a.extra_embed_rows) * (a.embed_dim or H)
    lm_head = (0 if a.tie else V * (a.embed_dim or H)) + (V if a.lm_head_bias else 0)  # a bias is never tied (phi)
    totals = {"attn": 0, "mlp": 0, "expert": 0, "shared_expert": 0, "router": 0}
    norms_total = (H * (2 if a.norm_bias else 1)) if a.final_norm else 0
    per_layer: list[int] = []
    groups: dict[tuple, int] = {}
    order: list[tuple] = []
    moe_layers = 0
    for i in range(a.layers):
        lin, norms, is_moe = _layer_parts(a, i)
        moe_layers += is_moe
        extra = _attn_extra(a, i)
        layer_total = norms + extra
        totals["attn"] += extra  # attention parameters that are no linear layer
        norms_total += norms
        for nm, fin, fout, cnt, bias, kind in lin:
            p = (fin * fout + (fout if bias else 0)) * cnt
            layer_total += p
            totals[kind] += p
            key = (nm, fin, fout, cnt, bias, kind)
            if key not in groups:
                groups[key] = 0
                order.append(key)
            groups[key] += 1
        per_layer.append(layer_total)
    linears = tuple(LinearGroup(k[0], k[1], k[2], k[3], groups[k], k[4], k[5]) for k in order)
    other = a.extra_params
    total = embed + lm_head + sum(totals.values()) + norms_total + other
    params = ParamCounts(
        embed=embed,
        lm_head=lm_head,
        attention=totals["attn"],
        mlp=totals["mlp"],
        experts=totals["expert"],
        shared_experts=totals["shared_expert"],
        router=totals["router"],
        norms=norms_total,
        other=other,
        total=total,
        per_layer=tuple(per_layer),
    )
    return ModelSpec(
        name=name,
        family=a.family,
        source=source,
        location=location,
        hidden_size=H,
        intermediate_size=a.inter,
        num_layers=a.layers,
        num_attention_heads=a.heads,
        num_kv_heads=a.kv_heads,
        head_dim=a.head_dim if a.attn != "mla" else a.qk_nope + a.qk_rope,
        vocab_size=V,
        tie_word_embeddings=a.tie,
        max_position_embeddings=a.max_pos,
        torch_dtype=dtype,
        num_experts=a.num_experts if moe_layers else 0,
        num_experts_per_tok=a.top_k if moe_layers else 0,
        moe_intermediate_size=a.moe_inter if moe_layers else 0,
        num_shared_experts=a.n_shared if moe_layers else 0,
        shared_expert_intermediate_size=a.shared_inter if moe_layers else 0,
        moe_layers=moe_layers,
        mlp_act=a.act,
        gated_mlp=a.gated,
        linears=linears,
        params=params,
        config=config,
        warnings=tuple(a.warnings),
        norms_per_layer=a.norms_per_layer,
        qk_norm=a.qk_norm or a.qk_norm_full,
        norm_fp32_product=a.family.startswith("gemma"),
        sdpa_supported=a.family not in EAGER_ONLY_FAMILIES,
        final_logit_softcapping=_softcap(config),
        experts_as_linears=a.family not in FUSED_EXPERT_FAMILIES,
        router_as_linear=a.family not in ROUTER_PARAMETER_FAMILIES,
    )


# families transformers runs with eager attention whatever is asked: Gemma 2 (logit soft-capping), GPT-Neo
# (GPTNeoPreTrainedModel has no _supports_sdpa: eager, or flash_attention_2 when asked; its eager attention computes
# the scores of query and key upcast to fp32), DeBERTa-v2/v3 (DebertaV2PreTrainedModel has no _supports_sdpa: its
# DisentangledSelfAttention builds the full score matrix and the c2p/p2c position terms itself)
EAGER_ONLY_FAMILIES = ("gemma2", "gpt_neo", "deberta-v2")


# transformers (4.x) families whose routed experts are fused 3-D parameters, not nn.Linear modules (modeling_llama4
# Llama4TextExperts, modeling_gpt_oss GptOssExperts, modeling_granitemoe GraniteMoeParallelExperts, modeling_dbrx)
# families whose router is a bare [experts, hidden] nn.Parameter, not an nn.Linear (transformers models/deepseek_v3
# DeepseekV3TopkRouter; DeepSeek-V2/V3's own modeling_deepseek.py MoEGate): all-linear expansions do not wrap it
ROUTER_PARAMETER_FAMILIES = ("deepseek_v2", "deepseek_v3")
FUSED_EXPERT_FAMILIES = ("llama4_text", "gpt_oss", "granitemoe", "granitemoeshared", "granitemoehybrid", "dbrx")


def _softcap(config: dict) -> float | None:
    text = config.get("text_config") if isinstance(config.get("text_config"), dict) else None
    for c in (config, text or {}):
        v = c.get("final_logit_softcapping")
        if isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0:
            return float(v)
    return None


# --------------------------------------------------------------------------------------------------
# Families
# --------------------------------------------------------------------------------------------------


def _common(c: _Cfg, family: str, tie_default: bool = False) -> _Arch:
    H = c.int("hidden_size", "n_embd", "d_model", "dim")
    layers = c.int("num_hidden_layers", "n_layer", "num_layers", "n_layers", max_value=_MAX_LAYERS)
    heads = c.int("num_attention_heads", "n_head", "n_heads")
    kv = c.int("num_key_value_heads", "num_kv_heads", "n_kv_heads", default=heads)
    if heads % kv:
        raise UserError(f"{c.label}: num_attention_heads={heads} is not a multiple of num_key_value_heads={kv}")
    hd_default = H // heads if H % heads == 0 else None
    if hd_default is None and c.int("qk_nope_head_dim", required=False, min_value=0):
        # MLA (DeepSeek, GLM-4.7-Flash's 2048 / 20 heads): the head is qk_nope + qk_rope, no head_dim needed
        hd_default = c.int("qk_nope_head_dim") + c.int("qk_rope_head_dim", default=64)
    head_dim = c.int("head_dim", default=hd_default) if hd_default else c.int("head_dim")
    vocab = c.int("vocab_size", "padded_vocab_size", "n_vocab")
    inter = c.int("intermediate_size", "ffn_hidden_size", "n_inner", "ffn_dim", default=4 * H)
    act = c.str("hidden_act", "hidden_activation", "activation_function", default="silu") or "silu"
    return _Arch(
        family=family,
        hidden=H,
        inter=inter,
        layers=layers,
        heads=heads,
        kv_heads=kv,
        head_dim=head_dim,
        vocab=vocab,
        tie=c.bool("tie_word_embeddings", default=tie_default),
        max_pos=c.int("max_position_embeddings", "seq_length", "n_positions", "model_max_length", default=4096),
        act=act,
    )


def _llama(c: _Cfg) -> _Arch:
    a = _common(c, "llama")
    b = c.bool("attention_bias")
    a.q_bias = a.k_bias = a.v_bias = a.o_bias = b
    a.mlp_bias = c.bool("mlp_bias")
    return a


def _mistral(c: _Cfg) -> _Arch:
    a = _common(c, "mistral")
    return a


def _mixtral(c: _Cfg) -> _Arch:
    a = _common(c, "mixtral")
    a.num_experts = c.int("num_local_experts", default=8)
    a.top_k = c.int("num_experts_per_tok", default=2)
    a.moe_inter = a.inter
    a.expert_names = ("w1", "w3", "w2")
    return a


def _qwen2(c: _Cfg) -> _Arch:
    a = _common(c, "qwen2")
    a.q_bias = a.k_bias = a.v_bias = True
    return a


def _sparse_step(c: _Cfg) -> Callable[[int], bool]:
    step = c.int("decoder_sparse_step", default=1)
    only = set(c.int_list("mlp_only_layers"))
    return lambda i: i not in only and (i + 1) % step == 0


def _qwen2_moe(c: _Cfg) -> _Arch:
    a = _common(c, "qwen2_moe")
    qkv_bias = c.bool("qkv_bias", default=True)
    a.q_bias = a.k_bias = a.v_bias = qkv_bias
    return _qwen_moe_block(a, c, experts=60, top_k=4, moe_inter=1408, shared_inter=5632)


def _qwen_moe_block(a: _Arch, c: _Cfg, *, experts: int, top_k: int, moe_inter: int, shared_inter: int) -> _Arch:
    """Qwen's sparse MoE block (qwen2_moe, qwen3_5_moe): routed experts and one shared expert behind a sigmoid gate,
    on the layers `decoder_sparse_step` / `mlp_only_layers` say; the defaults are each family's config's."""
    a.num_experts = c.int("num_experts", default=experts, min_value=0)
    a.top_k = c.int("num_experts_per_tok", default=top_k)
    a.moe_inter = c.int("moe_intermediate_size", default=moe_inter)
    a.shared_inter = c.int("shared_expert_intermediate_size", default=shared_inter, min_value=0)
    a.n_shared = 1 if a.shared_inter else 0
    a.shared_gate = bool(a.shared_inter)
    a.moe_layer = _sparse_step(c)
    return a


def _qwen3(c: _Cfg) -> _Arch:
    a = _common(c, "qwen3")
    b = c.bool("attention_bias")
    a.q_bias = a.k_bias = a.v_bias = a.o_bias = b
    a.qk_norm = True
    return a


def _qwen3_5_text(c: _Cfg) -> _Arch:
    """Qwen3.5's language model (transformers models/qwen3_5, Qwen3_5TextConfig): a Qwen3 decoder whose layers are
    Gated DeltaNet linear attention except every ``full_attention_interval``-th (or as ``layer_types`` lists them),
    which is a gated attention (attn_output_gate: q_proj also yields the output gate)."""
    a = _qwen3(c)
    a.family = "qwen3_5_text"
    a.attn_out_gate = True  # modeling_qwen3_5 always builds q_proj with the gate (attn_output_gate is not read)
    kinds = c.raw("layer_types")
    if not isinstance(kinds, list) or len(kinds) != a.layers:
        every = c.int("full_attention_interval", default=4)
        kinds = ["full_attention" if (i + 1) % every == 0 else "linear_attention" for i in range(a.layers)]
    linear = frozenset(i for i, k in enumerate(kinds) if k == "linear_attention")
    a.linear_layer = linear.__contains__
    a.lin_k_heads = c.int("linear_num_key_heads", default=16)
    a.lin_v_heads = c.int("linear_num_value_heads", default=32)
    a.lin_k_dim = c.int("linear_key_head_dim", default=128)
    a.lin_v_dim = c.int("linear_value_head_dim", default=128)
    a.lin_conv = c.int("linear_conv_kernel_dim", default=4)
    return a


def _qwen3_5_moe_text(c: _Cfg) -> _Arch:
    """Qwen3.5-MoE's language model (transformers models/qwen3_5_moe): the hybrid decoder of Qwen3.5 with a sparse
    MoE block on every layer: routed experts + one shared expert behind a sigmoid gate (as qwen2_moe)."""
    a = _qwen3_5_text(c)
    a.family = "qwen3_5_moe_text"
    return _qwen_moe_block(a, c, experts=256, top_k=8, moe_inter=512, shared_inter=512)


def _qwen3_moe(c: _Cfg) -> _Arch:
    a = _qwen3(c)
    a.family = "qwen3_moe"
    a.num_experts = c.int("num_experts", default=128, min_value=0)
    a.top_k = c.int("num_experts_per_tok", default=8)
    a.moe_inter = c.int("moe_intermediate_size", default=768)
    a.moe_layer = _sparse_step(c)
    return a


def _gemma(c: _Cfg) -> _Arch:
    a = _common(c, "gemma", tie_default=True)
    b = c.bool("attention_bias")
    a.q_bias = a.k_bias = a.v_bias = a.o_bias = b
    # transformers runs Gemma with hidden_activation (the legacy hidden_act "gelu" means the tanh approximation)
    a.act = c.str("hidden_activation", default="gelu_pytorch_tanh") or "gelu_pytorch_tanh"
    return a


def _gemma2(c: _Cfg) -> _Arch:
    a = _gemma(c)
    a.family = "gemma2"
    a.norms_per_layer = 4
    return a


def _gemma3_text(c: _Cfg) -> _Arch:
    a = _gemma2(c)
    a.family = "gemma3_text"
    a.qk_norm = True
    return a


def _gemma4_text(c: _Cfg) -> _Arch:
    """Gemma 4's language model (transformers models/gemma4, Gemma4TextConfig / Gemma4TextAttention): Gemma 3's
    decoder (four norms a layer, q/k norms; the v_norm has no weight) whose ``full_attention`` layers (every sixth
    by default) use ``global_head_dim`` and ``num_global_key_value_heads`` and, with ``attention_k_eq_v``, no v_proj.
    The per-layer-embedding (E2B/E4B: hidden_size_per_layer_input), KV-sharing and MoE variants are not modelled."""
    a = _gemma3_text(c)
    a.family = "gemma4_text"
    kinds = c.raw("layer_types")
    if not isinstance(kinds, list) or len(kinds) != a.layers:
        kinds = ["full_attention" if (i + 1) % 6 == 0 else "sliding_attention" for i in range(a.layers)]
    full = frozenset(i for i, k in enumerate(kinds) if k == "full_attention")
    a.global_layer = full.__contains__
    a.global_head_dim = c.int("global_head_dim", default=a.head_dim)
    a.global_kv_heads = c.int("num_global_key_value_heads", default=a.kv_heads)
    a.global_k_eq_v = c.bool("attention_k_eq_v")
    unmodelled = [k for k in ("hidden_size_per_layer_input", "num_kv_shared_layers") if c.raw(k)]
    if c.bool("enable_moe_block"):
        unmodelled.append("enable_moe_block")
    if unmodelled:
        a.warnings.append(f"gemma4_text: {', '.join(unmodelled)} not modelled (counted as a dense Gemma 4 decoder)")
    return a


def _mllama_text(c: _Cfg) -> _Arch:
    """Llama 3.2 Vision's language model (transformers models/mllama, MllamaTextConfig / MllamaTextModel): a Llama
    decoder of num_hidden_layers layers, of which those in ``cross_attention_layers`` attend to the image tokens
    (the vision tower's output, projected to hidden_size) with the same projection shapes; the token embedding has
    vocab_size + 8 rows (the image and reserved special tokens), the untied lm_head vocab_size."""
    a = _common(c, "mllama_text")
    cross = frozenset(c.int_list("cross_attention_layers"))
    a.cross_layer = cross.__contains__
    a.extra_embed_rows = 8          # embed_tokens = nn.Embedding(vocab_size + 8, hidden_size)
    return a


def _phi3(c: _Cfg) -> _Arch:
    a = _common(c, "phi3")
    a.fused_qkv = "qkv_proj"
    a.fused_gate_up = "gate_up_proj"
    return a


def _glm(c: _Cfg) -> _Arch:
    # transformers' GLM-4 "-hf" checkpoints (model_type glm): q/k/v with bias, fused gate_up_proj
    a = _common(c, "glm")
    a.q_bias = a.k_bias = a.v_bias = c.bool("attention_bias", default=True)
    a.fused_gate_up = "gate_up_proj"
    return a


def _glm4(c: _Cfg) -> _Arch:
    # GLM-4-0414: like glm plus post_self_attn_layernorm and post_mlp_layernorm
    a = _glm(c)
    a.family = "glm4"
    a.norms_per_layer = 4
    return a


def _granite(c: _Cfg) -> _Arch:
    a = _llama(c)
    a.family = "granite"
    return a


def _olmo2(c: _Cfg) -> _Arch:
    # OLMo 2: q_norm/k_norm over the full projection width, norms after attention and after the MLP
    a = _common(c, "olmo2")
    a.q_bias = a.k_bias = a.v_bias = a.o_bias = c.bool("attention_bias")
    a.qk_norm_full = True
    return a


def _seed_oss(c: _Cfg) -> _Arch:
    # Seed-OSS (transformers models/seed_oss): a Llama decoder whose q/k/v biases follow attention_bias and o_proj's
    # attention_out_bias (SeedOssConfig defaults: True, False)
    a = _common(c, "seed_oss")
    a.q_bias = a.k_bias = a.v_bias = c.bool("attention_bias", default=True)
    a.o_bias = c.bool("attention_out_bias")
    a.mlp_bias = c.bool("mlp_bias")
    return a


def _ernie4_5(c: _Cfg) -> _Arch:
    # ERNIE 4.5 dense (transformers models/ernie4_5): a Llama decoder whose every linear has a bias when use_bias;
    # Ernie4_5Config ties the embeddings and sets head_dim 128 by default
    a = _common(c, "ernie4_5", tie_default=True)
    a.q_bias = a.k_bias = a.v_bias = a.o_bias = a.mlp_bias = c.bool("use_bias")
    return a


def _hunyuan_v1_dense(c: _Cfg) -> _Arch:
    # Hunyuan dense (transformers models/hunyuan_v1_dense): a Llama decoder with per-head query/key RMSNorms
    a = _llama(c)
    a.family = "hunyuan_v1_dense"
    a.qk_norm = True
    return a


def _starcoder2(c: _Cfg) -> _Arch:
    # StarCoder2: non-gated c_fc/c_proj MLP, LayerNorm with bias, biases everywhere when use_bias
    a = _common(c, "starcoder2", tie_default=True)
    b = c.bool("use_bias", default=True)
    a.q_bias = a.k_bias = a.v_bias = a.o_bias = a.mlp_bias = b
    a.gated = False
    a.mlp_names = ("c_fc", "c_fc", "c_proj")
    a.norm_bias = True
    if not c.has("hidden_act"):
        a.act = "gelu_pytorch_tanh"
    return a


def _phi(c: _Cfg) -> _Arch:
    # Phi-1/1.5/2: parallel block with one LayerNorm, dense output, fc1/fc2 MLP, lm_head with bias
    a = _common(c, "phi")
    a.q_bias = a.k_bias = a.v_bias = a.o_bias = a.mlp_bias = True
    a.o_name = "dense"
    a.gated = False
    a.mlp_names = ("fc1", "fc1", "fc2")
    a.norm_bias = True
    a.norms_per_layer = 1
    a.lm_head_bias = True
    a.qk_norm = c.bool("qk_layernorm")
    if not c.has("hidden_act"):
        a.act = "gelu_new"
    return a


def _cohere(c: _Cfg) -> _Arch:
    # Cohere (Command-R): one bias-free LayerNorm per layer (parallel block), optional per-head q/k norms
    a = _common(c, "cohere", tie_default=True)
    a.q_bias = a.k_bias = a.v_bias = a.o_bias = c.bool("attention_bias")
    a.norms_per_layer = 1
    a.qk_norm_full = c.bool("use_qk_norm")
    return a


def _internlm2(c: _Cfg) -> _Arch:
    # Remote code (modeling_internlm2.py): wqkv fused (grouped q/k/v), wo, w1/w3/w2 gated MLP,
    # attention_norm/ffn_norm RMSNorm, tok_embeddings and an untied `output` head.
    a = _common(c, "internlm2")
    b = c.bool("bias")
    a.q_bias = a.o_bias = b
    a.fused_qkv = "wqkv"
    a.o_name = "wo"
    a.mlp_names = ("w1", "w3", "w2")
    return a


def _deepseek(c: _Cfg, family: str) -> _Arch:
    a = _common(c, family)
    a.attn = "mla"
    a.q_lora_rank = c.int("q_lora_rank", required=False, min_value=0)  # null in V2-Lite: plain q_proj
    a.kv_lora_rank = c.int("kv_lora_rank", default=512)
    a.qk_nope = c.int("qk_nope_head_dim", default=128)
    a.qk_rope = c.int("qk_rope_head_dim", default=64)
    a.v_head_dim = c.int("v_head_dim", default=128)
    a.q_bias = a.o_bias = c.bool("attention_bias")
    a.head_dim = a.qk_nope + a.qk_rope
    a.num_experts = c.int("n_routed_experts", "num_experts", required=False, min_value=0)
    if a.num_experts:
        a.top_k = c.int("num_experts_per_tok", default=6 if family == "deepseek_v2" else 8)
        a.moe_inter = c.int("moe_intermediate_size", default=1407 if family == "deepseek_v2" else 2048)
        a.n_shared = c.int("n_shared_experts", required=False, min_value=0)
        a.shared_inter = a.moe_inter * a.n_shared
        first = c.int("first_k_dense_replace", default=0, min_value=0)
        freq = c.int("moe_layer_freq", default=1)
        # transformers builds an MoE block in every layer from first_k_dense_replace on and ignores
        # moe_layer_freq (every released DeepSeek config has 1); count what transformers builds.
        if freq != 1:
            a.warnings.append(
                f"moe_layer_freq={freq} is ignored by transformers (MoE in every layer >= first_k_dense_replace); "
                f"DeepSeek's remote code would use MoE only in every {freq}th layer"
            )
        a.moe_layer = lambda i: i >= first
    return a


def _deepseek_v2(c: _Cfg) -> _Arch:
    return _deepseek(c, "deepseek_v2")


def _deepseek_v3(c: _Cfg) -> _Arch:
    return _deepseek(c, "deepseek_v3")


def _bailing_moe_v2(c: _Cfg) -> _Arch:
    """Ling 2.0 / Ring 2.0 (inclusionAI, remote code modeling_bailing_moe_v2.py, BailingMoeV2ForCausalLM): a fused
    ``query_key_value`` (heads + 2 kv heads) and ``dense`` output, per-head query/key RMSNorm (use_qk_norm); a dense
    gated MLP in the first ``first_k_dense_replace`` layers, then a sparse block of ``num_experts`` routed experts
    (gate/up/down of moe_intermediate_size), a router ``gate`` (a [num_experts, hidden] weight, no bias; its
    ``expert_bias`` is a buffer, not trained) and ``shared_experts`` of moe_intermediate_size * num_shared_experts;
    ``word_embeddings`` and an untied lm_head."""
    a = _common(c, "bailing_moe_v2")
    a.q_bias = c.bool("use_qkv_bias")
    a.o_bias = c.bool("use_bias")
    a.fused_qkv = "query_key_value"
    a.o_name = "dense"
    a.qk_norm = c.bool("use_qk_norm", default=True)
    a.num_experts = c.int("num_experts", required=False, min_value=0)
    if a.num_experts:
        a.top_k = c.int("num_experts_per_tok", default=8)
        a.moe_inter = c.int("moe_intermediate_size", default=512)
        a.n_shared = c.int("num_shared_experts", required=False, min_value=0)
        a.shared_inter = a.moe_inter * a.n_shared
        first = c.int("first_k_dense_replace", default=0, min_value=0)
        a.moe_layer = lambda i: i >= first
    nextn = c.int("num_nextn_predict_layers", default=0, min_value=0)
    if nextn:
        a.warnings.append(f"num_nextn_predict_layers={nextn}: the multi-token-prediction layers are counted as "
                          f"ordinary decoder layers (their eh_proj and extra norms are not)")
    return a


def _qwen(c: _Cfg) -> _Arch:
    # Qwen (v1) remote code (Qwen/Qwen-7B modeling_qwen.py, QWenLMHeadModel): c_attn (H -> 3H, with bias), c_proj
    # (no bias), mlp w1/w2 (H -> intermediate_size // 2 each: config.json's intermediate_size is twice the width)
    # and c_proj, RMSNorm ln_1/ln_2/ln_f, wte and an untied lm_head. Multi-head attention (no GQA).
    a = _common(c, "qwen")
    a.inter = a.inter // 2
    a.kv_heads = a.heads
    a.head_dim = c.int("kv_channels", default=a.head_dim)
    a.max_pos = c.int("seq_length", "max_position_embeddings", default=2048)
    a.fused_qkv = "c_attn"
    a.q_bias = True
    a.o_name = "c_proj"
    a.mlp_names = ("w2", "w1", "c_proj")   # c_proj(w1(x) * silu(w2(x)))
    return a


def _baichuan(c: _Cfg) -> _Arch:
    # Remote code (modeling_baichuan.py): W_pack (H -> 3H, no bias), o_proj, gated SiLU MLP, RMSNorm,
    # untied lm_head (NormHead in Baichuan2: a plain weight of shape [vocab, hidden]).
    a = _common(c, "baichuan")
    a.kv_heads = a.heads
    a.fused_qkv = "W_pack"
    return a


def _chatglm_v1(c: _Cfg) -> _Arch:
    # The first ChatGLM-6B (THUDM/chatglm-6b modeling_chatglm.py, its config keys inner_hidden_size / vocab_size /
    # max_sequence_length): word_embeddings; per layer input_layernorm, attention.query_key_value (H -> 3H, bias) and
    # attention.dense (bias), post_attention_layernorm, mlp.dense_h_to_4h (H -> inner, bias, gelu, not gated) and
    # dense_4h_to_h (bias); final_layernorm; LayerNorms with bias; lm_head tied to word_embeddings (the config keeps
    # PretrainedConfig's tie_word_embeddings=True; the checkpoint holds no lm_head weight).
    a = _common(c, "chatglm", tie_default=True)
    a.inter = c.int("inner_hidden_size", default=4 * a.hidden)
    a.kv_heads = a.heads
    a.max_pos = c.int("max_sequence_length", default=2048)
    a.act = "gelu"
    a.fused_qkv = "query_key_value"
    a.q_bias = a.o_bias = True
    a.o_name = "dense"
    a.gated = False
    a.mlp_names = ("dense_h_to_4h", "dense_h_to_4h", "dense_4h_to_h")
    a.mlp_bias = True
    a.norm_bias = True
    return a


def _chatglm(c: _Cfg) -> _Arch:
    # Remote code (modeling_chatglm.py, ChatGLM2/3/GLM-4 "chatglm" type): query_key_value, dense,
    # dense_h_to_4h (H -> 2*ffn, SwiGLU), dense_4h_to_h; output_layer untied.
    if c.cfg.get("inner_hidden_size") is not None and c.cfg.get("ffn_hidden_size") is None:
        return _chatglm_v1(_Cfg(c.cfg, c.label))   # v1's own keys, not ChatGLM2's defaults
    H = c.int("hidden_size")
    heads = c.int("num_attention_heads")
    kv_ch = c.int("kv_channels", default=H // heads if H % heads == 0 else None)
    mqa = c.bool("multi_query_attention")
    groups = c.int("multi_query_group_num", default=1) if mqa else heads
    if heads % groups:
        raise UserError(f"{c.label}: num_attention_heads={heads} is not a multiple of multi_query_group_num={groups}")
    add_bias = c.bool("add_bias_linear")
    a = _Arch(
        family="chatglm",
        hidden=H,
        inter=c.int("ffn_hidden_size"),
        layers=c.int("num_layers", "num_hidden_layers", max_value=_MAX_LAYERS),
        heads=heads,
        kv_heads=groups,
        head_dim=kv_ch,
        vocab=c.int("padded_vocab_size", "vocab_size"),
        tie=False,
        max_pos=c.int("seq_length", "max_position_embeddings", default=2048),
        act="silu",  # SwiGLU: silu(gate) * up from the fused dense_h_to_4h
    )
    a.fused_qkv = "query_key_value"
    a.q_bias = c.bool("add_qkv_bias") or add_bias
    a.o_name = "dense"
    a.o_bias = add_bias
    a.fused_gate_up = "dense_h_to_4h"
    a.mlp_names = ("dense_h_to_4h", "dense_h_to_4h", "dense_4h_to_h")
    a.mlp_bias = add_bias
    a.norm_bias = not c.bool("rmsnorm", default=True)
    a.final_norm = c.bool("post_layer_norm", default=True)
    return a


def _gpt_oss(c: _Cfg) -> _Arch:
    # transformers GptOss (modeling_gpt_oss.py): q/k/v/o with bias, a learned sink per head
    # (self_attn.sinks), an MoE block in every layer: router (Linear-shaped weight + bias) and experts whose
    # fused gate_up_proj [E, H, 2I] and down_proj [E, I, H] carry biases. RMSNorm, untied lm_head.
    a = _common(c, "gpt_oss")
    b = c.bool("attention_bias", default=True)
    a.q_bias = a.k_bias = a.v_bias = a.o_bias = b
    a.attn_sinks = a.heads
    a.num_experts = c.int("num_local_experts", default=128)
    a.top_k = c.int("num_experts_per_tok", "experts_per_token", default=4)
    a.moe_inter = a.inter
    a.expert_bias = True
    a.router_name = "router"
    a.router_bias = True
    return a


def _llama4_text(c: _Cfg) -> _Arch:
    # transformers Llama4TextModel (modeling_llama4.py): layers in `moe_layers` (default: every
    # interleave_moe_layer_step-th, counted from step-1) hold Llama4TextMoe = router (H -> E, no bias), experts
    # gate_up_proj [E, H, 2*intermediate_size] / down_proj and one shared expert MLP of intermediate_size; the
    # other layers a dense MLP of intermediate_size_mlp. qk-norm is a parameter-free L2 norm.
    a = _common(c, "llama4_text")
    b = c.bool("attention_bias")
    a.q_bias = a.k_bias = a.v_bias = a.o_bias = b
    moe_inter = c.int("intermediate_size", default=8192)
    a.inter = c.int("intermediate_size_mlp", default=16384)
    a.num_experts = c.int("num_local_experts", default=16)
    a.top_k = c.int("num_experts_per_tok", default=1)
    a.moe_inter = moe_inter
    a.shared_inter = moe_inter
    a.n_shared = 1
    a.router_name = "router"
    explicit = c.raw("moe_layers")
    if explicit is not None:
        layers = set(c.int_list("moe_layers"))
        a.moe_layer = lambda i: i in layers
    else:
        step = c.int("interleave_moe_layer_step", default=1)
        a.moe_layer = lambda i: i % step == step - 1
    return a


def _gpt_neox(c: _Cfg) -> _Arch:
    # transformers GPTNeoX (Pythia): attention.query_key_value (H -> 3H) and attention.dense with bias,
    # mlp.dense_h_to_4h / dense_4h_to_h (not gated) with bias, LayerNorms with bias (input, post-attention,
    # final), untied embed_out. Parallel residual and rotary_pct change the compute, not the parameters.
    a = _common(c, "gpt_neox")
    b = c.bool("attention_bias", default=True)
    a.q_bias = a.o_bias = b
    a.fused_qkv = "query_key_value"
    _dense_biased_mlp(a, c, ("dense_h_to_4h", "dense_h_to_4h", "dense_4h_to_h"))
    return a


def _gpt_mlp_and_positions(a: _Arch, c: _Cfg) -> _Arch:
    """GPT-2 and GPT-Neo alike: an ungated mlp.c_fc / c_proj with bias (gelu_new unless the config names another),
    LayerNorms with bias, and a learned position table of max_pos rows."""
    a.gated = False
    a.mlp_names = ("c_fc", "c_fc", "c_proj")
    a.mlp_bias = True
    a.norm_bias = True
    if not c.has("activation_function", "hidden_act"):
        a.act = "gelu_new"
    a.extra_params = a.max_pos * a.hidden
    return a


def _gpt_neo(c: _Cfg) -> _Arch:
    # transformers GPTNeo (models/gpt_neo/modeling_gpt_neo.py, GPTNeoConfig): wte + a learned position table wpe of
    # max_position_embeddings rows; per layer attn.attention q/k/v_proj without bias and out_proj with bias, mlp.c_fc
    # / c_proj (not gated, gelu_new) with bias (intermediate_size None = 4 x hidden_size), ln_1 / ln_2 and ln_f
    # LayerNorms with bias; lm_head tied. Its keys: num_heads, num_layers. The local layers (attention_types,
    # window_size) mask the same [seq, seq] scores the global ones compute: no parameter, no memory of their own.
    c = _Cfg({**c.cfg, "num_attention_heads": c.raw("num_attention_heads", "num_heads")}, c.label, c.defaults)
    a = _common(c, "gpt_neo", tie_default=True)
    a.o_bias = True
    a.o_name = "out_proj"
    return _gpt_mlp_and_positions(a, c)


def _gpt2(c: _Cfg) -> _Arch:
    # transformers GPT2 (models/gpt2/modeling_gpt2.py, GPT2Config: n_embd / n_layer / n_head / n_positions / n_inner):
    # wte + a learned position table wpe of n_positions rows; per layer ln_1, attn.c_attn (H -> 3H, bias) and
    # attn.c_proj (bias), ln_2, mlp.c_fc / c_proj (not gated, gelu_new, n_inner None = 4 x n_embd) with bias; ln_f;
    # LayerNorms with bias; lm_head tied to wte (GPT2LMHeadModel's _tied_weights_keys).
    a = _common(c, "gpt2", tie_default=True)
    a.max_pos = c.int("n_positions", "max_position_embeddings", default=1024)
    a.fused_qkv = "c_attn"
    a.q_bias = a.o_bias = True
    a.o_name = "c_proj"
    return _gpt_mlp_and_positions(a, c)


def _opt(c: _Cfg) -> _Arch:
    # transformers OPT (models/opt/modeling_opt.py): embed_tokens of word_embed_proj_dim, a learned position table
    # of max_position_embeddings + 2 rows (OPTLearnedPositionalEmbedding's offset), project_in / project_out without
    # bias where word_embed_proj_dim is not hidden_size (opt-350m); per layer self_attn q/k/v/out_proj and fc1 / fc2
    # (not gated, relu) with bias (enable_bias), self_attn_layer_norm and final_layer_norm (LayerNorm with bias); the
    # decoder's final LayerNorm only with do_layer_norm_before and not _remove_final_layer_norm; lm_head tied.
    a = _common(c, "opt", tie_default=True)
    bias = c.bool("enable_bias", default=True)
    a.q_bias = a.k_bias = a.v_bias = a.o_bias = a.mlp_bias = bias
    a.o_name = "out_proj"
    a.gated = False
    a.mlp_names = ("fc1", "fc1", "fc2")
    a.norm_bias = True
    a.final_norm = c.bool("do_layer_norm_before", default=True) and not c.bool("_remove_final_layer_norm")
    if not c.has("activation_function", "hidden_act"):
        a.act = "relu"
    H = a.hidden
    proj = c.int("word_embed_proj_dim", default=H)
    a.embed_dim = proj
    a.extra_params = (a.max_pos + 2) * H + (2 * proj * H if proj != H else 0)
    return a


def _dense_biased_mlp(a: _Arch, c: _Cfg, mlp_names: tuple[str, str, str]) -> None:
    """GPT-NeoX's and BERT's layer: attention output `dense`, an MLP that is not gated (gelu unless the config
    names its activation), biases on the MLP and on every LayerNorm."""
    a.o_name = "dense"
    a.gated = False
    a.mlp_names = mlp_names
    a.mlp_bias = True
    a.norm_bias = True
    if not c.has("hidden_act"):
        a.act = "gelu"


def _bert(c: _Cfg) -> _Arch:
    # transformers BertModel / RobertaModel (models/bert/modeling_bert.py): self.query/key/value and output.dense
    # with bias, intermediate.dense / output.dense (not gated, gelu) with bias, a LayerNorm with bias after
    # attention and after the MLP, an embeddings LayerNorm (counted as the final norm), learned position and
    # token-type embeddings, a pooler (H -> H); the pre-training heads (BertForPreTraining / ForMaskedLM) add a
    # transform (H -> H + LayerNorm), a decoder tied to the word embeddings with its own bias, and NSP (H -> 2).
    a = _common(c, str(c.str("model_type", default="bert") or "bert"), tie_default=True)
    a.q_bias = a.k_bias = a.v_bias = a.o_bias = True
    _dense_biased_mlp(a, c, ("intermediate.dense", "intermediate.dense", "output.dense"))
    H = a.hidden
    types = c.int("type_vocab_size", default=2)
    a.extra_params = (a.max_pos + types) * H + (H * H + H) + (H * H + H + 2 * H) + a.vocab + (2 * H + 2)
    return a


def _deberta_v2(c: _Cfg) -> _Arch:
    # transformers DebertaV2Model (models/deberta_v2/modeling_deberta_v2.py; DeBERTa-v2 and -v3): per layer
    # query_proj/key_proj/value_proj and output.dense with bias, intermediate.dense / output.dense (gelu, not
    # gated) with bias, two LayerNorms with bias; the embeddings LayerNorm (counted as the final norm); learned
    # positions only when position_biased_input (DebertaV2Config default True, v3 configs False), token types only
    # when type_vocab_size > 0; relative attention adds the encoder's rel_embeddings (2 x position_buckets, else
    # 2 x max_relative_positions / max_position_embeddings rows) and its LayerNorm when norm_rel_ebd has
    # layer_norm; share_att_key (v3) reuses the q/k projections for the position terms; embed_proj when
    # embedding_size differs from hidden_size; conv_kernel_size > 0 a ConvLayer. ForMaskedLM's head: transform
    # (H -> H + LayerNorm), a tied decoder with its own bias.
    a = _common(c, "deberta-v2", tie_default=True)
    a.q_bias = a.k_bias = a.v_bias = a.o_bias = True
    a.qkv_names = ("query_proj", "key_proj", "value_proj")
    _dense_biased_mlp(a, c, ("intermediate.dense", "intermediate.dense", "output.dense"))
    H = a.hidden
    extra = c.int("type_vocab_size", default=0, min_value=0) * H
    if c.bool("position_biased_input", default=True):
        extra += a.max_pos * H
    if c.bool("relative_attention"):
        buckets = c.int("position_buckets", default=-1, min_value=-1)
        rel = buckets if buckets > 0 else c.int("max_relative_positions", default=-1, min_value=-1)
        rel = rel if rel > 0 else a.max_pos
        extra += 2 * rel * H + (2 * H if "layer_norm" in str(c.str("norm_rel_ebd", default="none")) else 0)
        if not c.bool("share_att_key"):
            extra += a.layers * 2 * (H * H + H)      # pos_key_proj / pos_query_proj per layer
    emb = c.int("embedding_size", default=H)
    if emb != H:
        extra += emb * H
    k = c.int("conv_kernel_size", default=0, min_value=0)
    if k:   # DeBERTa-v2-xlarge/xxlarge: the encoder's ConvLayer after the first layer (Conv1d H -> H, LayerNorm)
        extra += H * H * k + H + 2 * H
    a.extra_params = extra + (H * H + H + 2 * H) + a.vocab
    return a


def _t5(c: _Cfg) -> _Arch:
    # transformers T5 (models/t5/modeling_t5.py): an encoder of num_layers and a decoder of num_decoder_layers
    # blocks (counted here as one stack of both); SelfAttention q/k/v/o of d_model -> num_heads x d_kv, no bias;
    # DenseReluDense wi (wi_0 + wi_1 when feed_forward_proj is gated-gelu, T5 v1.1 / Flan-T5) and wo, no bias;
    # T5LayerNorm (weight only) before each sub-layer and one final norm per stack; each decoder block adds a
    # cross-attention (q/k/v/o + its norm); the relative position bias (buckets x heads) sits in each stack's first
    # block; shared input embeddings, lm_head tied only when tie_word_embeddings (T5 v1.0: true, v1.1: false).
    H = c.int("d_model", "hidden_size")
    enc = c.int("num_layers", max_value=_MAX_LAYERS)
    dec = c.int("num_decoder_layers", default=enc, max_value=_MAX_LAYERS)
    heads, d_kv = c.int("num_heads", "num_attention_heads"), c.int("d_kv", default=H // max(1, c.int("num_heads")))
    ff = str(c.str("feed_forward_proj", default="relu") or "relu")
    a = _Arch(family="t5", hidden=H, inter=c.int("d_ff", "intermediate_size"), layers=enc + dec, heads=heads,
              kv_heads=heads, head_dim=d_kv, vocab=c.int("vocab_size"), tie=c.bool("tie_word_embeddings", default=True),
              max_pos=c.int("n_positions", default=512), act="gelu" if "gelu" in ff else "relu",
              gated=ff.startswith("gated"))
    a.o_name = "o"
    a.mlp_names = ("wi_0", "wi_1", "wo") if a.gated else ("wi", "wi", "wo")
    buckets = c.int("relative_attention_num_buckets", default=32)
    # decoder cross-attention + its norm, the relative bias of both stacks, the encoder's own final norm
    a.extra_params = dec * (4 * H * heads * d_kv + H) + 2 * buckets * heads + H
    return a


def _generic(c: _Cfg) -> _Arch:
    a = _common(c, c.str("model_type", default="unknown") or "unknown")
    b = c.bool("attention_bias")
    a.q_bias = a.k_bias = a.v_bias = a.o_bias = b
    a.mlp_bias = c.bool("mlp_bias")
    return a


_FAMILIES: dict[str, Callable[[_Cfg], _Arch]] = {
    "llama": _llama,
    "mistral": _mistral,
    "mixtral": _mixtral,
    "qwen2": _qwen2,
    "qwen2_moe": _qwen2_moe,
    "qwen3": _qwen3,
    "qwen3_moe": _qwen3_moe,
    "qwen3_5_text": _qwen3_5_text,
    "qwen3_5_moe_text": _qwen3_5_moe_text,
    "gemma": _gemma,
    "gemma2": _gemma2,
    "gemma3_text": _gemma3_text,
    "gemma4_text": _gemma4_text,
    "mllama_text": _mllama_text,
    "phi3": _phi3,
    "deepseek_v2": _deepseek_v2,
    "deepseek_v3": _deepseek_v3,
    "glm": _glm,
    "glm4": _glm4,
    "granite": _granite,
    "olmo2": _olmo2,
    "seed_oss": _seed_oss,
    "ernie4_5": _ernie4_5,
    "hunyuan_v1_dense": _hunyuan_v1_dense,
    "starcoder2": _starcoder2,
    "phi": _phi,
    "cohere": _cohere,
    "internlm2": _internlm2,
    "baichuan": _baichuan,
    "qwen": _qwen,
    "bailing_moe_v2": _bailing_moe_v2,
    "chatglm": _chatglm,
    "gpt_oss": _gpt_oss,
    "llama4_text": _llama4_text,
    "gpt_neox": _gpt_neox,
    "gpt_neo": _gpt_neo,
    "gpt2": _gpt2,
    "opt": _opt,
    "bert": _bert,
    "t5": _t5,
    "roberta": _bert,
    "xlm-roberta": _bert,
    "deberta-v2": _deberta_v2,
}

_GLM_DEFAULTS = {"head_dim": 128, "attention_bias": True}  # GlmConfig / Glm4Config defaults

_FAMILY_DEFAULTS: dict[str, dict] = {
    "gemma3_text": _GEMMA3_TEXT_DEFAULTS,
    "chatglm": _CHATGLM_DEFAULTS,
    "glm": _GLM_DEFAULTS,
    "glm4": _GLM_DEFAULTS,
    "seed_oss": {"head_dim": 128},    # SeedOssConfig's default, not hidden_size / heads
    "ernie4_5": {"head_dim": 128},    # Ernie4_5Config's default
    # MllamaTextConfig's defaults (Llama-3.2-11B-Vision's text model); released text_configs omit some of them
    "mllama_text": {"vocab_size": 128256, "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 40,
                    "num_attention_heads": 32, "num_key_value_heads": 8, "max_position_embeddings": 131072},
}

# model_type aliases seen in the wild -> family handler
_FAMILY_ALIASES = {
    "baichuan2": "baichuan",
    "chatglm3": "chatglm",
    "yi": "llama",
    "minicpm": "llama",                # MiniCPM-1/2 (modeling_minicpm.py): Llama's weights, muP scaling in the forward
    "internlm3": "llama",              # transformers builds InternLM3 as LlamaForCausalLM (head_dim, no biases)
    "gemma3": "gemma3_text",  # a gemma3 config without text_config
    "gemma4": "gemma4_text",  # a gemma4 config without text_config
    "mllama": "mllama_text",
    "mllama_text_model": "mllama_text",   # MllamaTextConfig.model_type
    "qwen2_vl_text": "qwen2",
    "qwen2_5_vl_text": "qwen2",
    "qwen2_vl": "qwen2",  # the language model of a top-level Qwen2-VL / Qwen2.5-VL config.json
    "qwen2_5_vl": "qwen2",
    "qwen3_vl_text": "qwen3",          # Qwen3-VL's language model: a Qwen3 decoder (interleaved M-RoPE, no new weights)
    "qwen3_vl": "qwen3",
    "qwen3_vl_moe_text": "qwen3_moe",
    "qwen3_vl_moe": "qwen3_moe",
    "qwen3_5": "qwen3_5_text",          # Qwen3.5's top-level config: its text_config is the hybrid decoder
    "qwen3_5_moe": "qwen3_5_moe_text",
    "mistral3": "mistral",             # Mistral-Small-3.1: the language model is a Mistral decoder
    "llama4": "llama4_text",
    "kimi_k2": "deepseek_v3",          # Kimi-K2: DeepseekV3ForCausalLM under its own model_type (Moonshot's guide)
    # GLM-4.7-Flash (transformers models/glm4_moe_lite): DeepseekV2Attention (MLA) + Glm4Moe's MoE block (routed +
    # shared experts, a gate with e_score_correction_bias) after the first_k_dense_replace dense layers
    "glm4_moe_lite": "deepseek_v3",
    # GLM-5 / 5.1 / 5.2 (transformers models/glm_moe_dsa): the same MLA + routed/shared-expert weights, plus DSA's
    # small lightning indexer (not counted: under 0.2 % of GLM-5's weights)
    "glm_moe_dsa": "deepseek_v3",
    "smollm3": "llama",                # SmolLM3: LlamaForCausalLM's weights; its NoPE layers add none
    "olmo3": "olmo2",                  # Olmo 3: OLMo 2's weights; its sliding-window layers add none
}

# vision-language wrappers whose language model is what gets counted (the vision tower is not)
_VLM_TYPES = ("gemma3", "gemma3n", "gemma4", "llava", "mistral3", "qwen2_vl", "qwen2_5_vl", "qwen3_vl", "qwen3_vl_moe",
              "llama4", "mllama",
              "kimi_vl", "internvl_chat", "minicpmv")
_VLM_NOTE = "vision-language model: only the language model is counted (the vision tower and projector are not)"


def _dtype(cfg: dict) -> str | None:
    v = cfg.get("torch_dtype", cfg.get("dtype"))
    if isinstance(v, str):
        return v.replace("torch.", "")
    if cfg.get("model_type") == "qwen":
        # Qwen v1's remote code casts itself (modeling_qwen.py QWenLMHeadModel.__init__): config.json's bf16 / fp16 /
        # fp32 flag, and with none set (the published configs) bf16 where the GPU supports it, else fp16: 16-bit
        for flag, name in (("fp32", "float32"), ("fp16", "float16"), ("bf16", "bfloat16")):
            if cfg.get(flag) is True:
                return name
        return "bfloat16"
    return None


def _text_decoder_config(cfg: dict, model_type: str | None, label: str, warnings: list[str],
                         notes: list[str]) -> tuple[dict, str | None]:
    """The config whose text decoder is counted, and its model_type: a multimodal wrapper's text_config
    (with the wrapper's dtype and tying), else ``cfg`` itself. Adds the multimodal warning and note."""
    text_cfg = cfg.get("text_config")
    if not isinstance(text_cfg, dict) and model_type == "internvl_chat":
        text_cfg = cfg.get("llm_config")     # InternVL's remote-code config: the language model under llm_config
    if isinstance(text_cfg, dict) and (model_type in _VLM_TYPES or "hidden_size" not in cfg):
        inner = dict(text_cfg)
        if model_type == "kimi_vl":
            inner.setdefault("model_type", "deepseek_v3")  # Kimi-VL's language model is DeepSeek-V3-style (MLA + MoE)
        if model_type in ("qwen2_vl", "qwen2_5_vl") and inner.get("model_type") in (None, model_type):
            inner["model_type"] = model_type + "_text"
        if model_type == "gemma3":
            inner.setdefault("model_type", "gemma3_text")
            # Gemma3ForConditionalGeneration always ties lm_head to the text embedding
            inner.setdefault("tie_word_embeddings", cfg.get("tie_word_embeddings", True))
        if "torch_dtype" not in inner and "dtype" not in inner:
            for k in ("torch_dtype", "dtype"):
                if k in cfg:
                    inner[k] = cfg[k]
        warnings.append(f"multimodal config (model_type={model_type}): counted the text decoder only, not the vision tower")
        notes.append(_VLM_NOTE)
        model_type = inner.get("model_type") or model_type
        if not isinstance(model_type, str):
            raise UserError(f"{label}: text_config.model_type={model_type!r} must be a string")
        return inner, model_type
    if model_type in _VLM_TYPES:  # e.g. Qwen2.5-VL's published config.json: the language model's keys at top level
        warnings.append(f"multimodal config (model_type={model_type}): counted the text decoder only, "
                        f"not the vision tower")
        notes.append(_VLM_NOTE)
    return cfg, model_type


def model_from_config(config: dict, name: str = "custom", source: str = "path", location: str | None = None) -> ModelSpec:
    """Build a ModelSpec from a config.json dict. Raises UserError for configs that make no sense."""
    label = location or name
    if not isinstance(config, dict):
        raise UserError(f"{label}: config must be a JSON object, got {type(config).__name__}")
    cfg = config
    warnings: list[str] = []
    model_type = cfg.get("model_type")
    if model_type is not None and not isinstance(model_type, str):
        raise UserError(f"{label}: model_type={model_type!r} must be a string")
    # Multimodal wrappers: count the text decoder.
    notes: list[str] = []
    cfg_used, model_type = _text_decoder_config(cfg, model_type, label, warnings, notes)
    family_key = (model_type or "").lower()
    # ChatGLM remote-code configs: model_type chatglm, or a glm/empty type with ChatGLM's key names
    if family_key in ("chatglm", "chatglm3") or (
        family_key in ("", "glm") and "padded_vocab_size" in cfg_used and "ffn_hidden_size" in cfg_used
    ):
        family_key = "chatglm"
    # Ling/Ring 2.0's published config.json says model_type "bailing_moe" (Ling 1.x's type) with the V2 class
    archs = cfg_used.get("architectures") or cfg.get("architectures") or []
    if family_key == "bailing_moe" and isinstance(archs, list) and "BailingMoeV2ForCausalLM" in archs:
        family_key = "bailing_moe_v2"
    if family_key == "minicpmv":
        # MiniCPM-V's remote code (modeling_minicpmv.py) builds its language model from the top-level keys: Qwen2 for
        # 2.6 / MiniCPM-o 2.6, Llama-3 for Llama3-V 2.5 (config "version"), MiniCPM for 2.0
        family_key = "llama" if str(cfg_used.get("version")) == "2.5" else "qwen2"
    family_key = _FAMILY_ALIASES.get(family_key, family_key)
    handler = _FAMILIES.get(family_key)
    c = _Cfg(cfg_used, label, _FAMILY_DEFAULTS.get(family_key))
    exact: ExactCount | None = None
    if handler is None:
        handler = _generic
        why = "no exact counter installed"
        if _EXACT_COUNTER is not None:
            got = _EXACT_COUNTER(cfg_used)
            if isinstance(got, ExactCount):
                exact = got
            else:
                why = str(got)
        if exact is not None:
            warnings.append(
                f"unknown model_type {model_type!r}: parameters counted exactly on the meta device by {exact.counter}; "
                f"layer shapes for the memory estimate read as a Llama-style decoder"
            )
        else:
            warnings.append(
                f"unknown model_type {model_type!r}: counted as a generic Llama-style decoder ({why}; "
                f"supported: {', '.join(SUPPORTED_FAMILIES)})"
            )
    arch = handler(c)
    if arch.num_experts and arch.top_k > arch.num_experts:
        raise UserError(
            f"{label}: num_experts_per_tok={arch.top_k} is larger than the number of experts ({arch.num_experts})"
        )
    arch.warnings = warnings + arch.warnings
    spec = _build_spec(arch, config, name, source, location, _dtype(cfg_used) or _dtype(cfg))
    if exact is not None:
        from dataclasses import replace

        spec = replace(spec, params=exact.params, linears=exact.linears or spec.linears,
                       num_layers=len(exact.params.per_layer) or spec.num_layers,
                       tie_word_embeddings=exact.params.lm_head == 0)
        notes.append(f"parameters counted exactly on the meta device by {exact.counter}")
    spec = _with_vision(spec, config, notes, label)
    return replace_notes(spec, notes) if notes else spec


def _with_vision(spec: ModelSpec, config: dict, notes: list[str], label: str | None = None) -> ModelSpec:
    """Attach the vision tower a Qwen2-VL / Qwen2.5-VL vision_config describes; the notes then say it is counted.
    A size of the tower that is not a whole number >= 1 is a UserError naming `label` (the file) and the value."""
    from dataclasses import replace

    from rocm_tune.core.model import vision as model_vision

    try:
        tower = model_vision.from_config(config, spec.hidden_size)
    except UserError as exc:
        raise UserError(f"{label}: {exc}" if label else str(exc)) from None
    if tower is None:
        return spec
    notes[:] = [n for n in notes if n != _VLM_NOTE]
    if getattr(tower, "positions", None):     # an audio encoder (vision.AudioTower) in the tower's place
        notes.append(f"audio-language model: the audio encoder ({tower.depth} blocks + projector, "
                     f"{tower.params / 1e6:.0f}M params) and its audio tokens are counted beside the language model")
    else:
        notes.append(f"vision-language model: the vision tower ({tower.depth} ViT blocks + merger, "
                     f"{tower.params / 1e6:.0f}M params) and its image tokens are counted beside the language model")
    warnings = tuple(w for w in spec.warnings if not w.startswith("multimodal config"))
    return replace(spec, vision=tower, warnings=warnings)


def replace_notes(spec: ModelSpec, notes: list[str]) -> ModelSpec:
    from dataclasses import replace

    return replace(spec, notes=tuple(dict.fromkeys((*spec.notes, *notes))))


# --------------------------------------------------------------------------------------------------
# Exact counting of architectures this module does not know (injected; core stays free of torch)
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ExactCount:
    """What an injected counter measured on the real (meta-device) model."""

    params: ParamCounts
    linears: tuple[LinearGroup, ...]
    counter: str  # e.g. "transformers 5.24.0 (GPT2LMHeadModel)"


# config dict -> ExactCount, or a one-line reason why it could not count (transformers missing, remote code ...)
ExactCounter = Callable[[dict], "ExactCount | str"]
_EXACT_COUNTER: ExactCounter | None = None


def set_exact_counter(counter: ExactCounter | None) -> ExactCounter | None:
    """Install the counter used for model types this module does not know; returns the previous one.

    The commands layer installs ``rocm_tune.train.meta_count.count`` (transformers on the meta device);
    without it, unknown architectures are counted as a Llama-style decoder (said in ``warnings``).
    """
    global _EXACT_COUNTER
    previous, _EXACT_COUNTER = _EXACT_COUNTER, counter
    if counter is not previous:
        _PRESET_CACHE.clear()     # a preset of a family counted here only by the counter (OPT, BLOOM) counts anew
    return previous


# --------------------------------------------------------------------------------------------------
# Loading
# --------------------------------------------------------------------------------------------------

_PRESET_DIR = PRESET_DIR   # rocm_tune/profiles/models, wherever this module sits in core


def _read_config_file(path: Path) -> dict:
    return read_json(path, "model config", max_bytes=MAX_CONFIG_BYTES)


# the caches (core/model/cache.py); the old private names stay for callers that used them
_hf_cache_dirs = model_cache.hf_cache_dirs
_modelscope_cache_dirs = model_cache.modelscope_cache_dirs
_find_in_hf_cache = model_cache.find_in_hf_cache
_find_in_modelscope_cache = model_cache.find_in_modelscope_cache


def _looks_like_repo_id(ref: str) -> bool:
    parts = ref.split("/")
    return len(parts) == 2 and all(parts) and not ref.startswith((".", "~")) and " " not in ref


def _from_file(p: Path, ref: str) -> ModelSpec:
    if p.is_dir():
        cfgp = p / "config.json"
        if not cfgp.is_file():
            raise UserError(f"{ref}: directory has no config.json")
        return model_from_config(_read_config_file(cfgp), name=p.resolve().name, source="path",
                                 location=str(cfgp.resolve()))
    return model_from_config(
        _read_config_file(p), name=p.resolve().parent.name or p.stem, source="path", location=str(p.resolve())
    )


def _cached(ref: str) -> ModelSpec | None:
    """A hub id in the local caches: the cached config.json is the real one (it wins over a preset)."""
    if not _looks_like_repo_id(ref):
        return None
    hit = _find_in_hf_cache(ref)
    if hit is not None:
        return model_from_config(_read_config_file(hit), name=ref, source="hf-cache", location=str(hit))
    hit = _find_in_modelscope_cache(ref)
    if hit is not None:
        return model_from_config(_read_config_file(hit), name=ref, source="modelscope-cache", location=str(hit))
    hit = model_cache.kept_hub_config(ref)          # config.json alone, fetched from the Hub by an earlier check
    if hit is not None:
        return model_from_config(_read_config_file(hit), name=ref, source="hub", location=str(hit))
    return None


def load_model(ref: str) -> ModelSpec:
    """Resolve a model reference: dir | config.json path | cached hub id | preset name (case-insensitive) |
    a name whose series and size match one preset (``Qwen2___5-7B-Instruct``, ``/data/llm/Llama-2-7b-chat-hf``;
    said in the spec's notes). Anything else is a one-line UserError; ``identify_model`` goes further."""
    if not isinstance(ref, str) or not ref.strip():
        raise UserError(
            f"model reference {ref!r} is empty; give a preset name (e.g. qwen2.5-7b), a directory holding "
            f"config.json, a config.json path or a cached hub id"
        )
    ref = ref.strip()
    p = Path(os.path.expanduser(ref))
    if p.is_dir() or p.is_file():
        return _from_file(p, ref)
    spec = _cached(ref)
    if spec is not None:
        return spec
    idx = _preset_index()
    key = ref.lower()
    if key in idx:
        return _load_preset_file(idx[key])
    if not ref.endswith(".json"):
        got = by_name(ref)
        if got is not None and got.spec is not None:   # by_name finds a cache entry or preset: always a spec
            return got.spec
    if ref.endswith(".json") or (os.sep in ref and not _looks_like_repo_id(ref)) or ref.startswith((".", "~")):
        raise UserError(
            f"{ref}: no such file or directory (expected a directory holding config.json, a config.json path, "
            f"a hub id in the local Hugging Face/ModelScope cache, or a preset name)"
        )
    raise UserError(f"unknown model {ref!r} ({_where_not(ref)}); {_hint(key)}")


def _where_not(ref: str) -> str:
    return ("not a preset and not found in the local Hugging Face/ModelScope cache" if _looks_like_repo_id(ref)
            else "not a preset, directory or config.json")


def _hint(key: str) -> str:
    idx = _preset_index()
    names = list_presets()
    close_names: list[str] = []
    for c in difflib.get_close_matches(key, list(idx), n=3, cutoff=0.6):  # canonical preset names, not aliases
        n = idx[c][: -len(".yaml")]
        if n not in close_names:
            close_names.append(n)
    if close_names:
        return f"did you mean {', '.join(close_names)}?"
    return f"presets include {', '.join(n for n in _EXAMPLE_PRESETS if n in names)} ({len(names)} in all)"


_EXAMPLE_PRESETS = ("qwen2.5-7b", "qwen3-8b", "llama-3.1-8b", "mistral-7b-v0.3", "gemma-2-9b")


# --------------------------------------------------------------------------------------------------
# Presets
# --------------------------------------------------------------------------------------------------

_INDEX: dict[str, str] | None = None  # lower-case name/alias/hub_id -> file name


def _yaml_load(text: str):
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return yaml.load(text, Loader=loader)


def _preset_index() -> dict[str, str]:
    """name/alias/hub id (lower-case) -> preset file name. Read from _index.yaml, else built by scanning."""
    global _INDEX
    if _INDEX is not None:
        return _INDEX
    idx: dict[str, str] = {}
    index_file = _PRESET_DIR / "_index.yaml"
    data = None
    if index_file.is_file():
        try:
            data = _yaml_load(index_file.read_text(encoding="utf-8"))
        except Exception:  # noqa: BLE001 - a broken index falls back to scanning
            data = None
    if isinstance(data, dict) and data:
        existing = {p.name for p in _PRESET_DIR.glob("*.yaml")}
        if all(isinstance(v, str) and v in existing for v in data.values()):
            idx = {str(k).lower(): v for k, v in data.items()}
    if not idx:
        idx = _scan_index()
    _INDEX = idx
    return idx


def _scan_index() -> dict[str, str]:
    idx: dict[str, str] = {}
    for f in sorted(_PRESET_DIR.glob("*.yaml")):
        if f.name.startswith("_"):
            continue
        d = _yaml_load(f.read_text(encoding="utf-8"))
        for k in _preset_keys(d, f):
            idx.setdefault(k.lower(), f.name)
    return idx


def _preset_keys(d: dict, f: Path) -> list[str]:
    keys = [d.get("name") or f.stem, f.stem]
    if d.get("hub_id"):
        keys.append(d["hub_id"])
    keys.extend(d.get("aliases") or [])
    return [str(k) for k in keys]


_PRESET_META = ("name", "hub_id", "aliases", "size_label", "config")


_PRESET_CACHE: dict[str, ModelSpec] = {}


def _load_preset_file(fname: str) -> ModelSpec:
    spec = _PRESET_CACHE.get(fname)
    if spec is None:
        spec = _PRESET_CACHE[fname] = _parse_preset_file(fname)
    return spec


def _parse_preset_file(fname: str) -> ModelSpec:
    f = _PRESET_DIR / fname
    d = _yaml_load(f.read_text(encoding="utf-8"))
    if not isinstance(d, dict):
        raise UserError(f"{f}: preset must be a YAML mapping")
    cfg = d.get("config")
    if not isinstance(cfg, dict):
        raise UserError(f"{f}: preset has no 'config' mapping")
    name = str(d.get("name") or f.stem)
    spec = model_from_config(cfg, name=name, source="preset", location=str(f))
    from dataclasses import replace

    return replace(
        spec,
        hub_id=d.get("hub_id"),
        size_label=None if d.get("size_label") is None else str(d.get("size_label")),
        aliases=tuple(str(x) for x in (d.get("aliases") or ())),
        # the language model of a vision-language checkpoint: said wherever the spec is shown
        notes=(*spec.notes, _VLM_NOTE) if d.get("vision_language") and spec.vision is None else spec.notes,
    )


def list_presets() -> list[str]:
    """Preset names (the canonical `name` of each file), sorted."""
    idx = _preset_index()
    names: dict[str, str] = {}
    for f in sorted(set(idx.values())):
        names[f] = f[: -len(".yaml")]
    # canonical names: the preset's `name` field equals its file stem by convention
    return sorted(names.values(), key=str.lower)


def _is_size_word(w: str) -> bool:
    import re

    return re.fullmatch(r"\d+(\.\d+)?[bm]", w) is not None


def search_presets(query: str = "") -> list[ModelSpec]:
    """Presets matching every word of ``query`` (case-insensitive), for the TUI's model picker.

    A size word like "7b" or "0.5b" matches presets of exactly that size (so "7b" does not match 27B);
    "moe" matches mixture-of-experts presets; any other word matches a substring of the name, hub id,
    an alias or the family ("qwen3", "llama", "deepseek", "gemma2"). Empty query: all presets.
    Results are grouped by series and sorted by parameter count within a series.
    """
    import re

    words = [w for w in re.split(r"[\s,]+", (query or "").lower()) if w]
    out = []
    for name in list_presets():
        s = load_model(name)
        hay = " ".join([s.name, s.hub_id or "", s.family, *s.aliases]).lower()
        size = (s.size_label or "").lower()
        size_tokens = {size, *re.split(r"[-x]", size)} - {""}
        name_tokens = set(re.split(r"[-_/ ]", " ".join([s.name, s.hub_id or "", *s.aliases]).lower()))
        ok = True
        for w in words:
            if _is_size_word(w):
                hit = w in size_tokens or w in name_tokens
            elif w == "moe":
                hit = s.is_moe
            else:
                hit = w in hay
            if not hit:
                ok = False
                break
        if ok:
            out.append(s)

    def series(s: ModelSpec) -> str:
        n = s.name.lower()
        return n.replace((s.size_label or "").lower(), "") if s.size_label else n

    out.sort(key=lambda s: (series(s), s.params.total))
    return out


# --------------------------------------------------------------------------------------------------
# Identifying a model the way users name it (check, plan --model): path, caches, preset, name, Hub, assumption
# --------------------------------------------------------------------------------------------------

HOW = {
    "path": "a directory here with config.json",
    "hf-cache": "the Hugging Face cache",
    "modelscope-cache": "the ModelScope cache",
    "preset": "a preset of that name",
    "name": "its name, matched to a preset",
    "hub": "config.json from the Hub",
    "assumed": "an assumption from its name",
    "clue": "the name the files give it elsewhere (the model field names none: core/model/clues.py)",
    "unknown": "not identified",
}


@dataclass(frozen=True)
class Identified:
    """How a model reference was identified. ``spec`` is None only for ``how == "unknown"``."""

    spec: ModelSpec | None
    how: str                        # a key of HOW
    detail: str                     # one line: what was found where
    parts: Any                      # core.model.names.NameParts
    quant: str | None = None        # AWQ, GPTQ-Int4, bnb-4bit, int4, int8, FP8 (config.json, else the name)
    quant_bits: int | None = None
    assumption: str | None = None   # for "assumed": what was assumed
    question: str | None = None     # for "unknown": the one thing to give

    def to_dict(self) -> dict:
        return {"how": self.how, "way": HOW[self.how], "detail": self.detail, "quantization": self.quant,
                "quant_bits": self.quant_bits, "assumption": self.assumption, "question": self.question,
                "name": self.parts.to_dict()}


_NAME_INDEX: dict[tuple, dict[str, set[str]]] | None = None


def _name_index() -> dict[tuple, dict[str, set[str]]]:
    """(series, size, active) -> {preset file: the variant words its names carry}, from every name, alias and
    hub id of every preset."""
    global _NAME_INDEX
    if _NAME_INDEX is None:
        from rocm_tune.core.model.names import parse_name

        out: dict[tuple, dict[str, set[str]]] = {}
        for key, fname in _preset_index().items():
            p = parse_name(key)
            if p.series:
                words = set(p.variants) | set(p.tags) | ({p.version} if p.version else set())
                out.setdefault((p.series, p.size_b, p.active_b), {}).setdefault(fname, set()).update(words)
        _NAME_INDEX = out
    return _NAME_INDEX


def match_preset(parts) -> tuple[ModelSpec | None, str]:
    """The preset a parsed name designates: same series, size (and MoE active size); (None, why) otherwise.
    Several presets of one series and size (Mistral 7B v0.1/v0.3) give the largest, said."""
    if not parts.series:
        return None, "the name has no recognisable model family"
    idx = _name_index()
    cands: dict[str, set[str]] = dict(idx.get((parts.series, parts.size_b, parts.active_b), {}))
    if not cands and parts.size_b is not None and parts.active_b is None:     # "qwen3-30b" names the 30B-A3B
        for k, fs in idx.items():
            if k[0] == parts.series and k[1] == parts.size_b:
                cands.update(fs)
    if not cands:
        what = f"{parts.series} {parts.size_text()}".strip()
        return None, f"no preset is a {what}"
    # several presets of this series and size: the one whose names share the most of this name's variant words
    # (chat / 0414 / v0.3), then the largest
    mine = set(parts.variants) | set(parts.tags) | ({parts.version} if parts.version else set())
    ranked = sorted(((len(mine & words), _load_preset_file(f)) for f, words in cands.items()),
                    key=lambda t: (t[0], t[1].params.total, t[1].name))
    spec = ranked[-1][1]
    if len(ranked) > 1:
        others = ", ".join(s.name for _, s in ranked[:-1])
        how = "the nearest variant" if ranked[-1][0] > ranked[-2][0] else "the largest"
        return spec, f"{spec.name} (also {others}: {how} taken)"
    return spec, spec.name


def _quant_of(spec: ModelSpec | None, parts) -> tuple[str | None, int | None]:
    """Quantization of the stored weights: config.json's quantization_config, else the name's."""
    qc = (spec.config.get("quantization_config") if spec is not None else None) or {}
    if isinstance(qc, dict) and qc:
        method = str(qc.get("quant_method") or "").lower()
        if qc.get("load_in_4bit") or qc.get("bnb_4bit_quant_type"):
            return "bnb-4bit", 4
        if qc.get("load_in_8bit"):
            return "bnb-8bit", 8
        bits = qc.get("bits") if isinstance(qc.get("bits"), int) else None
        if method in ("fp8", "fbgemm_fp8") or str(qc.get("fmt", "")).startswith("e4m3"):
            return "FP8", 8
        if method in ("awq", "gptq", "compressed-tensors", "hqq", "aqlm", "eetq", "quanto") or bits:
            b = 8 if bits == 8 else 4
            return f"{method.upper() or 'int'}-{b}bit" if method not in ("awq",) else "AWQ", b
    return parts.quant, parts.quant_bits


def _by_cache_name(ref: str, parts) -> Identified | None:
    """A model cached under the reference's last component (any organisation; ModelScope's ___ as .)."""
    from dataclasses import replace

    last = ref.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
    hit = model_cache.find_by_name(parts.stem) or (model_cache.find_by_name(last) if last != parts.stem else None)
    if hit is None:
        return None
    kind, cfgp, repo = hit
    spec = model_from_config(_read_config_file(cfgp), name=repo, source=kind, location=str(cfgp))
    detail = f"{ref} is not here; {HOW[kind]} has {repo} ({cfgp})"
    spec = replace(spec, notes=(*spec.notes, f"model {detail}"))
    return Identified(spec, kind, detail, parts, *_quant_of(spec, parts))


def _by_parsed_name(ref: str, parts) -> Identified | None:
    from dataclasses import replace

    from rocm_tune.core.model.names import bare_size_reading, glued_prefix_reading

    spec, why = match_preset(parts)
    how_read = "read as"
    bare = bare_size_reading(parts) if spec is None else None
    if bare is not None:
        # "/data/qwen1.5-14": a folder named after the hub id without its "B". The number is a size only where this
        # family has a preset of exactly that size (a released one); "qwen1.5-13" stays sizeless.
        spec, why = match_preset(bare)
        if spec is not None:
            parts = bare
            how_read = f"size {bare.size_b:g}B read from the bare number in its name (a released size of " \
                       f"{bare.series}); read as"
    glued = glued_prefix_reading(parts) if spec is None else None
    if glued is not None:
        # "modelscope0731-glm-4v-9b": a download folder's date-glued prefix before the hub name
        spec, why = match_preset(glued)
        if spec is not None:
            parts = glued
            how_read = f"the leading word {_tokens_first(parts.stem)!r} (a word glued to a date) set aside; read as"
    if spec is None:
        spec, parts, how_read = _base_inside(parts, how_read)
    if spec is None:
        spec, why, how_read = _finetune_base(parts, how_read)
    if spec is None:
        return None
    detail = f"{ref}: {how_read} {parts.describe()} -> preset {why}"
    spec = replace(spec, notes=(*spec.notes, f"model identified by its name: {detail}"))
    return Identified(spec, "name", detail, parts, *_quant_of(spec, parts))


def _base_inside(parts, how_read: str):
    """(preset, reading, how) of a fine-tune named with its base inside ("Hermes-3-Llama-3.1-8B"), else (None, ...)."""
    from rocm_tune.core.model.names import base_inside_readings

    for cand in base_inside_readings(parts):
        spec, _why = match_preset(cand)
        if spec is not None:
            how = f"a fine-tune or merge named after its base ({cand.series} {cand.size_text()} inside " \
                  f"{parts.stem!r}), assumed of that base's shape; read as"
            return spec, cand, how
    return None, parts, how_read


def _finetune_base(parts, how_read: str):
    """(preset, why, how) of a fine-tune family named without its base (``miqu-1-70b-sf``: Llama-2-70B;
    profiles/finetune_bases.py), else (None, "", how_read)."""
    from rocm_tune.profiles.finetune_bases import FINETUNE_BASES

    if parts.series is None or parts.size_b is None:
        return None, "", how_read
    entry = FINETUNE_BASES.get((parts.series, parts.size_b))
    if entry is None or set(parts.tags) & entry[1]:
        return None, "", how_read
    idx = _preset_index()
    if entry[0] not in idx:
        return None, "", how_read
    spec = _load_preset_file(idx[entry[0]])
    return spec, spec.name, f"a fine-tune family of a known base ({entry[2]}); read as"


def _tokens_first(stem: str) -> str:
    return stem.strip().replace("_", "-").replace(" ", "-").split("-")[0]


def by_name(ref: str) -> Identified | None:
    """A reference that is not here, identified by its last component: a cache entry of that name, else the
    preset its series and size match."""
    from rocm_tune.core.model.names import parse_name

    parts = parse_name(ref)
    return _by_cache_name(ref, parts) or _by_parsed_name(ref, parts)


def _hub(ref: str, parts) -> Identified | None:
    repo = ref if _looks_like_repo_id(ref) else None
    if repo is None:
        return None
    cfg, where = model_cache.fetch_hub_config(repo)
    if cfg is None:
        return None
    spec = model_from_config(cfg, name=repo, source="hub", location=f"{where}/{repo}/config.json")
    return Identified(spec, "hub", f"{repo}: config.json from {where}", parts, *_quant_of(spec, parts))


_DENSE_LADDER = ("qwen2.5-0.5b", "qwen2.5-1.5b", "qwen2.5-3b", "llama-3.1-8b", "llama-2-13b", "qwen2.5-14b",
                 "qwen2.5-32b", "llama-3.1-70b")
_MOE_TEMPLATE = "qwen3-30b-a3b"
_LLAMA_KEYS = ("hidden_size", "intermediate_size", "num_attention_heads", "num_key_value_heads", "vocab_size",
               "tie_word_embeddings", "max_position_embeddings", "rms_norm_eps", "rope_theta", "head_dim",
               "torch_dtype")   # the template's checkpoint dtype (bf16): the models people fine-tune ship 16-bit


def _scaled(template: ModelSpec, total_b: float, model_type: str) -> dict:
    """The template's config with its layer count scaled so that the total is the named size."""
    per_layer = template.params.per_layer[0]
    fixed = template.params.total - sum(template.params.per_layer)
    layers = max(1, round((total_b * 1e9 - fixed) / per_layer))
    keys = _LLAMA_KEYS if model_type == "llama" else tuple(template.config)
    cfg = {k: template.config[k] for k in keys if k in template.config}
    cfg.update(model_type=model_type, num_hidden_layers=layers, architectures=["LlamaForCausalLM"]
               if model_type == "llama" else template.config.get("architectures"))
    if "max_window_layers" in cfg:
        cfg["max_window_layers"] = layers
    return cfg


def assumed_from_name(ref: str, parts) -> Identified | None:
    """A bounded answer where the name says the size: a Llama-style dense decoder (a Qwen3-MoE-style one for
    `30B-A3B` names) with that many parameters, stated as an assumption. None where the name says no size."""
    from dataclasses import replace

    from rocm_tune.core.model.names import effective_total, named_size

    source, arch = f"from {parts.size_text()!r} in its name", None
    if parts.size_b is None and named_size(parts) is not None:
        total, active, arch = named_size(parts)  # type: ignore[misc]
        parts = replace(parts, size_b=total, active_b=active)
        source = f"from the size its model card states for {parts.series}"
    raw = effective_total(parts)
    if raw is not None:            # "gemma-3n-E4B": 4B effective, 8B loaded
        source = f"from the raw parameter count its model card states for {parts.series} E{parts.size_b:g}B " \
                 f"(an effective size)"
        arch = raw[1]
        parts = replace(parts, size_b=raw[0])
    if parts.size_b is None or parts.size_b <= 0:
        return None
    same = _expert_layout_preset(parts)
    if same is not None:
        # "zephyr-8x7b", "nous-hermes-2-mixtral-8x7b": a fine-tune named by its expert layout has that layout's shape
        spec = replace(same, warnings=(), size_label=parts.size_text())
        q, qb = _quant_of(None, parts)
        assumption = (f"model: {ref!r} is not here, in no cache and matches no preset: its {parts.experts.upper()} "
                      f"expert layout is {same.name}'s: assumed that shape, {spec.params.total / 1e9:.2f}B parameters; "
                      f"give --model (a config.json or a preset) for the real shape")
        spec = replace(spec, notes=(*spec.notes, assumption))
        return Identified(spec, "assumed", f"{ref}: {same.name}'s shape assumed from its {parts.experts} name",
                          parts, q, qb, assumption=assumption)
    if parts.is_moe and parts.active_b is not None:
        tmpl = _load_preset_file(_MOE_TEMPLATE + ".yaml")
        cfg = _scaled(tmpl, parts.size_b, str(tmpl.config["model_type"]))
        experts = int(cfg["num_experts"])
        full = model_from_config(cfg)                  # top-k so that the active parameters are the named ones
        dense = full.params.total - full.params.experts
        k = (parts.active_b * 1e9 - dense) * experts / max(1, full.params.experts)
        cfg["num_experts_per_tok"] = max(1, min(experts, round(k)))
        shape = f"a mixture-of-experts ~{parts.size_text()} model (the shape of {tmpl.name}, {cfg['num_hidden_layers']}" \
                f" layers, {cfg['num_experts_per_tok']} of {experts} experts per token)"
    else:
        sizes = [(abs(_log(_load_preset_file(n + '.yaml').params.total / 1e9) - _log(parts.size_b)), n)
                 for n in _DENSE_LADDER]
        tmpl = _load_preset_file(min(sizes)[1] + ".yaml")
        cfg = _scaled(tmpl, parts.size_b, "llama")
        shape = f"a dense ~{parts.size_b:g}B model (Llama-style decoder: hidden size {cfg['hidden_size']} " \
                f"of {tmpl.name}, {cfg['num_hidden_layers']} layers)"
    spec = model_from_config(cfg, name=parts.stem, source="assumed", location=None)
    spec = replace(spec, warnings=(), size_label=parts.size_text())
    q, qb = _quant_of(None, parts)
    not_modelled = f"its architecture ({arch}) is not modelled; " if arch else ""
    assumption = (f"model: {ref!r} is not here, in no cache and matches no preset: {not_modelled}assumed {shape}, "
                  f"{spec.params.total / 1e9:.2f}B parameters, {source}; "
                  f"give --model (a config.json or a preset) for the real shape")
    detail = f"{ref}: {shape} assumed from its name"
    spec = replace(spec, notes=(*spec.notes, assumption))
    return Identified(spec, "assumed", detail, parts, q, qb, assumption=assumption)


def _expert_layout_preset(parts) -> ModelSpec | None:
    """The preset whose name carries the same `NxMb` expert layout (8x7b -> Mixtral-8x7B), or None."""
    if not parts.experts or "x" not in parts.experts:
        return None
    from rocm_tune.core.model.names import parse_name

    for key, fname in sorted(_preset_index().items()):
        if parse_name(key).experts == parts.experts:
            return _load_preset_file(fname)
    return None


def _log(x: float) -> float:
    import math

    return math.log(max(x, 1e-6))


def identify_model(ref: str | None, network: bool = True) -> Identified:
    """See _identify; the spec carries how it was identified (``identified_by``) and its quantization."""
    from dataclasses import replace

    got = _identify(ref, network)
    if got.spec is None:
        return got
    spec = replace(got.spec, identified_by=got.how, identified=got.detail, quantization=got.quant,
                   quant_bits=got.quant_bits)
    return replace(got, spec=spec)


def _identify(ref: str | None, network: bool) -> Identified:
    """Identify a model reference, in order: a directory (or config.json) here; the HF/ModelScope caches by hub
    id; a preset of that name; the caches by the last path component and a preset matched by the name's
    series and size; with network (not HF_HUB_OFFLINE), config.json from the Hub; else a bounded assumption
    from the size in the name. Never raises for a name it cannot place: ``how == "unknown"`` with a question."""
    from rocm_tune.core.model.names import parse_name

    text = (ref or "").strip() if isinstance(ref, str) else ""
    parts = parse_name(text)
    if not text:
        return Identified(None, "unknown", "no model given", parts, question="--model")
    p = Path(os.path.expanduser(text))
    if (p.is_dir() and (p / "config.json").is_file()) or (p.is_file() and p.name.endswith(".json")):
        from_path = _from_file(p, text)
        return Identified(from_path, "path", f"{from_path.location}", parts, *_quant_of(from_path, parts))
    spec = _cached(text)
    if spec is not None:
        return Identified(spec, spec.source, f"{text}: {spec.location}", parts, *_quant_of(spec, parts))
    got = _by_cache_name(text, parts)          # a cached config.json is the real one: before any preset
    if got is not None:
        return got
    key = text.lower()
    if key in _preset_index():
        spec = _load_preset_file(_preset_index()[key])
        return Identified(spec, "preset", f"{text}: preset {spec.name}", parts, *_quant_of(spec, parts))
    got = _by_parsed_name(text, parts)
    if got is None and network:
        got = _hub(text, parts)
    if got is None:
        got = assumed_from_name(text, parts)
    if got is not None:
        return got
    why = "the name says no size" if parts.series else "the name says neither family nor size"
    return Identified(None, "unknown", f"{text}: not here, in no cache, no preset, {why}", parts, question="--model")
