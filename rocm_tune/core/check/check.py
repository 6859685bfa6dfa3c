"""`check`: a config the user already has -> what runs, per-GPU memory by phase, verdict, findings, the
minimal fix in their own files (pure: standard library + yaml through core.formats)."""

from __future__ import annotations

import difflib
import json
import os
import re
from dataclasses import dataclass, field, replace
from typing import Any

from rocm_tune.core.memory import fitting
from rocm_tune.core.memory import megatron_attention
from rocm_tune.core.check import lengths
from rocm_tune.core import formats
from rocm_tune.core.plan import search as plan_search
from rocm_tune.core.memory import estimate as _memory
from rocm_tune.core import vocabulary as V
from rocm_tune.core.errors import UserError
from rocm_tune.core.files import MAX_CONFIG_BYTES, load_json, read_text
from rocm_tune.core.memory.estimate import TrainConfig, estimate
from rocm_tune.core.runners import deepspeed as deepspeed_json
from rocm_tune.core.runners import deepspeed as ds
from rocm_tune.core.runners import megatron
from rocm_tune.core.runners import program_bounds, unsloth
from rocm_tune.core.runners.torchtune import CHUNKED_CE_KEY
from rocm_tune.core.runners.common import Finding, as_bool, as_int
from rocm_tune.core.runners.config import UNTRUNCATED, UNTRUNCATED_CAPS, BadValue, eval_batch_default, fsdp_spec
from rocm_tune.core.runners.config import trainer_fused_loss, trainer_passes_labels
from rocm_tune.core.runners.config import build_config as _build_config
from rocm_tune.core.runners.config import where as _where
from rocm_tune.core import runners
from rocm_tune.core.hardware import rules as hw_rules
from rocm_tune.core.hardware import sdpa_release

# the estimator's own reserved = peak x (1 + fragmentation) + context, so that check and estimate agree
FRAGMENTATION = _memory._FRAGMENTATION
CONTEXT = _memory._ALLOC_CONTEXT
FP16_OVERFLOW_FAMILIES = ("gemma", "gemma2", "gemma3_text", "t5")
# the planner's headroom (reserved <= 85 % of VRAM): above it a "fits" is inside the estimate's error, and a
# fix is searched to land under it, as a plan would
HEADROOM = V.DEFAULT_HEADROOM
MODELLED = ("llamafactory", "builtin", "hf", "ms-swift", "axolotl", "torchtune", "megatron")


@dataclass
class Report:
    job: formats.Job
    runner: str
    world_size: int
    cfg: TrainConfig | None
    model: Any
    gpu: Any
    memory: dict | None
    vram_bytes: int | None
    verdict: str
    oom_phase: str | None
    margin_bytes: int | None
    findings: list[Finding]
    assumptions: list[str]
    fix: dict | None
    execution: dict | None
    cpu_ram_bytes: int = 0
    reason: str = ""
    est_notes: list[str] = field(default_factory=list)
    sequence_bound: dict | None = None     # which bound the step's sequence was counted at (issue 26)

    @property
    def exit_code(self) -> int:
        bad = any(f.severity == "error" for f in self.findings)
        return 0 if self.verdict == "fits" and not bad else 1

    def to_dict(self) -> dict:
        return {
            "runner": self.runner, "world_size": self.world_size,
            "understood": _understood(self.cfg) if self.cfg else None,
            "model": None if self.model is None else {"name": self.model.name, "family": self.model.family,
                                                       "source": self.model.source,
                                                       "identified_by": getattr(self.model, "identified_by", None),
                                                       "identified": getattr(self.model, "identified", None),
                                                       "quantization": getattr(self.model, "quantization", None)},
            "gpu": None if self.gpu is None else {"id": self.gpu.id, "vram_gib": self.gpu.vram_gib},
            "execution": self.execution, "memory": self.memory, "cpu_ram_bytes": int(self.cpu_ram_bytes),
            "vram_bytes": self.vram_bytes, "verdict": self.verdict, "oom_phase": self.oom_phase,
            "margin_bytes": self.margin_bytes, "reason": self.reason,
            "findings": [f.to_dict() for f in self.findings], "fix": self.fix,
            "assumptions": list(self.assumptions), "notes": list(self.job.notes) + list(self.est_notes),
            **({"sequence_bound": self.sequence_bound} if self.sequence_bound else {}),
        }


# ------------------------------------------------------------------------------------------------ model
def resolve_model(ref: str | None, override: str | None):
    """(ModelSpec or None, note or None, finding or None): core.model.architecture.identify_model (a directory here, the
    caches, a preset, the name, the Hub, an assumption from the name); the spec says how (identified_by)."""
    from rocm_tune.core.model.architecture import HOW, identify_model, load_model

    if override:
        got = identify_model(override)
        if got.spec is None:
            load_model(override)                 # the one-line error of bad --model input
        return got.spec, f"model from --model {override} ({HOW[got.how]}: {got.detail})", None
    if not ref:
        return None, None, Finding.of("model-missing", None, None,
                                      "no model_name_or_path / --model in the config", "pass --model ID|PATH")
    if isinstance(ref, dict):     # a model the program builds from its own dimensions (core/runners/hf.py)
        from rocm_tune.core.model.architecture import model_from_config

        dims = ", ".join(f"{k} {v}" for k, v in ref.items() if k != "hidden_act")
        return (model_from_config(ref, name="custom", source="program"),
                f"model built from the program's own dimensions ({dims})", None)
    if not isinstance(ref, str):  # a list or a number where the model's name or path belongs
        raise UserError(f"model_name_or_path must be a model id or path, got {type(ref).__name__} {str(ref)[:60]}")
    got = identify_model(ref)
    if got.spec is None and re.fullmatch(r"\$\{?[A-Za-z_][A-Za-z0-9_]*\}?/?", ref.strip()):
        # `--model_name_or_path $MODEL_PATH` where no file given sets MODEL_PATH: the one fact that decides
        return None, None, Finding.of("model-unknown", None, None,
                                      f"the model is {ref.strip()}, a shell variable none of the files given sets: "
                                      f"which model is it?", "pass --model ID|PATH")
    if got.spec is None:
        return None, None, Finding.of("model-unknown", None, None,
                                      f"which model is {ref!r}? {got.detail}: its memory cannot be bounded",
                                      "pass --model with a preset, a hub id or a directory holding config.json")
    return got.spec, (None if got.how == "assumed" else f"model identified by {HOW[got.how]}: {got.detail}"), None


EXPERT_KEYS = ("num_local_experts", "num_experts", "n_routed_experts", "moe_num_experts")


def _model_question(findings: list) -> str:
    """The unknown verdict's reason when the model decides: the one question, with what the files say of it."""
    f = next((f for f in findings if f.code in ("model-unknown", "model-missing")), None)
    ref = next((r for r in findings if r.code == "reference-missing" and "reads its arguments from" in r.message), None)
    if f is not None and f.code == "model-missing" and ref is not None:
        # `swift sft FILE.yaml` without FILE: the model is in the file the command reads, not a missing flag
        return f"the model is not known: {ref.message}; give it beside the script (or pass --model)"
    if f is None:
        return "the model is not known: pass --model"
    return f"the model is not known ({f.message}): pass --model"


def _model_findings(model, job: formats.Job) -> list[Finding]:
    """The model loader's warnings as findings; a mixture-of-experts config counted without its experts (an
    architecture we do not know, read as a dense Llama-style decoder) is an error: never silently wrong."""
    out: list[Finding] = []
    where = _where(job, "model_name_or_path")
    cfg = getattr(model, "config", {}) or {}
    experts = next((int(cfg[k]) for k in EXPERT_KEYS if isinstance(cfg.get(k), int) and cfg[k] > 1), 0)
    for w in getattr(model, "warnings", ()) or ():
        if "unknown model_type" in w and experts and not getattr(model, "num_experts", 0):
            out.append(Finding.of("model-not-modelled", *where,
                                  f"{w}, but its config has {experts} experts per layer that such a decoder does not "
                                  f"have: the memory would be several times too low, so no verdict",
                                  "a preset or transformers installed (exact count on the meta device)"))
        else:
            out.append(Finding.of("model-fallback", *where, w, None))
    return out


# ------------------------------------------------------------------------------------------------ config
def runner_defaults(runner: str) -> dict:
    """The DEFAULTS of the runner module that reads `runner`'s files (core/runners/<runner>.py)."""
    from rocm_tune.core.runners import axolotl, builtin, hf, llamafactory, megatron, ms_swift, torchtune

    return {"llamafactory": llamafactory.DEFAULTS, "builtin": builtin.DEFAULTS, "ms-swift": ms_swift.DEFAULTS,
            "axolotl": axolotl.DEFAULTS, "torchtune": torchtune.DEFAULTS, "megatron": megatron.DEFAULTS,
            }.get(runner, hf.DEFAULTS)


def build_config(job: formats.Job, model, gpus: int | None, nodes: int | None):
    """(TrainConfig, findings, assumptions): core/runners/config.build_config with the job's runner's DEFAULTS."""
    from rocm_tune.core.runners.llamafactory import release_defaults

    return _build_config(job, model, gpus, nodes, {**runner_defaults(job.runner), **release_defaults(job),
                                                   **job.defaults})


def _as_run(job: formats.Job, model, cfg: TrainConfig, gpu, assumptions: list[str]) -> tuple[TrainConfig, str | None]:
    """The configuration as the card and the checkpoint make it run: a quantized checkpoint's width, Megatron's and
    SDPA's attention kernel on this card, the vision tower's setup; (config, SDPA's note or None)."""
    cfg = _quantized_base(model, cfg, job.notes, gpu)
    cfg = _megatron_attention(job, cfg, gpu, assumptions)
    cfg = _attention_span(job, cfg)
    cfg, vision_assumed = _vision_setup(job, model, cfg)
    assumptions += vision_assumed
    return _sdpa_math(model, cfg, gpu, _auto_half(job, gpu), job)


def _attention_span(job: formats.Job, cfg: TrainConfig) -> TrainConfig:
    """An eager attention that materialises each token's scores over a fraction of the sequence only (LongQLoRA's
    S2-Attn without flash: groups of 1/4, profiles/qlora_programs.py): the eager scores' bytes per token scaled by it
    (the kept fp32 softmax and its 16-bit copy; the softmax backward's fp32 gradient)."""
    span = job.get("__attn_span__")
    if cfg.attn != "eager" or not isinstance(span, float) or not 0 < span < 1 or cfg.scores_bytes is not None:
        return cfg
    compute = 2 if cfg.precision in ("bf16", "fp16") else 4
    fwd, bwd = (4 + compute, 8 - compute) if compute == 2 else (4, 8)
    return replace(cfg, scores_bytes=(fwd * span, bwd * span))


def _auto_half(job: formats.Job, gpu) -> str | None:
    """Unsloth's from_pretrained(dtype=None) picks the half type the card has: bfloat16 where it is supported,
    float16 otherwise (unslothai/unsloth unsloth/models/loader.py: `dtype = torch.float16 if not
    SUPPORTS_BFLOAT16 else torch.bfloat16`); the reader (runners/hf.py) says bf16, the card decides here."""
    s = job.settings.get("load_dtype")
    if s is None or s.native != "from_pretrained" or s.value != "bf16" or gpu is None:
        return None
    return "fp16" if getattr(gpu, "bf16", None) in ("none", "emulated") else None


def _megatron_attention(job: formats.Job, cfg: TrainConfig, gpu, assumptions: list[str]) -> TrainConfig:
    """Megatron on a card FlashAttention has no kernels for (V100, T4, MI50): Transformer Engine disables both its
    FlashAttention and its cuDNN fused attention below compute capability 8.0 (transformer_engine/pytorch/attention/
    dot_product_attention/utils.py get_attention_backend) and runs UnfusedDotProductAttention; the local
    implementation has only FlashAttention as its fused path. Either keeps the b x a x s x s scores: eager."""
    if job.runner != "megatron" or gpu is None or getattr(gpu, "fa2", None) or cfg.attn in ("eager", "sdpa") and \
            job.settings.get("flash_attn") is not None:
        return cfg
    assumptions.append(f"attention: Megatron on {gpu.id}, which FlashAttention and Transformer Engine's fused "
                       f"attention have no kernels for: the unfused attention keeps the scores (counted as eager)")
    return replace(cfg, attn="eager")


def _quantized_base(model, cfg: TrainConfig, notes: list[str], gpu=None) -> TrainConfig:
    """A checkpoint stored quantized (AWQ/GPTQ/bnb/FP8, from its config.json or its name) trained with LoRA
    holds its linears at that width: estimated as QLoRA of those bits, said. FP8 on a card without FP8 is
    dequantized to bf16 (transformers' FP8 quantizer below compute capability 8.9)."""
    bits = getattr(model, "quant_bits", None)
    if bits and model.quantization == "FP8" and gpu is not None and getattr(gpu, "fp8", None) is False:
        notes.append(f"the checkpoint is FP8 and {gpu.id} has no FP8: transformers dequantizes it to bf16, "
                     f"counted at 16 bits")
        return cfg
    if bits and cfg.method == "lora" and _compressed_tensors(model):
        notes.append("the checkpoint is compressed-tensors (llm-compressor): transformers loads its linears as "
                     "CompressedLinear (CompressedTensorsConfig run_compressed=True), whose first forward decompresses "
                     "the weight and keeps it as a 16-bit parameter for good (compressed-tensors >= 0.9.3, "
                     "linear/compressed_linear.py forward): counted at 16 bits (the packed copy, also kept, is not "
                     "counted)")
        return cfg
    if bits in (4, 8) and cfg.method == "lora":
        notes.append(f"the checkpoint is {model.quantization}: its linear weights are counted at {bits} bits "
                     f"(as QLoRA {bits}-bit), not 16")
        return replace(cfg, method="qlora", quant_bits=bits)
    return cfg


def _compressed_tensors(model) -> bool:
    """The checkpoint's config.json says quant_method compressed-tensors (llm-compressor's format: its AWQ / GPTQ /
    W4A16 / FP8 exports)."""
    config = getattr(model, "config", None)
    qc = config.get("quantization_config") if isinstance(config, dict) else None
    return isinstance(qc, dict) and str(qc.get("quant_method") or "").lower() == "compressed-tensors"


# ------------------------------------------------------------------------------------------------ memory
def _vision_pixels(job: formats.Job, tower) -> tuple[int, str]:
    """The pixel cap of one image as the job sets it, or the runner's / processor's default, and how it is said."""
    from rocm_tune.core.model import vision as model_vision
    from rocm_tune.core.runners.common import as_int

    s = job.settings.get("image_max_pixels")
    pixels = as_int(s.value) if s is not None else None
    t = job.settings.get("image_max_tokens")
    if not pixels and t is not None and as_int(t.value):
        n = as_int(t.value)
        return n * tower.pixels_per_token, (f"{n * tower.pixels_per_token} pixels ({t.native} {n} tokens of "
                                            f"{tower.pixels_per_token} pixels)")
    res = job.settings.get("image_resolution")   # LLaMA-Factory before image_max_pixels: the longer side's cap
    side = as_int(res.value) if res is not None else None
    if pixels and s is not None:
        return pixels, f"{pixels} pixels ({s.native})"
    if side:
        return side ** 2, f"{side ** 2} pixels (image_resolution {side} squared)"
    if job.runner == "llamafactory":
        return model_vision.LLAMAFACTORY_MAX_PIXELS, (f"{model_vision.LLAMAFACTORY_MAX_PIXELS} pixels "
                                                      f"(LLaMA-Factory's image_max_pixels default)")
    cap = tower.default_max_pixels
    return cap, (f"{cap} pixels (the Qwen-VL processor's max_pixels default, {model_vision.PROCESSOR_MAX_TOKENS} "
                 f"tokens; MAX_PIXELS not set)")


def _swift2(job: formats.Job) -> bool:
    """ms-swift 2.x (core/runners/ms_swift.SWIFT2_FLAGS): its Qwen2-VL template (swift/llm/utils/template.py
    _Qwen2VLTemplateMixin._encode) runs Template._encode - max_length's delete / left-cut on the ids where each image
    is one placeholder - and only then expands every image to its grid's tokens: the whole image reaches the tower
    and its tokens come on top of max_length. That release ran on transformers 4.45-4.47, whose Qwen2-VL
    VisionSdpaAttention calls SDPA on 3-D (heads, n, d) tensors with a [1, n, n] mask: the math backend, which
    materialises the scores as eager attention does (and eager is what --use_flash_attn false loads)."""
    s = job.settings.get("swift_major")
    return job.runner == "ms-swift" and s is not None and str(s.value) == "2"


def _whole_images(job: formats.Job, tower=None) -> bool:
    """Whether a sample longer than cutoff_len still reaches the vision tower with its whole image.
    LLaMA-Factory (data/processor/supervised.py: mm_plugin.process_messages expands the image tokens, infer_seqlen
    then cuts the token ids; the collator's get_mm_inputs makes pixel_values of the whole image) and ms-swift do:
    before its fix of 2025-05-12 (#4178, 3.5) every ms-swift Qwen-VL template checked max_length on the ids with one
    placeholder per image and expanded the images afterwards (swift/llm/template/template/qwen.py
    Qwen2VLTemplate._encode calls super()._encode first; 2.x the same), and since then --truncation_strategy
    left/right keep every placeholder (swift/template/base.py _truncate). Only a newer ms-swift's default raise
    (MaxLengthError: the row is skipped) drops the sample: 4.x (--tuner_type) is newer; otherwise the version is not
    in the files and the older is assumed."""
    if job.runner == "llamafactory" or job.runner == "ms-swift" and not _swift_new(job, tower):
        return True
    t = job.settings.get("truncation_strategy")
    return job.runner == "ms-swift" and t is not None and str(t.value).strip("'\"").lower() in ("left", "right")


def _swift_new(job: formats.Job, tower=None) -> bool:
    """An ms-swift after the max_length fix of 2025-05-12 (3.4.1: Template._encode_truncated): its 4.x flags say so,
    or --vit_gradient_checkpointing (a TrainArguments field from 3.5, #4336), or the model does - ms-swift
    supports Qwen3-VL (and Qwen3.5, the same tower) from 3.9 (swift/llm/model/model/qwen.py register of
    qwen3_vl, October 2025), after 3.5."""
    s = job.settings.get("swift_major")
    vgc = job.settings.get("vit_gradient_checkpointing")
    return s is not None and str(s.value) == "4" or getattr(tower, "kind", None) == "qwen3_vl" \
        or job.runner == "ms-swift" and vgc is not None and vgc.native == "vit_gradient_checkpointing"


def _tokens_on_top(job: formats.Job, tower) -> bool:
    """ms-swift before 3.5 cuts max_length on the ids with one placeholder per image and expands the images after:
    their tokens come on top of a max_length the job sets (or 2.x's 2048)."""
    return job.runner == "ms-swift" and not _swift_new(job, tower) and not getattr(tower, "positions", None) \
        and job.settings.get("cutoff_len") is not None


def _swift_tower_input_grads(job: formats.Job, cfg: TrainConfig, tower, trainable: bool) -> bool:
    """Whether ms-swift makes a frozen tower's input require grad, so autograd records its pass. Under gradient
    checkpointing it calls vision_tower.enable_input_require_grads() (2.x swift/llm/sft.py; 3.x swift/llm/train/
    sft.py, then swift/trainers/mixin.py _prepare_gradient_checkpointing with --vit_gradient_checkpointing, True by
    default), which hooks the tower's get_input_embeddings() and swallows NotImplementedError. The transformers those
    releases ran (4.45-4.52) give the Qwen2-VL / Qwen2.5-VL vision models no get_input_embeddings (PreTrainedModel's
    looks for base_model_prefix "model" and raises NotImplementedError; transformers 5 later set _input_embed_layer =
    "patch_embed"), so before ms-swift 3.5 nothing is hooked and the frozen tower runs without a graph; 3.5
    (#4336, 2025-05-24: "refactor GC & support vit_gc") patches it to the patch embedding
    (patch_get_input_embeddings(model.visual, 'patch_embed')). The tiled towers' and Qwen2-Audio's encoders define
    their own; a tower that is a plain nn.Module (GLM-4V's EVA2CLIPModel) has no enable_input_require_grads."""
    vgc = job.settings.get("vit_gradient_checkpointing")
    if job.runner != "ms-swift" or trainable or not cfg.gradient_checkpointing \
            or not getattr(tower, "input_grads_hook", True) or vgc is not None and as_bool(vgc.value) is False:
        return False
    return type(tower).__name__ != "VisionTower" or _swift_new(job, tower)


def _default_image_cap(job: formats.Job, tower) -> bool:
    """Whether one image's size is bounded only by the Qwen-VL processor's own max_pixels (16384 tokens): a Qwen2-VL /
    Qwen2.5-VL / Qwen3-VL tower (not a tiled, CLIP or audio one) and nothing the job sets caps it (MAX_PIXELS,
    IMAGE_MAX_TOKEN_NUM, max_pixels, image_resolution; LLaMA-Factory's image_max_pixels default 768 x 768)."""
    if type(tower).__name__ != "VisionTower" or job.runner == "llamafactory":
        return False
    return not any(job.settings.get(k) is not None for k in ("image_max_pixels", "image_max_tokens",
                                                              "image_resolution"))


def _tower_lora(job: formats.Job, cfg: TrainConfig, frozen: bool) -> bool:
    """LoRA over every linear layer reaches the vision tower when the runner does not freeze it: LLaMA-Factory's
    find_all_linear_modules leaves the tower out only under freeze_vision_tower (model/model_utils/misc.py),
    ms-swift's all-linear only under freeze_vit (swift/llm/model/utils.py get_multimodal_target_regex), ms-swift
    2.x's --lora_target_modules ALL takes every linear of the model. The tower's pass is then recorded."""
    if cfg.method not in ("lora", "qlora"):
        return False
    t = job.settings.get("lora_target")
    if t is None and _swift2(job):
        # ms-swift 2.x: --lora_target_modules defaults to DEFAULT, the model type's own list (swift/llm/utils/
        # model.py LoRATM: the language model's attention, e.g. glm4v's self_attention.query_key_value)
        return False
    target = str(t.value).strip("'\"").lower() if t is not None else "all"
    return target in ("all", "all-linear") and not frozen or target == "all" and t is not None \
        and t.native == "lora_target_modules"


def _tower_frozen(job: formats.Job) -> tuple[bool, str]:
    """Whether the runner freezes the encoder tower, and how that is said. ms-swift 2.x: SftArguments.freeze_vit =
    False (swift/llm/utils/argument.py; a full sft adds the tower to freeze_parameters only under --freeze_vit true);
    3.x and LLaMA-Factory freeze it by default (LLaMA-Factory's freeze_vision_tower covers Qwen2-Audio's audio_tower:
    model/model_utils/visual.py registers it as the model's vision_model_keys)."""
    from rocm_tune.core.runners.common import as_bool

    unf = job.settings.get("unfreeze_mm_vision_tower")
    if job.settings.get("vision_tower") is not None:
        # LLaVA (llava/train/train.py): vision_tower.requires_grad_(False); LLaVA-NeXT unfreezes it on request
        if unf is not None and as_bool(unf.value):
            return False, f"{unf.native}: {unf.value}"
        return True, "LLaVA's train.py freezes --vision_tower"
    frozen_default = job.runner == "llamafactory" or job.runner == "ms-swift" and not _swift2(job)
    fz = job.settings.get("freeze_vision_tower")
    frozen = as_bool(fz.value) if fz is not None else None
    how = (f"{fz.native}: {fz.value}" if fz is not None else
           "the runner's default" if frozen_default else "ms-swift 2.x's freeze_vit default false" if _swift2(job)
           else "every parameter of a full fine-tune trains")
    return (frozen_default if frozen is None else frozen), how


def _tower_trains(job: formats.Job, cfg: TrainConfig, tower) -> tuple[bool, bool, str]:
    """(frozen by the runner, trained in this run, how that is said): a full fine-tune trains an unfrozen tower;
    MiniCPM-V's finetune.py --tune_vision true sets vpm.requires_grad_(True), also after get_peft_model."""
    from rocm_tune.core.runners.common import as_bool

    frozen, how = _tower_frozen(job)
    trainable = cfg.method == "full" and not frozen
    if cfg.method != "full" and how == "every parameter of a full fine-tune trains":
        how = f"{cfg.method}: only the adapters train"
    tv = job.settings.get("tune_vision")
    if tv is not None and as_bool(tv.value) and hasattr(tower, "tile_tokens"):
        trainable, how = True, f"{tv.native}: {tv.value} (the program trains the whole tower, also under LoRA)"
    return frozen, trainable, how


def _tower_lora_names(job: formats.Job, cfg: TrainConfig, tower) -> str | None:
    """A LoRA target list naming a module of the tower (GLM-4V's finetune_vision.py target query_key_value: PEFT
    wraps every module whose name ends so, EVA2-CLIP's attention included); None otherwise."""
    names = getattr(tower, "lora_names", ())
    t = job.settings.get("lora_target")
    if cfg.method not in ("lora", "qlora") or not names or t is None:
        return None
    text = str(t.value).strip("'\"[]")
    if any(c in text for c in "\\.*("):      # a regex (MiniCPM-V's "llm\..*layers...") names its own modules
        return None
    got = [w.strip(" '\"") for w in text.split(",") if w.strip(" '\"") in names]
    return ", ".join(got) or None


def _tiled_tokens(job: formats.Job, tower, cfg: TrainConfig, whole: bool, trainable: bool, how: str,
                  inside: str) -> tuple[int, str]:
    """Language tokens of one image of a tiled tower and the assumption said: InternVL's max_dynamic_patch tiles
    (ms-swift's MAX_NUM env, default 12; its template and the InternVL repo add a thumbnail tile when an image is
    cut into more than one; LLaMA-Factory one tile unless crop_to_patches), MiniCPM-V's source image +
    max_slice_nums slices (finetune.py --max_slice_nums), one 1120 x 1120 image for GLM-4V."""
    from rocm_tune.core.runners.common import as_bool, as_int

    tiles, said = tower.max_tiles, "the model's default"
    crop = job.settings.get("crop_to_patches")
    if tower.kind == "internvl" and job.runner == "llamafactory" and not (crop is not None and as_bool(crop.value)):
        # LLaMA-Factory's ProcessorArguments.crop_to_patches = False: the InternVL processor resizes each image to
        # one 448 x 448 tile (hparams/model_args.py; mm_plugin passes it to GotOcr2ImageProcessor)
        tiles, said = 1, "LLaMA-Factory's crop_to_patches default false"
    for key in ("max_dynamic_patch", "max_slice_nums"):
        st = job.settings.get(key)
        n = as_int(st.value) if st is not None else None
        if st is not None and n:
            tiles = n + 1 if tower.kind == "minicpmv" or n > 1 else n
            said = f"{st.native} {n}"
    full = tower.tokens_for(tiles)
    tokens = full if whole else min(full, cfg.cutoff_len)
    line = (f"vision tower {'trained' if trainable else 'frozen'} ({how}); one image per sample of at most {tiles} "
            f"tile(s) of {tower.tile}x{tower.tile} ({said}) = {full} tokens, {tokens} counted ({inside}), "
            f"{tower.patches_per_tile} ViT patches per tile")
    return tokens, line


def _vision_setup(job: formats.Job, model, cfg: TrainConfig) -> tuple[TrainConfig, list[str]]:
    """A VLM with a known vision tower: the image tokens per sample and whether the tower trains, as the runner
    decides them (LLaMA-Factory freeze_vision_tower, ms-swift freeze_vit: True by default; a plain HF/TRL full
    fine-tune trains every parameter), and the assumption that says so."""
    from dataclasses import replace

    tower = getattr(model, "vision", None)
    if tower is None:
        return cfg, []
    frozen, trainable, how = _tower_trains(job, cfg, tower)
    whole = _whole_images(job, tower) or getattr(tower, "kind", None) == "glm4v"
    inside = ("the whole image reaches the tower even where cutoff_len cuts the tokens" if whole else
              f"inside cutoff_len {cfg.cutoff_len}")
    if getattr(tower, "positions", None):
        # an audio encoder (Qwen2-Audio): its feature extractor pads or cuts every clip to 30 s (WhisperFeatureExtractor
        # chunk_length 30: 3000 mel frames), 1500 encoder positions, 750 language tokens; one clip per sample
        full = tower.tokens_per_clip
        tokens = full if whole else min(full, cfg.cutoff_len)
        line = (f"audio encoder {'trained' if trainable else 'frozen'} ({how}); one 30 s clip per sample (the feature "
                f"extractor pads or cuts each clip to 3000 mel frames) = {tower.positions} encoder positions, {full} "
                f"tokens, {tokens} counted ({inside.replace('image', 'clip')})")
    elif hasattr(tower, "tile_tokens"):
        tokens, line = _tiled_tokens(job, tower, cfg, whole, trainable, how, inside)
    elif tower.kind == "clip":
        tokens = min(tower.patches_per_image, cfg.cutoff_len)
        line = (f"vision tower {'trained' if trainable else 'frozen'} ({how}); one {tower.image_size}x"
                f"{tower.image_size} image per sample = {tower.patches_per_image} patches, each a language token "
                f"(inside model_max_length {cfg.cutoff_len})")
    else:
        pixels, said = _vision_pixels(job, tower)
        tokens = tower.tokens(pixels) if whole else min(tower.tokens(pixels), cfg.cutoff_len)
        line = (f"vision tower {'trained' if trainable else 'frozen'} ({how}); one image per sample of at most "
                f"{said} = {tower.tokens(pixels)} tokens of {tower.pixels_per_token} pixels, {tokens} counted "
                f"({inside}), {tokens * tower.patches_per_token} ViT patches per sample")
    input_grads = _swift_tower_input_grads(job, cfg, tower, trainable)
    if input_grads:
        line += ("; ms-swift makes the frozen tower's input require grad under gradient checkpointing "
                 "(vision_tower.enable_input_require_grads): each ViT block keeps its input")
    if not trainable and _tower_lora(job, cfg, frozen):
        input_grads = True
        line += "; LoRA over all linear layers reaches the unfrozen tower: autograd records its pass"
    named = _tower_lora_names(job, cfg, tower)
    if not trainable and not input_grads and named:
        input_grads = True
        line += (f"; the LoRA target {named} also names the tower's linears (PEFT matches module names anywhere in "
                 f"the model): autograd records its pass")
    if (trainable or input_grads) and not getattr(tower, "checkpointing", True):
        line += "; the tower's blocks are not checkpointed (its remote code has no checkpointing hook)"
    cutoff, scores = cfg.cutoff_len, False
    if getattr(tower, "kind", None) == "glm4v":
        # GLM-4V-9B's modeling_chatglm.py inserts the image's 1600 embeddings between boi and eoi inside forward: the
        # ids the program cut carry only the markers, so the image comes whole on top of the cut text
        cutoff = cfg.cutoff_len + tokens - tower.extra_tokens
        line += f"; the model inserts the image's tokens inside forward, on top of the cut text: {cutoff} tokens"
    if job.runner == "ms-swift" and not _swift_new(job, tower) and not getattr(tower, "positions", None):
        # on top of a max_length the job sets (or 2.x's 2048); an unset 3.x max_length is the model's context already
        cutoff = cfg.cutoff_len + tokens if _tokens_on_top(job, tower) else cfg.cutoff_len
        scores = cfg.attn != "fa2" and tower.batch_wide_math_scores
        line += (f"; ms-swift before 3.5 expands the image tokens after max_length is applied: the language model "
                 f"sees up to {cutoff} tokens" + ("; the transformers of that time (4.45-4.51) run the Qwen2-VL / "
                                                  "Qwen2.5-VL vision SDPA on its math backend: attention scores over "
                                                  "the image's patches are materialised" if scores else ""))
    return replace(cfg, image_tokens=tokens, vision_trainable=trainable, vision_input_grads=input_grads,
                   cutoff_len=cutoff, vision_scores=scores), [line]


def _sdpa_math(model, cfg: TrainConfig, gpu, half: str | None = None,
               job: formats.Job | None = None) -> tuple[TrainConfig, str | None]:
    """SDPA on a card that has no flash / mem-efficient kernel for the dtype the attention runs in falls back to
    PyTorch's math kernel, which materialises the scores and the softmax as eager attention does
    (core/hardware/rules.sdpa_backend): counted as eager, with the line that says why. On an AMD card the kernels are
    those of the torch release the files state (core/hardware/sdpa_release.py), else the profile's (today's)."""
    if gpu is None or cfg.attn != "sdpa" or getattr(gpu, "sdpa_flash", None) is None:
        return cfg, None      # no card, or one given by its memory only (--vram-gib): its kernels are not known
    release = _release_kernels(job, gpu)
    if release is not None:
        gpu = replace(gpu, sdpa_flash=release.flash, sdpa_mem_efficient=release.mem_efficient)
    reg = runners.regime(model, cfg)
    dtype = half or reg.autocast or reg.compute_dtype
    if hw_rules.sdpa_backend(gpu, dtype) != "math":
        return cfg, None
    kernels = [k for k, on in (("flash", gpu.sdpa_flash), ("mem-efficient", gpu.sdpa_mem_efficient)) if on]
    why = (f"its {' and '.join(kernels)} kernel{'s take' if len(kernels) > 1 else ' takes'} no {dtype}" if kernels
           else "no flash or mem-efficient kernel for its architecture")
    if release is not None:
        why += f" under {release.why}"
    return replace(cfg, attn="eager"), (
        f"SDPA attention in {dtype} on {gpu.id} ({gpu.arch}: {why}) runs PyTorch's math kernel, which keeps the "
        f"[heads, seq, seq] scores and softmax of every layer as eager attention does: counted as eager "
        f"(pytorch sdp_utils.cpp)")


def _release_kernels(job: formats.Job | None, gpu) -> sdpa_release.Kernels | None:
    """The SDPA kernels of the torch release the job's files state, on an AMD card; None elsewhere / unstated."""
    if job is None or getattr(gpu, "vendor", None) != "amd" or getattr(gpu, "platform", "rocm") != "rocm":
        return None
    texts = [t for t in (getattr(job, "files", None) or {}).values() if isinstance(t, str)]
    return sdpa_release.kernels(str(gpu.arch), texts, dict(getattr(job, "env", None) or {}))


def _ds_delta(model, cfg: TrainConfig, dsc: deepspeed_json.DsConfig | None) -> tuple[float, str | None]:
    """Bytes the user's DeepSpeed JSON holds beyond what the estimator assumes (buckets as written)."""
    if dsc is None or not cfg.zero_stage:
        return 0.0, None
    ours = ds.zero_settings(model, cfg)
    hidden = int(model.hidden_size)
    gb = 2 if cfg.precision in ("bf16", "fp16") else 4
    b_user = dsc.bucket("reduce_bucket_size", hidden)
    if cfg.zero_stage < 3:
        mine = ours["reduce_bucket_size"] * gb * (2 if ours["overlap_comm"] else 1)
        theirs = b_user * gb * (2 if dsc.overlap_comm else 1)
    else:
        mine = ours["reduce_bucket_size"] * gb
        theirs = b_user * gb
    delta = float(theirs - mine)
    note = None
    if abs(delta) >= 64 * 2**20:
        note = (f"DeepSpeed buckets as your JSON writes them: reduce_bucket_size {b_user:,} elements"
                f"{' x2 (overlap_comm)' if dsc.overlap_comm and cfg.zero_stage < 3 else ''} = "
                f"{theirs / 2**30:.2f} GiB per GPU")
    return delta, note


# the NCCL/RCCL communicators are the estimator's (core/memory/estimate.py), counted in its reserved: re-exported here
COMM_PCIE, COMM_LINK, COMM_NVLS = _memory.COMM_PCIE, _memory.COMM_LINK, _memory.COMM_NVLS
communicator_bytes = _memory.communicator_bytes


def _phase(alloc: float, frag: float = FRAGMENTATION) -> dict:
    alloc = max(0.0, alloc)
    return {"peak_allocated_bytes": int(alloc), "reserved_bytes": int(alloc * (1 + frag) + CONTEXT)}


def _eval_outputs(model, job: formats.Job | None) -> tuple[int, bool]:
    """(logits per token, is a task head): a classification / QA head's label count (profiles/eval_phase.py HEAD_SRC)
    or the vocabulary."""
    head = as_int(job.get("__head_outputs__")) if job is not None else None
    if head:
        return head, True
    return int(getattr(model, "vocab_size", 0) or model.config.get("vocab_size", 0) or 0), False


def eval_preds_held(model, cfg: TrainConfig, eval_batch: int, job: formats.Job | None) -> float:
    """The predictions transformers' evaluation_loop keeps on the GPU across batches (profiles/eval_phase.py
    PREDS_SRC): with compute_metrics and nothing that reduces or moves them, every batch's logits, gathered from every
    rank, are appended to all_preds until the eval set ends. Counted: one gathered batch held while the next batch
    runs (in the compute dtype; it grows by as much every eval batch: a lower bound)."""
    from rocm_tune.profiles.eval_phase import PREDS_RELEASED_BY

    if job is None or job.runner not in _HF_TRAINER_RUNNERS or not as_bool(job.get("__compute_metrics__")) \
            or as_bool(job.get("__preprocess_logits_for_metrics__")) or cfg.stage not in ("sft", "pt") \
            or str(job.get("stage", "sft")).lower() not in ("sft", "pt"):
        # (DPO / KTO / reward trainers' own prediction_step returns a few per-row scalars, not the logits)
        return 0.0
    if any(job.get(k) is not None and str(job.get(k)).strip().lower() not in ("0", "false", "none", "no", "")
           for k in PREDS_RELEASED_BY):
        return 0.0
    from rocm_tune.core import runners

    outputs, _head = _eval_outputs(model, job)
    # a sequence-classification / multiple-choice head returns its pooled logits (N per row), the others per token
    per_row = outputs if as_bool(job.get("__head_pooled__")) else outputs * cfg.cutoff_len
    return float(max(1, cfg.world_size) * eval_batch * per_row * runners.regime(model, cfg).compute_bytes)


def eval_eager_scores(model, cfg: TrainConfig, rows: int) -> float:
    """Eager attention in an evaluation forward (transformers eager_attention_forward under no_grad): the 4-D causal
    mask in the compute dtype, kept through the forward, and one layer's scores at a time: the 16-bit scores, the
    mask added (a copy), softmax(dtype=float32) and its cast back to the compute dtype, alive together at the cast
    (2 + 2 + 4 + 2 B per score with 16-bit compute). 0 under sdpa / flash attention."""
    if not (cfg.attn == "eager" or (cfg.attn == "sdpa" and not getattr(model, "sdpa_supported", True))):
        return 0.0
    from rocm_tune.core import runners

    cb = runners.regime(model, cfg).compute_bytes
    scores = rows * max(1, int(model.num_attention_heads)) * cfg.cutoff_len ** 2
    return float(scores * (3 * cb + 4 if cb == 2 else 2 * cb) + rows * cfg.cutoff_len ** 2 * cb)


def _logits_eval(model, cfg: TrainConfig, eval_batch: int, job: formats.Job | None = None) -> float:
    # a preference stage's evaluation runs the same concatenated forward as its step: chosen and rejected of every
    # pair in one batch (TRL DPOTrainer.prediction_step -> get_batch_loss_metrics(train_eval="eval") ->
    # concatenated_forward; ORPO / CPO likewise; LLaMA-Factory's PairwiseDataCollatorWithPadding): 2 rows per pair
    # (a reward model evaluates chosen and rejected as it trains them)
    rows = eval_batch * (2 if cfg.stage == "dpo" else 1)
    tokens = rows * cfg.cutoff_len
    vocab, head = _eval_outputs(model, job)
    held = eval_preds_held(model, cfg, eval_batch, job)
    # eager attention's scores peak inside a layer, the logits after the last one: the larger of the two counts
    attn = eval_eager_scores(model, cfg, rows)
    if cfg.head != "lm":
        # a head that is not the vocabulary's cross-entropy (core/memory/heads.py): its output in the forward, no grad
        from rocm_tune.core import runners
        from rocm_tune.core.memory import heads

        per_token = heads.eval_bytes_per_token(model, cfg.head, cfg.head_labels, runners.regime(model, cfg).compute_bytes)
        return float(max(tokens * (per_token or 0.0), attn) + held + tokens * int(model.hidden_size) * 2 * 4)
    if head:
        # a classification / QA head: its logits (tokens x labels) and the hidden states
        return float(max(tokens * vocab * 10, attn) + held + tokens * int(model.hidden_size) * 2 * 4)
    if (job is not None and as_bool(job.get("cut_cross_entropy")) and not as_bool(job.get("enable_liger_kernel"))
            and trainer_passes_labels(job)):
        # Cut Cross-Entropy (Axolotl's plugin, apple/ml-cross-entropy) patches the forward to compute the loss from
        # the hidden states whenever labels are given, in evaluation too: no logits tensor (Liger's fused loss
        # only skips the logits while training: `skip_logits = self.training and labels is not None`)
        return float(attn + held + tokens * int(model.hidden_size) * 2 * 4)
    sp = (as_int(job.get("sequence_parallel_size")) or 1) if job is not None and job.runner == "ms-swift" else 1
    if job is not None and sp > 1:
        # ms-swift under sequence parallel (swift/trainers/seq2seq_trainer.py compute_loss) pops the labels: the model
        # returns only the 16-bit logits of its shard, and per_token_loss_func_sp takes the loss in chunks of
        # CELOSS_PARALLEL_SIZE rows (ChunkedCrossEntropyLoss: an fp32 upcast and log-softmax per chunk) or, unset,
        # torch's cross_entropy on the 16-bit logits (its log-softmax in 16 bit)
        chunk = as_int(job.get("chunked_ce")) or 0
        loss = min(chunk, tokens) * vocab * 8 if chunk > 0 else tokens * vocab * 2
        return float(max(tokens * vocab * 2 + loss, attn) + held + tokens * int(model.hidden_size) * 2 * 4)
    # logits in the compute dtype, their fp32 upcast and the log-softmax of the loss (10 B per element); a remote-code
    # model's own loss (prediction_step passes the labels) may hold more: core/memory/loss_copies.py
    from rocm_tune.core import runners
    from rocm_tune.core.memory import loss_copies

    per = 10 + (loss_copies.extra_bytes_per_logit(model, runners.regime(model, cfg).compute_bytes, training=False,
                                                  hf_loss=cfg.hf_loss_bytes, rows=rows)
                if loss_copies.model_computes_loss(cfg) else 0)
    # GRPO's evaluation runs its training loss under no_grad (TRL GRPOTrainer.prediction_step -> compute_loss; ms-swift's
    # GRPOTrainer.evaluation_loop calls the Trainer's loop, hence that prediction_step): the completion's logits only
    # (logits_to_keep), the share the step counts too (cfg.logit_share, core/runners/rl.py)
    return float(max(tokens * cfg.logit_share * vocab * per, attn) + held + tokens * int(model.hidden_size) * 2 * 4)


def _generation(job: formats.Job, model, cfg: TrainConfig, eval_batch: int):
    """predict_with_generate: what one evaluation batch's generate holds (core/memory/generation.py), or None."""
    if not as_bool(job.get("predict_with_generate")):
        return None
    from rocm_tune.core import runners
    from rocm_tune.core.memory.generation import generation

    from rocm_tune.core.runners.llamafactory import max_new_tokens_default

    new = as_int(job.get("max_new_tokens")) or as_int(job.get("generation_max_length")) or max_new_tokens_default(job)
    return generation(model, cfg.cutoff_len, eval_batch, runners.regime(model, cfg).compute_bytes, runner=job.runner,
                      max_new_tokens=new, num_beams=as_int(job.get("num_beams")) or as_int(job.get("generation_num_beams")))


def _fsdp_activations(model, cfg: TrainConfig, shard: int) -> float:
    """What a step holds beyond the sharded states under FSDP: the one-GPU estimate with its gradients kept as
    1/shard once each layer's backward ends, less its states."""
    one = estimate(model, replace(cfg, gpus=1, nodes=1), grad_shards=max(1, shard)).per_gpu
    return max(0.0, float(one.peak_allocated_bytes - one.weights_bytes - one.gradients_bytes - one.optimizer_bytes
                          - one.comm_buffers_bytes))


def _fsdp_phases(model, cfg: TrainConfig, spec, eval_batch: int | None, job: formats.Job | None = None
                 ) -> tuple[dict, int, list[str]]:
    from rocm_tune.core.runners import fsdp
    from rocm_tune.profiles.qlora_programs import FSDP_WHOLE_LOAD_KEY

    est1 = estimate(model, replace(cfg, gpus=1, nodes=1))
    one = est1.per_gpu
    # activations, autocast copies and step temporaries do not shard: the one-GPU figure less its states, where
    # each finished unit's gradient is already reduce-scattered (runners/fsdp.shard_group): the backward's
    # activations peak beside 1/shard of the gradients, not beside all of them
    act = _fsdp_activations(model, cfg, fsdp.shard_group(cfg, spec, cfg.gpus))
    extra_notes: list[str] = []
    if cfg.runner == "llamafactory" and cfg.method != "qlora" and one.frozen_weights_bytes:
        from rocm_tune.core.runners import regime

        if regime(model, cfg).frozen_dtype in ("bf16", "fp16"):
            # LLaMA-Factory patch_config passes no torch_dtype under FSDP ("keep zero3 or fsdp in float32"):
            # the frozen weights load, and are sharded, in fp32
            one = replace(one, weights_bytes=one.weights_bytes + one.frozen_weights_bytes,
                          frozen_weights_bytes=2 * one.frozen_weights_bytes)
            extra_notes.append("LLaMA-Factory under FSDP loads the model in fp32 (no torch_dtype: \"keep zero3 or "
                               "fsdp in float32\"); the frozen weights are sharded in fp32")
    m = fsdp.allocations(model, cfg, spec, one, cfg.gpus)
    notes = [n for n in est1.notes if "ZeRO" not in n] + extra_notes
    notes.append(f"{spec.describe()} over {cfg.world_size} GPU(s) ({spec.source}): per GPU "
                 f"{m.weights / 2**30:.2f} GiB weights + {m.gradients / 2**30:.2f} GiB gradients + "
                 f"{m.optimizer / 2**30:.2f} GiB optimizer state + {m.gathered / 2**30:.2f} GiB unsharded units"
                 + (f"; {m.host / 2**30:.2f} GiB in host memory (offload)" if m.host else ""))
    # the Trainer's model.zero_grad() before it evaluates frees the sharded gradients too
    ev_grads = 0.0 if job is not None and _grads_freed_before_eval(job, cfg) else m.gradients
    load = m.weights + m.gathered
    if job is not None and as_bool(job.get(FSDP_WHOLE_LOAD_KEY)) and one.weights_bytes > load:
        load = float(one.weights_bytes)
        notes.append(f"each rank loads the whole model onto its GPU before FSDP shards it "
                           f"({one.weights_bytes / 2**30:.2f} GiB at load; fsdp_qlora --low_memory false)")
    phases: dict[str, dict | None] = {
        "load": _phase(load),
        "step": _phase(m.resident + m.gathered + m.root_grad + act),
        "eval": _phase(m.resident - m.gradients + ev_grads + m.gathered + _logits_eval(model, cfg, eval_batch, job))
        if eval_batch else None,
        "save": _phase(m.resident + m.gathered),
    }
    return phases, int(m.host), notes


def _fused_ce_saving(job: formats.Job, model, cfg: TrainConfig, g) -> float:
    """A chunked / fused cross-entropy (torchtune CEWithChunkedOutputLoss / LinearCrossEntropyLoss, Axolotl's
    cut_cross_entropy, Liger's FusedLinearCrossEntropy, Megatron's fused vocab-parallel CE) never holds the whole fp32
    logits and their log-softmax: up to 10 bytes per logit less than the estimate's step transient."""
    # an Unsloth program: its fused linear cross-entropy (unsloth_zoo loss_utils, logits not returned in training)
    unsloth = str(job.get("__upper_bound__") or "").startswith("unsloth")
    vocab = int(getattr(model, "vocab_size", 0) or model.config.get("vocab_size", 0) or 0)
    if cfg.fused_ce or cfg.head != "lm":
        return 0.0     # the estimate itself counts the fused loss's chunks / the head's own terms (estimate.py)
    # Liger's and Cut Cross-Entropy's patched forwards skip the logits only when the trainer passes the labels
    # (apple/ml-cross-entropy cut_cross_entropy/transformers/utils.py use_lce: `if labels is None: return False`)
    liger = ((as_bool(job.get("enable_liger_kernel")) and as_bool(job.get("liger_fused_linear_cross_entropy"))
              is not False or as_bool(job.get("cut_cross_entropy"))) and trainer_passes_labels(job)) \
        or trainer_fused_loss(job)
    # TRL's own Liger DPO loss takes chosen and rejected concatenated: twice the rows
    rows = cfg.micro_batch * (2 if cfg.stage == "dpo" and trainer_fused_loss(job) else 1)
    if (liger or unsloth) and g.transient_bytes:
        return min(float(g.transient_bytes), 10.0 * vocab * rows * cfg.cutoff_len)
    if as_bool(job.get("compiled_loss")) and g.transient_bytes:
        # torchtitan's compiled cross-entropy (runners/torchtitan.compiled_loss): the 16-bit logits and their
        # gradient stay, the fp32 upcast and fp32 log-softmax (8 of the estimate's bytes per logit) are never stored
        return min(float(g.transient_bytes), 8.0 * vocab * cfg.micro_batch * cfg.cutoff_len)
    sp = as_int(job.get("sequence_parallel_size")) or 1
    if (as_int(job.get("chunked_ce")) or 0) > 0 and sp > 1 and g.transient_bytes:
        # ms-swift's sequence-parallel loss with CELOSS_PARALLEL_SIZE (swift/trainers/sequence_parallel,
        # ChunkedCrossEntropyLoss): the model's 16-bit logits and a full-size gradient of them (fp32 assumed) stay,
        # the fp32 log-softmax is made block by block: 6 of the estimate's 12 bytes per logit
        return min(float(g.transient_bytes), 6.0 * vocab * cfg.micro_batch * cfg.cutoff_len)
    return 0.0


def _offloaded_checkpoints(job: formats.Job, model, cfg: TrainConfig) -> float:
    """Activation offloading of checkpointed layers (Unsloth's use_gradient_checkpointing="unsloth" /
    LLaMA-Factory use_unsloth_gc, torchtune enable_activation_offloading): each layer's saved input (the hidden
    states in 16 bit) moves to host memory after its forward and comes back for its recompute; about two layers'
    stay on the GPU (the one in flight and the one prefetched)."""
    if not cfg.gradient_checkpointing or not (as_bool(job.get("use_unsloth_gc"))
                                              or as_bool(job.get("activation_offloading"))):
        return 0.0
    rows = cfg.micro_batch * (2 if cfg.stage == "dpo" else 1)
    layer = rows * cfg.cutoff_len * int(model.hidden_size) * 2
    if job.get(unsloth.KEY) is not None:
        return float(unsloth.offloaded_layers(job, int(model.num_layers), layer, cfg.cutoff_len)[1] * layer)
    return float(max(0, int(model.num_layers) - 2) * layer)


def _offload_host(job: formats.Job, model, cfg: TrainConfig) -> int:
    """Pinned host RAM of Unsloth's offloaded checkpoints (unsloth_zoo gradient_checkpointing CPU_BUFFERS)."""
    if job.get(unsloth.KEY) is None or not cfg.gradient_checkpointing:
        return 0
    layer = cfg.micro_batch * cfg.cutoff_len * int(model.hidden_size) * 2
    moved = unsloth.offloaded_layers(job, int(model.num_layers), layer, cfg.cutoff_len)[0]
    return unsloth.offload_host_bytes(moved, layer) if moved else 0


def _megatron_states(one, job: formats.Job | None = None):
    """Megatron mixed precision (megatron/core/optimizer, distributed/param_and_grad_buffer.py): 16-bit model
    weights, fp32 main gradients (bf16 implies accumulate_allreduce_grads_in_fp32), and an fp32 master copy next to
    the Adam moments in the optimizer (sharded over data parallel with the distributed optimizer); lower-precision
    main gradients / master / moments where the flags set them (megatron.state_bytes). `one` is a pure-16-bit
    estimate: weights and moments at 2 bytes."""
    train = one.trainable_weights_bytes / 2                    # parameters that train
    grad, master, avg, avg_sq = megatron.state_bytes(job.settings if job is not None else {})
    moments = one.optimizer_bytes / 2 * (avg + avg_sq) / 2     # one.optimizer_bytes: both moments at 2 bytes
    return replace(one, gradients_bytes=int(train * grad), optimizer_bytes=int(moments + train * master))


def _parallel_phases(model, cfg: TrainConfig, lay, eval_batch: int | None, job: formats.Job | None = None
                     ) -> tuple[dict, int, list[str]]:
    """Model parallelism as Megatron splits it (approximate, said): weights, gradients and optimizer state / (TP x
    PP) (optimizer also / DP with the distributed optimizer); activations / CP, and / TP with sequence parallel
    (under 1F1B the first pipeline stage keeps PP micro-batches of its 1/PP of the layers: about one whole model's
    activations). device_map="auto": one process, every term / the GPUs (the layers are split, nothing in flight)."""
    megatron_mixed = (not lay.device_map and cfg.precision in ("bf16", "fp16") and job is not None
                      and (job.runner == "megatron" or job.get("__lf_megatron__") is not None))
    # (LLaMA-Factory's USE_MCA / USE_MEGATRON_BRIDGE: McaTrainer / Megatron Bridge train Megatron-core's module and
    # its DDP + distributed optimizer: the same mixed precision, runners/llamafactory.py apply_megatron)
    # Megatron's mixed precision has no autocast: the module itself is 16-bit (measured here as pure_bf16, so the
    # activations carry no autocast weight copies); its states are counted below as Megatron keeps them
    cfg1 = replace(cfg, gpus=1, nodes=1, zero_stage=0, offload="none",
                   precision="pure_bf16" if megatron_mixed else cfg.precision)
    te_notes: list[str] = []
    if megatron_mixed and job is not None:
        cfg1, te_notes = _megatron_kernels(job, model, cfg1)
        cfg1, att_notes = _megatron_softmax(job, model, cfg1, lay)
        te_notes += att_notes
    dp = max(1, cfg.world_size // max(1, lay.model_parallel))
    # Megatron FSDP reduce-scatters each layer's gradient as its backward ends: the backward's activations peak
    # next to 1/DP of the gradients (not all of them)
    sdp = lay.shard_dp(dp)      # the ranks an FSDP shard group spans (HSDP: dp / replicas; torchtitan: x CP)
    est1 = estimate(model, cfg1, grad_shards=sdp if lay.fsdp >= 2 and not lay.device_map else 1)
    one = est1.per_gpu
    states = float(one.weights_bytes + one.gradients_bytes + one.optimizer_bytes)
    act = max(0.0, float(one.peak_allocated_bytes - states - one.comm_buffers_bytes))
    saved = _fused_ce_saving(job, model, cfg, one) if job is not None else 0.0
    act = max(0.0, act - saved)
    act, notes_blk = _block_recompute(job, model, cfg1, lay, act, one, sdp)
    notes_ce = [f"chunked/fused cross-entropy: the full fp32 logits are not held ({saved / 2**30:.2f} GiB less in one "
                f"sequence's activations before the split; approximate)"] if saved else []
    notes_states: list[str] = []
    if megatron_mixed:
        one = _megatron_states(one, job)
        if (sb := megatron.state_bytes(job.settings if job is not None else {})) != (4, 4, 4, 4):
            notes_states = [f"Megatron main gradients {sb[0]} B, master weights {sb[1]} B, exp_avg {sb[2]} B, "
                            f"exp_avg_sq {sb[3]} B per trained element ({megatron.PAO_SRC})"]
    host = 0.0
    if lay.device_map:
        n = lay.device_map
        w, st, a = one.weights_bytes / n, states / n, act / n
        note = (f"{lay.describe()}: per GPU 1/{n} of the weights, gradients, optimizer state and activations "
                f"(the GPU holding the last layers also holds the logits; approximate)")
    else:
        mp = lay.tp * lay.pp
        odp, gdp, wdp = (sdp if lay.fsdp >= 1 else dp if lay.distributed_optimizer else 1,
                         sdp if lay.fsdp >= 2 else 1, sdp if lay.fsdp >= 3 else 1)
        # expert parallelism: the routed experts' share of every state / (EP x expert TP x PP), their optimizer state
        # over the expert data-parallel group (megatron.Layout.expert_split); the rest / (TP x PP) as above
        dense, expert, expert_opt = _expert_shares(model, cfg, lay, mp, odp)
        esplit = lay.expert_split(cfg.world_size)[0]
        opt = one.optimizer_bytes * (dense / odp + expert_opt)
        host = opt if lay.optimizer_offload else 0.0
        w = one.weights_bytes * (dense + expert) / wdp
        gathered = _fsdp_gathered(model, mp, esplit if expert else 0, cfg.method == "full") if wdp > 1 else 0.0
        st = w + one.gradients_bytes * (dense + expert) / gdp + opt - host
        a = act / lay.cp / (lay.tp if lay.sp else 1) + gathered
        split = (f"weights / {mp * wdp}, gradients / {mp * gdp}" if lay.fsdp else
                 f"1/{mp} of the weights and gradients")
        note = (f"{lay.describe()} over {cfg.world_size} GPU(s), data parallel {dp}: per GPU {split}, "
                f"optimizer state / {mp * odp}" + (f" (routed experts: weights and gradients / {esplit}, "
                f"optimizer state / {esplit * round(expert / expert_opt)}, expert TP {lay.expert_tp}: {megatron.ETP_SRC})"
                if expert else "") + ", activations / "
                f"{lay.cp * (lay.tp if lay.sp else 1)} (approximate: Megatron's split, 1F1B keeps about one model's "
                f"activations on the first stage)" + (_gather_note(gathered, cfg.method == "full", bool(expert))
                                                      if gathered else ""))
    host = host if not lay.device_map else 0.0
    phases: dict[str, dict | None] = {
        "load": _phase(w), "step": _phase(st + a),
        "eval": _phase(st + _logits_eval(model, cfg, eval_batch, job) / (lay.device_map or lay.tp * lay.cp))
        if eval_batch else None,
        "save": _phase(st),
    }
    kept = [n for n in est1.notes if "ZeRO" not in n and not (te_notes and n.startswith("Liger kernels:"))]
    return phases, int(host), kept + te_notes + [note] + notes_states + notes_ce + notes_blk


def _expert_shares(model, cfg: TrainConfig, lay, mp: int, odp: int) -> tuple[float, float, float]:
    """(share of one GPU's whole-model weights/gradients that are dense, per GPU, share that are routed experts, per
    GPU, the experts' optimizer share per GPU). Dense parts split over TP x PP; a routed expert over EP x expert TP x PP
    (megatron.Layout.expert_split), its optimizer state sharded by the distributed optimizer over the expert data-parallel
    group (world / (EP x expert TP x PP)), not the dense one; under FSDP both follow the FSDP shard group."""
    counts = getattr(model, "params", None)
    frac = (counts.experts / counts.total) if lay.ep > 1 and counts is not None and counts.total else 0.0
    split, edp = lay.expert_split(cfg.world_size)
    expert_odp = odp if lay.fsdp >= 1 else edp if lay.distributed_optimizer else 1
    return (1 - frac) / mp, frac / split, frac / split / expert_odp


def _block_recompute(job: formats.Job | None, model, cfg1: TrainConfig, lay, act: float, one, dp: int
                     ) -> tuple[float, list[str]]:
    """Megatron's `--recompute-method block --recompute-num-layers N`: of each pipeline stage's layers only the
    first N are recomputed (megatron/core/transformer/transformer_block.py, _checkpointed_forward); the rest keep
    every activation as without recomputation: their share of the kept activations added to `act`."""
    n = as_int(job.get("__recompute_layers__")) if job is not None else None
    stage = max(1, int(model.num_layers) // max(1, lay.pp))
    if n is None or n >= stage or not cfg1.gradient_checkpointing or lay.device_map:
        return act, []
    full = estimate(model, replace(cfg1, gradient_checkpointing=False),
                    grad_shards=dp if lay.fsdp >= 2 else 1).per_gpu
    more = max(0.0, float(full.activations_bytes - one.activations_bytes)) * (stage - n) / stage
    return act + more, [f"recompute block, {n} of {stage} layers per stage recomputed: the other {stage - n} keep "
                        f"every activation (+{more / 2**30:.2f} GiB before the split)"]


def _gather_note(gathered: float, full: bool, expert: bool) -> str:
    """The FSDP just-in-time gather, said (_fsdp_gathered)."""
    return ("; FSDP gathers a unit's 16-bit weights just in time (two units, the next prefetched"
            + (", and one unit's unsharded gradient" if full else "")
            + (", a layer's unit holding only this rank's experts" if expert else "") + f": {gathered / 2**30:.2f} GiB)")


def _fsdp_gathered(model, mp: int, esplit: int = 0, full: bool = True) -> float:
    """Megatron FSDP's just-in-time gather (megatron/core/distributed/torch_fully_sharded_data_parallel.py: each
    TransformerLayer, the embedding and the output layer one fully_shard unit): the largest unit's 16-bit weights
    twice (the one running and the next prefetched) and, when every weight trains, its unsharded 16-bit gradient
    before the reduce-scatter (LoRA: the frozen weights have none). Under expert parallelism (`esplit` > 0: the GPUs
    one routed expert is split over) a layer's unit gathers only this rank's experts: the routed experts' share / that
    (torchtitan / Automodel shard the experts over the expert data-parallel mesh, parallelize.py)."""
    p = model.params
    layers = max(1, int(model.num_layers))
    experts = p.experts / esplit if esplit else p.experts / mp
    per_layer = (max(0, p.total - p.embed - p.lm_head - p.experts) / mp + experts) / layers
    return max(per_layer, p.embed / mp, p.lm_head / mp) * 2 * (3 if full else 2)


def _megatron_kernels(job: formats.Job, model, cfg: TrainConfig) -> tuple[TrainConfig, list[str]]:
    """Megatron-core's own layer kernels, which keep what Liger's keep (counted with the same flags): Transformer
    Engine's RMSNorm saves its 16-bit input and an fp32 rsigma per row (TENorm, --transformer-impl transformer_engine,
    the default), and the fused SwiGLU saves only its input, the gate and up halves of linear_fc1's output
    (megatron/core/fusions/fused_bias_swiglu.py SwiGLUFunction: ctx.save_for_backward(input); used while
    bias_swiglu_fusion is on, the default, --no-bias-swiglu-fusion turns it off)."""
    te = str(job.get("transformer_impl") or "transformer_engine").lower() == "transformer_engine"
    rms = te and "rms" in str(job.get("normalization") or "RMSNorm").lower()
    # gpt-oss's clamped SwiGLU with its +1 offset is not the fused kernel's plain SiLU-mul (as for Liger)
    glu = bool(model.gated_mlp) and str(model.family) != "gpt_oss" and not as_bool(job.get("no_bias_swiglu_fusion"))
    if not (rms or glu):
        return cfg, []
    said = [k for k, on in (("Transformer Engine's RMSNorm keeps its 16-bit input and an fp32 rsigma per row", rms),
                            ("the fused SwiGLU keeps only linear_fc1's output (gate and up)", glu)) if on]
    return (replace(cfg, liger_norm=cfg.liger_norm or rms, liger_swiglu=cfg.liger_swiglu or glu),
            ["Megatron-core kernels: " + " and ".join(said) + " (megatron/core/fusions/fused_bias_swiglu.py, "
             "transformer_engine.pytorch RMSNorm)"])


def _megatron_softmax(job: formats.Job, model, cfg: TrainConfig, lay) -> tuple[TrainConfig, list[str]]:
    """Megatron's 16-bit layers as Transformer Engine / Megatron-core run them: FP8 linears (--fp8-format) save
    1-byte inputs (TrainConfig.fp8_linear_inputs); unfused core attention keeps what its FusedScaleMaskSoftmax and
    dropout keep (core/memory/megatron_attention.py), not transformers' eager fp32 softmax."""
    notes: list[str] = []
    if model.num_experts:
        cfg = replace(cfg, moe_probs_in_act=True)
        notes.append("Megatron-core MoE: the routing probabilities multiply inside the experts' activation and the "
                     "combine only scatters the outputs back, so no routed copy's weighted output is kept (NVIDIA/"
                     "Megatron-LM megatron/core/transformer/moe/experts.py activation_func_with_probs, 2025-04)")
    fp8 = job.get("__fp8__")
    if fp8:
        legacy = as_bool(job.get("moe_use_legacy_grouped_gemm")) is True and bool(model.num_experts)
        cfg = replace(cfg, fp8_linears=("dense",) if legacy else ("dense", "experts"))
        notes.append(f"FP8 training ({fp8}): Transformer Engine's linears save their inputs as 1-byte FP8 for the weight "
                     f"gradient, not 16-bit (transformer_engine/pytorch/module/linear.py, layernorm_linear.py, "
                     f"grouped_linear.py under fp8_autocast; NVIDIA/Megatron-LM --fp8-format)" +
                     ("; the routed experts run the legacy GroupedMLP (--moe-use-legacy-grouped-gemm: grouped_gemm's "
                      "bf16 gmm), their inputs kept in 16 bits" if legacy else ""))
    if cfg.attn != "eager":
        return cfg, notes
    te = str(job.get("transformer_impl") or "transformer_engine").strip("'\"").lower() != "local"
    s = job.settings.get("__attn_dropout__")
    dropout = float(s.value) if s is not None else megatron_attention.MEGATRON_LM_DROPOUT
    heads = max(1, int(model.num_attention_heads) // max(1, lay.tp))
    seq = max(1, cfg.cutoff_len // max(1, lay.cp))
    switched_off = job.settings.get("__softmax_fusion__") is not None and not te
    # a learned softmax offset (gpt-oss's attention sinks, softmax_type learnable) always takes torch's softmax
    # (FusedScaleMaskSoftmax.forward: fused only `if is_kernel_available(..) and softmax_offset is None`)
    sinks = str(model.family) == "gpt_oss"
    fused = not switched_off and not sinks and megatron_attention.fused_available(te, cfg.micro_batch, heads, seq)
    why = (" (--no-masked-softmax-fusion)" if switched_off else " (attention sinks: a learned softmax offset)"
           if sinks else f" ({cfg.micro_batch} x {heads} heads x {seq} tokens)")
    notes.append(megatron_attention.describe(te, fused, dropout, why))
    return replace(cfg, scores_bytes=megatron_attention.scores_bytes(fused, dropout)), notes


# DeepSpeed's own host-RAM estimate for offload (estimate_zero2/zero3_model_states_mem_needs, written for a model
# that trains every weight) multiplies the pinned fp32 master + Adam moments + fp32 gradients (+ 16-bit
# parameters) by additional_buffer_factor=1.5: the copies made while partitions are pinned, the pinned allocator's
# rounding, the load and the save's gathered state. Applied to full fine-tunes, whose pinned bytes are those
# states (a LoRA's are its frozen 16-bit weights, pinned once). Users measure 750-800 GB for a 33B ZeRO-3 offload (DeepSpeed issue 3448), ~1.3x the 18 bytes/param
# pinned; a 32B one is killed on 744 GB (LLaMA-Factory issue 6755).
DS_HOST_BUFFER_FACTOR = 1.5


def _predict_phases(job: formats.Job, model, cfg: TrainConfig, gpu) -> tuple[dict, int, list[str]]:
    """LLaMA-Factory predicting without training (runners/llamafactory.py predicts_only): the frozen model in the
    compute dtype and one evaluation batch's generate on it; no training step, no gradients, no optimizer state."""
    from rocm_tune.core import runners
    from rocm_tune.core.runners.llamafactory import PREDICT_ONLY_SRC

    g = estimate(model, cfg, gpu).per_gpu
    r = runners.regime(model, cfg)
    # trainable weights of the training reading (the whole model under full, an adapter under LoRA) as loaded frozen
    weights = g.frozen_weights_bytes + g.trainable_weights_bytes * r.compute_bytes / r.trainable_bytes
    eval_batch = eval_batch_default(job, cfg, {**runner_defaults(job.runner), **job.defaults})
    what = "do_predict" if as_bool(job.get("do_predict")) else "do_eval"
    notes = [f"{what} without do_train: LLaMA-Factory trains nothing; the model is loaded frozen in "
             f"{r.compute_dtype} ({weights / 2**30:.2f} GiB per GPU) and each batch of {eval_batch} runs on it "
             f"({PREDICT_ONLY_SRC})"]
    ev = _eval_phase_bytes(job, model, cfg, eval_batch, 0, notes)
    comm, note = communicator_bytes(cfg, gpu)
    notes += [note] if note else []
    phases: dict[str, dict | None] = {"load": _phase(weights), "step": None, "eval": _phase(weights + ev),
                                      "save": None}
    for p in phases.values():
        if p:
            p["reserved_bytes"] += comm
    return phases, 0, notes


def memory_phases(job: formats.Job, model, cfg: TrainConfig, eval_batch: int | None, init_flag: bool | None = None,
                  gpu=None) -> tuple[dict, int, list[str]]:
    """Per phase peak allocated and reserved; reserved holds the NCCL/RCCL communicators as the estimator
    counts them (outside PyTorch's allocator, in every phase)."""
    from rocm_tune.core.memory.heads import without_lm_head

    model = without_lm_head(model, cfg.head, cfg.head_labels)     # a score head / an embedding model has no lm_head
    spec = fsdp_spec(job) if not cfg.zero_stage else None
    from rocm_tune.core.runners import llamafactory as _lf

    if _lf.predicts_only(job) and not cfg.zero_stage and spec is None:
        return _predict_phases(job, model, cfg, gpu)
    lay = megatron.layout(job.settings, cfg.world_size)
    sp = as_int(job.get("sequence_parallel_size")) or 1
    if lay is not None and sp > 1 and (cfg.zero_stage or spec is not None) and lay.tp == lay.pp == lay.ep == 1 \
            and not lay.device_map and lay.cp == sp:
        # ms-swift `--sequence_parallel_size N` (Ulysses / ring attention) under DeepSpeed ZeRO or FSDP: the model
        # states are sharded as ZeRO/FSDP shards them, and each GPU holds the activations and the loss of 1/N of
        # every sequence (swift/trainers/sequence_parallel): counted as sequences of cutoff_len / N tokens
        cfg = replace(cfg, cutoff_len=max(1, -(-cfg.cutoff_len // sp)))
        lay = None
        sp_note = (f"sequence parallel {sp} under {'ZeRO-' + str(cfg.zero_stage) if cfg.zero_stage else 'FSDP'}: the "
                   f"states sharded as it shards them, {cfg.cutoff_len} tokens of each sequence per GPU")
    else:
        sp_note = None
    if lay is None and spec is None and not cfg.zero_stage and job.runner == "megatron" and sp_note is None:
        # Megatron-LM's own data parallel at TP = PP = CP = 1: the same 16-bit module, fp32 main gradients and
        # master weights as under any split (megatron/core/distributed/param_and_grad_buffer.py), not a transformers
        # model under torch DDP and autocast
        lay = megatron.Layout()
    if lay is not None and spec is None:
        phases, host, notes = _parallel_phases(model, cfg, lay, eval_batch, job)
        comm, note = communicator_bytes(cfg, gpu) if not lay.device_map else (0, None)
        if note:
            notes.append(note)
    elif spec is not None:
        phases, host, notes = _fsdp_phases(model, cfg, spec, eval_batch, job)
        comm, note = communicator_bytes(cfg, gpu)
        if note:
            notes.append(note)
    else:
        phases, host, notes, comm = _memory_phases(job, model, cfg, eval_batch, init_flag, gpu)
        if host and cfg.zero_stage and cfg.offload not in (None, "none") and cfg.method == "full":
            host = int(host * DS_HOST_BUFFER_FACTOR)
            notes.append(f"host RAM: the pinned offload x {DS_HOST_BUFFER_FACTOR} (DeepSpeed's own estimate's "
                         "additional_buffer_factor)")
    for p in phases.values():
        if p:
            p["reserved_bytes"] += comm
    if sp_note:
        notes.append(sp_note)
    _rl_phases(job, model, cfg, phases, gpu, notes)
    _rl_side_models(job, model, cfg, phases, notes)
    return phases, host, notes


def _rl_side_models(job: formats.Job, model, cfg: TrainConfig, phases: dict, notes: list[str]) -> None:
    """PPO's critic (trained: 16-bit weights and gradients, fp32 master and Adam moments unless offloaded) and reward
    model (frozen 16-bit) on the actor's GPUs (OpenRLHF train_ppo without Ray), split as the ZeRO stage splits."""
    side = str(getattr(job.settings.get("__rl_side_models__"), "value", "") or "")
    if not side:
        return
    from rocm_tune.core.memory.heads import without_lm_head

    # OpenRLHF's critic and reward models (openrlhf/models/model.py _get_critic_model / _get_reward_model): the base
    # model without its lm_head and a value_head Linear(hidden, 1)
    n, world = float(without_lm_head(model, "score", 1).params.total), max(1, cfg.world_size)
    if fsdp_spec(job) is not None:
        # verl (core/runners/rl_programs.py VERL_CRITIC): the critic's fp32 FSDP shards, their gradients and Adam
        # moments, the reward model's bf16 shards, each on the host where its fsdp_config offloads it
        off = str(getattr(job.settings.get("__rl_side_offload__"), "value", "") or "")
        critic = (0.0 if "critic_param" in off else 8.0) + (0.0 if "critic_optimizer" in off else 8.0)
        add = n / world * ((critic if "critic" in side else 0.0)
                           + (2.0 if "reward" in side and "reward_param" not in off else 0.0))
    else:
        # OpenRLHF --deepspeed_enable_sleep (rl_programs.OPENRLHF_COLOCATE): the critic's gradients and optimizer
        # states (fp32 master weights included) on the host while the actor trains
        sleeps = "critic_sleep" in str(getattr(job.settings.get("__rl_side_offload__"), "value", "") or "")
        weights = 2.0 / (world if cfg.zero_stage == 3 else 1)
        grads = 0.0 if sleeps else 2.0 / (world if cfg.zero_stage >= 2 else 1)
        opt = 0.0 if cfg.offload not in (None, "none") or sleeps else 12.0 / (world if cfg.zero_stage >= 1 else 1)
        add = (n * (weights + grads + opt) if "critic" in side else 0.0) + (n * weights if "reward" in side else 0.0)
    for p in phases.values():
        if p:
            p["peak_allocated_bytes"] += int(add)
            p["reserved_bytes"] += int(add * (1 + FRAGMENTATION))
    how = "FSDP, verl" if fsdp_spec(job) is not None else f"ZeRO-{cfg.zero_stage}"
    notes.append(f"PPO {side.replace(',', ' and ')} model(s) on the same GPUs: {add / 2**30:.2f} GiB per GPU "
                 f"(the actor's shape without its lm_head, a value head instead; {how})")


def _engine_in_peak(spec, vram: float | None, generating: bool) -> float:
    """The colocated vLLM engine's bytes in the GRPO step's peak, counted without the allocator's fragmentation: vLLM
    sizes the whole engine (weights, profiled activations, KV cache) to gpu_memory_utilization x the card's total,
    measured with torch.cuda.mem_get_info (device level, reserved included), and allocates the KV cache as a few
    whole per-layer tensors (vllm/worker/worker.py determine_num_available_blocks: total_gpu_memory *
    gpu_memory_utilization - the profiled peak; V1 gpu_worker.py determine_available_memory likewise): the share
    is already what the card holds, not an allocation the caching allocator rounds and splits."""
    if spec.vllm != "colocate" or not vram or (spec.sleeps and not generating):
        return 0.0
    return spec.vllm_share * vram


def _rl_phases(job: formats.Job, model, cfg: TrainConfig, phases: dict, gpu, notes: list[str]) -> None:
    """GRPO (core/runners/rl.py): the reference copy and the generation (a colocated vLLM engine or the KV cache)
    on top of the training state; the step phase holds whichever of training and generation peaks higher."""
    from rocm_tune.core.runners import rl as _rl

    spec = _rl.spec(job)
    step, save = phases.get("step"), phases.get("save")
    if spec is None or not step or not save:
        return
    dtype_bytes = 4 if str(getattr(model, "torch_dtype", "")) in ("float32", "fp32") else 2
    shards = cfg.world_size if (cfg.zero_stage == 3 or fsdp_spec(job) is not None) else 1
    ref = float(model.params.total) * dtype_bytes / shards
    vram = float(gpu.vram_bytes) if gpu is not None else None
    new_step, gen, more = _rl.extra(spec, model, cfg, save["peak_allocated_bytes"], step["peak_allocated_bytes"],
                                    vram, ref)
    why = _rl.zero3_gathered(job, spec, cfg.is_lora) if cfg.zero_stage == 3 and cfg.world_size > 1 else None
    if why:
        gathered = float(model.params.total) * dtype_bytes * (1 - 1 / cfg.world_size)
        gen += gathered
        more.append(f"GRPO under ZeRO-3: {why}: {gathered / 2**30:.2f} GiB per GPU beyond its shard, outside the "
                    f"training step ({_rl.GATHER_SRC})")
    peak = max(new_step, gen)
    grow = max(0.0, peak - step["peak_allocated_bytes"])
    step["peak_allocated_bytes"] = int(peak)
    step["reserved_bytes"] += int(grow * (1 + FRAGMENTATION) - FRAGMENTATION * min(grow, _engine_in_peak(
        spec, vram, gen >= new_step)))
    notes += more
    if spec.vllm == "device" and vram:
        gen_gpu = _rl.engine_gpu_bytes(spec, model, vram)
        phases["generate"] = {"peak_allocated_bytes": int(gen_gpu), "reserved_bytes": int(gen_gpu + CONTEXT)}
    if spec.beta > 0 and not cfg.is_lora:
        for name in ("load", "save", "eval"):
            p = phases.get(name)
            if p:
                p["peak_allocated_bytes"] += int(ref)
                p["reserved_bytes"] += int(ref * (1 + FRAGMENTATION))


def _eval_phase_bytes(job: formats.Job, model, cfg: TrainConfig, eval_batch: int, grads: int,
                      notes: list[str]) -> float:
    """The evaluation phase above the resident states: its logits (or generation), the predictions kept for
    compute_metrics and the gradients still held; its notes appended to `notes`."""
    ev = _logits_eval(model, cfg, eval_batch, job)
    gen = _generation(job, model, cfg, eval_batch)
    if gen is not None and gen.total > ev:
        ev = gen.total
        notes.append(gen.note())
    preds = eval_preds_held(model, cfg, eval_batch, job)
    if preds:
        notes.append(f"evaluation: compute_metrics without preprocess_logits_for_metrics or eval_accumulation_steps"
                     f": evaluation_loop gathers every rank's logits and keeps them in all_preds on the GPU until "
                     f"the eval set ends; {preds / 2**30:.2f} GiB per eval batch counted once (it grows by that "
                     f"much every eval batch)")
    held = grads
    if grads and _grads_freed_before_eval(job, cfg):
        held = 0
        notes.append(f"evaluation: the Trainer's model.zero_grad() after the optimizer step frees the "
                     f"{grads / 2**30:.2f} GiB of gradients (set_to_none) before it evaluates")
    return held + ev


def _memory_phases(job: formats.Job, model, cfg: TrainConfig, eval_batch: int | None, init_flag: bool | None,
                   gpu) -> tuple[dict, int, list[str], int]:
    # the planner's own estimate (ZeRO-3 step terms and reserved factor, communicators); a user's JSON may set
    # its own ZeRO-3 prefetch bucket
    bucket = (job.ds.bucket("stage3_prefetch_bucket_size", int(model.hidden_size))
              if job.ds is not None and cfg.zero_stage == 3 else None)
    est = estimate(model, cfg, gpu, prefetch_bucket=bucket)
    g = est.per_gpu
    delta, note = _ds_delta(model, cfg, job.ds)
    notes = list(est.notes) + ([note] if note else [])
    resident = g.weights_bytes + g.optimizer_bytes + g.comm_buffers_bytes + delta
    step = g.peak_allocated_bytes + delta
    factor = est.reserved_factor - 1
    z12 = ds.zero12_step(model, cfg, ds_optimizer_block=False)
    if z12 is not None and job.ds is not None and job.ds.data.get("optimizer"):
        # the estimator assumes the HF Trainer's torch AdamW; a JSON "optimizer" block steps DeepSpeed's in place
        mine = ds.zero12_step(model, cfg, ds_optimizer_block=True)
        assert mine is not None
        step += mine.extra - z12.extra
        z12 = mine
    if z12 is not None and z12.extra > 0:
        notes.append(f"ZeRO-{cfg.zero_stage} step temporaries counted: {z12.extra / 2**30:.2f} GiB above the "
                     f"flattened gradient partition and its fp32 copy (fp16 overflow check "
                     f"{z12.overflow_check / 2**30:.2f}, fp64 gradient norm {z12.grad_norm / 2**30:.2f}, optimizer "
                     f"step {z12.optimizer_step / 2**30:.2f} GiB)")
    # load: ZeRO-3 without zero.Init (accelerate zero3_init_flag: false) loads the whole model on every GPU
    load = g.weights_bytes
    acc = job.accelerate or {}
    residue = 0.0
    if cfg.zero_stage == 3 and acc.get("zero3_init_flag") is False and init_flag is not True:
        residue = ds.zero3_init_residue(model, cfg)
        load = int(residue)
        notes.append("zero3_init_flag false: every GPU loads the whole model before ZeRO-3 partitions it, and "
                     "the allocator keeps it reserved afterwards")
    off = _offloaded_checkpoints(job, model, cfg)
    host_gc = _offload_host(job, model, cfg)
    if off and host_gc:
        step -= off
        notes.append(f"checkpointed layer inputs offloaded to host memory (use_gradient_checkpointing=\"unsloth\"): "
                     f"every layer's but the last, pinned, back through two GPU buffers of one layer's size: "
                     f"{off / 2**30:.2f} GiB less in the step, {host_gc / 2**30:.2f} GiB of pinned host RAM "
                     f"({unsloth.P.OFFLOAD_SRC})")
    elif off:
        step -= off
        notes.append(f"checkpointed layer inputs offloaded to host memory (Unsloth's 'unsloth' checkpointing / "
                     f"activation offloading): {off / 2**30:.2f} GiB less in the step, two layers' kept on the GPU "
                     f"(approximate)")
    saved = _fused_ce_saving(job, model, cfg, g)
    if saved:
        step -= saved
        notes.append(f"chunked/fused cross-entropy: the full fp32 logits are not held ({saved / 2**30:.2f} GiB less "
                     f"in the step; approximate)")
    grads = g.gradients_bytes
    if as_bool(job.get("optimizer_in_bwd")) and g.gradients_bytes:
        grads = 0
        step -= g.gradients_bytes          # torchtune optimizer_in_bwd: a parameter steps as its gradient is ready
        notes.append(f"optimizer_in_bwd: the {g.gradients_bytes / 2**30:.2f} GiB of gradients are never held at once")
    phases: dict[str, dict | None] = {"load": _phase(load, factor), "step": _phase(step, factor)}
    if residue:      # the load's blocks stay reserved: what nvidia-smi shows in the step is at least that
        st = phases["step"]
        assert st is not None
        st["reserved_bytes"] = max(st["reserved_bytes"], int(residue + CONTEXT))
    if eval_batch:
        phases["eval"] = _phase(_eval_phase_bytes(job, model, cfg, eval_batch, grads, notes) + resident, factor)
    else:
        phases["eval"] = None
    phases["save"] = _phase(resident + grads, factor)
    return phases, est.cpu_offload_bytes + host_gc, notes, g.communicator_bytes


# runners whose training loop is transformers' Trainer (LLaMA-Factory, ms-swift and Axolotl subclass it)
_HF_TRAINER_RUNNERS = ("hf", "llamafactory", "ms-swift", "axolotl")


# unslothai/unsloth unsloth/models/mapper.py maps unsloth/gpt-oss-{20b,120b} and openai/gpt-oss-* under load_in_4bit to
# unsloth/gpt-oss-*-unsloth-bnb-4bit; unsloth_zoo temporary_patches/gpt_oss.py (GptOssExpertsBnb4bit: gate_up_projs /
# down_projs, ModuleLists of nn.Linear, and a Linear router) replaces the fused 3-D experts when the load is bnb 4-bit
# (UNSLOTH_MODEL_NAME carries "_load_in_4bit_", unsloth/models/loader.py): bitsandbytes quantizes every expert
UNSLOTH_BNB_EXPERTS = ("gpt_oss",)
UNSLOTH_BNB_SRC = ("unslothai/unsloth:unsloth/models/mapper.py (gpt-oss -> *-unsloth-bnb-4bit) and unslothai/unsloth-zoo:"
                   "unsloth_zoo/temporary_patches/gpt_oss.py (GptOssExpertsBnb4bit)")


def _unsloth_bnb_experts(job: formats.Job, model):
    """Unsloth's loader in 4 bits builds the fused-expert families it patches with one nn.Linear per expert: the
    experts are quantized like every other linear (UNSLOTH_BNB_SRC)."""
    if model is None or not model.num_experts or model.experts_as_linears or model.family not in UNSLOTH_BNB_EXPERTS:
        return model
    if job.get("__unsloth_loader__") is None or as_int(job.get("quantization_bit")) != 4:
        return model
    job.notes.append(f"{job.get('__unsloth_loader__')}.from_pretrained in 4 bits: Unsloth loads {model.family}'s "
                     f"routed experts as one nn.Linear per expert, quantized by bitsandbytes ({UNSLOTH_BNB_SRC})")
    return replace(model, experts_as_linears=True)


def _grads_freed_before_eval(job: formats.Job, cfg: TrainConfig) -> bool:
    """transformers' Trainer._inner_training_loop runs optimizer.step(), lr_scheduler.step(), then model.zero_grad()
    and only then _maybe_log_save_evaluate: torch >= 2.0's Module.zero_grad(set_to_none=True) drops every .grad, so
    evaluation runs without the gradients. Not under DeepSpeed (ZeRO keeps its own flat gradient buffers) nor for a
    loop the Trainer does not run."""
    return job.runner in _HF_TRAINER_RUNNERS and not cfg.zero_stage


# ------------------------------------------------------------------------------------------------ findings
SWIFT_SPLIT_SRC = ("modelscope/ms-swift:swift/llm/argument/base_args/data_args.py (DataArguments.split_dataset_ratio "
                   "0.01 until 3.6, 0 since #4798; __post_init__: streaming sets it to 0) and train_args.py (no "
                   "val_dataset and split_dataset_ratio 0: eval_strategy 'no')")


def _swift_eval_on(job: formats.Job, tower=None) -> bool:
    """ms-swift evaluates only with a validation set: --val_dataset, or a split of the training data
    (split_dataset_ratio > 0; SWIFT_SPLIT_SRC). The ratio's default is 0.01 in 3.0-3.5 (2.x: dataset_test_ratio
    0.01) and 0 since 3.6 (a 4.x flag, or a model only a later release supports, says the newer); from 3.0 on
    --streaming true sets it to 0."""
    g = job.get
    if str(g("eval_strategy", "steps")).lower() == "no":
        return False
    if g("eval_dataset") is not None:
        return True
    if not _swift2(job) and as_bool(g("streaming")):
        return False
    try:
        return float(str(g("val_size", 0.0 if _swift_new(job, tower) else 0.01))) > 0
    except ValueError:
        return True


def _eval_on(job: formats.Job, tower=None) -> bool:
    g = job.get
    if job.runner == "ms-swift":
        return _swift_eval_on(job, tower)
    strat = str(g("evaluation_strategy", g("eval_strategy", "no"))).lower()
    if strat in ("steps", "epoch"):
        return True
    vs = g("val_size")
    try:
        if vs is not None and float(vs) > 0 and strat != "no":
            return True
    except (TypeError, ValueError):
        pass
    return bool(as_bool(g("do_eval")))


_QUANT_NAME = re.compile(r"(gptq|awq|-int4|-int8|bnb-4bit|-4bit|-8bit|gguf|exl2)", re.IGNORECASE)


def _inference_export(mref: str) -> str:
    """'an MLX conversion' / 'a GGUF file' for a model name of an inference-only format (mlx-community/..., -GGUF),
    else ''."""
    from rocm_tune.core.model.names import parse_name

    q = parse_name(mref).quant if mref else None
    return {"MLX": "an MLX conversion (Apple MLX's format)", "GGUF": "a GGUF export (llama.cpp's format)"}.get(q or "", "")


def _dataset_findings(job: formats.Job) -> list[Finding]:
    """LLaMA-Factory: every name in `dataset` must be a key of dataset_dir/dataset_info.json (given or here)."""
    ds = job.settings.get("dataset")
    if job.runner != "llamafactory" or ds is None or not str(ds.value).strip():
        return []
    info_text = next((t for p, t in job.files.items() if os.path.basename(p) == "dataset_info.json"), None)
    where = "given"
    if info_text is None:
        base = os.path.dirname(ds.file or "") or "."
        cand = os.path.join(base, str(job.get("dataset_dir", "data")), "dataset_info.json")
        if not os.path.isfile(cand):
            return []
        info_text, where = read_text(cand, "dataset_info.json", MAX_CONFIG_BYTES), cand
    info = load_json(info_text, where, "dataset_info.json", lenient=True)
    if not isinstance(info, dict):
        return []
    missing = [n.strip() for n in str(ds.value).split(",") if n.strip() and n.strip() not in info]
    if not missing:
        return []
    return [Finding.of("dataset-not-in-info", ds.file, ds.line,
                       f"dataset {', '.join(missing)} is not in dataset_info.json ({where}): LLaMA-Factory stops with "
                       f"'Undefined dataset'", "add it to dataset_info.json (or fix dataset_dir)")]


def general_findings(job: formats.Job, model, cfg: TrainConfig, gpu) -> list[Finding]:
    out: list[Finding] = _dataset_findings(job)
    g = job.get
    mref = str(g("model_name_or_path", "") or "")
    export = _inference_export(mref)
    if export:
        out.append(Finding.of("quantized-base-not-modelled", *_where(job, "model_name_or_path"),
                              f"{mref} is {export}: transformers and PEFT do not train it; estimated as its 16-bit base",
                              "point the model at the original safetensors checkpoint"))
    elif _QUANT_NAME.search(mref.rstrip("/").split("/")[-1]) and cfg.method != "qlora":
        out.append(Finding.of("quantized-base-not-modelled", *_where(job, "model_name_or_path"),
                              f"{mref} looks like a pre-quantised (GPTQ/AWQ/bnb) checkpoint: estimated as a 16-bit base, "
                              f"so the weights are over-counted", None))
    for key, what in (("use_unsloth", "Unsloth's kernels"), ("enable_liger_kernel", "Liger kernels"),
                      ("cut_cross_entropy", "Cut Cross-Entropy (no full logits tensor)")):
        if key == "cut_cross_entropy" and cfg.logits_16bit_loss and job.get(CHUNKED_CE_KEY) is not None:
            continue        # torchtune's CEWithChunkedOutputLoss: its chunks counted (runners/config.py)
        if as_bool(g(key)) and not (key == "enable_liger_kernel" and job.runner == "llamafactory" and model is not None):
            # LLaMA-Factory's Liger is estimated (its kernels where it applies them, none where it does not)
            out.append(Finding.of("kernels-not-modelled", *_where(job, key),
                                  f"{key}: {what} use less memory than estimated here", None))
    ws = job.settings.get("warmup_steps")
    if ws is not None:
        try:
            v = float(str(ws.value))
            if v != int(v):
                out.append(Finding.of("warmup-steps-float", ws.file, ws.line,
                                      f"warmup_steps {ws.value} is a step count, not a fraction",
                                      f"warmup_ratio: {ws.value} (and remove warmup_steps)"))
        except (TypeError, ValueError, OverflowError):  # .inf / Infinity: int() cannot
            pass
    if gpu is not None and cfg.precision in ("bf16", "pure_bf16") and gpu.bf16 in ("emulated", "none"):
        out.append(Finding.of("bf16-unsupported" if gpu.bf16 == "none" else "bf16-emulated", *_where(job, "bf16"),
                              f"bf16 on {gpu.id}: the hardware has no bf16 ({gpu.bf16})", "fp16 (or fp32)"))
    if model is not None and cfg.precision == "fp16" and model.family in FP16_OVERFLOW_FAMILIES:
        out.append(Finding.of("fp16-overflow-risk", *_where(job, "fp16"),
                              f"fp16 on {model.family}: activations overflow fp16 (NaN loss)", "bf16 or fp32"))
    if gpu is not None and cfg.attn == "fa2" and not getattr(gpu, "fa2", None):
        out.append(Finding.of("fa2-no-kernels", *_where(job, "flash_attn"),
                              f"FlashAttention-2 has no kernels for {gpu.id}", "flash_attn: sdpa"))
    out += _checkpointing_findings(job, cfg)
    if _eval_on(job) and "per_device_eval_batch_size" not in job.settings and job.runner not in ("axolotl", "ms-swift", "builtin") \
            and program_bounds.BATCH_KEY + "per_device_eval_batch_size" not in job.settings:
        out.append(Finding.of("default-eval-batch", job.entry_file, None,
                              "evaluation is on and per_device_eval_batch_size is not set: the HF default 8 holds "
                              "8 x cutoff_len logits on every GPU", "per_device_eval_batch_size: 1"))
    mp = str(g("model_name_or_path", "")).lower()
    if model is not None and getattr(model, "vision", None) is None \
            and ("-vl" in mp or "vl-" in mp or "vision" in str(model.family)):
        out.append(Finding.of("vlm-language-part", *_where(job, "model_name_or_path"),
                              "a vision-language model: only the language model is estimated (the vision tower "
                              "and image tokens are not)", None))
    if cfg.optim.startswith("paged_"):
        out.append(_paged_finding(job, model, cfg))
    if cfg.world_size > 1 and cfg.zero_stage == 0 and gpu is not None and model is not None and fsdp_spec(job) is None \
            and megatron.layout(job.settings, cfg.world_size) is None:
        wbytes = estimate(model, cfg).per_gpu.weights_bytes      # as loaded: 4-bit for QLoRA
        if wbytes > 0.5 * gpu.vram_bytes:
            code = "whole-model-fills-gpu" if wbytes > 0.85 * gpu.vram_bytes else "whole-model-every-gpu"
            out.append(Finding.of(code, job.entry_file, job.entry_line,
                                  f"no sharding: each of the {cfg.world_size} GPUs holds the whole model "
                                  f"({wbytes / 2**30:.0f} GiB of weights)", _whole_model_fix(job)))
    if gpu is not None and int(cfg.gpus) > 1 and getattr(gpu, "vendor", "") in ("amd", "hygon"):   # GPUs of one node (P2P)
        out.append(Finding.of("iommu-p2p-hang-risk", None, None,
                              "several AMD GPUs: with the IOMMU in translation mode, collectives hang or crawl",
                              "`rocm-tune doctor` on the machine; iommu=pt on the kernel command line"))
    acc = job.accelerate or {}
    if cfg.zero_stage == 3 and acc.get("zero3_init_flag") is False:
        out.append(Finding.of("zero3-init-flag-false", acc.get("file"),
                              acc.get("lines", {}).get("zero3_init_flag"),
                              "zero3_init_flag: false -- every GPU loads the whole model before ZeRO-3 partitions it "
                              "(the load peak below)", "zero3_init_flag: true"))
    if job.ds is not None and job.ds.offload != "none":
        out.append(Finding.of("offload-needs-cpu-ram", job.ds.file, None,
                              "CPU offload: the host needs the RAM below (pinned), per node", None))
    return out


def _whole_model_fix(job: formats.Job) -> str:
    """The sharding fix for a model every rank holds whole: ZeRO-3, except for a LLaMA-Factory job that only predicts
    (its train path puts the whole model on each rank's GPU and refuses ZeRO-3 with predict_with_generate)."""
    from rocm_tune.core.runners import llamafactory as _lf

    if _lf.predicts_only(job):
        return _lf.PREDICT_SHARDING_FIX
    return "DeepSpeed ZeRO-3 (deepspeed: ds_z3_config.json)"


def _non_reentrant(job: formats.Job) -> tuple[str, str] | None:
    """(key, how it is written) where the user's files ask for non-reentrant gradient checkpointing."""
    if "use_reentrant_gc" in job.settings and as_bool(job.get("use_reentrant_gc")) is False:   # LLaMA-Factory
        return "use_reentrant_gc", "use_reentrant_gc: true"
    kw = job.get("gradient_checkpointing_kwargs")
    text = json.dumps(kw) if isinstance(kw, dict) else str(kw or "")
    if re.search(r"""["']?use_reentrant["']?\s*[:=]\s*(false|False)\b""", text):
        return "gradient_checkpointing_kwargs", 'gradient_checkpointing_kwargs {"use_reentrant": true}'
    return None


def _checkpointing_findings(job: formats.Job, cfg: TrainConfig) -> list[Finding]:
    """Gradient checkpointing's mode against the sharding: DDP + LoRA needs non-reentrant, LoRA + ZeRO-3 reentrant."""
    out: list[Finding] = []
    if cfg.world_size > 1 and cfg.zero_stage == 0 and cfg.is_lora and cfg.gradient_checkpointing \
            and megatron.layout(job.settings, cfg.world_size) is None \
            and job.runner in ("hf", "axolotl") and "gradient_checkpointing_kwargs" not in job.settings:
        out.append(Finding.of("ddp-lora-gc-reentrant", job.entry_file, job.entry_line,
                              "DDP + LoRA + reentrant gradient checkpointing: 'Expected to mark a variable ready "
                              "only once'", '--gradient_checkpointing_kwargs \'{"use_reentrant": false}\''))
    asked = _non_reentrant(job)
    # TRL's trainers force reentrant themselves for PEFT + ZeRO-3 (trl#2514): only the others fail
    if asked and cfg.gradient_checkpointing and V.use_reentrant_for(cfg.is_lora, cfg.zero_stage) and job.runner != "trl":
        key, fix = asked
        out.append(Finding.of("zero3-lora-gc-nonreentrant", *_where(job, key),
                              "LoRA + DeepSpeed ZeRO-3 + non-reentrant gradient checkpointing: the backward's "
                              "recomputation finds the layers' parameters partitioned again and torch raises "
                              "CheckpointError (recomputed shape [0]; DeepSpeed#8148)", fix))
    return out


def _paged_spill(rep: Report, model, cfg: TrainConfig, vram: int) -> None:
    """A paged optimizer over the card's memory: its state pages out to host RAM instead of an OOM, as long as the
    rest fits; the verdict is fits, and the finding says how much moves each step. Only bitsandbytes' own state
    buffers page (estimate.paged_state_bytes): not DeepSpeed's fp32 master partition."""
    opt = _memory.paged_state_bytes(model, cfg, estimate(model, cfg))
    step = rep.memory["step"]["reserved_bytes"] if rep.memory and rep.memory.get("step") else 0
    over = step - vram
    if opt <= 0 or over <= 0 or over > opt * (1 + FRAGMENTATION):
        return
    others = [p["reserved_bytes"] for n, p in (rep.memory or {}).items() if p and n != "step"]
    if any(r - opt * (1 + FRAGMENTATION) > vram for r in others):
        return
    rep.verdict, rep.oom_phase, rep.margin_bytes = "fits", None, 0
    rep.findings.append(Finding.of("paged-spill", *_where(rep.job, "optim"),
                                   f"the step needs {over / 2**30:.1f} GiB more than the card: the paged optimizer's state "
                                   f"pages that much out to host RAM and back every step (~{2 * over / 25e9:.1f} s per "
                                   f"step at 25 GB/s); it runs, slower", "a smaller micro-batch or LoRA to keep it on the GPU"))


def _paged_finding(job: formats.Job, model, cfg: TrainConfig) -> Finding:
    """bitsandbytes' paged optimizers keep their state in CUDA/HIP managed memory: under GPU memory pressure pages
    move to host RAM and back at every step (bitsandbytes/optim/optimizer.py, get_paged)."""
    opt = _memory.paged_state_bytes(model, cfg, estimate(model, cfg)) if model is not None else 0
    master = "; DeepSpeed's fp32 master partition beside it is not paged" if cfg.zero_stage else ""
    return Finding.of("paged-optimizer", *_where(job, "optim"),
                      f"{job.get('optim')}: the optimizer state ({opt / 2**30:.2f} GiB per GPU, counted on the GPU "
                      f"here{master}) "
                      f"is in managed memory and may spill to host RAM when the GPU runs short: it does not OOM then, "
                      f"but every step pages it over PCIe/Infinity Fabric both ways (at ~25 GB/s, about "
                      f"{2 * opt / 25e9:.2f} s per step for the whole state); on ROCm it needs HIP managed memory "
                      f"(HMM / xnack) or bitsandbytes falls back to ordinary allocations",
                      "a non-paged 8-bit optimizer (adamw_8bit) when it fits")


# ------------------------------------------------------------------------------------------------ verdict
def _verdict(phases: dict, vram: int) -> tuple[str, str | None, int]:
    worst = max((p["reserved_bytes"] for p in phases.values() if p), default=0)
    for name in ("load", "step", "generate", "eval", "save"):
        p = phases.get(name)
        if p and p["reserved_bytes"] > vram:
            return "oom", name, vram - worst
    return "fits", None, vram - worst


def _fits(job, model, cfg, eval_batch, vram, init_flag: bool | None = None, gpu=None,
          host_limit: int | None = None) -> bool:
    try:
        phases, host, _n = memory_phases(job, model, cfg, eval_batch, init_flag=init_flag, gpu=gpu)
    except UserError:
        return False
    if host_limit is not None and host > host_limit:
        return False                   # the offload needs more host RAM than the node has
    return _verdict(phases, vram)[0] == "fits"


@dataclass(frozen=True)
class _Option:
    keys: tuple            # ((canonical key, value), ...) written into the user's files
    cfg: tuple             # ((TrainConfig field, value), ...)
    eval_batch: int | None = None
    init_flag: bool | None = None


def _options(job, cfg: TrainConfig, eval_batch) -> list[list[_Option]]:
    """One list per kind of change, least intrusive kind first; within a kind, the smallest change first."""
    ga = as_int(job.get("gradient_accumulation_steps")) or 1
    groups: list[list[_Option]] = []
    if eval_batch and eval_batch > 1:
        groups.append([_Option((("per_device_eval_batch_size", 1),), (), eval_batch=1)])
    acc = job.accelerate or {}
    if cfg.zero_stage == 3 and acc.get("zero3_init_flag") is False:
        groups.append([_Option((("zero3_init_flag", True),), (), init_flag=True)])
    # micro-batch down, accumulation up: the same effective batch (not where the micro-batch is a prompt's
    # num_generations completions, core/runners/rl.py apply_generations: the flag counts prompts there)
    bs = job.settings.get("per_device_train_batch_size")
    if bs is None or "num_generations" not in str(bs.native):
        groups.append([_Option((("per_device_train_batch_size", m), ("gradient_accumulation_steps", ga * cfg.micro_batch // m)),
                               (("micro_batch", m),))
                       for m in range(cfg.micro_batch - 1, 0, -1) if cfg.micro_batch % m == 0])
    if not cfg.gradient_checkpointing:
        groups.append([_Option((("disable_gradient_checkpointing", False),), (("gradient_checkpointing", True),))])
    # the ZeRO / offload rungs in the planner's own order of complexity (core/plan/search.py)
    here = plan_search.COMPLEXITY.get((cfg.zero_stage, cfg.offload), 0)
    groups.append([_Option((("__zero__", (z, off)),), (("zero_stage", z), ("offload", off)))
                   for z, off in plan_search._ladder(cfg.world_size, None, None)
                   if plan_search.COMPLEXITY.get((z, off), 0) > here and z >= cfg.zero_stage])
    # shorter sequences last (they change what trains): powers of two below the user's value
    cuts = []
    c = 1 << max(0, (cfg.cutoff_len - 1).bit_length() - 1)
    while V.MIN_CUTOFF <= c < cfg.cutoff_len:
        cuts.append(_Option((("cutoff_len", c),), (("cutoff_len", c),)))
        c //= 2
    groups.append(cuts)
    return [g for g in groups if g]


def search_fix(job, model, cfg: TrainConfig, eval_batch, vram, max_kinds: int = 3, gpu=None,
               host_limit: int | None = None) -> tuple[dict, TrainConfig, int | None] | None:
    """The fewest kinds of change (then the least intrusive kinds, then the smallest change within each) that
    fit in `vram`, keeping the effective batch. Returns ({canonical key: value}, new config, eval batch)."""
    from itertools import combinations, product

    groups = _options(job, cfg, eval_batch)
    for n in range(1, min(max_kinds, len(groups)) + 1):
        for kinds in combinations(range(len(groups)), n):
            for combo in product(*(groups[k] for k in kinds)):
                cc: dict = {}
                keys: dict = {}
                eb, init = eval_batch, None
                for o in combo:
                    cc.update(dict(o.cfg))
                    keys.update(dict(o.keys))
                    eb = o.eval_batch if o.eval_batch is not None else eb
                    init = o.init_flag if o.init_flag is not None else init
                try:
                    new = replace(cfg, **cc)
                    new.validate()
                except UserError:
                    continue
                if _fits(job, model, new, eb, vram, init_flag=init, gpu=gpu, host_limit=host_limit):
                    return keys, new, eb
    return None


# ------------------------------------------------------------------------------------------------ fix files
_HF_NATIVE = {"cutoff_len": "model_max_length", "disable_gradient_checkpointing": "gradient_checkpointing"}
_SWIFT_NATIVE = {"cutoff_len": "max_length", "disable_gradient_checkpointing": "gradient_checkpointing"}


def _yaml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _set_in_text(text: str, setting, new_value, style: str) -> str:
    lines = text.splitlines(keepends=True)
    i = (setting.line or 1) - 1
    if not 0 <= i < len(lines):
        return text
    if style == "python":  # a keyword argument of a call, or a dict literal's key: a Python literal, never a flag
        key = r"(?:\b" + re.escape(setting.native) + r"\s*=|[\"']" + re.escape(setting.native) + r"[\"']\s*:)"
        lines[i] = re.sub(r"(" + key + r"\s*)([^,)}#\n]+?)(\s*(?:[,)}#]|$))",
                          lambda m: m.group(1) + _py_value(not new_value if setting.invert else new_value)
                          + m.group(3), lines[i].rstrip("\n"), count=1) + "\n"
    elif setting.kind == "override":       # `key=value` after the config on the command line (LLaMA-Factory, tune run)
        v = _yaml_value(not new_value if setting.invert and isinstance(new_value, bool) else new_value)
        lines[i] = re.sub(r"(?<![\w.-])(" + re.escape(setting.native) + r")=\S+", lambda m: m.group(1) + "=" + v,
                          lines[i], count=1)
    elif setting.kind == "toml":           # torchtitan's job TOML: `key = value` (core/runners/torchtitan.py)
        v = _toml_value(setting, new_value)
        lines[i] = re.sub(r"^(\s*" + re.escape(setting.native) + r"\s*=\s*)([^#\n]*?)(\s*(#.*)?)$",
                          lambda m: m.group(1) + v + m.group(3), lines[i].rstrip("\n")) + "\n"
    elif setting.kind == "yaml":
        v = _yaml_value(not new_value if setting.invert and isinstance(new_value, bool) else new_value)
        lines[i] = re.sub(r"^(\s*" + re.escape(setting.native) + r"\s*:\s*)([^#\n]*?)(\s*(#.*)?)$",
                          lambda m: m.group(1) + v + m.group(3), lines[i].rstrip("\n")) + "\n"
    else:
        v = _yaml_value(not new_value if setting.invert else new_value)
        if style in ("hf", "swift") and isinstance(new_value, bool):
            v = v.capitalize() if style == "hf" else v
        flag = re.escape(setting.native).replace("_", "[-_]")    # argparse's --batch-size is dest batch_size
        lines[i] = re.sub(r"(--" + flag + r")(=|\s+)(\S+)",
                          lambda m: m.group(1) + m.group(2) + v, lines[i], count=1)
    return "".join(lines)


def _toml_value(setting, new_value) -> str:
    """A value as torchtitan's TOML writes it; [activation_checkpoint] mode for the checkpointing switch."""
    if setting.native == "mode" and isinstance(new_value, bool):
        return '"none"' if new_value != setting.invert else '"full"'
    if isinstance(new_value, bool):
        return "true" if new_value else "false"
    return str(new_value) if isinstance(new_value, (int, float)) or str(new_value).lstrip("-").isdigit() \
        else json.dumps(str(new_value))


def _py_value(v) -> str:
    return repr(v) if isinstance(v, (bool, str)) else str(v)


# a setting the fix adds to a YAML config that is not LLaMA-Factory's: the runner's own key (its reader's names)
_YAML_NATIVE = {
    "axolotl-yaml": {"cutoff_len": "sequence_len", "per_device_train_batch_size": "micro_batch_size",
                     "per_device_eval_batch_size": "eval_batch_size", "optim": "optimizer",
                     "disable_gradient_checkpointing": "gradient_checkpointing"},
    "torchtune-yaml": {"per_device_train_batch_size": "batch_size",
                       "disable_gradient_checkpointing": "enable_activation_checkpointing"},
}


def _yaml_without_home(fmt: str | None) -> bool:
    return bool(fmt) and str(fmt).endswith(("-yaml", "-toml")) and fmt != "lf-yaml" and fmt not in _YAML_NATIVE


def _native_flag(job, key: str) -> str:
    return {"hf": _HF_NATIVE, "swift": _SWIFT_NATIVE}.get(job.script_flags.get("style", ""), {}).get(key, key)


# where a one-line command's words end: a redirection, a pipe, `&&`/`||`, `;`, a background `&` or a comment
_COMMAND_END = re.compile(r"\s+(?=(?:\d?>|&>|&&|\|\|?|;|&\s*$|&\s|#))")


def _add_to_text(text: str, job, key: str, value, file: str) -> str:
    fmt = job.formats.get(file)
    if fmt == "lf-yaml":
        return text.rstrip("\n") + f"\n{key}: {_yaml_value(value)}   # rocm-tune check --fix\n"
    if fmt in _YAML_NATIVE:   # a YAML config takes a YAML key, never a shell flag
        native = _YAML_NATIVE[fmt].get(key, key)
        if key == "disable_gradient_checkpointing":
            value = not value
        return text.rstrip("\n") + f"\n{native}: {_yaml_value(value)}   # rocm-tune check --fix\n"
    native = _native_flag(job, key)
    if native == "gradient_checkpointing" and key == "disable_gradient_checkpointing":
        value = not value
    lines = text.splitlines(keepends=True)
    at = job.entry_line or len(lines)
    flag = f"--{native} {_yaml_value(value)}"
    first = lines[at - 1] if 0 < at <= len(lines) else ""
    if first and not first.rstrip().endswith("\\"):
        # a command on one line (`nohup python train.py --bs 2 > log 2>&1 &`): the flag joins its words, before
        # the redirections, never as a continuation line after it (which the shell would run as a command)
        body = first.rstrip("\n")
        m = _COMMAND_END.search(body)
        cut = m.start() if m else len(body.rstrip())
        lines[at - 1] = body[:cut] + " " + flag + body[cut:] + first[len(body):]
        return "".join(lines)
    indent = "    "
    if at < len(lines):
        m2 = re.match(r"^\s*", lines[at])
        indent = (m2.group(0) if m2 else "") or indent
    lines.insert(at, f"{indent}{flag} \\\n")
    return "".join(lines)


def _program_ignores_flag(job, script: str, native: str) -> str | None:
    """The Python program a launch script runs (given beside it) when that program would not take `--native`: it
    parses its own argparse options without that one (argparse stops with "unrecognized arguments"), or parses none
    (the flag would change nothing). None when the program is not given or reads TrainingArguments from the command
    line (HfArgumentParser, TRL's parser): then the flag reaches it."""
    import ast

    from rocm_tune.core.files import parse_python

    for p, text in job.files.items():
        if job.formats.get(p) != "python" or not re.search(rf"(?<![\w.-]){re.escape(os.path.basename(p))}\b",
                                                            script):
            continue
        if re.search(r"HfArgumentParser|parse_args_into_dataclasses|TrlParser|ArgumentParser\(\s*\(", text):
            return None
        try:
            tree = parse_python(text, p, "Python program")
        except UserError:
            return None
        opts = {a.value.lstrip("-").replace("-", "_") for n in ast.walk(tree)
                if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "add_argument"
                for a in n.args if isinstance(a, ast.Constant) and isinstance(a.value, str) and a.value.startswith("-")}
        if native.replace("-", "_") not in opts:
            return os.path.basename(p)
    return None


def _accelerate_zero(text: str, z: int, off: str) -> str:
    """The accelerate config's deepspeed_config block with the ZeRO stage / offload devices set."""
    want = {"zero_stage": str(z), "offload_optimizer_device": "cpu" if off in ("optimizer", "all") else "none",
            "offload_param_device": "cpu" if off == "all" else "none"}
    for k, v in want.items():
        pat = re.compile(r"(?m)^(\s+" + k + r"\s*:\s*)\S+")
        if pat.search(text):
            text = pat.sub(r"\g<1>" + v, text)
        elif v != "none":
            text = re.sub(r"(?m)^(deepspeed_config:[ \t]*\n)", r"\g<1>" + f"  {k}: {v}\n", text, count=1)
    return text


def _kwarg(key: str, value) -> str:
    """A change as the keyword argument a program's TrainingArguments(...) takes: check's own
    `disable_gradient_checkpointing` (LLaMA-Factory's name) is transformers' `gradient_checkpointing`, inverted."""
    if key == "disable_gradient_checkpointing" and isinstance(value, bool):
        return f"gradient_checkpointing={not value!r}"
    return f"{key}={_py_value(value)}"


def build_fix(job: formats.Job, keys: dict, cfg: TrainConfig | None, originals: dict[str, str] | None = None) -> dict:
    """The user's files with `keys` applied (and a unified diff against `originals`, default the job's own)."""
    files = dict(originals) if originals is not None else dict(job.files)
    new = dict(job.files)
    manual: list[str] = []  # keyword arguments a Python program needs added by hand
    lf_yaml_file = next((p for p, f in job.formats.items() if f == "lf-yaml"), None)
    target_file = lf_yaml_file or job.entry_file
    for key, value in keys.items():
        if key == "zero3_init_flag":
            af = (job.accelerate or {}).get("file")
            if af in new:
                new[af] = re.sub(r"(?m)^(\s*zero3_init_flag\s*:\s*)\S+", lambda m: m.group(1) + "true", new[af])
            continue
        if key == "__zero__":
            z, off = value
            af = (job.accelerate or {}).get("file")
            if job.ds_from_accelerate and af in new:
                new[af] = _accelerate_zero(new[af], z, off)
            elif job.ds is not None and job.ds.file in files:
                data = deepspeed_json.with_zero(job.ds.data, z, off)
                new[job.ds.file] = json.dumps(data, indent=2) + "\n"
            else:
                name = f"ds_z{z}{'_offload' if off != 'none' else ''}_config.json"
                base = deepspeed_json.lf_example("ds_z3_config.json" if z == 3 else "ds_z2_config.json") or {}
                data = deepspeed_json.with_zero(base, z, off)
                new[name] = json.dumps(data, indent=2) + "\n"
                s = job.settings.get("deepspeed")
                if s is not None and s.file in new:
                    new[s.file] = _set_in_text(new[s.file], s, name, job.script_flags.get("style", ""))
                elif target_file and job.formats.get(target_file) == "python":
                    manual.append(f"deepspeed={name!r}")
                elif target_file and target_file in new and _program_ignores_flag(job, new[target_file], "deepspeed"):
                    manual.append(f"deepspeed={name!r}")
                elif target_file:
                    new[target_file] = _add_to_text(new[target_file], job, "deepspeed", name, target_file)
            continue
        s = job.settings.get(key)
        if job.formats.get(s.file if s is not None else target_file) == "notebook":
            continue                   # a notebook's cells are not rewritten: the change is listed, not applied
        if s is not None and s.file in new and s.line and s.kind in ("yaml", "flag", "override", "toml"):
            new[s.file] = _set_in_text(new[s.file], s, value, job.script_flags.get("style", ""))
        elif str(job.entry).startswith("torchtitan"):
            # torchtitan takes no other flag: the change said in its own terms (gradient accumulation is
            # [training] global_batch_size = local_batch_size x data-parallel ranks x steps)
            manual.append(f"[training] global_batch_size = local_batch_size x data-parallel ranks x {value}"
                          if key == "gradient_accumulation_steps" else f"{key}={_py_value(value)}")
        elif target_file and target_file in new and job.formats.get(target_file) == "python":
            manual.append(_kwarg(key, value))  # a program takes no shell flags: said, never written
        elif target_file and target_file in new and _yaml_without_home(job.formats.get(target_file)):
            manual.append(f"{key}: {_yaml_value(value)}")  # a YAML whose key for it we do not know: said
        elif target_file and target_file in new and job.formats.get(target_file) == "script" \
                and _program_ignores_flag(job, new[target_file], _native_flag(job, key)):
            manual.append(f"{key}={_py_value(value)}")  # the program it runs would refuse (or ignore) the flag
        elif target_file and target_file in new:
            new[target_file] = _add_to_text(new[target_file], job, key, value, target_file)
    changed = {os.path.basename(p): t for p, t in new.items() if files.get(p) != t}
    added = [os.path.basename(p) for p in new if p not in files]
    refs = _launch_copies(job, new, files, changed)
    diff = ""
    for p, t in new.items():
        old = files.get(p, "")
        if old != t:
            diff += "".join(difflib.unified_diff(old.splitlines(keepends=True), t.splitlines(keepends=True),
                                                 fromfile=p if p in files else "/dev/null",
                                                 tofile=os.path.basename(p) + " (fixed)"))
    out = {"files": changed, "diff": diff, "changes": {k: (list(v) if isinstance(v, tuple) else v)
                                                        for k, v in keys.items()},
           "added": added, "refs": refs}
    if manual and str(job.entry).startswith("torchtitan"):
        out["manual_where"] = "the torchtitan job TOML"
    return out | ({"manual": manual} if manual else {})


def _launch_copies(job, new: dict, files: dict, changed: dict) -> dict:
    """A launch script that names a config the fix changed is copied beside the fixed config (so the fix runs as
    one), with where it names it: {script name: [[text as written, fixed file name], ...]}."""
    refs: dict[str, list[list[str]]] = {}
    for p, fmt in job.formats.items():
        if fmt != "script" or p not in new:
            continue
        text = new[p]
        for q in changed:
            orig = next((o for o in files if os.path.basename(o) == q and o != p), None)
            if orig is None:
                continue
            for written in {orig, os.path.basename(orig)}:
                if re.search(r"(?<![\w/.-])" + re.escape(written) + r"(?![\w.-])", text) or \
                        re.search(r"[\w./-]*/" + re.escape(os.path.basename(orig)) + r"(?![\w.-])", text):
                    m = re.search(r"[\w./~${}-]*" + re.escape(os.path.basename(orig)) + r"(?![\w.-])", text)
                    if m:
                        refs.setdefault(os.path.basename(p), []).append([m.group(0), q])
                    break
        if os.path.basename(p) in refs:
            changed.setdefault(os.path.basename(p), text)
    return refs


# ------------------------------------------------------------------------------------------------ entry
# host RAM an offload fix may need per node when the node's RAM is not stated: more is beyond most training nodes
# (8-GPU servers ship with 1-2 TiB), so such a "fix" is not offered (the LoRA/QLoRA way is)
HOST_RAM_ASSUMED = 1024 * 2**30
# an OOM by less than this share of the card is inside the estimate's error (said: oom-margin-thin)
THIN_OOM_SHARE = 0.03
# a model assumed from its name (a Llama-style decoder of that size) misses its real vocabulary, attention and
# extra towers: a margin smaller than this share of the card is inside that error
ASSUMED_SHAPE_ERROR = 0.10
# keys that pack samples into full-length rows (then every batch really is cutoff_len tokens)
_PACKING_KEYS = ("packing", "neat_packing", "sample_packing", "pad_to_max_length")


def _padding_assumption(job: formats.Job, cfg, fit: int | None = None) -> list[str]:
    """Issue 25 item 9: an OOM in the step counts every micro-batch at cutoff_len tokens; say so, unless the config
    packs (or pads to the maximum), where that is what really runs; `fit`: the longest sample that still fits."""
    if any(as_bool(job.get(k)) for k in _PACKING_KEYS):
        return []
    how = ("LLaMA-Factory pads each batch to its longest sample" if job.runner == "llamafactory" else
           "the collator pads each batch to its longest sample (not to the maximum length)")
    tail = ("so batches of shorter samples use less activation memory" if fit is None else
            f"it fits while every micro-batch's longest sample stays within {fit} tokens (the data is not here to "
            f"say whether it does)" if fit else "yet no sample length fits: the OOM is not the sequence's")
    return [f"every batch counted at cutoff_len ({cfg.cutoff_len}) tokens: the worst case; {how}: {tail}"]


def _pads_to_longest(job: formats.Job) -> bool:
    """The collator pads each micro-batch to its longest sample: not when the config packs, pads to the maximum, or
    is LLaMA-Factory's pre-training stage (which concatenates the texts into cutoff_len blocks)."""
    return not any(as_bool(job.get(k)) for k in _PACKING_KEYS) and \
        not (job.runner == "llamafactory" and str(job.get("stage", "sft")).lower() == "pt")


def _sample_lengths(rep: Report, job: formats.Job, model, cfg, eval_batch, gpu, vram: int) -> None:
    """The verdict at the data's longest sample when the data is on disk, else (an OOM in the step) the longest
    sample that still fits, said beside the worst case of every batch at the cap (core/check/lengths.py)."""
    if not _pads_to_longest(job):
        return
    stats, where = lengths.local_data(job, model)
    if stats is None and where:
        job.notes.append(where)
    def verdict_at(t: int) -> tuple:
        return _verdict(memory_phases(job, model, lengths.at_length(cfg, t), eval_batch, gpu=gpu)[0], vram)

    if stats is not None and stats.lengths:
        longest = lengths.padded(min(stats.lengths[-1], cfg.cutoff_len))
        if longest >= cfg.cutoff_len:
            return
        at_cap = rep.verdict
        rep.memory = memory_phases(job, model, lengths.at_length(cfg, longest), eval_batch, gpu=gpu)[0]
        rep.verdict, rep.oom_phase, rep.margin_bytes = _verdict(rep.memory, vram)
        rep.assumptions.append(
            f"every batch counted at the longest sample of the data, {stats.lengths[-1]} tokens ({stats.label}; "
            f"{stats.tokenizer}), padded to {longest}, not at cutoff_len {cfg.cutoff_len}: the collator pads each "
            f"batch to its longest sample; at the cap the verdict would be {at_cap}")
        return
    if _named_data_bound(rep, job, model, cfg, eval_batch, gpu, vram):
        return
    if rep.verdict == "oom" and rep.oom_phase in ("step", "eval"):
        fit = lengths.longest_that_fits(lambda t: verdict_at(t)[0] == "fits", cfg.cutoff_len)
        rep.assumptions += _padding_assumption(job, cfg, fit)
        if fit and as_bool(job.get(UNTRUNCATED)):
            # the length itself is an assumption (nothing truncates a sample): the OOM is the assumption's, not the
            # config's; the data's longest sample decides
            rep.verdict, rep.oom_phase = "unknown", None
            rep.reason = (f"the data's longest sample decides: the config sets no sequence length and {job.runner} "
                          f"truncates no sample, so each batch is as long as its longest sample; it fits while that "
                          f"stays within {fit} tokens, and is OOM at the {cfg.cutoff_len} assumed: cap the length "
                          f"({UNTRUNCATED_CAPS.get(job.runner, 'its max length')}) at {fit} or less")


def _data_bounds(rep: Report, job: formats.Job, model, cfg, eval_batch, gpu, vram: int) -> None:
    """What the data decides beside the caps: its samples' length (_sample_lengths), its images' size."""
    _sample_lengths(rep, job, model, cfg, eval_batch, gpu, vram)
    _image_size_decides(rep, job, model, cfg, eval_batch, gpu, vram)


def _image_size_decides(rep: Report, job: formats.Job, model, cfg, eval_batch, gpu, vram: int) -> bool:
    """An OOM counted at the processor's own image cap when nothing caps the images: the Qwen-VL processors
    (transformers' image_processing_qwen2_vl.py smart_resize, qwen_vl_utils fetch_image) rescale an image only when
    it is above max_pixels or below min_pixels, so each image keeps its own size and the cap (16384 tokens: 12845056
    pixels for patch 14) is reached only by the largest. When an image of some smaller size fits, the data's images
    decide: the OOM at the cap stands (the worst case, what users who set no cap report) and the largest image per
    sample that fits is said beside it, with the cap that makes it (core/check/images.py)."""
    from rocm_tune.core.check import images

    tower = getattr(model, "vision", None)
    if rep.verdict != "oom" or rep.oom_phase not in ("step", "eval") or not _default_image_cap(job, tower) \
            or cfg.image_tokens <= 1:
        return False
    whole = _whole_images(job, tower)
    base = cfg.cutoff_len - cfg.image_tokens if _tokens_on_top(job, tower) else None

    def fits(tokens: int) -> bool:
        at = images.config_at(cfg, tokens, base, whole)
        return _verdict(memory_phases(job, model, at, eval_batch, gpu=gpu)[0], vram)[0] == "fits"

    best = images.largest_fitting(fits, cfg.image_tokens)
    if not best:
        return False
    # the OOM stands: ms-swift's Qwen-VL users who set no MAX_PIXELS do hit it (the processor's cap is what their
    # data reaches); the largest image that fits is said beside it
    rep.assumptions.append(images.reason(job.runner, tower, best, cfg.image_tokens, rep.oom_phase))
    return True


def _named_data_bound(rep: Report, job: formats.Job, model, cfg, eval_batch, gpu, vram: int) -> bool:
    """The named public data's longest sample (profiles/dataset_lengths.py) below the cap: every batch is counted at
    it, and the answer says which bound it used and what a longer dataset would need (the cap's peak)."""
    from rocm_tune.profiles.dataset_lengths import GENERATING_STAGES

    if str(job.get("stage", "") or "").lower() in GENERATING_STAGES:
        return False
    vocab = int(getattr(model, "vocab_size", 0) or (model.config.get("vocab_size", 0) if model is not None else 0)
                or 0)
    bound = lengths.named_bound(job, vocab)
    if bound is None:
        return False
    tokens, source, native = bound
    counted = lengths.padded(min(tokens, cfg.cutoff_len))
    if counted >= cfg.cutoff_len:
        return False
    at_cap, cap_peak = rep.verdict, max((p["reserved_bytes"] for p in (rep.memory or {}).values() if p), default=0)
    rep.memory = memory_phases(job, model, lengths.at_length(cfg, counted), eval_batch, gpu=gpu)[0]
    rep.verdict, rep.oom_phase, rep.margin_bytes = _verdict(rep.memory, vram)
    gib = cap_peak / 2**30
    rep.assumptions.append(
        f"the named data's longest sample ~{tokens} tokens < cutoff_len {cfg.cutoff_len} ({native}: {source}): "
        f"counted at {counted} (the collator pads each batch to its longest sample); a longer dataset would need "
        f"{gib:.1f} GiB per GPU at the cap ({at_cap} there)")
    rep.sequence_bound = {"bound": "data", "data_longest_tokens": tokens, "counted_tokens": counted,
                          "cutoff_len": cfg.cutoff_len, "named_by": native, "source": source,
                          "at_cutoff_len": {"verdict": at_cap, "peak_bytes": int(cap_peak)}}
    return True


def _card_in_files(job: formats.Job, gpu_id: str | None, vram_gib: float | None) -> tuple[str | None, float | None]:
    """The card the files ask for (a dstack task's resources.gpu) where the command line names none."""
    named = job.settings.get("__gpu_named__")
    if gpu_id or vram_gib is not None or named is None:
        return gpu_id, vram_gib
    from rocm_tune.profiles.gpu_profiles import find_gpu_profile

    text = str(named.value)
    mem = re.search(r"(\d+)\s*GB", text, re.IGNORECASE)
    if text and not mem and find_gpu_profile(text) is not None:
        job.notes.append(f"GPU {text} from {os.path.basename(named.file or '')} ({named.native})")
        return text, None
    if mem:
        job.notes.append(f"GPU: a {mem.group(1)} GiB card from {os.path.basename(named.file or '')} ({named.native})")
        return None, float(mem.group(1))
    return gpu_id, vram_gib


def check(paths: list[str], *, gpu_id: str | None = None, vram_gib: float | None = None, gpus: int | None = None,
          nodes: int | None = None, model_ref: str | None = None, host_ram_gib: float | None = None) -> Report:
    job = formats.read_job(paths)
    host_limit = int(host_ram_gib * 2**30) if host_ram_gib else None
    findings = list(job.findings)
    assumptions: list[str] = []
    from rocm_tune.core.check.gpu import resolve_card

    gpu_id, vram_gib = _card_in_files(job, gpu_id, vram_gib)
    gpu: Any = resolve_card(gpu_id, vram_gib, job.notes, assumptions)
    model = _check_model(job, model_ref, findings, assumptions)
    findings = unsloth.drop_bound_finding(job, findings)       # Unsloth's kernels estimated (runners/unsloth.py)
    runner = job.runner
    if model is None or runner not in MODELLED:
        rep = _not_modelled(job, model, gpu, findings, assumptions)
        if model is None and not model_ref and runner in MODELLED:
            kw = {"gpu_id": gpu_id, "vram_gib": vram_gib, "gpus": gpus, "nodes": nodes, "host_ram_gib": host_ram_gib}
            return _family_bound(rep, paths, kw)
        return rep
    try:
        cfg, f2, a2 = build_config(job, model, gpus, nodes)
        cfg.validate()
    except BadValue as exc:
        findings.append(Finding.of("bad-value", exc.file, exc.line, str(exc), "a whole number"))
        return Report(job, runner, 0, None, model, gpu, None, None, "unknown", None, None, findings, assumptions,
                      None, None, reason=str(exc))
    except UserError as exc:
        findings.append(Finding.of("config-not-modelled", job.entry_file, job.entry_line, str(exc), None))
        return Report(job, runner, 0, None, model, gpu, None, None, "unknown", None, None, findings, assumptions,
                      None, None, reason=str(exc))
    findings += f2
    assumptions += a2
    cfg, sdpa_note = _as_run(job, model, cfg, gpu, assumptions)
    eval_batch = None
    if _eval_on(job, getattr(model, "vision", None)):
        eval_batch = eval_batch_default(job, cfg, {**runner_defaults(runner), **job.defaults})
    phases, host, est_notes = memory_phases(job, model, cfg, eval_batch, gpu=gpu)
    from rocm_tune.core.runners.llamafactory import cli_release_note

    lf_note = cli_release_note(job, cfg.gpus)
    est_notes += [lf_note] if lf_note else []
    est_notes += [sdpa_note] if sdpa_note else []
    findings += general_findings(job, model, cfg, gpu)
    from rocm_tune.core.memory.checkpoint_size import check_findings  # disk-will-fill (issue 21; helper longruns2)

    findings += check_findings(job, model, cfg)
    exe = _execution(job, model, cfg, findings)
    rep = Report(job, runner, cfg.world_size, cfg, model, gpu, phases, None, "unknown", None, None, findings,
                 assumptions, None, exe, cpu_ram_bytes=host, est_notes=est_notes)
    if gpu is None:
        rep.reason = "which GPU? the memory is estimated, the verdict needs the card: pass --gpu (or --vram-gib)"
        return _card_range(rep, paths, {"gpus": gpus, "nodes": nodes, "model_ref": model_ref,
                                        "host_ram_gib": host_ram_gib})
    vram = int(gpu.vram_bytes)
    rep.vram_bytes = vram
    rep.verdict, rep.oom_phase, rep.margin_bytes = _verdict(phases, vram)
    _data_bounds(rep, job, model, cfg, eval_batch, gpu, vram)
    if rep.verdict == "oom" and rep.oom_phase == "step" and cfg.optim.startswith("paged_"):
        _paged_spill(rep, model, cfg, vram)
    lower_bound = _lower_bound(model, findings)
    if rep.verdict == "fits" and lower_bound and rep.margin_bytes is not None \
            and rep.margin_bytes < ASSUMED_SHAPE_ERROR * vram:
        # the estimate is a lower bound (a shape assumed from the name; a VLM's language part only): within its
        # error a thin "fits" would send a run to crash (a thin OOM stays an answer: the user is warned either way)
        rep.reason = f"{lower_bound}: fits by only {rep.margin_bytes / 2**30:.1f} GiB, inside what is not counted"
        rep.verdict, rep.oom_phase = "unknown", None
        return rep
    if _over_upper_bound(rep, vram) or _one_fact_decides(rep, job, model, cfg, eval_batch, gpu, vram):
        return rep
    if rep.verdict == "oom" and _gpu_count_decides(job, cfg, gpus):
        rep.verdict, rep.oom_phase = "unknown", None
        rep.reason = (f"the GPU count decides: {job.launcher} starts one rank per visible GPU and the config shards "
                      f"over them; on one GPU it needs {(vram - rep.margin_bytes) / 2**30:.0f} GiB: pass --gpus N")
        return rep
    _margin_findings(rep, model, cfg, eval_batch, gpu, host, host_limit)
    if any(f.code in ("shell-comment-cuts-command", "shell-space-after-backslash") for f in findings):
        return _fix_as_intended(rep, gpus, nodes, model_ref, vram)
    if rep.verdict == "oom":
        _oom_fix(rep, job, model, cfg, eval_batch, vram, gpu, host_limit)
    return rep


def shard_words(rep) -> str:
    """How the model is spread, in words (check's text and its screen): FSDP / device_map as read, ZeRO, DDP."""
    c = rep.cfg
    words = (f"ZeRO-{c.zero_stage}" + (f" + offload {c.offload}" if c.offload != "none" else "")
             if c.zero_stage else ("DDP" if c.world_size > 1 else "single GPU"))
    return str((rep.execution or {}).get("sharding") or words)


def _execution(job, model, cfg, findings: list) -> dict:
    """What really executes (precision, attention, sharding), as the plan says it; its warning as a finding."""
    from rocm_tune.core.runners import execution

    exe = execution(model, cfg).to_dict()
    spec = fsdp_spec(job) if not cfg.zero_stage else None
    per = as_int(job.get("__devmap_gpus__")) or 0
    lay = megatron.layout(job.settings, cfg.world_size) if spec is None and not cfg.zero_stage and per <= 1 else None
    if spec is not None:
        exe["sharding"] = spec.describe()
    elif per > 1 and not cfg.zero_stage:
        exe["sharding"] = f"device_map over {per} GPUs per process"
    elif lay is not None and (lay.model_parallel > 1 or lay.fsdp or lay.ep > 1 or lay.distributed_optimizer):
        exe["sharding"] = lay.describe()     # Megatron's / torchtitan's split, not DDP (memory_phases counts it so)
    w = exe.get("warning")
    if isinstance(w, dict) and w.get("code"):
        findings.append(Finding.of(str(w["code"]), *_where(job, "bf16"),   # the plan's code: the same fact
                                   str(w.get("message", "")), w.get("fix")))
    return exe


# a TRL trainer built with the LoRA config: SFTTrainer(..., peft_config=peft_config) (the call's parentheses may nest)
_TRL_PEFT_CONFIG = re.compile(r"\b(SFT|DPO|KTO|ORPO|CPO|BCO)Trainer\s*\((?:[^()]|\([^()]*\))*?\bpeft_config\s*=", re.S)
# the TRL releases whose trainers, handed peft_config and a bitsandbytes-quantised model, call PEFT's
# prepare_model_for_kbit_training themselves and, under bf16 with a 4-bit model, cast the embeddings and lm_head back to
# bf16 (trl trainer/utils.py peft_module_casting_to_bf16): SFTTrainer v0.7.5-v0.21, the preference trainers
# (DPO/KTO/ORPO/CPO/BCO) v0.7.8-v0.27 (both calls are in sft_trainer.py up to v0.21.0 and gone at v0.22.0, in
# dpo_trainer.py up to v0.27.0 and gone at v1.0.0); a pin names major.minor only, so 0.7 is left out
_TRL_PREPARES_FROM = (0, 8)
_TRL_PREPARES_BEFORE = {"SFT": (0, 22)}
_TRL_PREPARES_BEFORE_PREFERENCE = (1, 0)


def _kbit_upcast(job, load: str | None) -> str | None:
    """The dtype the unquantised weights end in after PEFT's prepare_model_for_kbit_training, which casts every
    fp16/bf16 parameter to fp32 (peft src/peft/utils/other.py): the program's own call, or a pinned TRL release's trainer
    given peft_config and a quantised model (_TRL_PREPARES_FROM). Not under DeepSpeed in 16 bit, whose engine casts the
    module back, nor where that TRL release casts a 4-bit model's embeddings back to bf16; without a pin the newest
    TRL, which neither prepares nor casts back, is assumed."""
    from rocm_tune.core.runners.preference_logits import pinned_release

    s = job.settings.get("kbit_fp32")
    files = getattr(job, "files", None) or {}
    trainer = next((m.group(1) for t in files.values() for m in [_TRL_PEFT_CONFIG.search(t or "")] if m), None)
    trl = pinned_release(files)
    window = trainer is not None and trl is not None and \
        _TRL_PREPARES_FROM <= trl < _TRL_PREPARES_BEFORE.get(trainer, _TRL_PREPARES_BEFORE_PREFERENCE)
    explicit = s is not None and as_bool(s.value)
    if not (explicit or (window and job.get("quantization_bit") is not None)):
        return load
    deepspeed = job.ds is not None or bool(getattr(job, "ds_from_accelerate", False))
    if deepspeed and (as_bool(job.get("bf16")) or as_bool(job.get("fp16"))):
        # DeepSpeed's engine casts the whole module to its 16-bit dtype (runtime/engine.py
        # _configure_distributed_model: self.module.half() / .bfloat16()), undoing the upcast
        return load
    if window and as_bool(job.get("bf16")) and str(job.get("quantization_bit")) == "4":
        return load
    who = (f"line {s.line}: PEFT's prepare_model_for_kbit_training" if explicit and s is not None else
           f"TRL {trl[0]}.{trl[1]}'s {trainer}Trainer (given peft_config and a quantised model) calls PEFT's "
           f"prepare_model_for_kbit_training, which" if trl is not None else "")
    job.notes.append(f"{who} casts every weight bitsandbytes left unquantised (embeddings, lm_head, norms) to fp32: "
                     f"the hidden states flow in fp32")
    return "float32"


def _resized_vocab(job, model):
    """A program that resizes the vocabulary to its own tokenizer before training (profiles/vocab_programs.py:
    Chinese-LLaMA-Alpaca's run_clm_*_with_peft.py): the embedding and lm_head the job holds (and, with modules_to_save,
    trains) are of the tokenizer's size. Only a LLaMA base with LLaMA's own 32000 tokens is resized; said."""
    from rocm_tune.profiles import vocab_programs as vp

    prog = vp.RESIZING_PROGRAMS.get(str(job.get("__vocab_program__") or ""))
    if model is None or prog is None or model.family != "llama" or int(model.vocab_size) != vp.BASE_VOCAB:
        return model
    vocab = prog[2] if int(model.max_position_embeddings or 0) >= vp.LLAMA2_CONTEXT else prog[1]
    p, width = model.params, int(model.config.get("embed_dim") or model.hidden_size)
    embed = vocab * width
    head = 0 if not p.lm_head else p.lm_head + (vocab - int(model.vocab_size)) * width
    params = replace(p, embed=embed, lm_head=head, total=p.total + (embed - p.embed) + (head - p.lm_head))
    job.notes.append(f"{job.get('__vocab_program__')}: the vocabulary is resized from {model.vocab_size} to its "
                     f"tokenizer's {vocab} tokens before training ({vp.SOURCE}): embed_tokens and lm_head counted at "
                     f"{vocab} x {width}")
    return replace(model, vocab_size=vocab, params=params, config={**model.config, "vocab_size": vocab})


def _with_clip_tower(job, model):
    """A LLaVA-style script's --vision_tower (a CLIP ViT beside the language model it names) as the model's tower."""
    from rocm_tune.core.model import vision as model_vision

    vt = job.settings.get("vision_tower")
    if model is None or vt is None or getattr(model, "vision", None) is not None:
        return model
    tower = model_vision.clip_tower(str(vt.value), int(model.hidden_size))
    if tower is None:
        return model
    job.notes.append(f"--vision_tower {vt.value}: a CLIP ViT ({tower.depth} blocks, {tower.params / 1e6:.0f}M params, "
                     f"{tower.image_size}x{tower.image_size} images) beside the language model; the projector "
                     f"(mm_projector_type) is not counted")
    return replace(model, vision=tower)


def _check_model(job, model_ref: str | None, findings: list, assumptions: list[str]):
    """The model the job trains (resolved from the files or --model), in the dtype the program loads it in; None
    when it is not known or not modelled (the finding says which)."""
    model, mnote, mfind = (None, None, None)
    if job.runner in MODELLED or model_ref:
        model, mnote, mfind = resolve_model(job.get("model_name_or_path"), model_ref)
        if model is None and mfind is not None and not model_ref:
            model, mfind = _model_from_clue(job, mfind, assumptions)
        if mnote or (model is not None and model.identified_by == "assumed"):
            (assumptions if model is not None and model.identified_by == "assumed" else job.notes).append(
                mnote or model.notes[-1])
        if mfind:
            mfind.file, mfind.line = _where(job, "model_name_or_path")
            findings.append(mfind)
        named = job.settings.get("model_name_or_path")
        if model is not None and not model_ref and named is not None and "shell variable" in str(named.native):
            # the path is an unset variable and another flag named the model (ms-swift 2.x --model_type)
            assumptions.append(f"model {named.value}: from {named.native}")
    # the dtype the program loads the model in, where it says one (from_pretrained without torch_dtype: fp32;
    # ms-swift --torch_dtype, axolotl bf16/fp16): it, not the checkpoint's, is what the frozen weights take
    load = {"fp32": "float32", "bf16": "bfloat16", "fp16": "float16"}.get(str(job.get("load_dtype")))
    load = _kbit_upcast(job, load)
    if model is not None and load and getattr(model, "torch_dtype", None) != load:
        model = replace(model, torch_dtype=load)
    model = _with_clip_tower(job, model)
    model = _resized_vocab(job, model)
    ref_name = str(model_ref or job.get("model_name_or_path") or "")
    if model is not None and model.num_experts and not model.experts_as_linears and "lineariz" in ref_name.lower():
        # a "Linearized" checkpoint (axolotl-quants' Llama 4): its fused experts were split into nn.Linear modules
        model = replace(model, experts_as_linears=True)
        job.notes.append(f"{ref_name}: a linearized checkpoint: its routed experts are nn.Linear modules "
                         f"(quantized by QLoRA)")
    model = _unsloth_bnb_experts(job, model)
    unsloth.modelled(job, model)          # Unsloth's kernels pinned by its source: an estimate, not a bound
    model = _experts_on_cpu(job, model)
    if model is not None:
        mfind2 = _model_findings(model, job)
        findings += mfind2
        if any(f.severity == "error" for f in mfind2):
            model = None
    return model


def _experts_on_cpu(job, model):
    """KTransformers (LLaMA-Factory ``use_kt: true``, hparams/model_args.py KTransformersArguments: "KTransformers AMX
    MoE backend"): the routed experts are held and run on the CPU; the GPUs hold the rest (attention, dense and shared
    MLPs, embeddings, router) and its LoRA. The model is counted without its routed experts, and said."""
    if model is None or not model.num_experts or not model.params.experts or not as_bool(job.get("use_kt")):
        return model
    p = model.params
    # every MoE layer holds an equal share of the routed experts; the MoE layers are the model's moe_layers largest
    # (a dense first layer is smaller; hybrid attention layers differ, but each MoE layer holds the same experts)
    n_moe = max(1, min(len(p.per_layer), int(model.moe_layers or len(p.per_layer))))
    moe = set(sorted(range(len(p.per_layer)), key=lambda i: -p.per_layer[i])[:n_moe])
    share = p.experts // n_moe
    per_layer = tuple(n - share if i in moe else n for i, n in enumerate(p.per_layer))
    params = replace(p, experts=0, total=p.total - p.experts, per_layer=per_layer)
    job.notes.append(f"use_kt: KTransformers keeps the {model.num_experts} routed experts of every MoE layer "
                     f"({p.experts / 1e9:.1f}B parameters, {p.experts * 2 / 2**30:.0f} GiB in 16 bits) in CPU memory and runs them there: the GPUs hold the other "
                     f"{params.total / 1e9:.1f}B (LLaMA-Factory KTransformersArguments)")
    return replace(model, params=params)


def _model_from_clue(job, mfind: Finding, assumptions: list[str]):
    """(model, finding) when the model field names no model: the model the files name elsewhere
    (core/model/clues.py), an assumption said with its source; else the finding, with what the files say."""
    from rocm_tune.core.model.clues import find_clue, is_placeholder
    from rocm_tune.profiles.model_clues import CLUE_ORDER

    ref = job.get("model_name_or_path")
    try:
        clue = find_clue(job)
    except UserError:
        return None, mfind
    if clue is None:
        return None, mfind
    if clue.spec is not None:
        what = ("is missing" if not ref else f"is the placeholder {ref!r}" if is_placeholder(ref)
                else f"is {ref}, a shell variable no file given sets" if str(ref).strip().startswith("$")
                else f"{ref!r} names no model here")
        spec = replace(clue.spec, identified_by="clue", identified=f"{clue.source} ({clue.named})")
        assumptions.append(f"the model is taken to be {spec.name}, from {clue.source} (the model field {what}): "
                           f"pass --model if it is another (read in order: {', '.join(CLUE_ORDER)})")
        return spec, None
    if clue.ambiguous:
        mfind.message += f"; {clue.source} names several models ({', '.join(clue.ambiguous)})"
    elif clue.family:
        mfind.message += f"; {clue.source} names the family, not the size"
    return None, mfind


# no card named: "fits" only where it fits a card this small (8 GiB consumer cards, RTX 3070/4060 class, train small
# models and have no profile; the profiles' smallest is 12 GiB)
SMALLEST_CARD_GIB = 8.0


def _card_range(rep: Report, paths: list[str], kw: dict) -> Report:
    """No card named: the verdict where every card agrees (out of memory on the largest profile: on any; fits an
    8 GiB card: on any), each judged as check judges that card; else the one question (--gpu)."""
    from rocm_tune.profiles.gpu_profiles import load_gpu_profiles

    cards = sorted(load_gpu_profiles().values(), key=lambda g: (g.vram_bytes, g.id))
    if not cards or not rep.memory:
        return rep
    big = cards[-1]
    for card, verdict in (({"gpu_id": big.id}, "oom"), ({"vram_gib": SMALLEST_CARD_GIB}, "fits")):
        try:
            got = check(paths, **card, **kw)
        except UserError:
            return rep
        if got.verdict == verdict:
            got.assumptions.append(
                f"no GPU named: out of memory on the largest card of the profiles ({big.id}, "
                f"{big.vram_gib:g} GiB), so on every card" if verdict == "oom" else
                f"no GPU named: it fits a card of {SMALLEST_CARD_GIB:g} GiB, so it fits every card it is likely "
                f"run on")
            got.assumptions[-1] += "; pass --gpu for the margin on yours"
            return got
    need = max(p.get("reserved_bytes", 0) for p in rep.memory.values() if isinstance(p, dict)) / 2**30
    rep.reason = (f"which GPU? it needs about {need:.0f} GiB per GPU, more than a card of {SMALLEST_CARD_GIB:g} GiB "
                  f"and less than the largest ({big.id}, {big.vram_gib:g} GiB): pass --gpu (or --vram-gib)")
    return rep


def _family_bound(rep: Report, paths: list[str], kw: dict) -> Report:
    """A family named without its size (a LLaMA-Factory template): the answer over the family's published sizes.
    The smallest size out of memory: every size is; the largest fitting: every size fits (the memory grows with
    the parameters); each end only where it has a preset. Else the one question, with the range."""
    from rocm_tune.core.model.clues import find_clue, preset_of
    from rocm_tune.core.model.names import parse_name

    try:
        clue = find_clue(rep.job)
        if clue is None or not clue.family:
            return rep
        sizes = sorted((parse_name(n).size_b or 0.0, n) for n in clue.family)
        known = [(b, n, preset_of(n)) for b, n in sizes if preset_of(n) is not None]
    except UserError:           # a preset that cannot be read: no bound, the question stays
        return rep
    if not known:
        return rep
    span = f"{sizes[0][1]} .. {sizes[-1][1]}"
    ends = {"smallest": known[0], "largest": known[-1]}
    exact = {"smallest": known[0][0] == sizes[0][0], "largest": known[-1][0] == sizes[-1][0]}
    got: dict[str, Report] = {}
    for end, (_b, _n, spec) in ends.items():
        try:
            got[end] = check(paths, model_ref=spec.name, **kw)
        except UserError:
            continue
    for end, verdict in (("smallest", "oom"), ("largest", "fits")):
        r = got.get(end)
        if r is not None and r.verdict == verdict and exact[end]:
            r.model = replace(r.model, identified_by="clue",
                              identified=f"{clue.source}: the family's {end} size ({span})")
            r.job.notes[:] = [n for n in r.job.notes if not n.startswith("model from --model")]
            r.assumptions.append(f"the model is one of the sizes {clue.source} serves ({span}); the size is not "
                                 f"said, and the {end}, {r.model.name}, " + ("already does not fit: no size fits"
                                 if verdict == "oom" else "fits: every size fits") + "; pass --model for the exact one"
                                 + (" (and for a fix: what fits depends on the size)" if verdict == "oom" else ""))
            r.fix = None            # a fix found for the smallest size says nothing of the size really run
            return r
    said = ", ".join(f"{end} with a preset {ends[end][2].name}: {r.verdict}" for end, r in got.items())
    rep.reason = (f"the model's size decides: {clue.source} names the family ({span}), not its size"
                  + (f" ({said})" if said else "") + ": pass --model")
    for f in rep.findings:
        if f.code in ("model-unknown", "model-missing") and said:
            f.message += f" ({said})"
    return rep


def _not_modelled(job, model, gpu, findings: list, assumptions: list[str]) -> Report:
    """The report when the model or the runner is not modelled: unknown, with the one fact that decides."""
    runner = job.runner
    reason = ("the model's architecture is not modelled" if any(f.code == "model-not-modelled" for f in findings)
              else f"a {runner} config is not modelled" if runner not in MODELLED and runner != "unknown"
              else _model_question(findings) if model is None and runner != "unknown" else
              f"a {runner} config is not modelled" if runner not in ("unknown",) else
              "no training command or training config in the files ("
              + ", ".join(f"{os.path.basename(p)}: {fmt}" + (" without a training command" if fmt == "script" else "")
                          for p, fmt in job.formats.items()) + ")")
    if job.ds is not None and runner == "unknown":
        reason = "a DeepSpeed JSON alone does not say the model, batch or sequence length"
    elif runner == "unknown" and (jax := next((p for p, t in job.files.items() if formats.JAX_PROGRAM.search(t)), None)):
        reason = (f"{os.path.basename(jax)} is a JAX/Flax program (jax, flax, optax, chex): check reads PyTorch "
                  "trainings only")
    return Report(job, runner, 0, None, model, gpu, None, gpu.vram_bytes if gpu else None, "unknown", None,
                  None, findings, assumptions, None, None, reason=reason)


def _margin_findings(rep: Report, model, cfg, eval_batch, gpu, host: int, host_limit: int | None) -> None:
    """Host RAM short of the offload; a fit thinner than the planner's headroom (with the change that restores it);
    an OOM inside the estimate's error."""
    job, vram = rep.job, int(rep.vram_bytes or 0)
    if host_limit is not None and host > host_limit:
        rep.verdict, rep.oom_phase = "oom", "host"
        rep.findings.append(Finding.of("host-ram-short", job.ds.file if job.ds else None, None,
                                       f"the offload needs {host / 2**30:.0f} GiB of host RAM per node; the node has "
                                   f"{host_limit / 2**30:.0f} GiB (--host-ram-gib): the host runs out first",
                                   "less offload (a higher ZeRO stage over more GPUs), or LoRA/QLoRA"))
    used = vram - (rep.margin_bytes or 0)
    if rep.verdict == "fits" and not fitting.fits(used, vram, HEADROOM):
        rep.findings.append(Finding.of(
            "margin-thin", None, None,
            f"{used / vram:.0%} of the card reserved, above the planner's {HEADROOM:.0%} headroom: inside the "
            f"estimate's error (and torch sees a little less than the nominal memory), an OOM is possible",
            "the change below"))
        hit = search_fix(job, model, cfg, eval_batch, int(fitting.limit_bytes(vram, HEADROOM)), gpu=gpu,
                         host_limit=host_limit)
        if hit is not None:
            rep.fix = build_fix(job, hit[0], cfg)
            rep.fix["target"] = "headroom"
    if rep.verdict == "oom" and rep.oom_phase != "host" and rep.margin_bytes is not None \
            and -rep.margin_bytes <= THIN_OOM_SHARE * vram:
        rep.findings.append(Finding.of("oom-margin-thin", None, None,
                                f"over the card by only {-rep.margin_bytes / 2**30:.1f} GiB "
                                f"({-rep.margin_bytes / vram:.0%} of it), inside the estimate's error: it may run "
                                f"(shorter batches than cutoff_len, a kernel that holds less); the verdict is the "
                                f"estimate's", "the change below, to be sure"))


def _over_upper_bound(rep: Report, vram: int) -> bool:
    """An estimate that only bounds from above (an Unsloth program counted as plain transformers) answers "fits";
    over the card, what the kernels save decides: the verdict becomes unknown, said."""
    bound = rep.job.get("__upper_bound__")
    if rep.verdict != "oom" or not bound or rep.margin_bytes is None or rep.oom_phase == "load":
        # over the card while the weights load: the kernels (fused loss, offloaded checkpoints) act in the step and
        # save nothing of what is loaded - the loader's dtype and quantization are read already
        return False
    rep.verdict, rep.oom_phase = "unknown", None
    what = f"{str(bound).split()[0]}'s kernels" if str(bound).startswith("unsloth") else str(bound)
    rep.reason = (f"estimated without {what} (an upper bound): "
                  f"{(vram - rep.margin_bytes) / 2**30:.0f} GiB per GPU without them is over the card, and "
                  f"what they save decides")
    return True


def _compile_decides(rep: Report, job, model, cfg: TrainConfig, eval_batch, gpu, vram: int) -> bool:
    """An Unsloth program under unsloth_zoo's compiler over the card in its step: counted with transformers' RMSNorm
    and PEFT's LoRA, which torch.compile may fuse. Counted again as Unsloth's own kernels keep them (an RMSNorm that
    saves its input and an fp32 per row, the attention's LoRA that saves its input only): when that fits, what torch.compile fuses
    decides - unknown, said."""
    if rep.verdict != "oom" or rep.oom_phase != "step" or job.get(unsloth.KEY) != "compiled":
        return False
    # the attention projections' LoRA saving its input only (no fp32 copy, no lora_A output); the MLP's keeps what
    # PEFT keeps (the down projection's input is not recomputed: that is Unsloth's own LoRA_MLP, not the compiler's)
    wrapped = tuple(unsloth.P.QKV_TARGETS + unsloth.P.O_TARGETS) if cfg.is_lora else ()
    best = replace(cfg, liger_norm=True, lora_kernels=wrapped)
    phases = memory_phases(job, model, best, eval_batch, gpu=gpu)[0]
    if _verdict(phases, vram)[0] == "oom":
        return False
    rep.verdict, rep.oom_phase = "unknown", None
    rep.reason = (f"what torch.compile fuses inside a layer decides (Unsloth's compiled modules: "
                  f"{(vram - (rep.margin_bytes or 0)) / 2**30:.0f} GiB per GPU with transformers' RMSNorm and PEFT's "
                  f"LoRA intermediates, under the card with fused ones; {unsloth.P.COMPILED_SRC})")
    return True


def _one_fact_decides(rep: Report, job, model, cfg: TrainConfig, eval_batch, gpu, vram: int) -> bool:
    """An OOM that a fact the files do not state turns into a fit (what torch.compile fuses, the TRL release): the
    verdict becomes unknown, said."""
    return _compile_decides(rep, job, model, cfg, eval_batch, gpu, vram) \
        or _trl_release_decides(rep, job, model, cfg, eval_batch, gpu, vram)


def _trl_release_decides(rep: Report, job, model, cfg: TrainConfig, eval_batch, gpu, vram: int) -> bool:
    """TRL's DPO on 16-bit logits with no TRL release pinned in the files: counted with the most copies any release
    holds (runners/preference_logits.py). Over the card in the step, counted again with the fewest a release holds
    (v0.15-v0.28's row-by-row selective_log_softmax, the reference pass after the policy's logits are freed): when
    that fits, the release the user runs decides - unknown, said, with both figures."""
    from rocm_tune.core.runners import preference_logits as pl

    if rep.verdict != "oom" or rep.oom_phase != "step" or job.get(pl.UNPINNED_KEY) is None \
            or not cfg.logits_16bit_loss:
        return False
    forward, backward, source = pl.fewest_copies()
    if (forward, backward) == tuple(cfg.logits_16bit_loss):
        return False
    phases = memory_phases(job, model, replace(cfg, logits_16bit_loss=(forward, backward)), eval_batch, gpu=gpu)[0]
    verdict, _, margin = _verdict(phases, vram)
    if verdict == "oom":
        return False
    most = (vram - (rep.margin_bytes or 0)) / 2**30
    rep.verdict, rep.oom_phase = "unknown", None
    rep.reason = (f"the TRL release decides: no trl release is pinned in the files; with the most 16-bit logits copies "
                  f"a release holds ({cfg.logits_16bit_loss[0]:g} at the forward's peak) it needs {most:.0f} GiB per "
                  f"GPU, over the card; with the fewest ({source}: {forward:g}, {backward:g} in the backward) it fits "
                  f"by {(margin or 0) / 2**30:.1f} GiB: pin the release you run (trl==X in the files)")
    return True


def _lower_bound(model, findings: list) -> str | None:
    """Why the estimate only bounds the memory from below, or None."""
    if model.identified_by == "assumed":
        return (f"the model's real shape decides (a shape assumed from its name, {model.params.total / 1e9:.1f}B; "
                f"pass --model: its config.json or a preset)")
    # a VLM's language part only is not used here: on the corpus's fit part it turned a right "fits" into unknown
    return None


def _gpu_count_decides(job, cfg: TrainConfig, gpus: int | None) -> bool:
    """An OOM on the one GPU assumed, for a launcher that starts a rank per visible GPU (no count in the files) and a
    config that shards the model over them (ZeRO-3, FSDP): the verdict depends on a count nobody stated."""
    if gpus is not None or job.gpus is not None or job.nodes is not None:
        return False
    # not `swift`: without NPROC_PER_NODE it starts ONE process (swift/cli/main.py runs the script itself, torchrun
    # only when NPROC_PER_NODE/NNODES are set), which spreads the model over the visible GPUs (device_map) - and
    # refuses DeepSpeed when more than one is visible ("DeepSpeed is not compatible with `device_map`")
    if job.launcher not in ("llamafactory-cli", "deepspeed", "accelerate"):
        return False
    return cfg.zero_stage == 3 or fsdp_spec(job) is not None


def _oom_fix(rep: Report, job, model, cfg: TrainConfig, eval_batch, vram: int, gpu, host_limit: int | None) -> None:
    """The smallest change that fits the card and the host's RAM; a full fine-tune that no such change fits gets
    the LoRA / QLoRA answer (with its figure), not an offload the node cannot hold. A LLaMA-Factory prediction has no
    training keys to change: its sharding fix is the whole-model finding's own."""
    from rocm_tune.core.runners.llamafactory import predicts_only

    if predicts_only(job):
        return
    limit = host_limit if host_limit is not None else HOST_RAM_ASSUMED
    target = "headroom"
    hit = search_fix(job, model, cfg, eval_batch, int(fitting.limit_bytes(vram, HEADROOM)), gpu=gpu, host_limit=limit)
    if hit is None:
        target, hit = "vram", search_fix(job, model, cfg, eval_batch, vram, gpu=gpu, host_limit=limit)
    if hit is not None:
        keys, new, eb = hit
        rep.fix = build_fix(job, keys, cfg)
        rep.fix["target"] = target
        host = memory_phases(job, model, new, eb, gpu=gpu)[1]
        if host:
            rep.fix["host_ram_bytes"] = int(host)
            rep.est_notes.append(f"the fix's offload needs {host / 2**30:.0f} GiB of host RAM per node"
                                 + (" (the node's RAM is not stated: --host-ram-gib)" if host_limit is None else ""))
        return
    where = f"{limit / 2**30:.0f} GiB of host RAM" + (" (--host-ram-gib)" if host_limit is not None else
                                                          " (not stated: at most 1 TiB per node assumed)")
    smaller = _smaller_method(job, model, cfg, eval_batch, vram, gpu) if cfg.method in ("full", "freeze") else None
    rep.findings.append(Finding.of(
        "no-fix-found", None, None,
        f"no change to micro-batch, checkpointing, ZeRO stage/offload or cutoff_len fits this GPU and {where}"
        + (f"; {smaller[1]}" if smaller else ""),
        (f"use {smaller[0]}" if smaller else "more or larger GPUs, or a smaller model / LoRA / QLoRA")))
    if smaller and job.runner in ("llamafactory", "builtin") and smaller[2]:
        rep.fix = build_fix(job, smaller[2], cfg)
        rep.fix["target"] = "method"


def _smaller_method(job, model, cfg: TrainConfig, eval_batch, vram: int, gpu) -> tuple[str, str, dict] | None:
    """("LoRA" | "QLoRA", what it needs, LLaMA-Factory keys) for the first of LoRA, QLoRA that fits the card as the
    rest of the config stands (no offload), or None."""
    for name, change, keys in (("LoRA", {"method": "lora"}, {"finetuning_type": "lora"}),
                               ("QLoRA", {"method": "qlora", "quant_bits": 4},
                                {"finetuning_type": "lora", "quantization_bit": 4})):
        try:
            new = replace(cfg, offload="none", **change)
            new.validate()
            phases, _h, _n = memory_phases(job, model, new, eval_batch, gpu=gpu)
        except UserError:
            continue
        verdict, _phase_name, margin = _verdict(phases, vram)
        if verdict == "fits":
            worst = vram - margin
            return name, (f"{name} of the same model fits: {worst / 2**30:.1f} of {vram / 2**30:.0f} GiB per GPU"), keys
    return None


def _fix_as_intended(rep: Report, gpus, nodes, model_ref, vram: int) -> Report:
    """A comment cut a command: the fix first restores what the author wrote (the comment line removed), then
    makes that fit. The verdict stays the one of what runs as written."""
    from rocm_tune.core.runners.launchers import without_cutting_comments

    job = rep.job
    intended = dict(job.files)
    for p, fmt in job.formats.items():
        if fmt == "script":
            intended[p], _removed = without_cutting_comments(job.files[p])
    ij = formats.read_texts(intended)
    model, _n, _f = resolve_model(ij.get("model_name_or_path"), model_ref) if ij.runner in MODELLED else (None,) * 3
    if model is None:
        rep.fix = build_fix(ij, {}, rep.cfg, originals=job.files)
        return rep
    try:
        icfg, _f2, _a2 = build_config(ij, model, gpus, nodes)
        icfg.validate()
    except UserError:
        rep.fix = build_fix(ij, {}, rep.cfg, originals=job.files)
        return rep
    ieval = eval_batch_default(ij, icfg, runner_defaults(ij.runner)) if _eval_on(ij, getattr(model, "vision", None)) else None
    keys: dict = {}
    if not _fits(ij, model, icfg, ieval, int(fitting.limit_bytes(vram, HEADROOM)), gpu=rep.gpu):
        hit = search_fix(ij, model, icfg, ieval, int(fitting.limit_bytes(vram, HEADROOM)), gpu=rep.gpu) \
            or search_fix(ij, model, icfg, ieval, vram, gpu=rep.gpu)
        if hit is not None:
            keys = hit[0]
        else:
            rep.findings.append(Finding.of("no-fix-found", None, None,
                                           "the command as written (comment removed) does not fit, and no change to "
                                           "micro-batch, checkpointing, ZeRO stage/offload or cutoff_len makes it fit",
                                           "more or larger GPUs, or a smaller model"))
    rep.fix = build_fix(ij, keys, icfg, originals=job.files)
    rep.fix["as_intended"] = icfg.to_dict()
    return rep


def write_fix(fix: dict, out_dir: str, force: bool) -> list[str]:
    """Write the fixed files into out_dir (never over an existing file without force): all of them or
    none (temp files beside them, fsynced, then renamed; a full disk leaves nothing behind). A Python
    program that would need new arguments is refused: they are named, to add by hand."""
    from rocm_tune.core.files import write_all_atomic

    if fix.get("manual"):
        where = (f"{fix['manual_where']} by hand" if fix.get("manual_where") else
                 "its TrainingArguments(...) by hand (a program takes no shell flags)" if "=" in fix["manual"][0]
                 else "the config by hand")
        raise UserError(f"--fix: the fix needs {', '.join(fix['manual'])} added to {where}; nothing was written")
    targets = [os.path.join(out_dir, n) for n in fix["files"]]
    if os.path.lexists(out_dir) and not os.path.isdir(out_dir):
        raise UserError(f"--fix {out_dir}: exists and is not a directory")
    clash = [t for t in targets if os.path.lexists(t)]
    if clash and not force:
        raise UserError(f"--fix: {clash[0]} already exists (use --force to overwrite)")
    made = not os.path.lexists(out_dir)
    try:
        os.makedirs(out_dir, exist_ok=True)
    except OSError as exc:
        raise UserError(f"--fix {out_dir}: cannot make the directory ({exc.strerror or exc})") from None
    here = os.path.abspath(out_dir)
    texts = dict(fix["files"])
    for name in fix.get("added") or []:        # a file the fix adds, named by path from where the user runs it
        for n, t in texts.items():
            if n != name:
                texts[n] = re.sub(r"(?<![\w/.-])" + re.escape(name) + r"(?![\w.-])", os.path.join(here, name), t)
    for script, pairs in (fix.get("refs") or {}).items():   # the copied launch script starts the fixed config
        for written, fixed in pairs:
            texts[script] = texts[script].replace(written, os.path.join(here, fixed))
    try:
        write_all_atomic(dict(zip(targets, texts.values())), flag="--fix")
    except UserError:
        if made:
            try:
                os.rmdir(out_dir)  # the folder this call made, empty again
            except OSError:
                pass
        raise
    return targets


def _understood(cfg) -> dict:
    """The config as `understood` says it: the QLoRA options (quant_bits, double_quant) only for a QLoRA run and the
    freeze depth only for a freeze run - elsewhere they are TrainConfig's unused defaults, not something read, and the
    plan's `recommended` leaves them null there too."""
    d = cfg.to_dict()
    if d.get("method") != "qlora":
        d.pop("quant_bits", None)
        d.pop("double_quant", None)
    if d.get("method") != "freeze":
        d.pop("freeze_trainable_layers", None)
    return d
