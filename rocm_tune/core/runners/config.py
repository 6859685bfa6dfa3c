"""A job's settings (canonical LLaMA-Factory keys, as any runner's reader returns them) -> the TrainConfig the
estimator takes, with the missing values filled from the runner's own DEFAULTS (each runner module holds them once,
with the source they were read from). Pure: standard library.

Every path that turns a user's training files into a TrainConfig goes through `build_config`: `check`, explain's
OOM fix (core/runs/diagnose/oom_advice), `runners.llamafactory.read`."""

from __future__ import annotations

import os

from rocm_tune.core.errors import UserError
from rocm_tune.core.memory.estimate import TrainConfig
from rocm_tune.core.model.lora import split_targets
from rocm_tune.core.runners import heads, program_bounds, rl, unsloth
from rocm_tune.core.runners.values import unread_note
from rocm_tune.core.runners.common import Default, Finding, Job, Setting, as_bool, as_int
from rocm_tune.profiles.optimizer_steps import ADAM_SQRT_TEMP, DEFAULT_TRAINER_OPTIM, FOREACH_ADAMW_RUNNERS
from rocm_tune.profiles import model_heads
from rocm_tune.profiles.value_forms import FALLBACK

INT_KEYS = ("cutoff_len", "per_device_train_batch_size", "gradient_accumulation_steps", "per_device_eval_batch_size",
            "lora_rank", "lora_alpha", "quantization_bit", "freeze_trainable_layers", "sequence_parallel_size")
LF_FAMILY = ("llamafactory", "builtin")     # the built-in trainer reads LLaMA-Factory's YAML
_ATTN = {"fa2": "fa2", "flash_attn": "fa2", "flash_attention_2": "fa2", "fa3": "fa2", "flash_attention_3": "fa2",
         "flash_attn3": "fa2", "flash_attention": "fa2", "sdpa": "sdpa", "eager": "eager", "disabled": "eager"}
_OPTIM = {"adamw_bnb_8bit": "adamw_8bit", "adamw_8bit": "adamw_8bit", "paged_adamw_8bit": "paged_adamw_8bit",
          "paged_adamw_32bit": "paged_adamw", "paged_adamw": "paged_adamw", "adamw_torch_8bit": "adamw_8bit",
          "adafactor": "adafactor", "sgd": "sgd"}




def _adam_sqrt_temp(job: Job, optim: str) -> str:
    """Which square-root temporary the HF Trainer's AdamW makes in its step (TrainConfig.adam_sqrt_temp); "" for
    other runners, other optimizers, FSDP (its sharded step is core/check's _fsdp_phases) and LLaMA-Factory's
    Megatron modes (USE_MCA / USE_MEGATRON_BRIDGE: Megatron's own optimizer steps, not the Trainer's `optim`)."""
    if optim != "adamw" or job.runner not in FOREACH_ADAMW_RUNNERS or fsdp_spec(job) is not None \
            or job.get("__lf_megatron__"):
        return ""
    return ADAM_SQRT_TEMP.get(str(job.get("optim", DEFAULT_TRAINER_OPTIM)).lower().strip("'\""), "")


def _optim(job: Job, a: list[str]) -> str:
    """The optimizer's state as the estimator counts it. GaLore / APOLLO (HF `optim: galore_adamw[_8bit|_layerwise]`,
    `apollo_adamw`; LLaMA-Factory `use_galore` / `use_apollo`; transformers/trainer.py _get_optimizer_cls_and_kwargs)
    keep the Adam moments of rank-r projections of the targeted matrices, not of the matrices: sized as a factored
    (Adafactor-like) state, said; their `layerwise` variants step each parameter in a gradient hook, so the
    gradients are never all held (as torchtune's optimizer_in_bwd)."""
    name = str(job.get("optim", "adamw_torch")).lower()
    low_rank = name.startswith(("galore", "apollo")) or bool(as_bool(job.get("use_galore"))) \
        or bool(as_bool(job.get("use_apollo")))
    if not low_rank:
        return _OPTIM.get(name, "adamw")
    which = "APOLLO" if name.startswith("apollo") or as_bool(job.get("use_apollo")) else "GaLore"
    a.append(f"{which}: the optimizer keeps low-rank projected moments; counted as a factored (Adafactor-sized) "
             f"state (approximate)")
    if "layerwise" in name or as_bool(job.get("galore_layerwise")) or as_bool(job.get("apollo_layerwise")):
        job.settings.setdefault("optimizer_in_bwd", Setting("optimizer_in_bwd", True, None, None,
                                                            f"{which} layerwise", "assumed"))
        a.append(f"{which} layerwise: each parameter steps as its gradient is ready (the gradients are never all "
                 f"held)")
    return "adafactor"


class BadValue(UserError):
    """A value in the user's files that is not what its key takes (a finding, not bad command-line input)."""

    def __init__(self, message: str, file: str | None, line: int | None):
        super().__init__(message)
        self.file, self.line = file, line


def where(job: Job, key: str) -> tuple[str | None, int | None]:
    s = job.settings.get(key)
    return (s.file, s.line) if s else (job.entry_file, job.entry_line)


def fsdp_spec(job: Job):
    """The job's FSDP setup (Axolotl `fsdp:`/`fsdp_config:`, accelerate `distributed_type: FSDP`, torchtune's
    distributed recipes), or None."""
    from rocm_tune.core.runners import fsdp

    s, c = job.settings.get("fsdp"), job.settings.get("fsdp_config")
    if s is not None or c is not None:
        first = s if s is not None else c
        assert first is not None
        conf = c.value if c is not None and isinstance(c.value, dict) else None
        return fsdp.spec_from(s.value if s else None, conf, str(first.file))
    a = job.accelerate or {}
    if a.get("fsdp"):
        return fsdp.spec_from(None, a.get("fsdp_config") or {"sharding_strategy": "FULL_SHARD"}, str(a.get("file")))
    return None


def _default(defaults: dict, key: str, fallback):
    d = defaults.get(key)
    return (d.value, d.source) if isinstance(d, Default) else (fallback, None)


def _said(what: str, value, source: str | None, runner: str) -> str:
    return f"{what}: not set, {value} assumed" + (f" ({runner}'s default, {source})" if source else " (a guess)")


def _precision(job: Job, findings: list[Finding], assumptions: list[str], defaults: dict) -> str:
    g = job.get
    if as_bool(g("pure_bf16")):
        return "pure_bf16"
    bf, fp = as_bool(g("bf16")), as_bool(g("fp16"))
    if job.ds is not None:
        for name, yaml_v, ds_v in (("bf16", bf, job.ds.bf16), ("fp16", fp, job.ds.fp16)):
            if ds_v is True and not yaml_v:
                findings.append(Finding.of("ds-precision-conflict", job.ds.file, job.ds.lines.get(name),
                                           f"the DeepSpeed JSON enables {name} but the training arguments do not "
                                           f"(transformers stops with a mismatch error)",
                                           f'set "{name}": {{"enabled": "auto"}} in the JSON'))
    if bf:
        return "bf16"
    if fp:
        return "fp16"
    mp = str((job.accelerate or {}).get("mixed_precision") or "").lower()
    if mp in ("bf16", "fp16"):
        job.notes.append(f"precision {mp} from the accelerate config's mixed_precision "
                         f"({(job.accelerate or {}).get('file')})")
        return mp
    value, source = _default(defaults, "precision", None)
    if value and "pure_fp32" not in job.settings:
        assumptions.append(f"precision: not set, {job.runner}'s default {value} ({source})")
        return str(value)
    if "bf16" not in job.settings and "fp16" not in job.settings:   # `bf16: false` states fp32
        assumptions.append("precision: no bf16/fp16 key, so the Trainer's fp32 (mixed precision off)")
    return "fp32"


def _method(job: Job, model, f: list[Finding], a: list[str], defaults: dict) -> dict:
    g, s = job.get, job.settings
    dv, src = _default(defaults, "method", "full")
    method = str(g("finetuning_type", dv)).lower()
    if "finetuning_type" not in s:
        a.append(f"finetuning_type: {job.runner}'s default {dv} ({src})" if src else
                 "method: no LoRA setting in the script, so full fine-tuning")
    if method not in ("lora", "full", "freeze"):
        f.append(Finding.of("method-not-modelled", *where(job, "finetuning_type"),
                            f"finetuning_type {method!r} is estimated as lora", None))
        method = "lora"
    qb = as_int(g("quantization_bit"))
    if qb is not None and qb not in (4, 8):
        f.append(Finding.of("quantization-not-modelled", *where(job, "quantization_bit"),
                            f"quantization_bit {qb}: only bitsandbytes 4 and 8 bit are modelled; estimated unquantised",
                            None))
    values: dict = {"method": method}
    if qb in (4, 8) and method == "lora":
        values.update(method="qlora", quant_bits=qb)
        if qb == 4 and "double_quantization" in s and as_bool(g("double_quantization")) is not None:
            values["double_quant"] = as_bool(g("double_quantization"))   # LF double_quantization, bnb_4bit_use_...
    if method == "lora":
        r, la = as_int(g("lora_rank")), as_int(g("lora_alpha"))
        if r:
            values["lora_rank"] = r
        if la:
            values["lora_alpha"] = la
        raw = g("lora_target", "all")
        t = ",".join(map(str, raw)) if isinstance(raw, (list, tuple)) else str(raw).strip()
        if t == "__peft_default__":           # LoraConfig without target_modules: PEFT's per-architecture default
            from rocm_tune.core.runners.hf import PEFT_DEFAULT_TARGETS

            t = PEFT_DEFAULT_TARGETS.get(str(model.family), "q_proj,v_proj") if model is not None else "q_proj,v_proj"
            a.append(f"LoRA target_modules: not set, PEFT's default for {getattr(model, 'family', '?')}: {t}")
        values["lora_targets"] = ("all",) if t in ("all", "all-linear", "") else (split_targets(t) or ("all",))
        parts = [x.strip() for v in values["lora_targets"] for x in str(v).split(",") if x.strip()]
        extra = [x for x in parts if x != "all-linear"]
        if job.runner == "ms-swift" and len(extra) < len(parts):
            # `--target_modules all-linear embed_tokens lm_head` (ms-swift swift/pipelines/train/tuner.py
            # get_target_modules: all-linear expands to every linear layer, the other names are kept; PEFT alone reads
            # a list literally): every linear layer, plus adapters on those modules
            values["lora_targets"] = ("all",)
            if extra and model is not None:
                n_extra = (int(model.vocab_size) + int(model.hidden_size)) * int(values.get("lora_rank") or 8) \
                    * len(extra)
                a.append(f"LoRA targets: all-linear with {', '.join(extra)}: every linear layer, and an adapter on "
                         f"each of {', '.join(extra)} (rank x (vocab + hidden): {n_extra / 1e6:.1f}M parameters, not "
                         f"counted)")
        if model is not None and values["lora_targets"] != ("all",):
            from rocm_tune.core.model import lora as model_lora

            hit, _ = model_lora.wrapped_groups(model.linears, values["lora_targets"])
            roles = None if hit else model_lora.by_role(model.linears, values["lora_targets"])
            if roles is not None:
                values["lora_targets"] = roles[0]
                a.append(f"LoRA targets: {t} name no linear layer of {model.name} as its shape is known here; read by "
                         f"their role in the architectures that use those names ({'; '.join(roles[1])})")
        if as_bool(g("use_dora")):
            values["dora"] = True
        whole = full_modules(g("additional_target"))
        if not whole and job.runner == "llamafactory" and _lf_resizes_vocab(job):
            # LLaMA-Factory: new tokens turn resize_vocab on (model/loader.py: "New tokens have been added, changed
            # `resize_vocab` to True."), and a resized vocab with no additional_target trains the input and output
            # embeddings whole (model/adapter.py: "Vocab has been resized, add {} to trainable params.")
            whole = ("embed", "lm_head")
            a.append("resize_vocab / new tokens: LLaMA-Factory trains embed_tokens and lm_head whole beside the LoRA "
                     "adapters (additional_target)")
        if whole:
            values["lora_full_modules"] = whole
    if method == "freeze":
        n = as_int(g("freeze_trainable_layers"))
        if n is not None and n < 0:
            f.append(Finding.of("freeze-first-layers", *where(job, "freeze_trainable_layers"),
                                f"freeze_trainable_layers {n}: the FIRST {-n} layers train; estimated as the last "
                                f"{-n} (activations kept from the first layer on are not modelled)", None))
            n = -n
        values["freeze_trainable_layers"] = n or 2
    return values


# the names PEFT's modules_to_save matches (``key.endswith(name)``) for the input embedding and the output head of the
# architectures people train (Llama/Qwen/Mistral embed_tokens + lm_head, GPT-2 wte, Bloom word_embeddings, Llama-1
# tok_embeddings + output, GPT-NeoX embed_in + embed_out); other modules (norms, a classifier) are small
_WHOLE_MODULES = {"embed_tokens": "embed", "wte": "embed", "word_embeddings": "embed", "tok_embeddings": "embed",
                  "embed_in": "embed", "lm_head": "lm_head", "embed_out": "lm_head", "output": "lm_head"}


def _lf_resizes_vocab(job: Job) -> bool:
    g = job.get
    if as_bool(g("resize_vocab")):
        return True
    return any(g(k) not in (None, "", False, [], "null", "None")
               for k in ("new_special_tokens", "add_tokens", "add_special_tokens"))


def full_modules(raw) -> tuple[str, ...]:
    """LLaMA-Factory additional_target / PEFT modules_to_save (a list or a comma/space separated string) -> the
    whole-trained modules the estimate counts: "embed", "lm_head"."""
    if raw is None or raw is False:
        return ()
    names = raw if isinstance(raw, (list, tuple)) else str(raw).replace(",", " ").split()
    out: list[str] = []
    for n in names:
        role = _WHOLE_MODULES.get(str(n).strip().strip("'\"[]").rsplit(".", 1)[-1])
        if role and role not in out:
            out.append(role)
    return tuple(out)


# runners whose default length is a guess, neither a cap nor the worst case: nothing truncates a sample when the config
# sets no length, and the length counted is below what the model takes (where the worst case is counted - a runner
# whose default is the model's context - an OOM there is the worst case's answer and stays one)
# (torchtune: tokenizer max_seq_len None, pytorch/torchtune torchtune/modules/transforms/tokenizers/_utils.py
# tokenize_messages truncates only `if max_seq_len is not None`; padded_collate_sft pads each batch to its longest
# sample)
UNTRUNCATED_RUNNERS = ("torchtune",)
UNTRUNCATED = "__untruncated__"
# the setting that caps the length, by runner (said in the answer)
UNTRUNCATED_CAPS = {"torchtune": "tokenizer.max_seq_len", "hf": "DPOConfig max_length"}


def _untruncated(job: Job) -> None:
    """Mark the sequence length as assumed where nothing truncates: the data's longest sample decides (check)."""
    job.settings[UNTRUNCATED] = Setting(UNTRUNCATED, True, None, None, "cutoff_len", "default")


def _trl_dpo_length(job: Job, model, a: list[str]) -> int | None:
    """A TRL DPO program that sets no max_length, where its files pin the TRL release: that release's length
    (profiles/preference_logits.py TRL_DPO_MAX_LENGTH); v0.12-v0.13 truncate nothing - the model's context is counted
    and the data's longest pair decides (check says the length that fits). None: not such a job, or no pin."""
    from rocm_tune.core.runners.preference_logits import pinned_release
    from rocm_tune.profiles.preference_logits import TRL_DPO_MAX_LENGTH

    if job.runner != "hf" or str(job.get("stage", "") or "").lower() != "dpo":
        return None
    release = pinned_release(getattr(job, "files", None) or {})
    for first, after, length, source in TRL_DPO_MAX_LENGTH:
        if release is None or not (first <= release and (after is None or release < after)):
            continue
        if length is not None:
            a.append(f"sequence length: not set, TRL {release[0]}.{release[1]} pinned: {length} tokens ({source})")
            return length
        cut = int(model.config.get("max_position_embeddings") or 32768) if model is not None else 32768
        a.append(f"sequence length: not set, TRL {release[0]}.{release[1]} pinned truncates no pair ({source}): "
                 f"the model's context, {cut} tokens, counted")
        _untruncated(job)
        return cut
    return None


def _sequence_and_batch(job: Job, model, a: list[str], defaults: dict) -> dict:
    g = job.get
    values: dict = {}
    cut = as_int(g("cutoff_len"))
    src_tgt = [as_int(g(k)) for k in ("max_source_length", "max_target_length")]
    if cut is None and all(src_tgt):
        # LLaMA-Factory before cutoff_len (2023) and the forks built on it truncate the prompt and the answer
        # separately: the longest sample is their sum
        cut = sum(v for v in src_tgt if v)
        a.append(f"sequence length: max_source_length + max_target_length = {cut} tokens (truncated separately)")
    tok = job.settings.get(program_bounds.TOK_KEY)
    if cut is None and tok is not None:
        cut = int(str(tok.value))
        how = (f"program cuts every sample's input_ids to {cut} (a slice)" if tok.native == "input_ids slice" else
               f"program's tokenizer truncates every sample at max_length {cut} (truncation=True)")
        a.append(f"sequence length: not set; {os.path.basename(tok.file or '')} line {tok.line}: the {how}, so "
                 f"{cut} tokens at most")
    if cut is None:
        cut = _trl_dpo_length(job, model, a)
    if cut is None:
        dv, src = _default(defaults, "cutoff_len", 1024)
        bound = as_int(g("dataset_max_tokens"))
        if dv == "model" and bound is not None:     # no truncation, but the named data's samples are short
            cut = bound
            a.append(f"sequence length: not set, {job.runner} does not truncate; the dataset named "
                     f"(--{job.settings['dataset_max_tokens'].native}) has samples of at most ~{cut} tokens ({src})")
        elif dv == "model":      # no truncation: the model's context
            cut = int(model.config.get("max_position_embeddings") or 32768) if model is not None else 32768
            a.append(f"sequence length: not set, {job.runner} does not truncate: the longest sample may reach the "
                     f"model's context, {cut} tokens assumed ({src})")
        else:
            cut = int(dv)
            a.append(_said("cutoff_len", cut, src, job.runner))
            if job.runner in UNTRUNCATED_RUNNERS:
                _untruncated(job)
    values["cutoff_len"] = cut
    mb = as_int(g("per_device_train_batch_size"))
    ds_mb = as_int((job.ds.data if job.ds is not None else {}).get("train_micro_batch_size_per_gpu"))
    if mb is None and ds_mb:
        # a number in the DeepSpeed JSON is the engine's micro batch (deepspeed.initialize takes it; the HF Trainer
        # refuses to start when it differs from per_device_train_batch_size: integrations/deepspeed.py
        # trainer_config_finalize "Please correct the following DeepSpeed config values that mismatch")
        mb = ds_mb
        job.notes.append(f"per-device batch {ds_mb}: the DeepSpeed JSON's train_micro_batch_size_per_gpu")
    if mb is None:
        mb, src = _default(defaults, "micro_batch", 8)
        a.append(_said("per_device_train_batch_size", mb, src, job.runner))
    values["micro_batch"] = int(mb)
    dgc = g("disable_gradient_checkpointing")
    if dgc is None:
        gc, src = _default(defaults, "gradient_checkpointing", False)
        values["gradient_checkpointing"] = bool(gc)
        a.append(f"gradient checkpointing: {'on' if gc else 'off'} (the runner's default)")
    else:
        values["gradient_checkpointing"] = not bool(as_bool(dgc))
    spec = fsdp_spec(job)
    if spec is not None and spec.activation_checkpointing and not values["gradient_checkpointing"]:
        values["gradient_checkpointing"] = True
        a.append(f"gradient checkpointing: on, by fsdp_activation_checkpointing ({spec.source})")
    return values


def eval_batch_default(job: Job, cfg: TrainConfig, defaults: dict) -> int:
    """per_device_eval_batch_size as the runner fills it when evaluation is on and the files do not say."""
    share = ranks_share(job, "per_device_eval_batch_size", cfg.world_size)
    if share is not None:
        return share[0]
    given = as_int(job.get("per_device_eval_batch_size"))
    if given:
        return given
    dv, _src = _default(defaults, "eval_batch", 8)
    return cfg.micro_batch if dv == "micro_batch" else int(dv)


def _hardware(job: Job, gpus: int | None, nodes: int | None, a: list[str]) -> dict:
    values: dict = {}
    if gpus is not None and gpus > 1 and job.runner == "ms-swift" and job.gpus is None and job.ds is None \
            and not job.get("__devmap_gpus__") and not job.get("fsdp"):
        # swift without NPROC_PER_NODE is one process (swift/cli/main.py), and it spreads the model over the GPUs
        # it sees (swift/llm/model/register.py get_default_device_map): --gpus N read as the GPUs it sees
        job.settings["device_map"] = Setting("device_map", "auto", None, None, "--gpus", "flag")
        job.settings["__devmap_gpus__"] = Setting("__devmap_gpus__", gpus, None, None, "--gpus", "flag")
        a.append(f"GPUs: swift without NPROC_PER_NODE starts one process: it spreads the model over the {gpus} GPUs "
                 f"it sees (device_map); NPROC_PER_NODE={gpus} before `swift` runs {gpus} data-parallel ranks")
        values["gpus"] = 1
    elif gpus is not None and job.runner == "ms-swift" and job.gpus is not None and job.gpus.native in (
            "NPROC_PER_NODE", "CUDA_VISIBLE_DEVICES") and job.get("__devmap_gpus__"):
        # the script's NPROC_PER_NODE and visible GPUs decide swift's processes; --gpus is the GPUs on the box
        values["gpus"] = as_int(job.gpus.value) or 1
    elif gpus is not None:
        values["gpus"] = gpus
    elif job.gpus is not None:
        values["gpus"] = as_int(job.gpus.value) or 1
        if job.gpus.kind == "assumed":
            a.append(f"GPUs: `{job.gpus.native}` without --nproc_per_node runs one process (1 GPU)"
                     if job.gpus.native == "tune run" else "GPUs: a plain `python script.py` runs one process (1 GPU)")
    else:
        values["gpus"] = 1
        every = job.launcher in ("deepspeed", "accelerate", "llamafactory-cli")
        a.append("GPUs: not in the files and no --gpus: 1 assumed"
                 + (f" ({job.launcher} without a count starts one rank per visible GPU: pass --gpus)" if every else "")
                 + (" (swift without NPROC_PER_NODE starts one process; it spreads the model over the GPUs it sees "
                    "(device_map) and refuses DeepSpeed when it sees several)" if job.launcher == "swift" else ""))
    if nodes is not None:
        values["nodes"] = nodes
    elif job.nodes is not None:
        values["nodes"] = as_int(job.nodes.value) or 1
    if job.get("__ds_local__") and values.get("nodes", 1) > 1:
        a.append(f"nodes: srun starts `deepspeed` on each of the {values['nodes']} nodes without a --hostfile: "
                 f"each runs its own job on local resources only (deepspeed/launcher/runner.py fetch_hostfile), so "
                 f"the model shards over one node's GPUs, not over all {values['nodes']} nodes")
        values["nodes"] = 1
    if job.ds is not None and job.ds.stage:
        values["zero_stage"] = job.ds.stage
        values["offload"] = job.ds.offload
    elif job.ds is not None:
        values["deepspeed"] = True      # ZeRO-0 under DeepSpeed: its fp16/bf16 optimizer keeps fp32 masters
    return values


# model types Liger patches (linkedin/Liger-Kernel src/liger_kernel/transformers/monkey_patch.py
# MODEL_TYPE_TO_APPLY_LIGER_FN); gpt_oss keeps its own experts (swiglu=False by default there)
LIGER_MODEL_TYPES = frozenset((
    "deepseek_v4", "gemma", "gemma2", "gemma3_text", "gemma3", "gemma4_text", "gemma4", "glm4", "glm4v", "glm4v_moe",
    "gpt_oss", "internvl", "llama", "llama4_text", "llama4", "llava", "granite", "mllama", "mllama_text_model",
    "ministral", "mistral", "mixtral", "nemotron", "olmo2", "pixtral", "olmo3", "qwen2", "qwen3", "qwen3_moe",
    "qwen2_vl", "qwen2_vl_text", "qwen2_5_vl", "qwen2_5_vl_text", "qwen3_next", "qwen3_5", "qwen3_5_text",
    "qwen3_5_moe", "qwen3_5_moe_text", "qwen3_vl", "qwen3_vl_text", "qwen3_vl_moe", "qwen3_vl_moe_text", "smollm3",
    "phi3", "paligemma", "falcon_h1", "smolvlm", "hunyuan_v1_dense", "hunyuan_v1_moe", "exaone4"))


def _liger(job: Job, model) -> dict:
    """The Liger kernels that change what a layer keeps (RMSNorm, SwiGLU). transformers' use_liger_kernel
    (trainer.py: _apply_liger_kernel_to_instance(model, **liger_kernel_config)), LLaMA-Factory's enable_liger_kernel,
    ms-swift and OpenRLHF apply every kernel at its default (rms_norm=True, swiglu=True); axolotl each of its flags."""
    # the loss of SFT / pre-training only: a preference or RL trainer calls the model without labels and takes the
    # log-probabilities from its logits (TRL DPOTrainer concatenated_forward; Liger's lce_forward skips the logits
    # only when `self.training and labels is not None`; LLaMA-Factory turns fused_linear_cross_entropy off for
    # every stage but pt/sft: model_utils/liger_kernel.py require_logits)
    out = {"fused_ce": _fused_ce(job) and trainer_passes_labels(job)}
    if job.runner == "llamafactory" and model is not None and as_bool(job.get("enable_liger_kernel")):
        from rocm_tune.core.runners import llamafactory

        if not llamafactory.liger_applies(model):     # LLaMA-Factory patches nothing for a type it does not list
            job.notes.append(f"enable_liger_kernel: LLaMA-Factory applies no Liger kernel to model type "
                             f"{llamafactory.liger_model_type(model)} (\"Current model does not support liger "
                             f"kernel.\", model/model_utils/liger_kernel.py): estimated without them")
            return {"fused_ce": False}
    if not as_bool(job.get("enable_liger_kernel")) or str(getattr(model, "family", "")) not in LIGER_MODEL_TYPES:
        return out
    if job.runner == "axolotl":
        norm, swiglu = bool(as_bool(job.get("liger_rms_norm"))), bool(as_bool(job.get("liger_glu_activation")))
    else:
        norm, swiglu = True, True
    return {**out, "liger_norm": norm, "liger_swiglu": swiglu and str(model.family) != "gpt_oss"}


# torch.compile backends whose AOTAutograd partition is min_cut_rematerialization_partition (torch/_dynamo/backends/
# common.py aot_autograd callers: inductor's compile_fx uses it; "aot_eager" / "eager" keep autograd's default saving)
MIN_CUT_BACKENDS = ("inductor", "")


def compiles_forward(job: Job) -> str | None:
    """Where the runner compiles the model's forward with inductor, the setting that says so, else None:
    transformers' TrainingArguments `torch_compile` (Trainer hands the model to accelerate's TorchDynamoPlugin,
    backend torch_compile_backend, default inductor; LLaMA-Factory, ms-swift and Axolotl pass it through), torchtune's
    `compile: True` (training.compile_model: torch.compile of every layer, backend TORCH_COMPILE_BACKEND, default
    inductor) and the OLMo trainer's `compile:` section (torch.compile of the train step; the reader says it as
    torch_compile)."""
    for key in ("torch_compile", "compile"):
        if key == "compile" and job.runner != "torchtune":
            continue
        if as_bool(job.get(key)):
            backend = str(job.get("torch_compile_backend") or "").strip().lower()
            return key if backend in MIN_CUT_BACKENDS else None
    return None


def _compiled(job: Job, model) -> dict:
    """torch.compile's partition of the forward and backward (AOTAutograd min_cut_rematerialization_partition, the
    inductor default) saves the matmuls' inputs and outputs and recomputes the pointwise ops in the backward: an
    RMSNorm keeps its 16-bit input and an fp32 rstd per row, not its fp32 copies, and the SiLU-mul keeps the gate and
    up outputs, not the activation's output - what the liger_norm / liger_swiglu terms count (measured on one
    OLMo-style block, tests/test_check_c_over3.py: 61.6 -> 40 bytes per token per hidden unit)."""
    said = compiles_forward(job)
    if said is None or model is None:
        return {}
    job.notes.append(f"{said}: torch.compile (inductor) recomputes the norms' fp32 copies and the SiLU's output in the "
                     "backward: each RMSNorm keeps its 16-bit input and an fp32 rstd per row, the MLP only its gate and "
                     "up outputs (AOTAutograd min_cut_rematerialization_partition)")
    return {"liger_norm": True, "liger_swiglu": bool(getattr(model, "gated_mlp", False))}


# model types whose config LLaMA-Factory sets output_router_logits on when moe_aux_loss_coef is given
# (src/llamafactory/model/model_utils/moe.py configure_moe; the text config of glm4v_moe / InternVL-3.5's qwen3_moe)
LF_ROUTER_LOGITS_TYPES = frozenset(("dbrx", "ernie4_5_moe", "granitemoe", "jamba", "jetmoe", "llama4", "llama4_text",
                                    "mixtral", "olmoe", "phimoe", "qwen2_moe", "qwen3_moe", "glm4v_moe_text"))


def _router_aux(job: Job, model) -> dict:
    """Whether the runner makes an MoE model compute transformers' router load-balancing loss (TrainConfig
    .router_aux_loss): ms-swift passes output_router_logits=True when router_aux_loss_coef > 0 (its default 0;
    swift/trainers/seq2seq_trainer.py _prepare_inputs), LLaMA-Factory sets it on the config for the types it lists
    when moe_aux_loss_coef is given (default None), axolotl's output_router_logits: true sets it on the config.
    "masked" where the collator's attention mask reaches load_balancing_loss_func, "unmasked" where none does."""
    if model is None or not getattr(model, "num_experts", 0):
        return {}
    if job.runner == "ms-swift":
        coef = job.get("router_aux_loss_coef")
        on = _number(coef) > 0
    elif job.runner == "llamafactory":
        coef = job.get("moe_aux_loss_coef")
        on = _number(coef) != 0 and str(getattr(model, "family", "")) in LF_ROUTER_LOGITS_TYPES
    elif job.runner == "axolotl":
        on = bool(as_bool(job.get("output_router_logits")))
    else:
        return {}
    if not on:
        return {}
    # ms-swift's padding_free / packing collator hands the model position_ids and no attention_mask
    # (swift/template/base.py _data_collator makes attention_mask only `if not self.padding_free`; packing sets
    # padding_free), so the loss takes its unmasked branch
    flat = job.runner == "ms-swift" and any(as_bool(job.get(k)) for k in ("padding_free", "packing"))
    return {"router_aux_loss": "unmasked" if flat else "masked"}


def _number(v) -> float:
    """A setting's value as a number; 0 where it is not set or not a number."""
    try:
        return float(str(v).strip("'\"")) if v is not None else 0.0
    except ValueError:
        return 0.0


def _logits_16bit(job: Job, values: dict, family: str) -> dict:
    """TRL's DPOTrainer under DeepSpeed in 16 bit: its loss holds copies of the 16-bit logits, not the fp32 upcast
    and fp32 log-softmax (core/runners/preference_logits.py)."""
    from rocm_tune.core.runners import preference_logits

    if values.get("stage") != "dpo":
        return {}
    got = preference_logits.trl_dpo_16bit(job, str(values.get("precision")),
                                          trainer_fused_loss(job) or bool(values.get("fused_ce")), family)
    if got is None:
        return {}
    forward, backward, source = got
    if preference_logits.pinned_release(getattr(job, "files", None) or {}) is None:
        job.settings[preference_logits.UNPINNED_KEY] = Setting(preference_logits.UNPINNED_KEY, True, None, None,
                                                               "trl", "flag")
    job.notes.append(f"TRL DPO under DeepSpeed: accelerate runs no autocast and no fp32 conversion of the outputs, "
                     f"the log-softmax is taken on the 16-bit logits ({source}): {forward:g} copies of them at the "
                     f"forward's peak, {backward:g} in the loss's backward, no fp32 copy")
    return {"logits_16bit_loss": (forward, backward)}


# runners that train transformers' own modules with PEFT (not Megatron's / torchtune's / torchtitan's own model code)
_NOT_PEFT_RUNNERS = ("megatron", "torchtune", "torchtitan", "builtin")


def _lora_experts(job: Job, values: dict, model) -> dict:
    """LoRA "all" under a transformers 4.x release the files show: that release builds Mixtral / Qwen2-MoE / Qwen3-MoE
    / DeepSeek-V2/V3 / OLMoE experts as one nn.Linear each (Qwen3-VL-MoE, Llama 4, gpt-oss, Granite MoE, DBRX: fused
    3-D parameters even there) and their router as an nn.Linear (DeepSeek's: a bare nn.Parameter), and every all-linear expansion takes them: PEFT
    (tuners_utils.py _maybe_include_all_linear_layers: every nn.Linear but the output layer), LLaMA-Factory
    (model_utils/misc.py find_all_linear_modules: forbids lm_head / output_layer / projector only), ms-swift
    (find_all_linears: ignores lm_head, score, v_head, classifier only). Today's release (5.x) fuses them."""
    if (model is None or not getattr(model, "num_experts", 0) or not getattr(model, "experts_as_linears", False)
            or values.get("method") not in ("lora", "qlora") or not values.get("lora_targets")
            or job.runner in _NOT_PEFT_RUNNERS or str(job.get("__upper_bound__") or "").startswith("unsloth")):
        return {}
    if str((getattr(model, "config", None) or {}).get("model_type") or "").startswith("qwen3_vl_moe"):
        return {}      # transformers 4.57 Qwen3VLMoeTextExperts: gate_up_proj / down_proj are 3-D parameters
    from rocm_tune.core.runners import hf_loss

    got = hf_loss.newest_major(job)
    if got is None or got[0] >= 5:
        return {}
    wrapped = [g for g in model.linears if g.kind == "expert" or g.kind == "router" and model.router_as_linear]
    if tuple(values["lora_targets"]) != ("all",):      # named targets: the expert linears they name (core/model/lora.py)
        from rocm_tune.core.model import lora as model_lora

        wrapped = [g for g in model_lora.wrapped_groups(wrapped, tuple(values["lora_targets"]))[0]]
        if not wrapped:
            return {}
    extra = sum((g.in_features + g.out_features) * g.count * g.layers for g in wrapped) * int(values.get("lora_rank") or 8)
    how = "all-linear" if tuple(values["lora_targets"]) == ("all",) else "on " + ", ".join(values["lora_targets"])
    job.notes.append(f"LoRA {how} under the transformers release the files show ({got[1]}): {model.family}'s routed "
                     f"experts{' and router' if model.router_as_linear else ''} are nn.Linear modules there, and PEFT / "
                     f"LLaMA-Factory / ms-swift wrap every "
                     f"one ({extra / 1e6:.0f}M adapter parameters more than under transformers 5's fused experts)")
    return {"lora_expert_linears": True}


def _lora_fused_experts(job: Job, values: dict, model) -> dict:
    """Named LoRA targets on an MoE model run by PEFT on transformers' modules, unless a 4.x release the files show
    builds the experts as nn.Linear (_lora_experts): transformers 5 (today's release, taken where the files date
    nothing, as for "all") fuses the routed experts into 3-D parameters (e.g. models/qwen3_moe Qwen3MoeExperts
    gate_up_proj / down_proj nn.Parameter), so PEFT's target_modules names wrap the dense / shared MLPs only.
    NeMo Automodel's own GroupedExpertsLoRA and Megatron / torchtune / torchtitan model code are not PEFT's."""
    if (model is None or not getattr(model, "num_experts", 0) or values.get("method") not in ("lora", "qlora")
            or tuple(values.get("lora_targets") or ("all",)) == ("all",) or values.get("lora_expert_linears")
            or job.runner in _NOT_PEFT_RUNNERS or "automodel" in str(job.entry or "").lower()):
        return {}
    return {"lora_fused_experts": True}


def _hf_loss(job: Job, values: dict, model) -> dict:
    """transformers' own causal-LM loss at the release the files show (core/runners/hf_loss.py): v4.31-v4.48 hold more
    of the logits than today's 10 bytes each."""
    from rocm_tune.core.runners import hf_loss

    if values.get("precision") not in ("bf16", "fp16", "pure_bf16") or values.get("fused_ce"):
        return {}
    got = hf_loss.loss_bytes(job, model) if model is not None else None
    if got is None:
        return {}
    (several, one), said = got
    job.notes.append(f"{model.family} causal-LM loss of the transformers release the files show ({said}): {several} bytes "
                     f"per logit at the loss's peak with two rows or more in the batch, {one} with one row (its "
                     f"shifted slice is already contiguous), not today's {hf_loss.TRANSFORMERS_LOSS_BYTES_16BIT}")
    return {"hf_loss_bytes": (several, one)}


def _torchtune_chunked_ce(job: Job, values: dict) -> dict:
    """torchtune's CEWithChunkedOutputLoss (pytorch/torchtune torchtune/modules/loss/ce_chunked_output_loss.py): the
    model returns its 16-bit logits in n chunks and the loss runs `F.cross_entropy(logits.float(), ...)` one chunk at a
    time; autograd keeps each chunk's fp32 log-softmax (its backward needs only its output, the fp32 upcast is not
    kept), and the recipe drops the logits before the backward (recipes/*_distributed.py _loss_step: `del outputs`,
    "free logits otherwise it peaks backward memory"). Bytes per logit: forward 2 (the 16-bit logits) + 4 (the saved
    log-softmax) + 4/n (the chunk's upcast); backward 4 (the saved log-softmax) + 10/n (the chunk's fp32 gradients and
    16-bit gradient). Eager figures; a compiled loss holds no more."""
    from rocm_tune.core.runners.torchtune import CHUNKED_CE_KEY

    n = as_int(job.get(CHUNKED_CE_KEY)) if job.runner == "torchtune" else None
    if not n or n < 1 or values.get("precision") not in ("bf16", "fp16", "pure_bf16") or values.get("fused_ce"):
        return {}
    forward, backward = 6 + 4 / n, 4 + 10 / n
    job.notes.append(f"torchtune CEWithChunkedOutputLoss ({n} chunks): the 16-bit logits, each chunk's fp32 "
                     f"log-softmax kept for the backward and one chunk's fp32 upcast at a time: {forward:g} bytes per "
                     f"logit at the forward's peak, {backward:g} in the loss's backward (the recipe frees the logits "
                     f"before it), not the fp32 copy and log-softmax of the whole logits")
    return {"logits_16bit_loss": (forward / 2, backward / 2)}


def trainer_passes_labels(job: Job) -> bool:
    """Whether the trainer calls the model with the labels, so that Liger's patched forward (linkedin/Liger-Kernel
    src/liger_kernel/transformers/model/llama.py lce_forward: `skip_logits = self.training and (labels is not None
    or shift_labels is not None)`, else `logits = self.lm_head(...)`) takes its fused linear cross-entropy instead of
    building the logits. Only SFT / pre-training do: TRL's DPO / ORPO / CPO / KTO / GRPO trainers call
    `model(input_ids, attention_mask=...)` without labels and take the log-probabilities from the returned logits
    (trl v0.12-v0.23 dpo_trainer.py concatenated_forward, orpo_trainer.py / kto_trainer.py forward, grpo_trainer.py
    _get_per_token_logps), and LLaMA-Factory applies Liger with fused_linear_cross_entropy=False for every stage
    but pt/sft (model/model_utils/liger_kernel.py require_logits)."""
    return str(job.get("stage", "sft")).lower() in ("sft", "pt")


def trainer_fused_loss(job: Job) -> bool:
    """TRL's own Liger loss (DPOConfig / KTOConfig / GRPOConfig use_liger_loss, trl v0.17-v0.27; DPO from v0.19):
    the trainer runs the decoder for the hidden states and hands them with lm_head's weight to
    liger_kernel.chunked_loss (LigerFusedLinearDPOLoss / KTO / GRPO): no full logits (dpo_trainer.py
    _compute_loss_liger). ms-swift's GRPO takes its use_liger_kernel as that loss (swift/rlhf_trainers/
    grpo_trainer.py _prepare_liger_loss: `self.use_liger_loss = self.args.use_liger_kernel`); its DPO pops the labels
    and has no Liger loss (rlhf_trainers/dpo_trainer.py concatenated_forward)."""
    stage = str(job.get("stage", "sft")).lower()
    if job.runner == "ms-swift" and stage == "grpo" and as_bool(job.get("enable_liger_kernel")):
        return True
    if stage == "dpo" and dpo_liger_kernel_loss(job):
        return True
    return bool(as_bool(job.get("use_liger_loss"))) and stage in ("dpo", "kto", "grpo")


# the first TRL release whose DPOTrainer takes `use_liger_kernel` as its own Liger loss (trl v0.25.0
# trainer/dpo_trainer.py: `if args.use_liger_kernel: ... self.dpo_loss_fn = LigerFusedLinearDPOLoss(...)`, `use_liger_loss`
# deprecated there); before it use_liger_kernel only patches the model (Trainer._apply_liger_kernel_to_instance), whose
# fused loss needs labels the DPO forward never passes
TRL_DPO_LIGER_KERNEL = (0, 25)


def dpo_liger_kernel_loss(job: Job) -> bool:
    """TRL's DPO runs its Liger loss from `use_liger_kernel`: Axolotl's `dpo_use_liger_kernel` (core/trainers/dpo/
    __init__.py: training_args_kwargs["use_liger_kernel"]; the key came with axolotl's trl==0.25.0 pin, 3750d7dd, and every
    later pin is newer), or TRL's own DPOConfig / TrainingArguments use_liger_kernel where the files pin TRL >= v0.25."""
    from rocm_tune.core.runners.preference_logits import pinned_release

    if job.runner == "axolotl":
        return bool(as_bool(job.get("dpo_use_liger_kernel")))
    # TrainingArguments' use_liger_kernel, read as enable_liger_kernel
    if job.runner != "hf" or not as_bool(job.get("enable_liger_kernel") or job.get("use_liger_kernel")):
        return False
    release = pinned_release(getattr(job, "files", None) or {})
    return release is not None and release >= TRL_DPO_LIGER_KERNEL


def _fused_ce(job: Job) -> bool:
    """The loss never materialises the logits: Liger's fused linear cross-entropy (on by default where Liger is
    applied; axolotl: its liger_fused_linear_cross_entropy flag), Axolotl's Cut Cross-Entropy plugin. (An Unsloth
    program whose kernels are not pinned stays an upper bound: core/check/check.py _fused_ce_saving; where they are,
    core/runners/unsloth.py terms.)"""
    if str(job.get("__upper_bound__") or "").startswith("unsloth") or job.runner == "torchtune":
        # torchtune's CEWithChunkedOutputLoss is no fused loss: the model returns every chunk of 16-bit logits
        # (modules/transformer.py: num_output_chunks) and only the fp32 upcast goes chunk by chunk; kept on the
        # check's own approximation there
        return False
    if as_bool(job.get("cut_cross_entropy")):
        return True
    if not as_bool(job.get("enable_liger_kernel")):
        return False
    flce = job.get("liger_fused_linear_cross_entropy")     # said by axolotl's flag / the OpenRLHF reader
    return bool(as_bool(flce)) if flce is not None else job.runner != "axolotl"


# runners whose programs run transformers' own attention modules (LLaMA-Factory, TRL / Trainer programs, Axolotl,
# ms-swift)
_TRANSFORMERS_LOSS_RUNNERS = ("hf", "llamafactory", "axolotl", "ms-swift")


def _pre_sdpa(job: Job, attn: str, family: str) -> str:
    """A pinned transformers release before SDPA came to the family's attention (profiles/model_losses.py
    PRE_SDPA_ATTENTION): eager where the files ask for no attention implementation."""
    from rocm_tune.core.runners.preference_logits import pinned_release
    from rocm_tune.profiles.model_losses import PRE_SDPA_ATTENTION

    after, families, source = PRE_SDPA_ATTENTION
    if attn != "sdpa" or job.runner not in _TRANSFORMERS_LOSS_RUNNERS or family not in families \
            or str(job.get("flash_attn", "auto") or "auto").lower() not in ("auto", "sdpa"):
        return attn
    release = pinned_release(getattr(job, "files", None) or {}, "transformers")
    if release is None or release >= after:
        return attn
    job.notes.append(f"transformers {release[0]}.{release[1]} pinned: {source}: the scores and their fp32 softmax "
                     f"of every layer are kept, counted as eager")
    return "eager"


def _attn(job: Job) -> str:
    """The attention the runner runs: LLaMA-Factory's flash_attn in the spelling of its release (a boolean in v0.6,
    `off` in v0.7-v0.8: runners/llamafactory.attn), else the common names."""
    if job.runner == "llamafactory":
        from rocm_tune.core.runners import llamafactory

        got = llamafactory.attn(job)
        if got is not None:
            return got
    return _ATTN.get(str(job.get("flash_attn", "auto")).lower(), "sdpa")


# preference trainers that keep no reference model: the policy's forward over chosen and rejected concatenated
# (the DPO step without the frozen copy). TRL's ORPOTrainer / CPOTrainer (trl/trainer/orpo_trainer.py,
# cpo_trainer.py concatenated_forward; SimPO is CPOTrainer's loss_type="simpo"); ms-swift's rlhf_type orpo/cpo/simpo
# (swift/arguments/rlhf_args.py: a ref model only for dpo/kto/ppo/grpo, "CPO/ORPO ... does not require a ref_model")
REFERENCE_FREE = {"orpo": "TRL ORPOTrainer / ms-swift rlhf_type orpo", "cpo": "TRL CPOTrainer / ms-swift rlhf_type cpo",
                  "simpo": "TRL CPOTrainer loss_type simpo / ms-swift rlhf_type simpo"}


def _stage(job: Job, a: list[str], method: str) -> dict:
    """The step the estimator counts (sft | dpo | pt) and, where the runner decides it otherwise than the stage's
    default, whether a frozen reference model is kept (LLaMA-Factory: runners/llamafactory.stage_of)."""
    st = str(job.get("stage", "sft")).lower()
    if job.runner == "llamafactory":
        from rocm_tune.core.runners import llamafactory

        counted, ref, said = llamafactory.stage_of(job)
        if said:
            a.append(said)
        if counted in ("sft", "dpo", "pt"):
            return {"stage": counted, "reference_model": ref, **llamafactory.reference_pass(job, job.notes)}
    if st == "kto":
        # TRL KTOTrainer (trl/trainer/kto_trainer.py __init__: ref_model given -> it; a PEFT model or
        # precompute_ref_log_probs -> None, the adapter disabled for the reference pass; else
        # create_reference_model(model), a frozen copy); ms-swift: a ref model for kto under full training only
        ref = method not in ("lora", "qlora") and not as_bool(job.get("precompute_ref_log_probs"))
        a.append("stage kto: the batch's rows with grad (and a no-grad KL pass), "
                 + ("a frozen reference copy (TRL create_reference_model)" if ref else
                    "no reference copy (the adapter is disabled for the reference pass)"))
        return {"stage": "sft", "reference_model": ref}
    if st == "dpo" and job.runner != "llamafactory" and as_bool(job.get("precompute_ref_log_probs")):
        # TRL DPOTrainer.__init__: `elif self.is_peft_model or args.precompute_ref_log_probs: self.ref_model = None`
        a.append("precompute_ref_log_probs: the reference log-probabilities are computed once before training "
                 "with the policy itself, no frozen copy is kept (TRL DPOTrainer)")
        return {"stage": "dpo", "reference_model": False}
    if st in REFERENCE_FREE:
        a.append(f"stage {st}: chosen and rejected in one batch, no reference model ({REFERENCE_FREE[st]})")
        return {"stage": "dpo", "reference_model": False}
    if st in model_heads.STAGE_HEADS:
        # a reward model's trainer: chosen and rejected as two rows of one step, no reference (the head's terms:
        # runners/heads.py)
        return {"stage": "dpo", "reference_model": False}
    if st not in ("sft", "dpo", "pt"):
        a.append(f"stage {st}: the training step estimated as an SFT step" + ("; generation and the reference model "
                 "counted on top (core/runners/rl.py)" if st == "grpo" else ""))
    return {"stage": st if st in ("sft", "dpo", "pt") else "sft"}


def ranks_share(job: Job, key: str, world: int) -> tuple[int, int, Setting] | None:
    """(each rank's batch, the global batch, where) of a program that divides a global batch by the world size
    (`per_device_train_batch_size=args.batch_size // world_size`: core/runners/program_bounds.py): the command's
    --batch_size (read as per_device_train_batch_size), or the program's default of it, over the ranks. None: no such
    division, or the batch is set some other way."""
    over = job.settings.get(program_bounds.BATCH_KEY + key)
    if over is None:
        return None
    flag, _, default = str(over.value).partition("=")
    per = job.settings.get("per_device_train_batch_size")
    mine = job.settings.get(key)
    if mine is not None and mine.native != flag and (mine.file, mine.line) != (over.file, over.line):
        return None      # set some other way (the program's own expression computed with WORLD_SIZE's default is not)
    counts = job.settings.get("__command_counts__")
    given = counts.value.get(flag) if counts is not None and isinstance(counts.value, dict) else None
    if given is not None:
        total = as_int(given[0])
    elif per is not None and per.native == flag:
        total = as_int(per.value)
    else:
        total = as_int(default)      # the program's argparse default of the global batch
    if not total:
        return None
    return max(1, total // max(1, world)), total, over


def _batch_over_ranks(job: Job, values: dict, a: list[str]) -> int:
    world = int(values.get("gpus") or 1) * int(values.get("nodes") or 1)
    got = ranks_share(job, "per_device_train_batch_size", world)
    if got is None:
        return int(values["micro_batch"])
    each, total, over = got
    a.append(f"per-device batch {each}: {os.path.basename(over.file or '')} line {over.line} divides --{over.native} "
             f"({total}, the batch of all ranks) by the world size ({world})")
    return each


def build_config(job: Job, model, gpus: int | None, nodes: int | None, defaults: dict | None = None
                 ) -> tuple[TrainConfig, list[Finding], list[str]]:
    """(TrainConfig, findings, assumptions) of a job; `defaults` = the runner module's DEFAULTS."""
    defaults = defaults or {}
    f: list[Finding] = []
    a: list[str] = []
    s = job.settings
    bad = s.get("__bad_value__")      # a launcher's process/node count that is no number (formats._bad_count)
    if bad is not None:
        raise BadValue(f"{bad.native} {bad.value!r} is not a whole number: the launcher cannot start with it",
                       bad.file, bad.line)
    for key in INT_KEYS:
        setting = s.get(key)
        note = None if setting is None or as_int(setting.value) is not None else \
            unread_note(setting.native, str(setting.value), FALLBACK)
        if setting is not None and note:
            # a template or expression the files do not compute (`$(nproc)`, an f-string field `{bs}`, `{{ }}`,
            # `${oc.env:X}`): not known here - never a number cut out of it (core/runners/values.py)
            a.append(note)
            s = {k: v for k, v in s.items() if k != key}
            job.settings = s
            continue
        if setting is not None and setting.value not in (None, "") and as_int(setting.value) is None:
            raise BadValue(f"{setting.native} {setting.value!r} is not a whole number", setting.file, setting.line)
    values = _method(job, model, f, a, defaults)
    values["precision"] = _precision(job, f, a, defaults)
    values.update(_sequence_and_batch(job, model, a, defaults))
    values["attn"] = _pre_sdpa(job, _attn(job), str(getattr(model, "family", "") or ""))
    if values["attn"] == "fa2" and values["precision"] == "fp32":
        values["attn"] = "sdpa"
    if job.runner == "llamafactory":
        from rocm_tune.core.runners import llamafactory

        values["mask_4d"] = llamafactory.block_diag_mask(job, values["attn"])
        if values["mask_4d"]:
            a.append("neat_packing without FlashAttention-2: LLaMA-Factory's collator makes a [batch, 1, cutoff_len, "
                     "cutoff_len] block-diagonal mask in the compute dtype (data/collator.py prepare_4d_attention_mask)")
    values["optim"] = _optim(job, a)
    values["adam_sqrt_temp"] = _adam_sqrt_temp(job, values["optim"])
    values.update(_stage(job, a, values["method"]))
    values.update(_hardware(job, gpus, nodes, a))
    values["micro_batch"] = _batch_over_ranks(job, values, a)
    lf = job.runner in LF_FAMILY
    executes, _src = _default(defaults, "executes", None)     # whose dtype regime the runner runs
    values["runner"] = "builtin" if job.runner == "builtin" else "llamafactory" if lf else executes or "hf"
    values["lf_launch"] = bool(job.lf_launch)     # a user's own config: stock llamafactory-cli
    values.update(_liger(job, model))
    values.update(_router_aux(job, model))
    values.update(unsloth.terms(job, model, values))      # Unsloth's kernels, where the source pins them
    values.update({k: v or bool(values.get(k)) for k, v in _compiled(job, model).items()})
    values.update(_logits_16bit(job, values, str(getattr(model, "family", "") or "")))
    values.update(_hf_loss(job, values, model))
    values.update(_lora_experts(job, values, model))
    values.update(_lora_fused_experts(job, values, model))
    values.update(rl.logit_share(job))
    values.update(_torchtune_chunked_ce(job, values))
    head = heads.config_head(job, values, a)
    if "cutoff_len" in head:      # a retrieval trainer's length is its query and passage lengths, not a guess
        a[:] = [x for x in a if not x.startswith("cutoff_len: not set")]
    values.update(head)
    cfg = TrainConfig(**values)
    spread = as_int(job.get("__devmap_gpus__")) or 0
    if job.runner == "ms-swift" and spread > 1 and job.ds is not None:
        # swift/llm/argument/train_args.py _init_deepspeed: `if is_mp(): raise ValueError('DeepSpeed is not compatible
        # with `device_map`...')` - one process that sees several GPUs spreads the model (device_map) and stops there
        dv = job.settings["__devmap_gpus__"]
        f.append(Finding.of("swift-deepspeed-device-map", dv.file, dv.line,
                            f"ms-swift gives each process {spread} of the visible GPUs (more GPUs than NPROC_PER_NODE) and "
                            f"spreads the model over them: with --deepspeed it stops at start (\"DeepSpeed is not compatible with "
                            f"`device_map`\")", "NPROC_PER_NODE = the visible GPU count, before `swift`"))
    elif cfg.world_size == 1 and cfg.zero_stage and cfg.offload == "none":   # with offload, ZeRO is what offloads
        f.append(Finding.of("zero-on-one-gpu", job.ds.file if job.ds else None, None,
                            f"ZeRO-{cfg.zero_stage} on one GPU shards nothing: it only adds its buffers",
                            "run with more GPUs, or drop DeepSpeed"))
    return cfg, f, a


def read_llamafactory(files, gpus: int | None = None, nodes: int | None = None, model=None):
    """LLaMA-Factory files -> TrainConfig: `files` is a YAML path, a list of paths (the YAML and the DeepSpeed JSON
    it names) or {path: text}; missing values are LLaMA-Factory's DEFAULTS. Returns (TrainConfig, job, findings,
    assumptions). Here, not in runners/llamafactory.py, so that the reader does not import the builder back."""
    from rocm_tune.core.runners import llamafactory as lf

    if isinstance(files, (str, bytes)) or hasattr(files, "__fspath__"):
        files = [files]
    texts = dict(files) if isinstance(files, dict) else {str(p): lf._text(p) for p in files}
    yaml_file = next((p for p, t in texts.items() if lf.is_lf_mapping(lf.parse_text(t))), None)
    if yaml_file is None:
        raise UserError(f"{', '.join(texts) or '(no file)'}: no LLaMA-Factory YAML (model_name_or_path, "
                        f"finetuning_type, cutoff_len, ...) among the files")
    data = lf.parse_text(texts[yaml_file]) or {}
    job = lf.job_from_mapping(data, yaml_file, texts[yaml_file], {p: t for p, t in texts.items() if p != yaml_file})
    cfg, findings, assumptions = build_config(job, model, gpus, nodes, lf.DEFAULTS)
    return cfg, job, findings, assumptions
