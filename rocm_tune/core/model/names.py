"""A model named the way users name it -> family, size, variant and quantization (pure: standard library only).

Real configs point at a hub id (``Qwen/Qwen3-30B-A3B-Instruct-2507``), a path on the user's machine
(``/data/llm/Qwen2.5-7B-Instruct``), ModelScope's on-disk spelling (``Qwen2___5-7B-Instruct``: ``___`` stands
for ``.``), a Hugging Face cache snapshot (``.../models--Qwen--Qwen2.5-7B/snapshots/<hash>``) or a re-upload with
a suffix (``unsloth/llama-3-8b-bnb-4bit``, ``Meta-Llama-3.1-8B-Instruct-AWQ``). ``parse_name`` reads such a name
into its parts; ``series_key`` is what two spellings of one model share, so a name can be matched to a preset
(core/model/architecture.py) whatever its variant or quantization.

The grammar (from public configs, see tests/test_model_names.py): the tokens before the first size token
(``7B``, ``0.5B``, ``30B`` + ``A3B``, ``8x7B``) name the series (``qwen2.5``, ``llama3.1``, ``deepseekr1distillqwen``,
``qwen2.5vl``); after it come variants (Instruct, Chat, it, hf, Base, a date such as ``2507``), a version
(``v0.3``), quantization and tags of a fine-tune (``Chinese-Chat``) that do not change the shape.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

__all__ = ["NameParts", "bare_size_reading", "base_inside_readings", "glued_prefix_reading", "name_stem", "parse_name"]

# variants: words that name a checkpoint of the same shape
VARIANT_WORDS = frozenset({
    "instruct", "chat", "it", "hf", "base", "pt", "thinking", "reasoning", "sft", "dpo", "rl", "grpo", "preview",
    "latest", "deduped", "final", "merged", "math", "coder", "vl",
    # re-uploads and fine-tunes of the same shape (*-abliterated, *-uncensored, *-sharded: the same weights cut into
    # smaller safetensors / bin shards, as philschmid/flan-t5-xxl-sharded-fp16)
    "abliterated", "uncensored", "sharded",
    # a checkpoint converted to another layout of the same weights (LnL-AI/dbrx-base-converted-v2: DBRX's fused experts
    # split into nn.Linear modules for quantization)
    "converted",
})
# variants that change the shape are kept in the series (coder/math/vl are in the series when before the size)
SERIES_KEEP = frozenset({"coder", "math", "vl", "moe", "mini", "small", "medium", "nemo", "lite", "distill"})
_NOISE_PREFIX = ("meta", "ai21")  # "Meta-Llama-3.1-8B" is Llama 3.1; "AI21-Jamba-1.5-Large" is Jamba 1.5
# directory words that name no model ("/root/models/", "/models/base-model", "checkpoints/final")
_GENERIC = frozenset({"model", "models", "ckpt", "ckpts", "checkpoint", "checkpoints", "weights", "output", "outputs",
                      "pretrained", "basemodel", "llm", "llms", "hf", "hub", "local", "my", "new", "old", "tmp"})

# quantization spelled in names -> (label, bits of the stored weights); order: most specific first
_QUANT = (
    (re.compile(r"(?:^|[-_.])gptq[-_.]?int8(?:$|[-_.])"), "GPTQ-Int8", 8),
    (re.compile(r"(?:^|[-_.])gptq[-_.]?int3(?:$|[-_.])"), "GPTQ-Int3", 4),
    (re.compile(r"(?:^|[-_.])gptq(?:[-_.]?int4)?(?:$|[-_.])"), "GPTQ-Int4", 4),
    (re.compile(r"(?:^|[-_.])awq(?:$|[-_.])"), "AWQ", 4),
    (re.compile(r"(?:^|[-_.])(?:bnb[-_.]?)?(?:4bit|nf4)(?:$|[-_.])"), "bnb-4bit", 4),
    (re.compile(r"(?:^|[-_.])(?:bnb[-_.]?)?8bit(?:$|[-_.])"), "bnb-8bit", 8),
    (re.compile(r"(?:^|[-_.])(?:int4|w4a16|w4a8|q4)(?:$|[-_.])"), "int4", 4),
    (re.compile(r"(?:^|[-_.])(?:int8|w8a8|w8a16|q8)(?:$|[-_.])"), "int8", 8),
    (re.compile(r"(?:^|[-_.])fp8(?:[-_.]dynamic)?(?:$|[-_.])"), "FP8", 8),
    (re.compile(r"(?:^|[-_.])gguf(?:$|[-_.])"), "GGUF", None),
    # NVIDIA ModelOpt NVFP4 checkpoints (e2m1 weights + an FP8 scale per 16 values: nvidia/*-NVFP4). Not MXFP4: in
    # a name it is as often the training precision (AMD Primus' llama2_70b_lora_mxfp4 recipe) as a checkpoint
    (re.compile(r"(?:^|[-_.])nvfp4(?:$|[-_.])"), "NVFP4", 4),
)
_QUANT_WORDS = frozenset({"gptq", "awq", "bnb", "4bit", "8bit", "nf4", "int4", "int8", "int3", "w4a16", "w4a8",
                          "w8a8", "w8a16", "fp8", "gguf", "dynamic", "unsloth", "bf16", "fp16", "mlx", "exl2",
                          "q4", "q8", "nvfp4"})

_SIZE = re.compile(r"^(\d+(?:\.\d+)?)([bm])$")
_SIZE_BLOOM = re.compile(r"^(\d+)b(\d)$")             # BLOOM's 7b1 = 7.1B, 1b7 = 1.7B
_ACTIVE = re.compile(r"^a(\d+(?:\.\d+)?)b$")
_EXPERTS_X = re.compile(r"^(\d+)x(\d+(?:\.\d+)?)b$")
_EXPERTS_E = re.compile(r"^(\d+)e$")
_EFFECTIVE = re.compile(r"^e(\d+(?:\.\d+)?)b$")      # Gemma 3n E4B
_DATE = re.compile(r"^(?:\d{4}|\d{6}|\d{8})$")        # 2507, 0324, 240715
_CONTEXT = re.compile(r"^\d+k$")                      # 4k, 128k
_VERSION = re.compile(r"^v\d+(?:\.\d+)*$")
_HASH = re.compile(r"^[0-9a-f]{40}$")
_RUN_DIR = re.compile(r"^(?:checkpoint|ckpt|step|global_step|iter|epoch)[-_]?\d+$", re.IGNORECASE)
_RUN_WORDS = frozenset({"final", "merged", "latest", "best", "hf", "hf_model", "sft", "dpo", "pt", "lora", "qlora",
                        "full", "freeze", "export", "exported", "output", "outputs", "saves"})


# a family's X.Y version written without its dot (qwen25-7b, llama31-8b, qwen35_9b, glm45, phi35, internvl25): these
# families number their releases 1.5, 2.5, 3.1, 3.5, 4.5 ..., never 25 or 31
_GLUED_VERSION = re.compile(r"^(qwen|llama|phi|glm|internvl|internlm)(\d)(\d)$")


@dataclass(frozen=True)
class NameParts:
    """What a model's name says. ``series`` is None when the name says nothing recognisable."""

    raw: str
    stem: str                       # the name as read (last component, ModelScope's ___ as .)
    org: str | None                 # hub organisation when the reference names one
    series: str | None              # lower-case, separators removed: "qwen2.5", "llama3.1", "qwen2.5vl"
    size_b: float | None = None     # total parameters in billions, as the name says
    active_b: float | None = None   # MoE: active parameters (A3B)
    experts: str | None = None      # "8x7b", "16e"
    version: str | None = None      # "v0.3" (after the size)
    variants: tuple[str, ...] = ()  # instruct, chat, it, hf, base, 2507, 4k ...
    quant: str | None = None        # AWQ, GPTQ-Int4, bnb-4bit, int4, int8, FP8, GGUF, MLX
    quant_bits: int | None = None   # bits per stored weight of the quantized linears
    tags: tuple[str, ...] = field(default=())  # other words after the size (a fine-tune's own name)

    @property
    def is_moe(self) -> bool:
        return self.active_b is not None or self.experts is not None

    def size_text(self) -> str:
        if self.size_b is None:
            return ""
        s = f"{self.size_b:g}B"
        if self.experts and "x" in self.experts:
            s = self.experts.upper()
        if self.active_b is not None:
            s += f"-A{self.active_b:g}B"
        return s

    def describe(self) -> str:
        """'qwen2.5 7B (Instruct), AWQ' -- for notes."""
        bits = [self.series or self.stem]
        if self.size_b is not None or self.active_b is not None:
            bits.append(self.size_text() or f"A{self.active_b:g}B")
        out = " ".join(bits)
        if self.variants:
            out += f" ({', '.join(self.variants)})"
        if self.quant:
            out += f", {self.quant}"
        return out

    def to_dict(self) -> dict:
        return {"stem": self.stem, "org": self.org, "series": self.series, "size_b": self.size_b,
                "active_b": self.active_b, "experts": self.experts, "version": self.version,
                "variants": list(self.variants), "quantization": self.quant, "quant_bits": self.quant_bits}


def name_stem(ref: str) -> tuple[str | None, str]:
    """(org or None, the model's own name) of a reference: hub id, path, HF cache snapshot, ModelScope spelling."""
    text = str(ref).strip().strip("\"'").replace("\\", "/").rstrip("/")
    parts = [p for p in text.split("/") if p and p not in (".", "..", "~")]
    # an HF cache path: .../models--Org--Name[/snapshots/<hash>]
    for p in reversed(parts):
        if p.startswith("models--") and p.count("--") >= 2:
            _, cache_org, cache_name = p.split("--", 2)
            return cache_org, _dots(cache_name)
    while parts and (_HASH.match(parts[-1]) or parts[-1] in ("snapshots", "main")):
        parts.pop()
    # a run's output inside the model's folder ("saves/Qwen2.5-7B/full/sft/checkpoint-500"): the folder names it
    while len(parts) > 1 and (_RUN_DIR.match(parts[-1]) or parts[-1].lower() in _RUN_WORDS):
        parts.pop()
    if not parts:
        return None, text
    name = parts[-1]
    org: str | None = parts[-2] if len(parts) >= 2 else None
    # ModelScope's folder for "Qwen/Qwen2.5-VL-7B": "Qwen.Qwen2.5-VL-7B" (org prefix with a dot)
    m = re.match(r"^([A-Za-z][A-Za-z0-9_-]*)\.([A-Za-z].*\d.*)$", name)
    if m and "." not in m.group(1) and not re.search(r"\d$", m.group(1)):
        org, name = m.group(1), m.group(2)
    return org, _dots(name)


def _dots(name: str) -> str:
    return name.replace("___", ".")


def _tokens(stem: str) -> list[str]:
    s = stem.lower()
    # qwen2_5, internlm2_5, a2_7b (Python-safe spellings of a version or an active size); llama3_8b and qwen35_9b
    # are a version and a size (the digits after the underscore end in b/m: a size)
    # a size token of its own spelled with "_" for "." (stablelm-2-1_6b, Qwen-1_8B, internlm2-1_8b): 1.6B, 1.8B
    # (after "-", a space or the start only: in a name spelled with "_" throughout, qwen2_5_7b is Qwen2.5 7B)
    s = re.sub(r"(^|[- ])(\d)_(\d[bm])(?=$|[-_ .])", r"\1\2.\3", s)
    s = re.sub(r"(?<=\d)_(?=\d+(?![\d.]*[bm](?:$|[-_ .])))|(?<=[-_ ]a\d)_(?=\d)", ".", s)
    # ms-swift 2.x's model_type spells Qwen1.5 "qwen1half" (swift/llm/utils/model.py ModelType: qwen1half_7b_chat =
    # 'qwen1half-7b-chat', codeqwen1half-7b-chat, qwen1half-moe-a2_7b-chat): a version's ".5" written "half"
    s = re.sub(r"(?<=\d)half(?=$|[-_ ])", ".5", s)
    s = _hyphen_point(s)
    s = re.sub(r"(?<=[a-z]{2})(?=\d+(?:\.\d+)?b(?:$|[-_ ]))", "-", s)  # "llama8b" -> llama-8b (not A3B, 8x7B)
    return [t for t in re.split(r"[-_\s]+", s) if t]


def _hyphen_point(s: str) -> str:
    """A size spelled with "-" for its point where that is unambiguous (hub names made from a run's output dir:
    TRL's cookbook pushes `Qwen2-0-5B-GRPO-...` for Qwen2-0.5B): `0-5b` is 0.5B (no family numbers a version 0),
    and after a series that carries its version glued (`qwen2`, `smollm2`, `qwen2.5`: a word ending in digits)
    `-1-5b` is 1.5B; after a bare word (`llama-3-8b`, `gemma-2-2b`) or a number (`llama-3-2-1b`) the first
    number stays a version."""
    s = re.sub(r"(^|[-_ ])0-(\d[bm])(?=$|[-_ .])", r"\g<1>0.\2", s)
    return re.sub(r"(^|[-_ ])([a-z][a-z0-9.]*\d)-([1-9])-(\d[bm])(?=$|[-_ .])", r"\1\2-\3.\4", s)


_MLX_ORGS = frozenset({"mlx-community", "lmstudio-community-mlx"})


def _quant(stem: str, org: str | None = None) -> tuple[str | None, int | None]:
    s = "-" + stem.lower() + "-"
    # Apple MLX conversions (mlx-community/Qwen3-8B-4bit, *-MLX-8bit): MLX's own format, which PyTorch cannot train;
    # like GGUF no bit width is given (check estimates the 16-bit base and says so)
    if (org or "").lower() in _MLX_ORGS or re.search(r"(?:^|[-_.])mlx(?:$|[-_.])", s):
        return "MLX", None
    for pat, label, bits in _QUANT:
        if pat.search(s):
            return label, bits
    return None, None


def parse_name(ref: str) -> NameParts:
    """Read a model reference into its parts (never raises)."""
    org, stem = name_stem(ref)
    quant, bits = _quant(stem, org)
    toks = _tokens(stem)
    series_toks: list[str] = []
    variants: list[str] = []
    tags: list[str] = []
    size = active = None
    experts = version = None
    seen_size = False
    msize = None
    for t in toks:
        if t in _QUANT_WORDS:
            continue
        mb = _SIZE_BLOOM.match(t)
        if mb and size is None:
            size = float(f"{mb.group(1)}.{mb.group(2)}")
            seen_size = True
            continue
        m = _SIZE.match(t)
        if m and m.group(2) == "b":
            if size is None:
                size = float(m.group(1))
            seen_size = True
            continue
        if m and m.group(2) == "m":
            msize = msize if msize is not None else float(m.group(1)) / 1000
            if not seen_size and size is None and float(m.group(1)) >= 10:
                seen_size = True
            continue
        m = _ACTIVE.match(t)
        if m:
            active = float(m.group(1))
            seen_size = True
            continue
        m = _EXPERTS_X.match(t)
        if m:
            experts = t
            size = size if size is not None else int(m.group(1)) * float(m.group(2))
            seen_size = True
            continue
        if seen_size and _EXPERTS_E.match(t):
            experts = experts or t
            continue
        m = _EFFECTIVE.match(t)
        if m:
            size = float(m.group(1))
            seen_size = True
            continue
        if _DATE.match(t) or _CONTEXT.match(t):
            variants.append(t)
            continue
        if (seen_size or variants) and _VERSION.match(t):     # "-v0.3" after the size or a variant word
            version = t
            continue
        if t in VARIANT_WORDS and not (t in SERIES_KEEP and not seen_size):
            variants.append(t)
            continue
        if seen_size:
            tags.append(t)
        else:
            series_toks.append(t)
    if size is None and msize is not None:
        size = msize
    series_toks = [_GLUED_VERSION.sub(r"\1\2.\3", t) for t in series_toks]
    while series_toks and series_toks[0] in _NOISE_PREFIX and len(series_toks) > 1:
        series_toks.pop(0)
    if all(t in _GENERIC or t in VARIANT_WORDS for t in series_toks):
        series_toks = []
    series = "".join(series_toks) or None
    if series is not None and not re.search(r"[a-z]", series):
        series = None
    return NameParts(raw=str(ref), stem=stem, org=org, series=series, size_b=size, active_b=active,
                     experts=experts, version=version, variants=tuple(variants), quant=quant, quant_bits=bits,
                     tags=tuple(tags))


# Series whose size is a word, not a number (``flan-t5-small``, ``deepseek-vl2-tiny``, ``Jamba-v0.1``): the total
# and active parameters in billions their model cards state, and the architecture where it is not a plain decoder
# (check then says that it is not modelled and counts a decoder of that size). Keys are ``NameParts.series``.
NAMED_SIZES: dict[str, tuple[float, float | None, str | None]] = {
    **{f"{p}t5{w}": (b, None, "T5 encoder-decoder") for p in ("", "flan") for w, b in
       (("small", 0.077), ("base", 0.248), ("large", 0.783), ("xl", 2.85), ("xxl", 11.3))},
    "gpt2": (0.124, None, None), "gpt2medium": (0.355, None, None), "gpt2large": (0.774, None, None),
    "gpt2xl": (1.56, None, None),
    "phi3mini": (3.8, None, None), "phi3.5mini": (3.8, None, None), "phi3small": (7.4, None, None),
    "phi3medium": (14.0, None, None), "phi4mini": (3.8, None, None),
    "granite4.0micro": (3.4, None, None), "granite4.0hmicro": (3.2, None, "Granite 4 hybrid Mamba-2/attention"),
    "granite4.0tiny": (6.9, 1.0, "Granite 4 hybrid Mamba-2/attention MoE"),
    "granite4.0htiny": (6.9, 1.0, "Granite 4 hybrid Mamba-2/attention MoE"),
    "granite4.0hsmall": (32.2, 9.0, "Granite 4 hybrid Mamba-2/attention MoE"),
    "jamba": (51.6, 12.0, "Jamba hybrid Mamba/attention MoE"),
    "jambav0.1": (51.6, 12.0, "Jamba hybrid Mamba/attention MoE"),
    "jamba1.5mini": (51.6, 12.0, "Jamba hybrid Mamba/attention MoE"),
    "jamba1.5large": (398.0, 94.0, "Jamba hybrid Mamba/attention MoE"),
    "trinitynano": (6.1, 1.0, "Arcee Trinity (AFMoE)"), "trinitymini": (26.0, 3.0, "Arcee Trinity (AFMoE)"),
    "deepseekvl2tiny": (3.37, 1.0, "DeepSeek-VL2 (vision encoder + MoE decoder)"),
    "deepseekvl2small": (16.1, 2.8, "DeepSeek-VL2 (vision encoder + MoE decoder)"),
    "deepseekvl2": (27.5, 4.5, "DeepSeek-VL2 (vision encoder + MoE decoder)"),
    "stepaudio2mini": (8.3, None, "Step-Audio 2 (audio encoder + Qwen2.5-7B decoder)"),
    # GLM-4.6V-Flash: the GLM-4.1V-9B-Thinking architecture (Glm4vForConditionalGeneration: a 24-block ViT + the
    # GLM-4-9B decoder), 10.3B in its safetensors as GLM-4.1V-9B-Thinking's model card states
    "glm4.6vflash": (10.3, None, "GLM-4.6V-Flash (GLM-4.1V vision encoder + GLM-4-9B decoder)"),
    "deepseekv2lite": (15.7, 2.4, None),
    # vision-language models named by a version, not a size (the totals their Hugging Face model cards state)
    "minicpmv2": (2.8, None, "MiniCPM-V (SigLIP vision encoder + MiniCPM-2.4B decoder)"),
    "minicpmv2.0": (2.8, None, "MiniCPM-V (SigLIP vision encoder + MiniCPM-2.4B decoder)"),
    "minicpmllama3v2.5": (8.5, None, "MiniCPM-Llama3-V 2.5 (SigLIP vision encoder + Llama-3-8B decoder)"),
    "minicpmv2.6": (8.1, None, "MiniCPM-V 2.6 (SigLIP vision encoder + Qwen2-7B decoder)"),
    "minicpmo2.6": (8.7, None, "MiniCPM-o 2.6 (vision and audio encoders + Qwen2.5-7B decoder)"),
    "minicpmv4": (4.1, None, "MiniCPM-V 4 (SigLIP2 vision encoder + MiniCPM4-3B decoder)"),
    "minicpmv4.0": (4.1, None, "MiniCPM-V 4 (SigLIP2 vision encoder + MiniCPM4-3B decoder)"),
    "minicpmv4.5": (8.7, None, "MiniCPM-V 4.5 (SigLIP2 vision encoder + Qwen3-8B decoder)"),
    "smolvlm": (2.25, None, "SmolVLM (SigLIP vision encoder + SmolLM2-1.7B decoder)"),
    "moondream2": (1.93, None, "moondream2 (SigLIP vision encoder + Phi-1.5 decoder)"),
    "phi3vision128k": (4.15, None, "Phi-3-vision (CLIP vision encoder + Phi-3-mini decoder)"),
    "phi3.5vision": (4.15, None, "Phi-3.5-vision (CLIP vision encoder + Phi-3.5-mini decoder)"),
    "florence2base": (0.23, None, "Florence-2 (DaViT encoder + encoder-decoder)"),
    "florence2large": (0.77, None, "Florence-2 (DaViT encoder + encoder-decoder)"),
    "qwenvl": (9.6, None, "Qwen-VL (ViT + Qwen-7B decoder)"),
    "qwenaudio": (8.4, None, "Qwen-Audio (Whisper encoder + Qwen-7B decoder)"),
    # speech and encoder models fine-tuned by size word (model cards: openai/whisper-*, google-bert, FacebookAI ...)
    **{f"whisper{w}": (b, None, "Whisper encoder-decoder") for w, b in
       (("tiny", 0.039), ("base", 0.074), ("small", 0.244), ("medium", 0.769), ("large", 1.55), ("largev2", 1.55),
        ("largev3", 1.55), ("largev3turbo", 0.809))},
    "bertuncasedbase": (0.110, None, "BERT encoder"), "bertcasedbase": (0.109, None, "BERT encoder"),
    "bertlargeuncased": (0.335, None, "BERT encoder"), "bertlargecased": (0.333, None, "BERT encoder"),
    "distilbertuncasedbase": (0.066, None, "DistilBERT encoder"),
    "robertabase": (0.125, None, "RoBERTa encoder"), "robertalarge": (0.355, None, "RoBERTa encoder"),
    "debertav3base": (0.184, None, "DeBERTa-v3 encoder"), "debertav3large": (0.435, None, "DeBERTa-v3 encoder"),
    "modernbertbase": (0.149, None, "ModernBERT encoder"), "modernbertlarge": (0.395, None, "ModernBERT encoder"),
    "bartbase": (0.140, None, "BART encoder-decoder"), "bartlarge": (0.406, None, "BART encoder-decoder"),
    # 2025-2026 releases named without a size (c-unk3; the totals and active sizes their model cards state)
    "glm4.5": (355.0, 32.0, "GLM-4.5 mixture-of-experts (glm4_moe)"),
    "glm4.6": (355.0, 32.0, "GLM-4.6 mixture-of-experts (glm4_moe, GLM-4.5's shape)"),
    "glm4.5air": (106.0, 12.0, "GLM-4.5-Air mixture-of-experts (glm4_moe)"),
    "glm4.5v": (106.0, 12.0, "GLM-4.5V (vision encoder + GLM-4.5-Air decoder; the decoder's size)"),
    "minimaxm2": (230.0, 10.0, "MiniMax-M2 mixture-of-experts"),
    "minimaxm1": (456.0, 45.9, "MiniMax-M1 hybrid lightning attention MoE"),
    "minimaxtext01": (456.0, 45.9, "MiniMax-Text-01 hybrid lightning attention MoE"),
    "mistrallarge": (123.0, None, None),          # Mistral-Large-Instruct-2407 / -2411
    "mistralsmall": (22.2, None, None),           # Mistral-Small-Instruct-2409 (later ones say 24B in the name)
    "phi3.5moe": (41.9, 6.6, "Phi-3.5-MoE (16 experts of Phi-3.5-mini's width)"),
    "phi4multimodal": (5.6, None, "Phi-4-multimodal (vision and speech encoders + Phi-4-mini decoder)"),
    "deepseekv3.2": (671.0, 37.0, "DeepSeek-V3.2 (DeepSeek-V3 + sparse-attention indexer)"),
    "deepseekv3.2exp": (671.0, 37.0, "DeepSeek-V3.2 (DeepSeek-V3 + sparse-attention indexer)"),
    "phi2": (2.7, None, None), "phi1.5": (1.3, None, None),
    "phi4miniflash": (3.8, None, "Phi-4-mini-flash (SambaY hybrid decoder)"),
    "deepseekv2": (236.0, 21.0, None), "deepseekv2.5": (236.0, 21.0, None), "deepseekcoderv2": (236.0, 21.0, None),
    "dbrx": (132.0, 36.0, "DBRX mixture-of-experts"),
    "hunyuanlarge": (389.0, 52.0, "Hunyuan-Large mixture-of-experts"),
    "tencenthunyuanlarge": (389.0, 52.0, "Hunyuan-Large mixture-of-experts"),
    # named by the active size only (Hunyuan-A13B): the key is series + "a<active>b"
    "hunyuana13b": (80.0, 13.0, "Hunyuan-A13B mixture-of-experts (hunyuan_v1_moe)"),
    # 2026 releases in the runners' own examples (c-new): the totals transformers 5.24 builds on the meta device from
    # the config class defaults, which are the named checkpoint's (the class's @auto_docstring checkpoint); the active
    # size: the routed experts' share of the total taken at top-k of the experts
    "deepseekv4flash": (284.3, 13.8, "DeepSeek-V4 (deepseek_v4: DeepSeek-V4-Flash-Base's DeepseekV4Config)"),
    "minicpmv4.6": (8.09, None, "MiniCPM-V 4.6 (minicpmv4_6: vision encoder + decoder, MiniCPMV4_6Config)"),
    "emu3gen": (8.49, None, "Emu3 (emu3: VQ-VAE image tokenizer + Llama-style decoder, Emu3Config)"),
    "emu3chat": (8.49, None, "Emu3 (emu3: VQ-VAE image tokenizer + Llama-style decoder, Emu3Config)"),
    # PaddleOCR-VL (paddleocr_vl: NaViT encoder + ERNIE-4.5-0.3B decoder, PaddleOCRVLConfig); the 1.x releases keep it
    **{k: (0.80, None, "PaddleOCR-VL (NaViT vision encoder + ERNIE-4.5-0.3B decoder)")
       for k in ("paddleocrvl", "paddleocrvl1.5", "paddleocrvl1.6")},
    # jina-reranker-m0 (jina.ai/models/jina-reranker-m0: "Parameters: 2.4B", base model Qwen2-VL-2B + a ranking head)
    "jinarerankerm0": (2.4, None, "jina-reranker-m0 (Qwen2-VL-2B vision encoder + decoder, a ranking head)"),
    # HunyuanOCR (tencent/HunyuanOCR model card and arXiv 2511.19575: "1B parameters"; hunyuan_vl: native ViT + MLP
    # adapter + a HunYuan dense decoder)
    "hunyuanocr": (1.0, None, "HunyuanOCR (hunyuan_vl: native ViT + HunYuan dense decoder)"),
    # DeepSeek-OCR: DeepEncoder (SAM-base + CLIP-large, ~0.38B) + the DeepSeek3B-MoE-A570M decoder (its config.json's
    # language_config: 12 layers of 1280, 64 routed experts top-6 + 2 shared of 896, vocab 129280: 2.93B)
    "deepseekocr": (3.3, 0.57, "DeepSeek-OCR (DeepEncoder + DeepSeek3B-MoE-A570M decoder)"),
    # GLM-4.6V: GLM-4.5V's shape (zai-org lists both at 108B; the full 106B model beside the 9B GLM-4.6V-Flash)
    "glm4.6v": (106.0, 12.0, "GLM-4.6V (vision encoder + GLM-4.5-Air decoder; the decoder's size)"),
}


# "effective" sizes (Gemma 3n E2B / E4B) -> the raw parameter count the model card states: the per-layer embeddings
# and the audio and vision encoders are loaded too (a training holds them all)
EFFECTIVE_TOTALS: dict[tuple[str, float], tuple[float, str]] = {
    ("gemma3n", 2.0): (6.0, "Gemma 3n (per-layer embeddings, MatFormer decoder, audio and vision encoders)"),
    ("gemma3n", 4.0): (8.0, "Gemma 3n (per-layer embeddings, MatFormer decoder, audio and vision encoders)"),
    # Gemma 4 E2B / E4B (model card: "2.3B effective (5.1B with embeddings)", "4.5B effective (8B with embeddings)");
    # transformers models/gemma4: embed_tokens_per_layer (vocab_size_per_layer_input x layers x
    # hidden_size_per_layer_input) beside the decoder, plus the audio and vision encoders
    ("gemma4", 2.0): (5.1, "Gemma 4 (per-layer embeddings, KV-sharing decoder, audio and vision encoders)"),
    ("gemma4", 4.0): (8.0, "Gemma 4 (per-layer embeddings, KV-sharing decoder, audio and vision encoders)"),
}


def effective_total(parts: NameParts) -> tuple[float, str] | None:
    """(raw total B, architecture) of a name whose size is an effective one (``gemma-3n-E4B-it``), else None."""
    if parts.series is None or parts.size_b is None:
        return None
    if not any(_EFFECTIVE.match(t) for t in _tokens(parts.stem)):
        return None
    return EFFECTIVE_TOTALS.get((parts.series, parts.size_b))


_BARE_NUMBER = re.compile(r"^\d+(?:\.\d+)?$")


def bare_size_reading(parts: NameParts) -> NameParts | None:
    """The name read with a bare trailing number as its size: ``/data/qwen1.5-14`` -> series qwen1.5, 14B.

    Users name local folders after the hub id with the ``B`` dropped (``qwen1.5-14``, ``Qwen2.5-7``, ``llama3-8``).
    Only a candidate: the caller accepts it only where the series has a preset of exactly that size (a released
    size), so ``qwen1.5-13`` or ``llama3-2`` stay sizeless. None where the name already has a size, or the series
    is not ``<family+version>`` followed by one bare number."""
    if parts.size_b is not None or parts.active_b is not None or parts.series is None:
        return None
    toks = [t for t in _tokens(parts.stem) if t not in _QUANT_WORDS]
    # the number must follow the family+version tokens directly; variant words (instruct, chat) may come after it
    for i, t in enumerate(toks):
        if _BARE_NUMBER.match(t) and i > 0:
            head, rest = toks[:i], toks[i + 1:]
            if not re.search(r"[a-z]", "".join(head)) or any(_BARE_NUMBER.match(r) for r in rest):
                return None
            again = parse_name("-".join([*head, f"{t}b", *rest]))
            if again.series is None or again.size_b is None:
                return None
            return replace(again, raw=parts.raw, stem=parts.stem, org=parts.org)
    return None


_GLUED_PREFIX = re.compile(r"^[a-z]{2,}\d{4,}$")    # "modelscope0731", "download20240731": a word glued to a date


def glued_prefix_reading(parts: NameParts) -> NameParts | None:
    """The name read without a leading word glued to a date or number (``modelscope0731-glm-4v-9b`` -> glm-4v-9b).

    Users prefix a download folder with where and when they fetched it. Only a candidate: the caller accepts it
    only where the rest matches a preset. A family's own version digits (qwen2, llama3, internlm2, glm4) are never
    four digits long; None where the first token is not such a word or nothing that names a model follows it."""
    toks = [t for t in _tokens(parts.stem) if t not in _QUANT_WORDS]
    if len(toks) < 2 or not _GLUED_PREFIX.match(toks[0]):
        return None
    again = parse_name("-".join(toks[1:]))
    if again.series is None:
        return None
    return replace(again, raw=parts.raw, stem=parts.stem, org=parts.org, quant=parts.quant,
                   quant_bits=parts.quant_bits)


# words whose presence makes a model another shape than the family it names (a vision/audio/omni wrapper, a MoE
# or multi-token-prediction variant): a name is never read as its base with one of these set aside
_SHAPE_WORDS = frozenset({"vl", "v", "vision", "omni", "audio", "speech", "mm", "multimodal", "moe", "next", "mtp",
                          "vla", "video", "asr", "tts", "llava", "vila", "idefics", "paligemma", "cogvlm"})


def _is_size_token(t: str) -> bool:
    return bool(_SIZE.match(t) and t.endswith("b") or _SIZE_BLOOM.match(t) or _ACTIVE.match(t)
                or _EXPERTS_X.match(t) or _EFFECTIVE.match(t))


def base_inside_readings(parts: NameParts) -> list[NameParts]:
    """Readings of a fine-tune or merge named with its base inside (``Hermes-3-Llama-3.1-8B``,
    ``Dolphin3.0-Llama3.1-8B``, ``Llama-3.1-Nemotron-Nano-8B-v1``, ``Huihui-Qwen3-4B-Instruct-2507-abliterated``):
    the size with a shorter run of the family words, longest run first. Only candidates: the caller accepts one only
    where that family has a preset of exactly that size. None where the name says no size, or where a word set aside
    changes the shape (VL, Omni, Audio, MoE: ``Qwen2.5-Omni-7B`` is not Qwen2.5-7B)."""
    if parts.series is None or (parts.size_b is None and parts.active_b is None):
        return []
    toks = [t for t in _tokens(parts.stem) if t not in _QUANT_WORDS]
    k = next((i for i, t in enumerate(toks) if _is_size_token(t)), None)
    if k is None or k < 2 or _EFFECTIVE.match(toks[k]):      # E2B is an effective size: never another family's
        return []
    head, rest = toks[:k], toks[k:]
    out: list[NameParts] = []
    for n in range(len(head) - 1, 0, -1):
        for i in range(len(head) - n + 1):
            dropped = head[:i] + head[i + n:]
            # a version right after the kept words is that family's own (gemma-3n is not gemma): never set aside
            if any(d in _SHAPE_WORDS for d in dropped) or head[i + n:i + n + 1] and head[i + n][0].isdigit():
                continue
            again = parse_name("-".join([*head[i:i + n], *rest]))
            if again.series is None or again.series == parts.series or again.size_b != parts.size_b:
                continue
            out.append(replace(again, raw=parts.raw, stem=parts.stem, org=parts.org, quant=parts.quant,
                               quant_bits=parts.quant_bits))
    return out


def named_size(parts: NameParts) -> tuple[float, float | None, str | None] | None:
    """(total B, active B or None, architecture not modelled or None) for a series whose size is a word."""
    if parts.series is None:
        return None
    if parts.size_b is None and parts.active_b is not None:       # "Hunyuan-A13B": only the active size is said
        return NAMED_SIZES.get(f"{parts.series}a{parts.active_b:g}b")
    if "base" in parts.variants and parts.series + "base" in NAMED_SIZES:   # "bert-base-uncased": base is the size
        return NAMED_SIZES[parts.series + "base"]
    return NAMED_SIZES.get(parts.series)
