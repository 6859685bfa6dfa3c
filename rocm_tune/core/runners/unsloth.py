"""Unsloth's kernels as estimate terms (pure; the sources are profiles/unsloth_kernels.py).

An Unsloth program is read as the transformers program it patches and marked an upper bound (formats: its
`__upper_bound__`). Where the source pins what its kernels keep - FastLanguageModel on a model type Unsloth runs with
its own decoder, trained with labels (SFT / pre-training) - the bound becomes an estimate: `modelled` says so once the
model is known, and `terms` hands build_config the TrainConfig terms that count the kernels (RMSNorm, LoRA autograd
functions, the chunked fused loss, TiledMLP). FastModel / FastVisionModel (and FastLanguageModel on other model types)
are estimated with what unsloth_zoo's compiler pins (the fused loss, the offloaded checkpoints, TiledMLP); check keeps
the answer unknown where the verdict rests on what torch.compile fuses inside a layer (check._compile_decides). A
model with a vision tower under the compiler, GRPO / DPO and a program without its trainer's arguments stay bounds."""

from __future__ import annotations

import re

from rocm_tune.core.runners.common import Job, Setting, as_bool, as_int
from rocm_tune.profiles import unsloth_kernels as P

KEY = "__unsloth_kernels__"


def is_unsloth_program(job: Job) -> bool:
    return str(job.get("__upper_bound__") or "").startswith("unsloth")


def compiled(job: Job, model) -> bool:
    """The program runs transformers' modules under unsloth_zoo's compiler (FastModel / FastVisionModel, or
    FastLanguageModel on a model type without Unsloth's own decoder): the fused loss and the offloaded checkpoints are
    pinned, what torch.compile fuses inside a layer is not (profiles/unsloth_kernels.py COMPILED_SRC)."""
    loader = str(job.get("__unsloth_loader__") or "")
    family = str(getattr(model, "family", "") or "")
    return loader in P.COMPILED_LOADERS and not (loader in P.FAST_DECODER_LOADERS and family in P.FAST_DECODER_TYPES
                                                 and not delegated(job))


def delegated(job: Job) -> bool:
    """FastLanguageModel.from_pretrained(load_in_8bit=True | full_finetuning=True | qat_scheme=...) runs
    FastModel.from_pretrained (P.DELEGATED_SRC)."""
    return (as_int(job.get("quantization_bit")) == 8 or job.get("__unsloth_qat__") is not None
            or as_bool(job.get("__unsloth_full__")) is True)


def why_bound(job: Job, model) -> str | None:
    """Why an Unsloth program stays an upper bound (None: its kernels are estimated)."""
    loader = str(job.get("__unsloth_loader__") or "")
    if loader not in P.COMPILED_LOADERS:
        return f"loaded with {loader or 'no Fast*Model call read'}: transformers' modules under unsloth_zoo's compiler"
    if as_bool(job.get("__no_trainer_args__")):
        return "no TrainingArguments / SFTConfig in the text given: the batch that decides is not known"
    if compiled(job, model) and getattr(model, "vision", None) is not None:
        return (f"{getattr(model, 'family', '?')} has a vision tower: what Unsloth's compiler checkpoints in it and "
                f"the images' tokens decide ({P.COMPILED_SRC})")
    stage = str(job.get("stage", "sft") or "sft").lower()
    if stage not in ("sft", "pt"):
        return f"stage {stage}: the trainer takes log-probabilities from the logits, not Unsloth's fused loss"
    return None


def modelled(job: Job, model) -> bool:
    """Once the model is known: an Unsloth program whose kernels the source pins is estimated with them - the
    upper-bound mark and its finding give way to a note. False (the bound stays) otherwise."""
    if model is None or not is_unsloth_program(job):
        return False
    if why_bound(job, model) is not None:
        return False
    mark = job.settings.pop("__upper_bound__")
    kind = "compiled" if compiled(job, model) else str(model.family)
    job.settings[KEY] = Setting(KEY, kind, mark.file, mark.line, "import", "flag")
    job.findings = drop_bound_finding(job, job.findings)
    if kind == "compiled":
        job.notes.append(f"Unsloth runs {model.family} as transformers' modules under unsloth_zoo's compiler: "
                         f"estimated with its fused cross-entropy and offloaded checkpoints ({P.COMPILED_SRC}); "
                         f"what torch.compile fuses inside a layer (RMSNorm, PEFT's LoRA) is counted as transformers "
                         f"keeps it")
    else:
        job.notes.append(f"Unsloth's FastLanguageModel runs {model.family} with its own decoder: estimated with its "
                         f"kernels ({P.LOADER_SRC}): RMSNorm keeps its input and an fp32 per row ({P.NORM_SRC}); the "
                         f"fused cross-entropy never makes the logits ({P.FUSED_CE_SRC})")
    if as_bool(job.get("unsloth_tiled_mlp")):
        job.notes.append(f"unsloth_tiled_mlp=True: each layer's MLP runs in tiles of hidden_size tokens under "
                         f"no_grad and saves only its input ({P.TILED_MLP_SRC})")
    return True


def drop_bound_finding(job: Job, findings: list) -> list:
    """`findings` without the "estimated without them (an upper bound)" finding once the kernels are estimated."""
    if job.get(KEY) is None:
        return findings
    return [f for f in findings if not (f.code == "kernels-not-modelled" and "upper bound" in f.message
                                        and "unsloth" in f.message)]


def _lora_kernel_modules(job: Job, values: dict) -> tuple[str, ...]:
    """The projections Unsloth's LoRA autograd functions run (all of q/k/v, o, all of gate/up/down), when
    lora_dropout is 0 and bias "none" (patch_peft_model)."""
    if values.get("method") not in ("lora", "qlora") or values.get("dora"):
        return ()
    dropout = job.get("lora_dropout", P.DEFAULT_LORA_DROPOUT)
    bias = str(job.get("lora_bias", P.DEFAULT_LORA_BIAS) or P.DEFAULT_LORA_BIAS).lower()
    try:
        if float(str(dropout)) != 0.0 or bias != "none":
            return ()
    except ValueError:
        return ()
    targets = tuple(values.get("lora_targets") or ("all",))
    everything = "all" in targets
    out: tuple[str, ...] = ()
    family = str(values.get("__family__", ""))
    for group in (P.QKV_TARGETS, P.O_TARGETS, P.MLP_TARGETS):
        if group == P.QKV_TARGETS and family in P.QKV_BIAS_TYPES:
            continue                   # q/k/v carry a bias: LoRA_QKV is not patched (patch_peft_model)
        if everything or all(t in targets for t in group):
            out += group
    return out


def terms(job: Job, model, values: dict) -> dict:
    """TrainConfig terms for an Unsloth program `modelled` accepted ({} otherwise)."""
    if job.get(KEY) is None or model is None:
        return {}
    tiled = {"tiled_mlp": t} if (t := tiled_mlp_tile(job, model, values)) else {}
    if job.get(KEY) == "compiled":
        return {"fused_ce": True, "fused_ce_target": P.CE_TARGET_BYTES, **tiled}
    kernels = _lora_kernel_modules(job, {**values, "__family__": getattr(model, "family", "")})
    mlp = all(m in kernels for m in P.MLP_TARGETS) and bool(getattr(model, "gated_mlp", False))
    return {"liger_norm": True, "liger_swiglu": mlp, "fused_ce": True, "fused_ce_target": P.CE_TARGET_BYTES,
            "lora_kernels": kernels, **tiled}


def tiled_mlp_tile(job: Job, model, values: dict) -> int:
    """The largest tile TiledMLP runs (tiled_forward_arctic_size): hidden_size tokens, S // H of them over the
    flattened B*S tokens, the rest in one last split (0: not tiled)."""
    if not as_bool(job.get("unsloth_tiled_mlp")):
        return 0
    hidden, seq = max(1, int(model.hidden_size)), int(values.get("cutoff_len") or 0)
    rows = int(values.get("micro_batch") or 1) * (2 if values.get("stage") == "dpo" else 1)
    flat = rows * seq
    shards = max(1, seq // hidden)
    return max(min(hidden, flat), flat - hidden * shards)


def offloaded_layers(job: Job, num_layers: int, layer_bytes: int, seq: int | None = None) -> tuple[int, int]:
    """(layers whose checkpointed input leaves the GPU, net layers' worth the GPU saves) under
    use_gradient_checkpointing="unsloth" in an Unsloth program (unsloth_zoo UnslothCheckpointFunction): every layer
    but the last, when its input is over 2 MiB; two GPU buffers of one layer's input take them back. Against the
    estimate's count at its peak (the last layer's backward: the embedding's output and every layer's input, beside
    what the recomputed layer keeps): the embedding's output is the first layer's input and leaves with it (nothing
    on the GPU keeps it once its copy is made), and the last layer's input is the tensor its RMSNorm saves in the
    recompute (counted there); what stays is the two buffers."""
    if layer_bytes <= P.OFFLOAD_MIN_BYTES or not as_bool(job.get("use_unsloth_gc")) or num_layers < 1:
        return 0, 0
    if seq is not None and seq < P.OFFLOAD_MIN_SEQ:
        return 0, 0                    # apply_unsloth_gradient_checkpointing: plain checkpointing (not counted)
    moved = max(0, num_layers - P.OFFLOAD_KEPT_LAYERS)
    return moved, max(0, moved + 1 + P.OFFLOAD_KEPT_LAYERS - P.OFFLOAD_GPU_BUFFERS)


def offload_host_bytes(moved: int, layer_bytes: int) -> int:
    """Pinned host memory of the offloaded inputs: one buffer per offloaded layer at its input's size, beside the
    start's small buffers (INITIAL_CPU_BUFFER_COUNT x INITIAL_CPU_BUFFER_SIZE elements, 16-bit)."""
    small = max(0, P.INITIAL_CPU_BUFFER_COUNT - moved) * P.INITIAL_CPU_BUFFER_ELEMENTS * 2
    return moved * layer_bytes + small


def tiled_env(settings: dict, text: str, file: str) -> None:
    """`os.environ["UNSLOTH_TILED_MLP"] = "arctic"` (or "1") in the program: TiledMLP on, as unsloth_tiled_mlp=True
    (unsloth/models/loader.py reads the variable before the argument)."""
    hit = re.search(P.TILED_MLP_ENV, text)
    if hit and "unsloth_tiled_mlp" not in settings:
        line = text.count("\n", 0, hit.start()) + 1
        settings["unsloth_tiled_mlp"] = Setting("unsloth_tiled_mlp", True, file, line, "UNSLOTH_TILED_MLP", "flag")
