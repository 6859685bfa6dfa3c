"""LLaMA-Factory (``llamafactory-cli train``): the dtypes it really loads and trains in.

Read in hiyouga/LlamaFactory at the commits below (v0.9.5 = 7af90952, main = ff6d4d12 agree):

* the model is loaded with ``torch_dtype="auto"``: the dtype config.json names, whatever bf16/fp16 say;
* with ``bf16: false`` and ``fp16: false`` no autocast runs and ``compute_dtype`` is inferred
  (``infer_optim_dtype``: bf16 when ``is_torch_bf16_gpu_available()`` - True on every ROCm GPU, gfx906
  included, and on pre-Ampere NVIDIA through emulation - else fp16): "fp32" trains a bf16 checkpoint in bf16;
* trainable parameters are upcast to fp32 unless pure_bf16 / BAdam, or DeepSpeed ZeRO-3 without
  quantisation (DeepSpeed keeps fp32 partitions itself); LoRA adapters follow
  (``autocast_adapter_dtype=cast_trainable_params_to_fp32``): under pure_bf16 they stay bf16;
* ``bf16: true`` / ``fp16: true`` = torch autocast through the HF Trainer; pure_bf16 = no autocast.
"""

from __future__ import annotations

from rocm_tune.core.runners import Fact, Regime, checkpoint_dtype, megatron
from rocm_tune.core.runners.common import Default, Job, Setting, as_bool, load_structured, scalar_value, yaml_lines
from rocm_tune.profiles.preference_logits import LF_DPO_REFERENCE_PASS, LF_KTO_REFERENCE_PASS

REPO = "hiyouga/LlamaFactory"
V095 = "7af909522a951e3ad9f022ea6f88b6755257eaa5"   # v0.9.5
FACTS = (
    Fact('load_model passes torch_dtype="auto" to from_pretrained (the checkpoint\'s dtype)',
         f"{REPO}:src/llamafactory/model/loader.py (load_model)", V095),
    Fact("compute_dtype is set only for bf16/pure_bf16 (bfloat16) or fp16 (float16)",
         f"{REPO}:src/llamafactory/hparams/parser.py (get_train_args, post-process model arguments)", V095),
    Fact("compute_dtype None -> infer_optim_dtype(config.torch_dtype)",
         f"{REPO}:src/llamafactory/model/patcher.py (patch_config)", V095),
    Fact("infer_optim_dtype: bf16 if is_torch_bf16_gpu_available() and the model dtype is bf16 or None, "
         "else fp16 on any CUDA/ROCm/NPU device, else fp32",
         f"{REPO}:src/llamafactory/extras/misc.py (infer_optim_dtype)", V095),
    Fact("cast_trainable_params_to_fp32 unless pure_bf16, use_badam, or ZeRO-3 without quantization_bit",
         f"{REPO}:src/llamafactory/model/adapter.py (init_adapter)", V095),
    Fact("get_peft_model(..., autocast_adapter_dtype=cast_trainable_params_to_fp32)",
         f"{REPO}:src/llamafactory/model/adapter.py (_setup_lora_tuning)", V095),
    Fact("pure_bf16 is refused with DeepSpeed ZeRO-3 and on devices without bf16",
         f"{REPO}:src/llamafactory/hparams/parser.py (get_train_args)", V095),
    Fact("the SFT/DPO/RM collators pad to the longest sample of the batch, pad_to_multiple_of=8",
         f"{REPO}:src/llamafactory/train/sft/workflow.py (run_sft)", V095),
    Fact("ZeRO-3: zero.Init casts every parameter to the config's dtype (fp16 / bf16 / else fp32) when it "
         "partitions it", "deepspeedai/DeepSpeed:deepspeed/runtime/zero/partition_parameters.py (_set_dtype)",
         "v0.19.8"),
    Fact("torch.cuda.is_bf16_supported() returns True whenever torch.version.hip is set",
         "pytorch/pytorch:torch/cuda/__init__.py (is_bf16_supported)", "v2.13.0"),
)


def _upcasts(cfg) -> bool:
    """adapter.py init_adapter: are the trainable parameters cast to fp32?"""
    if cfg.precision == "pure_bf16":
        return False
    return not (cfg.zero_stage == 3 and cfg.method != "qlora")


def regime(model, cfg) -> Regime:
    ckpt = checkpoint_dtype(model)
    p = cfg.precision
    trainable = "fp32" if _upcasts(cfg) else ckpt
    notes: list[str] = []
    if p in ("bf16", "fp16"):
        return Regime("llamafactory", p, ckpt, trainable, p, p, ckpt, False,
                      (f'weights load as the checkpoint\'s {ckpt} (torch_dtype="auto")',) if ckpt != p else ())
    if p == "pure_bf16":
        ignored = ckpt != "bf16"
        if ignored:
            notes.append(f"pure_bf16 keeps the checkpoint's {ckpt} weights: LLaMA-Factory does not cast them to bf16")
        return Regime("llamafactory", p, ckpt, ckpt, ckpt, None, ckpt, ignored, tuple(notes))
    if cfg.zero_stage == 3 and cfg.method != "qlora":
        # DeepSpeed ZeRO-3 builds the model under zero.Init and casts every parameter to the JSON's dtype when it
        # partitions it: fp32 with fp16 and bf16 off (measured: stock llamafactory-cli + ZeRO-3 trains fp32 weights
        # although the checkpoint is bf16 and bf16 is "available")
        return Regime("llamafactory", p, "fp32", "fp32", "fp32", None, ckpt, False,
                      ("DeepSpeed ZeRO-3 casts the weights to fp32 when it partitions them (fp16 and bf16 off in "
                       "its JSON)",) if ckpt != "fp32" else ())
    # fp32 requested: bf16: false, fp16: false -> no autocast, weights as stored, trainable upcast
    compute = trainable if cfg.method == "full" else ckpt
    ignored = ckpt != "fp32" and not (cfg.method == "full" and trainable == "fp32")
    if ignored:
        notes.append(f"LLaMA-Factory loads the {ckpt} checkpoint as stored (torch_dtype=\"auto\") and, with "
                     f"bf16 and fp16 off, runs no autocast: frozen weights and activations stay {ckpt}")
    return Regime("llamafactory", p, ckpt, trainable, compute, None, ckpt, ignored, tuple(notes))


# ------------------------------------------------------------------------------------------------ reader
# LLaMA-Factory's own argument names are the canonical keys of every reader (check, explain, retry, resume), so
# this reader maps 1:1; old names (`evaluation_strategy`) are kept as written. This module is the one place that
# parses a LLaMA-Factory YAML (tests/test_runners_readers.py fails on a second one).
LF = "hiyouga/LLaMA-Factory:src/llamafactory/hparams"
HF_TA = "huggingface/transformers:src/transformers/training_args.py (TrainingArguments"
DEFAULTS = {
    "method": Default("lora", f"{LF}/finetuning_args.py (FinetuningArguments.finetuning_type) @ f9ced615"),
    "cutoff_len": Default(2048, f"{LF}/data_args.py (DataArguments.cutoff_len) @ 072bfe29"),
    # LLaMA-Factory's TrainingArguments subclass does not override these: transformers' own
    "micro_batch": Default(8, f"{HF_TA}.per_device_train_batch_size)"),
    "eval_batch": Default(8, f"{HF_TA}.per_device_eval_batch_size)"),
    "gradient_checkpointing": Default(True, f"{LF}/model_args.py (ModelArguments.disable_gradient_checkpointing "
                                            f"= False) @ cc22c045"),
}
# ------------------------------------------------------------------------------------------------ release-bound reading
def _flash_attn_word(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v).strip().strip("'\"").lower()


# flash_attn as each release spells it -> the attention the estimator counts
#   v0.6 and before (model_args.py:60 @ v0.6.0): a bool, True = FlashAttention-2, False = transformers' default (SDPA);
#   v0.7-v0.8 (model_args.py:68 @ v0.7.0): off = eager ("attn_implementation = 'eager'"), sdpa, fa2, auto;
#   v0.9+ (extras/constants.py AttentionFunction): auto, disabled = eager, sdpa, fa2, fa3
#   (model_utils/attention.py configure_attn_implementation: `auto` leaves transformers' default, SDPA)
LF_ATTN = {"true": "fa2", "1": "fa2", "false": "sdpa", "0": "sdpa", "off": "eager", "disabled": "eager",
           "auto": "sdpa", "sdpa": "sdpa", "fa2": "fa2", "fa3": "fa2"}


def attn(job) -> str | None:
    """The attention LLaMA-Factory runs for the job's flash_attn, or None when the value is none of its spellings
    (then the common reading decides)."""
    s = job.settings.get("flash_attn")
    if s is None:
        return "sdpa"
    return LF_ATTN.get(_flash_attn_word(s.value))


# the model types LLaMA-Factory applies Liger to (model/model_utils/liger_kernel.py apply_liger_kernel @ ff6d4d12): any
# other logs "Current model does not support liger kernel." and patches nothing - no fused cross-entropy, no RMSNorm /
# SwiGLU kernels - although Liger itself knows more (qwen3_vl, internvl, smollm3, ...). The type is the checkpoint's
# top-level model_type: a VLM's own (qwen2_5_vl, qwen3_vl, llava), not its language model's.
LF_LIGER_TYPES = frozenset((
    "gemma", "gemma2", "gemma3", "gemma3_text", "glm", "glm4", "glm4v", "granite", "llama", "llava", "mistral", "mixtral",
    "mllama", "olmo2", "paligemma", "phi3", "qwen2", "qwen2_vl", "qwen2_5_vl", "qwen3", "qwen3_moe", "qwen3_next",
    "qwen3_5", "qwen3_5_moe", "gpt_oss"))


def liger_model_type(model) -> str:
    """The model_type LLaMA-Factory's apply_liger_kernel switches on: a vision-language model's own (its tower's kind:
    qwen2_vl, qwen2_5_vl, qwen3_vl; a CLIP-tower model is LLaVA), else the language model's."""
    tower = getattr(model, "vision", None)
    if tower is not None and getattr(tower, "kind", None):
        return "llava" if tower.kind == "clip" else str(tower.kind)
    return str((getattr(model, "config", None) or {}).get("model_type") or getattr(model, "family", ""))


def liger_applies(model) -> bool:
    return liger_model_type(model) in LF_LIGER_TYPES


def block_diag_mask(job, attn_counted: str) -> bool:
    """neat_packing (data_args.py:185: it turns packing on; parser.py:648 block_diag_attn = neat_packing) without
    FlashAttention-2: the collator builds a [batch, 1, seq, seq] mask in the compute dtype (data/collator.py:535-536
    prepare_4d_attention_mask) that the forward keeps; FA2 reads the packed sequences' boundaries instead. Eager
    attention counts its own mask already."""
    return bool(as_bool(job.get("neat_packing"))) and attn_counted == "sdpa"


# stage -> (the step the estimator counts, whether a frozen reference copy is kept, what is said)
#   hparams/finetuning_args.py:593 @ ff6d4d12: use_ref_model = stage == "dpo" and pref_loss not in ["orpo", "simpo"]
#   train/trainer_utils.py:116-146 create_ref_model: `ref_model` given -> that model is loaded (LoRA too); else None
#     under LoRA (the adapter is disabled for the reference pass) and a whole copy of the model otherwise
#   train/kto/workflow.py:57-60: KTO always asks create_ref_model; kto/trainer.py concatenated_forward: the batch's rows
#     with grad, the KL rows without
#   train/rm/workflow.py: PairwiseDataCollatorWithPadding, chosen and rejected in one batch, no reference model
def stage_of(job) -> tuple[str, bool | None, str | None]:
    st = str(job.get("stage", "sft")).strip().lower()
    lora = str(job.get("finetuning_type", "lora")).strip().lower() in ("lora", "oft")
    given = job.get("ref_model") not in (None, "", "null", "None")
    if st == "dpo":
        loss = str(job.get("pref_loss", "sigmoid")).strip().lower()
        if loss in ("orpo", "simpo"):
            return "dpo", False, (f"pref_loss {loss}: LLaMA-Factory keeps no reference model (use_ref_model is False "
                                  f"for orpo/simpo); chosen and rejected in one batch")
        ref = given or not lora
        return "dpo", ref, ("ref_model given: LLaMA-Factory loads it as the frozen reference (create_ref_model)"
                            if given and lora else None)
    if st == "orpo":
        # v0.6.2-v0.7.1 (hparams/finetuning_args.py: stage Literal[..., "orpo"]; train/orpo/workflow.py
        # PairwiseDataCollatorWithPadding; train/orpo/trainer.py concatenated_forward: chosen and rejected in one
        # batch, `.logits.to(torch.float32)`, reference_free, no ref model); v0.8.0 folded it into dpo/pref_loss
        return "dpo", False, ("stage orpo (LLaMA-Factory 0.6.2-0.7.1): chosen and rejected in one batch with fp32 "
                              "logits, no reference model (train/orpo/trainer.py concatenated_forward)")
    if st == "kto":
        ref = given or not lora
        return "sft", ref, ("stage kto: the batch's rows with grad (and a no-grad KL pass), "
                            + ("a frozen reference copy (create_ref_model)" if ref else
                               "no reference copy under LoRA (the adapter is disabled for the reference pass)"))
    if st == "ppo":
        # train/ppo/workflow.py: create_ref_model(..., add_valuehead=True) as above; create_reward_model: a reward
        # adapter on the policy (reward_model_type lora, the default), another loaded model (full) or a server (api)
        ref = given or not lora
        rtype = str(job.get("reward_model_type", "lora")).strip().lower()
        return "sft", ref, ("stage ppo: the policy's step counted as an SFT step"
                            + ("; a frozen reference copy (create_ref_model)" if ref else
                               "; no reference copy under LoRA (the adapter is disabled for the reference pass)")
                            + ("; the full reward model it loads (reward_model) and the rollouts' generation are "
                               "not counted" if rtype == "full" else "; the rollouts' generation is not counted"))
    if st == "rm":
        return "dpo", False, ("stage rm: chosen and rejected in one batch (PairwiseDataCollatorWithPadding), a value "
                              "head, no reference model")
    return st, None, None


# LLaMA-Factory's SFT workflow (train/sft/workflow.py run_sft @ v0.9.0 ... ff6d4d12): load_model(..., is_trainable=
# training_args.do_train); without do_train, model/loader.py load_model sets requires_grad_(False), casts fp32 weights
# to compute_dtype and calls model.eval(); init_adapter trains no adapter; `if training_args.do_train: trainer.train()`
# is skipped and `do_predict` runs trainer.predict (generate, as hparams/parser.py refuses do_predict without
# predict_with_generate for stage sft, and predict_with_generate with ZeRO-3)
PREDICT_ONLY_SRC = ("hiyouga/LlamaFactory:src/llamafactory/train/sft/workflow.py (run_sft: load_model(..., "
                    "training_args.do_train), `if training_args.do_eval: trainer.evaluate`, `if training_args.do_predict: "
                    "trainer.predict`) and model/loader.py "
                    "(load_model: not is_trainable -> requires_grad_(False), fp32 weights cast to compute_dtype, "
                    "eval())")


# what splits a model too large for one GPU when LLaMA-Factory predicts: hparams/parser.py get_train_args sets
# model_args.device_map = {"": get_current_device()} (the whole model on each rank's GPU) and refuses
# "`predict_with_generate` is incompatible with DeepSpeed ZeRO-3." (v0.9.0 ... v0.9.5); scripts/vllm_infer.py (since
# 2024-11, 6c9d0553) runs the same dataset and template through vLLM with tensor_parallel_size = the visible GPUs
PREDICT_SHARDING_FIX = ("predict with LLaMA-Factory's scripts/vllm_infer.py (vLLM, tensor parallel over the visible "
                        "GPUs): its train path holds the whole model on every rank and refuses ZeRO-3 with "
                        "predict_with_generate")


def predicts_only(job) -> bool:
    """A LLaMA-Factory job that evaluates or predicts and does not train (`do_predict` / `do_eval` set true, `do_train`
    not): no training step runs, the model is loaded frozen in the compute dtype and only the evaluation's forward or
    the prediction's generate runs (run_sft: `if training_args.do_eval: trainer.evaluate(...)` and `if
    training_args.do_predict: trainer.predict(...)`, both after load_model(..., is_trainable=do_train))."""
    return job.runner == "llamafactory" and bool(as_bool(job.get("do_predict")) or as_bool(job.get("do_eval"))) \
        and not as_bool(job.get("do_train")) and str(job.get("stage", "sft")).strip().lower() == "sft"


def reference_pass(job, notes: list[str]) -> dict:
    """{"reference_pass": (bytes per logit the policy holds, the reference pass's peak)} where LLaMA-Factory runs a
    reference forward in every step after the policy's: stage dpo with a loss that uses the reference
    (finetuning_args.use_ref_model: pref_loss not orpo/simpo) and stage kto, the reference being the loaded copy or,
    under LoRA without ref_model, the policy with its adapter disabled; not with stage rm / orpo. Said in `notes`
    (the runner's own step, not an assumption)."""
    stage = str(job.get("stage", "sft")).strip().lower()
    if stage == "dpo" and str(job.get("pref_loss", "sigmoid")).strip().lower() not in ("orpo", "simpo"):
        policy, reference, source = LF_DPO_REFERENCE_PASS
    elif stage == "kto":
        policy, reference, source = LF_KTO_REFERENCE_PASS
    else:
        return {}
    notes.append(f"{stage.upper()} reference pass: each step runs the reference forward (no grad) after the "
                       f"policy's, while the policy's fp32 logits and log-softmax ({policy} B per logit) are alive: "
                       f"{reference} B per logit more at its peak ({source})")
    return {"reference_pass": (policy, reference)}


# keys that mark a mapping as a LLaMA-Factory config (hparams/model_args.py, finetuning_args.py, data_args.py)
MARKERS = ("finetuning_type", "cutoff_len", "template", "lora_target", "model_name_or_path", "stage",
           "freeze_trainable_layers", "quantization_bit")


# LLaMA-Factory v1 (src/llamafactory/v1/config/*_args.py, examples/v1/): `model`, plugin blocks `peft_config`,
# `quant_config`, `dist_config` (name fsdp2 | fsdpturbo | deepspeed + config_file), `micro_batch_size`, `cp_size`
V1_MARKERS = ("model_class", "dist_config", "peft_config", "micro_batch_size", "kernel_config", "train_dataset")


def is_v1_mapping(d) -> bool:
    return isinstance(d, dict) and "model" in d and "model_name_or_path" not in d and \
        sum(k in d for k in V1_MARKERS) >= 2


def _v1_plugin(d: dict, key: str) -> dict:
    v = d.get(key)
    return v if isinstance(v, dict) else {}


def from_v1(d: dict) -> dict[str, tuple[object, str]]:
    """A v1 mapping -> {v0 key: (value, the v1 key it came from)}. v1's defaults (training_args.py): bf16 true,
    activation checkpointing on, no peft_config = full fine-tune, cp_size 1."""
    out: dict[str, tuple[object, str]] = {"model_name_or_path": (d["model"], "model"), "stage": ("sft", "model")}
    peft = _v1_plugin(d, "peft_config")
    name = str(peft.get("name") or "full").lower()
    out["finetuning_type"] = ("freeze" if name == "freeze" else "lora" if peft else "full", "peft_config")
    for v1k, v0k in (("r", "lora_rank"), ("lora_alpha", "lora_alpha"), ("target_modules", "lora_target"),
                     ("freeze_trainable_layers", "freeze_trainable_layers")):
        if v1k in peft:
            out[v0k] = (peft[v1k], "peft_config")
    quant = _v1_plugin(d, "quant_config")
    if quant.get("quantization_bit") is not None:
        out["quantization_bit"] = (quant["quantization_bit"], "quant_config")
    dist = _v1_plugin(d, "dist_config")
    dname = str(dist.get("name") or "").lower()
    if dname == "deepspeed" and dist.get("config_file"):
        out["deepspeed"] = (dist["config_file"], "dist_config")
    elif dname.startswith("fsdp"):
        out["fsdp"] = ("full_shard auto_wrap", "dist_config")
    for v1k, v0k in (("micro_batch_size", "per_device_train_batch_size"), ("cutoff_len", "cutoff_len"),
                     ("bf16", "bf16"), ("learning_rate", "learning_rate"), ("output_dir", "output_dir"),
                     ("cp_size", "sequence_parallel_size"), ("flash_attn", "flash_attn")):
        if d.get(v1k) is not None:
            out[v0k] = (d[v1k], v1k)
    out.setdefault("bf16", (True, "bf16"))
    if d.get("enable_activation_checkpointing") is False:
        out["disable_gradient_checkpointing"] = (True, "enable_activation_checkpointing")
    return out


def is_lf_mapping(d) -> bool:
    return isinstance(d, dict) and (sum(k in d for k in MARKERS) >= 2 or is_v1_mapping(d))


def _scalar(v):
    return v.strip() if isinstance(v, str) else v


def read_yaml(data: dict, text: str, file: str) -> dict[str, Setting]:
    """The YAML's keys as settings, each with its line."""
    lines = yaml_lines(text)
    if is_v1_mapping(data):
        return {k: Setting(k, _scalar(v), file, lines.get(src), src, "yaml") for k, (v, src) in from_v1(data).items()}
    return {str(k): Setting(str(k), _scalar(v), file, lines.get(str(k)), str(k), "yaml") for k, v in data.items()}


def read_overrides(words: list[tuple[str, int]], file: str) -> dict[str, Setting]:
    """`llamafactory-cli train cfg.yaml key=value ...` (OmegaConf dotlist)."""
    out: dict[str, Setting] = {}
    for w, line in words:
        k, v = w.split("=", 1)
        out[k] = Setting(k, scalar_value(v), file, line, k, "override")
    return out


def read_flags(flags: dict[str, tuple[str, int]], file: str) -> dict[str, Setting]:
    """`src/train_bash.py --stage sft --fp16 ...` (HfArgumentParser: bare --flag = true)."""
    return {k: Setting(k, v, file, line, k, "flag") for k, (v, line) in flags.items()}


def parse_text(text: str) -> dict | None:
    """A LLaMA-Factory YAML text as a mapping (the complete `key: value` lines of an excerpt), or None."""
    data = load_structured(text)
    return data if isinstance(data, dict) else None


def load_file(path, what: str = "training config") -> dict:
    """A LLaMA-Factory YAML file the user named, as a mapping (one-line UserError when it cannot be)."""
    from rocm_tune.core.files import read_yaml as _read

    return _read(path, what)


def peek_file(path) -> dict:
    """A LLaMA-Factory YAML rocm-tune wrote or only peeks at (a run's config): the mapping, {} when unusable."""
    from rocm_tune.core.files import try_read_yaml

    data = try_read_yaml(path)
    return data if isinstance(data, dict) else {}


def job_from_mapping(data: dict, file: str = "config.yaml", text: str = "", given: dict | None = None) -> Job:
    """A Job of one LLaMA-Factory config (its mapping; `text` for the lines), with the DeepSpeed JSON it names read
    from `given` ({path: text}) or from disk beside `file`."""
    from rocm_tune.core.runners import deepspeed

    job = Job(runner="llamafactory", entry="llamafactory-cli train", entry_file=file, launcher="llamafactory-cli")
    job.files = {file: text} if text else {}
    job.formats = {file: "lf-yaml"}
    job.settings = read_yaml(data, text, file)
    texts = dict(given or {})
    deepspeed.attach_reference(job, texts)
    return job


def _text(path) -> str:
    from rocm_tune.core.files import read_text

    return read_text(path, "training config")


def with_overrides(data: dict, argv: list[str]) -> dict:
    """A config's values after the `key=value` overrides of a command line (`llamafactory-cli train cfg.yaml
    k=v ...`, read as LLaMA-Factory reads them: the last one wins; a value is a YAML scalar)."""
    out = dict(data)
    words = [(w, 0) for w in argv if "=" in w and not w.startswith("-")]
    out.update({k: s.value for k, s in read_overrides(words, "").items()})
    return out


# `llamafactory-cli train` starts torchrun itself (one rank per visible GPU, or FORCE_TORCHRUN=1) from release 0.8.0
# (hiyouga/LLaMA-Factory src/llamafactory/cli.py, commit f45e81e "fix #4137", 2024-06-07); 0.7.0-0.7.1 ran the
# trainer in this one process, where transformers' Trainer wraps the model in torch.nn.DataParallel over every visible
# GPU (training_args.n_gpu > 1: replicas on each GPU, the outputs gathered on GPU 0).
CLI_TORCHRUN_SINCE = (0, 8)
_PIN = r"(?im)^\s*(?:llamafactory|llmtuner)\s*(?:\[[^\]]*\])?\s*==\s*v?(\d+)\.(\d+)"


def cli_release_note(job: Job, gpus_per_node: int) -> str | None:
    """What a pinned LLaMA-Factory 0.7.x means for `llamafactory-cli train` with several visible GPUs (one process,
    nn.DataParallel); None without such a pin (0.8.0+ starts torchrun, as modelled) or off the bare CLI on >1 GPU."""
    import re

    if job.launcher != "llamafactory-cli" or gpus_per_node <= 1:
        return None
    if any("FORCE_TORCHRUN" in t for t in job.files.values()):
        return None
    pins = [(int(m.group(1)), int(m.group(2))) for t in job.files.values() for m in re.finditer(_PIN, t)]
    if pins and min(pins) >= CLI_TORCHRUN_SINCE:
        return None
    one = ("llamafactory-cli train of LLaMA-Factory 0.7.x runs one process: transformers' Trainer wraps the model in "
           "nn.DataParallel over the visible GPUs (a replica on each, outputs gathered on GPU 0), which this estimate "
           "does not model")
    # without a pin the release is not in the files: every release since 0.8.0 (June 2024) starts torchrun, as
    # counted; saying so on every multi-GPU check would be noise
    return f"{one} (llamafactory {pins[0][0]}.{pins[0][1]} pinned)" if pins else None


# ------------------------------------------------------------------------------------------------ the release the files show
# Releases tell themselves apart by what the user's files name (hiyouga/LlamaFactory tags):
#   src/train_bash.py, the entry up to v0.7.0 (removed in v0.7.1, when `llamafactory-cli` took over);
#   examples/{lora_single_gpu,lora_multi_gpu,lora_multi_npu,full_multi_gpu,qlora_single_gpu}/, the examples' layout of
#   v0.6-v0.8.1 (v0.8.2 regrouped them into examples/train_lora, train_full, train_qlora);
#   a pinned `llamafactory==X.Y.Z` / `llmtuner==X.Y.Z` line.
_PIN_FULL = r"(?im)^\s*(?:llamafactory|llmtuner)\s*(?:\[[^\]]*\])?\s*==\s*v?(\d+)\.(\d+)(?:\.(\d+))?"
# the release stated in prose or a comment next to the tool's name ("llamafactory版本0.9.4", "LLaMA-Factory v0.9.1",
# "llamafactory-cli version: 0.9.3", the line `llamafactory-cli version` prints): only an explicit X.Y[.Z] right after
# the name, a version word or a colon between them
_STATED = (r"(?i)(?<![\w/.-])(?:llama[-_ ]?factory|llmtuner)(?:-cli)?(?:[ \t]+version)?[ \t]*[:：=,]?[ \t]*"
           r"(?:版本|version|ver\.?)?[ \t]*[:：=]?[ \t]*v?(\d+)\.(\d+)(?:\.(\d+))?(?:\.?(?:dev|rc)\d*)?(?![\w.])")
_NEWEST_BY_PATH = ((r"(?<![\w.-])train_bash\.py\b", (0, 7, 0)),
                   (r"examples/(?:lora_single_gpu|lora_multi_gpu|lora_multi_npu|full_multi_gpu|qlora_single_gpu)/",
                    (0, 8, 1)))
# DataArguments.cutoff_len (hparams/data_args.py): 1024 through v0.9.0, 2048 since commit 1e6f9650 (2024-11-10, "add
# vllm config"), first released in v0.9.1
CUTOFF_2048_SINCE = (0, 9, 1)
OLD_CUTOFF = Default(1024, "hiyouga/LLaMA-Factory:src/llamafactory/hparams/data_args.py (src/llmtuner/ before v0.8) "
                           "(DataArguments.cutoff_len) @ v0.9.0: 1024 until 1e6f9650 (v0.9.1)")


# argument names only old releases accept (HfArgumentParser refuses an unknown one): checkpoint_dir (ModelArguments,
# hparams/model_args.py) up to v0.3.3; v0.4.0 renamed it adapter_name_or_path
_NEWEST_BY_KEY = (("checkpoint_dir", (0, 3, 3)),)


def pinned_release(job: Job) -> tuple[int, int, int] | None:
    """The one LLaMA-Factory release the files pin (`llamafactory==0.9.0`, `llmtuner==0.5.2`), or None."""
    pins = _stated_releases(job)
    return pins[0] if len(pins) == 1 else None


def _stated_releases(job: Job) -> list[tuple[int, int, int]]:
    """Every LLaMA-Factory release the files pin (_PIN_FULL) or state next to the tool's name (_STATED), sorted."""
    import re

    return sorted({(int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)) for t in job.files.values()
                   for pattern in (_PIN_FULL, _STATED) for m in re.finditer(pattern, t or "")})


def newest_release(job: Job) -> tuple[tuple[int, int, int], str] | None:
    """(the newest LLaMA-Factory release the job's files allow, what says so), or None when nothing in them dates it:
    a pinned release, else the oldest bound among the entry / examples paths the files name and the old argument
    names they set."""
    import re

    texts = list(job.files.values())
    pins = _stated_releases(job)
    if len(pins) == 1:
        return pins[0], f"llamafactory {'.'.join(map(str, pins[0]))} pinned"
    bounds: list[tuple[tuple[int, int, int], str]] = []
    for pattern, newest in _NEWEST_BY_PATH:
        m = next((m for t in texts for m in [re.search(pattern, t or "")] if m), None)
        if m is not None:
            bounds.append((newest, f"{m.group(0).rstrip('/')} is in LLaMA-Factory up to v{'.'.join(map(str, newest))}"))
    for key, newest in _NEWEST_BY_KEY:
        if key in job.settings:
            bounds.append((newest, f"{key} is accepted by LLaMA-Factory up to v{'.'.join(map(str, newest))}"))
    return min(bounds) if bounds else None


# GeneratingArguments.max_new_tokens (hparams/generating_args.py): 512 through v0.6.3, 1024 since commit 83404c4f
# (2024-04-24, "support new special token #3420"), first released in v0.7.0
MAX_NEW_1024_SINCE = (0, 7, 0)
OLD_MAX_NEW_TOKENS = 512


def max_new_tokens_default(job: Job) -> int | None:
    """LLaMA-Factory's max_new_tokens default at the release the files show (newest_release): 512 before v0.7.0; None
    when the files do not date it before then (the current 1024, core/memory/generation.py)."""
    rel = newest_release(job) if job.runner == "llamafactory" else None
    return OLD_MAX_NEW_TOKENS if rel is not None and rel[0] < MAX_NEW_1024_SINCE else None


def release_defaults(job: Job) -> dict:
    """The DEFAULTS that differ at the release the files show (newest_release): cutoff_len 1024 before v0.9.1."""
    if job.runner != "llamafactory":
        return {}
    rel = newest_release(job)
    if rel is None or rel[0] >= CUTOFF_2048_SINCE:
        return {}
    return {"cutoff_len": Default(OLD_CUTOFF.value, f"{OLD_CUTOFF.source}; {rel[1]}")}


# LLaMA-Factory's Megatron back ends (hiyouga/LlamaFactory src/llamafactory/hparams/parser.py get_train_args):
# `USE_MCA=1` parses the arguments with alibaba/ROLL mcore_adapter's TrainingArguments (Megatron-core under LF:
# tensor/pipeline/context/expert parallel sizes, sequence_parallel, use_distributed_optimizer (default False),
# recompute_granularity (default None: no recomputation), optimizer_cpu_offload) and trains with McaTrainer
# (src/llamafactory/train/mca/workflow.py); `USE_MEGATRON_BRIDGE=1` parses MegatronBridgeArguments
# (src/llamafactory/hparams/megatron_bridge_args.py: the same keys, use_distributed_optimizer default True).
# is_env_enabled: the variable's value lower-cased in ("true", "y", "1") (src/llamafactory/extras/misc.py). Without
# either, HfArgumentParser refuses those keys, so a YAML that carries them is launched in one of the two modes.
MCA_ENV = {"USE_MCA": "mca", "USE_MEGATRON_BRIDGE": "megatron-bridge"}
MCA_SRC = {"mca": "hiyouga/LlamaFactory:src/llamafactory/hparams/parser.py (USE_MCA -> mcore_adapter "
                  "TrainingArguments); alibaba/ROLL:mcore_adapter/src/mcore_adapter/training_args.py",
           "megatron-bridge": "hiyouga/LlamaFactory:src/llamafactory/hparams/megatron_bridge_args.py"}
MEGATRON_KEYS = ("tensor_model_parallel_size", "pipeline_model_parallel_size", "context_parallel_size",
                 "expert_model_parallel_size", "expert_tensor_parallel_size", "sequence_parallel",
                 "use_distributed_optimizer", "recompute_granularity", "recompute_method", "recompute_num_layers",
                 "recompute_modules", "optimizer_cpu_offload", "overlap_param_gather", "moe_grouped_gemm")


def env_enabled(value) -> bool:
    """LLaMA-Factory's is_env_enabled (extras/misc.py): "true", "y", "1" in any case."""
    return str(value).strip().strip("'\"").lower() in ("true", "y", "1")


def megatron_backend(env: dict) -> str | None:
    """The Megatron back end a launch's environment selects (USE_MCA wins, as get_train_args tests it first)."""
    for var, name in MCA_ENV.items():
        if var in env and env_enabled(env[var]):
            return name
    return None


def apply_megatron(job: Job) -> None:
    """Under USE_MCA / USE_MEGATRON_BRIDGE (or a config with Megatron's keys, which only those modes accept): the
    Megatron keys read as Megatron-LM's (runners/megatron.py read_flags: the layout, the distributed optimizer,
    recomputation) - LF's own gradient checkpointing does not run there, only recompute_granularity does."""
    mode = job.settings.get("__lf_megatron__")
    keys = [k for k in MEGATRON_KEYS if k in job.settings]
    if mode is None and not any(k in job.settings for k in MEGATRON_KEYS[:5]):
        return
    if mode is None:
        first = job.settings[keys[0]]
        mode = Setting("__lf_megatron__", "mca", first.file, first.line, f"{first.native} (accepted only under "
                       "USE_MCA=1 / USE_MEGATRON_BRIDGE=1)", "assumed")
        job.settings["__lf_megatron__"] = mode
    flags = {k: (str(job.settings[k].value), job.settings[k].line or 0) for k in keys}
    if mode.value == "megatron-bridge" and "use_distributed_optimizer" not in flags:
        flags["use_distributed_optimizer"] = ("true", 0)
    st, notes = megatron.read_flags(flags, job.settings[keys[0]].file if keys else mode.file or "")
    for k, s in st.items():
        if k.startswith("__") or k == "disable_gradient_checkpointing":
            job.settings[k] = s
    if "disable_gradient_checkpointing" not in st:
        job.settings["disable_gradient_checkpointing"] = Setting(
            "disable_gradient_checkpointing", True, mode.file, None,
            "recompute_granularity (None: Megatron recomputes nothing)", "assumed")
    job.notes.append(f"LLaMA-Factory {mode.value} (Megatron-core): its parallel, optimizer and recompute keys read as "
                     f"Megatron's ({MCA_SRC[str(mode.value)]})")
    job.notes += notes
