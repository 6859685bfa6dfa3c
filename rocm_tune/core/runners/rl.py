"""Online RL (GRPO) as TRL's GRPOTrainer and ms-swift's `swift rlhf --rlhf_type grpo` run it: what the generation and
the reference model add to a training step's memory (pure).

What runs (huggingface/trl trl/trainer/grpo_trainer.py, grpo_config.py; ms-swift swift/trainers/rlhf_trainer/
grpo_trainer.py, which builds on it):
* each step first generates: `per_device_train_batch_size` completions per GPU (TRL >= 0.15 counts completions),
  prompt up to `max_prompt_length` (default 512) plus `max_completion_length` (TRL 256, ms-swift 512) tokens; the
  training forward/backward then runs over those sequences, so the step's sequence length is their sum;
* `use_vllm`: `vllm_mode="server"` (TRL >= 0.18's default) generates on other GPUs; before 0.18 (no `vllm_mode`)
  the engine ran in the trainer on a GPU of its own (`vllm_device`, util 0.9) that also receives the weights; `"colocate"` starts a vLLM engine inside every training process that takes
  `vllm_gpu_memory_utilization` of the GPU (TRL 0.3; ms-swift 0.9) -- during training too, unless the engine sleeps
  (`vllm_enable_sleep_mode`, ms-swift `--sleep_level 1|2`), then only while it generates;
* without vLLM, `model.generate` holds the KV cache of the batch's sequences next to the training state;
* `beta > 0` (TRL's default 0.04 before 0.19, 0.0 from 0.19; ms-swift 0.04) loads a frozen reference copy of a fully
  fine-tuned model (with PEFT the adapter is disabled instead: no copy).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from rocm_tune.core.runners.common import Setting, as_bool

TRL = "huggingface/trl:trl/trainer/grpo_config.py"
SWIFT = "modelscope/ms-swift:swift/llm/argument/rlhf_args.py"
# keys an RL config may carry, read as written (TRL GRPOConfig and ms-swift's rlhf arguments)
KEYS = ("use_vllm", "vllm_mode", "vllm_gpu_memory_utilization", "vllm_enable_sleep_mode", "sleep_level", "beta",
        "max_prompt_length", "max_completion_length", "num_generations", "offload_model", "offload_optimizer",
        "ds3_gather_for_generation", "move_model_batches")


@dataclass(frozen=True)
class RLSpec:
    algo: str                 # "grpo"
    prompt: int               # max_prompt_length
    completion: int           # max_completion_length
    vllm: str                 # "none" | "server" | "colocate"
    vllm_share: float         # share of the GPU a colocated engine takes
    sleeps: bool              # a colocated engine releases its memory while training
    beta: float
    swift: bool


def _num(v, default: float) -> float:
    """`v` as a finite number, `default` for anything else (unset, "x", a list, .inf, .nan: int() of it would raise)."""
    try:
        x = float(str(v))
    except (TypeError, ValueError):
        return default
    return x if math.isfinite(x) else default


def spec(job) -> RLSpec | None:
    """The GRPO run the job's settings describe, or None for any other stage."""
    if str(job.get("stage", "")).lower() != "grpo":
        return None
    swift = job.runner == "ms-swift"
    use_vllm = bool(as_bool(job.get("use_vllm")))
    if not use_vllm:
        mode = "none"
    elif job.get("vllm_mode") is not None:
        mode = str(job.get("vllm_mode")).lower()
    elif swift:
        mode = _swift_layout(job)
    else:
        # no vllm_mode but a utilization or a device: TRL < 0.18, whose vLLM runs in the training process on a GPU
        # of its own (vllm_device "auto": the next one after the training processes)
        mode = "device" if any(job.get(k) is not None for k in ("vllm_device", "vllm_gpu_memory_utilization")) \
            else "server"
    share = _num(job.get("vllm_gpu_memory_utilization"), 0.9 if swift or mode == "device" else 0.3)
    sleeps = bool(as_bool(job.get("vllm_enable_sleep_mode"))) or _num(job.get("sleep_level"), 0) >= 1
    return RLSpec("grpo", int(_num(job.get("max_prompt_length"), 512)),
                  int(_num(job.get("max_completion_length"), 512 if swift else 256)), mode, share, sleeps,
                  _num(job.get("beta"), 0.04), swift)


# ms-swift before 3.5 (no --vllm_mode; swift/trainers/rlhf_trainer/grpo_trainer.py): 3.0-3.1 start the engine on
# `--vllm_device` ("auto": get_device(local_world_size), the GPU after the training processes; the one GPU shared only
# where a single GPU is visible); 3.2-3.4 on the last --num_infer_workers (default 1) GPUs, colocated in every process
# only where num_infer_workers == the visible GPU count (3.3 rlhf_args.py is_colocate_mode). 3.5 brought vllm_mode
# ("colocate" by default) and deprecated vllm_device.
SWIFT_LAYOUT = ("modelscope/ms-swift:swift/trainers/rlhf_trainer/grpo_trainer.py (v3.1.1: fast_infer_device = "
                "get_device(local_world_size); v3.3-v3.4: is_colocate_mode = device_count == num_infer_workers)")


def _swift_layout(job) -> str:
    """Where ms-swift's GRPO vLLM engine runs when --vllm_mode is not said: "device" (GPUs of its own, < 3.5) where
    the visible GPUs outnumber the training processes (no spread model), "server" with --vllm_server_host, else
    "colocate" (3.5's default; one visible GPU per process)."""
    if job.get("vllm_server_host") not in (None, "", "None"):
        return "server"      # 3.4+: an external `swift rollout` engine (rlhf_args.py: vllm_mode 'server' from 3.5)
    visible = int(_num(job.get("__visible_gpus__"), 0))
    world = int(_num(job.gpus.value if getattr(job, "gpus", None) is not None else None, 1))
    if visible > world and job.get("__devmap_gpus__") is None:
        return "device"
    return "colocate"


def apply_sequence(job, notes: list[str]) -> None:
    """GRPO trains on prompt + completion: that is the step's sequence length where no max_length says otherwise;
    ms-swift's --max_length bounds the prompt only (below)."""
    rl = spec(job)
    if rl is None:
        return
    cut = job.settings.get("cutoff_len")
    if cut is not None and rl.swift and cut.native == "max_length" and str(cut.value).isdigit():
        # ms-swift GRPO: "In PPO, GRPO, GKD and inference scenarios, `max_length` refers to `max_prompt_length`"
        # (docs/source_en/Instruction/Command-line-parameters.md); the rollout is encoded for training under
        # _template_context(template), max_length None (swift/rlhf_trainers/grpo_trainer.py, rollout_mixin.py): the
        # trained sequence is the prompt plus up to max_completion_length tokens, not cut back to max_length
        total = int(cut.value) + rl.completion
        job.settings["cutoff_len"] = Setting("cutoff_len", total, cut.file, cut.line,
                                             "max_length + max_completion_length", "derived")
        notes.append(f"ms-swift GRPO: --max_length {cut.value} bounds the prompt; the trained sequence is it plus "
                     f"max_completion_length {rl.completion} = {total} tokens")
        return
    if cut is not None:
        return
    total = rl.prompt + rl.completion
    job.settings["cutoff_len"] = Setting("cutoff_len", total, None, None, "max_prompt_length + max_completion_length",
                                         "assumed")
    notes.append(f"GRPO: sequences of max_prompt_length {rl.prompt} + max_completion_length {rl.completion} = "
                 f"{total} tokens (" + (SWIFT if rl.swift else TRL) + ")")


# R1-V's and VLM-R1's open-r1-multimodal (Deep-Agent/R1-V src/r1-v/src/open_r1/trainer/grpo_trainer.py, om-ai-lab/VLM-R1
# src/open-r1-multimodal/src/open_r1/trainer/grpo_trainer.py before 2025-03): Qwen2VLGRPOTrainer, copied from TRL
# 0.14's GRPOTrainer, generates `GenerationConfig(num_return_sequences=num_generations)` completions for each of the
# per_device_train_batch_size prompts, repeats pixel_values num_generations times and runs the policy's forward and
# backward over all of them at once (compute_loss -> _get_per_token_logps(model, prompt_completion_ids, ...)).
# Without --use_vllm grpo.py picks that trainer; TRL >= 0.15 (RepeatRandomSampler) counts completions instead.
MULTIMODAL_GRPO = re.compile(r"(?:^|/)open_r1/grpo\w*\.py$")
MULTIMODAL_MARK = re.compile(r"open-r1-multimodal|(?:^|[/\s])r1-v(?:/|\s|$)", re.I)


def per_prompt_generations(job) -> bool:
    """The job runs the open-r1-multimodal GRPO trainer (TRL 0.14's way): every prompt's num_generations completions
    are one micro-batch."""
    rl = spec(job)
    if rl is None or rl.vllm != "none" or not MULTIMODAL_GRPO.search(str(job.entry or "")):
        return False
    texts = [str(t) for t in (job.files or {}).values()]
    if any(MULTIMODAL_MARK.search(t) for t in texts):
        return True
    # no path names the fork: a vision-language model with the fork's own --max_pixels / --min_pixels
    # (GRPOScriptArguments of R1-V's grpo.py); huggingface/open-r1's grpo.py (TRL's GRPOTrainer) has neither
    model = str(job.get("model_name_or_path") or "").lower()
    pixels = any(re.search(r"--(?:max|min)_pixels\b", t) for t in texts)
    return pixels and bool(re.search(r"(?:^|[-_/ ])vl(?:[-_ ]|$)", model))


def apply_generations(job, notes: list[str]) -> None:
    """The per-device micro-batch of an open-r1-multimodal GRPO run: its prompts times num_generations."""
    if not per_prompt_generations(job):
        return
    gens = int(_num(job.get("num_generations"), 8))   # TRL 0.14 GRPOConfig.num_generations default 8
    bs = job.settings.get("per_device_train_batch_size")
    prompts = int(_num(bs.value if bs is not None else None, 8))   # TrainingArguments' default 8
    if gens <= 1:
        return
    rows = prompts * gens
    _derived_batch(job, rows, bs, "per_device_train_batch_size x num_generations")
    notes.append(f"open-r1-multimodal GRPO (R1-V / VLM-R1 Qwen2VLGRPOTrainer, TRL 0.14's way, no vLLM): each of the "
                 f"{prompts} prompt(s) per GPU gets num_generations {gens} completions, all {rows} in one forward and "
                 f"backward (generate(num_return_sequences), pixel_values repeated)")


def _derived_batch(job, rows: int, bs, native: str) -> None:
    """The per-device batch a trainer derives from the one the files set (`bs`, kept as where it was read)."""
    job.settings["per_device_train_batch_size"] = Setting(
        "per_device_train_batch_size", rows, bs.file if bs else None, bs.line if bs else None, native, "derived")


# Unsloth's GRPOConfig (unslothai/unsloth unsloth/models/rl.py, the "Check GRPO num_generations mismatch" block
# written into its patched config since 2025-02): where the generation batch is not set (steps_per_generation and
# generation_batch_size None) and gradient_accumulation_steps x world_size x per_device_train_batch_size is no multiple
# of num_generations, `per_device_train_batch_size = num_generations` (printed: "We will change the batch size of 1 to
# the `num_generations` of 8"); before TRL had steps_per_generation the test was per_device_train_batch_size alone
UNSLOTH_GRPO_BATCH = "unslothai/unsloth:unsloth/models/rl.py (GRPOConfig: per_device_train_batch_size = num_generations)"


def apply_unsloth_batch(job, notes: list[str]) -> None:
    """An Unsloth GRPO program's per-device batch where Unsloth raises it to num_generations (UNSLOTH_GRPO_BATCH)."""
    rl = spec(job)
    if rl is None or job.get("__unsloth_loader__") is None:
        return
    if any(job.get(k) is not None for k in ("steps_per_generation", "generation_batch_size")):
        return
    gens = int(_num(job.get("num_generations"), 8))      # TRL GRPOConfig.num_generations default 8
    bs = job.settings.get("per_device_train_batch_size")
    rows = int(_num(bs.value if bs is not None else None, 8))     # TrainingArguments' default 8
    accumulation = int(_num(job.get("gradient_accumulation_steps"), 1))
    world = int(_num(job.gpus.value if getattr(job, "gpus", None) is not None else None, 1))
    if gens <= 1 or (accumulation * world * rows) % gens == 0:
        return
    _derived_batch(job, gens, bs, "num_generations (Unsloth)")
    notes.append(f"Unsloth GRPO: gradient_accumulation_steps {accumulation} x {world} process(es) x "
                 f"per_device_train_batch_size {rows} is no multiple of num_generations {gens}: Unsloth's GRPOConfig "
                 f"sets per_device_train_batch_size = {gens} ({UNSLOTH_GRPO_BATCH})")


def kv_cache_bytes(model, tokens: int) -> float:
    """Keys and values of every layer for `tokens` tokens in 16 bit (what model.generate keeps)."""
    layers = int(model.num_layers)
    per_token = 2 * layers * int(model.num_kv_heads) * int(model.head_dim) * 2
    return float(per_token) * tokens


def extra(rl: RLSpec, model, cfg, resident: float, step: float, vram: float | None, ref_weights: float
          ) -> tuple[float, float, list[str]]:
    """(new step allocation, generation-phase allocation, notes) for a GRPO run: the reference copy in both, the
    colocated vLLM engine (or the KV cache of model.generate) next to the training state."""
    notes: list[str] = []
    ref = ref_weights if rl.beta > 0 and not cfg.is_lora else 0.0
    if ref:
        notes.append(f"GRPO beta {rl.beta:g}: a frozen reference copy of the model, {ref / 2**30:.2f} GiB per GPU "
                     f"(with LoRA the adapter is disabled instead)")
    gen_extra = 0.0
    step_extra = ref
    if rl.vllm == "colocate" and vram:
        engine = rl.vllm_share * vram
        gen_extra = engine
        if not rl.sleeps:
            step_extra += engine
        notes.append(f"GRPO with vLLM colocated: the engine takes {rl.vllm_share:.0%} of each GPU "
                     f"({engine / 2**30:.1f} GiB)" + (" while it generates (sleep mode releases it for the step)"
                                                       if rl.sleeps else ", also while the model trains"))
    elif rl.vllm == "none":
        gen_extra = kv_cache_bytes(model, cfg.micro_batch * (rl.prompt + rl.completion))
        notes.append(f"GRPO without vLLM: model.generate keeps the KV cache of {cfg.micro_batch} sequences of "
                     f"{rl.prompt + rl.completion} tokens ({gen_extra / 2**30:.2f} GiB) next to the training state")
    elif rl.vllm == "device":
        notes.append("GRPO with vLLM on a GPU of its own ("
                     + (f"ms-swift < 3.5, the GPU after the training processes: {SWIFT_LAYOUT}" if rl.swift
                        else "TRL < 0.18, vllm_device") + f"): that GPU holds "
                     f"{rl.vllm_share:.0%} for the engine and receives a 16-bit copy of the weights at every sync "
                     f"(the 'generate' phase)")
    else:
        notes.append("GRPO with a vLLM server: generation runs on other GPUs (trl vllm-serve), not on these")
    return step + step_extra, resident + ref + gen_extra, notes


# ZeRO-3: where the GRPO trainer gathers the whole 16-bit model on every GPU (deepspeed.zero.GatheredParameters)
GATHER_SRC = ("huggingface/trl:trl/trainer/grpo_trainer.py (unwrap_model_for_generation(..., gather_deepspeed3_params="
              "ds3_gather_for_generation), default True; _move_model_to_vllm: 'With PEFT and DeepSpeed ZeRO Stage 3, we "
              "must gather the full model at once before merging' since 0.16); modelscope/ms-swift:swift/trainers/"
              "rlhf_trainer/grpo_trainer.py (the same unwrap without vLLM; _move_model_to_vllm under PEFT gathers one "
              "parameter group, the whole model while move_model_batches is None)")


def zero3_gathered(job, rl: RLSpec, is_lora: bool) -> str | None:
    """Why a ZeRO-3 GRPO run holds the whole model's 16-bit weights on every GPU outside the step, or None:
    * without vLLM, generate runs inside unwrap_model_for_generation, which gathers every parameter unless
      ds3_gather_for_generation is false (TRL, ms-swift's PtEngine path);
    * with vLLM and a PEFT adapter, the weight sync gathers every parameter at once to merge the adapter (TRL >= 0.16;
      ms-swift unless --move_model_batches splits it); a full fine-tune syncs one parameter at a time (no term)."""
    if rl.vllm == "none":
        said = job.get("ds3_gather_for_generation")
        if said is not None and as_bool(said) is False:
            return None
        return "generate runs with the whole model gathered (ds3_gather_for_generation true)"
    if rl.vllm == "device" and rl.swift:
        # ms-swift < 3.5 syncs the engine's weights inside unwrap_model_for_generation(gather_deepspeed3_params=
        # ds3_gather_for_generation), LoRA merged or not (v3.1.1 _move_model_to_vllm_lmdeploy)
        said = job.get("ds3_gather_for_generation")
        return None if said is not None and as_bool(said) is False else \
            "the weight sync to the vLLM GPU gathers the whole model (ds3_gather_for_generation true)"
    if not is_lora or rl.vllm not in ("colocate", "server"):
        return None
    if rl.swift and _num(job.get("move_model_batches"), 0) > 0:
        return None
    return "the weight sync to vLLM gathers every parameter at once to merge the LoRA adapter"


def engine_gpu_bytes(rl: RLSpec, model, vram: float) -> float:
    """The vLLM GPU of TRL < 0.18: the engine's share plus the 16-bit weights it loads from the trainer
    (llm.load_weights(state_dict)); over the card, that GPU runs out (trl#2864, trl#2927: 'GRPO needs room on the
    inference node to load the model weights')."""
    return rl.vllm_share * vram + float(model.params.total) * 2


# TRL's GRPOTrainer since its first release (0.14: `model(input_ids, num_logits_to_keep=num_logits_to_keep + 1)`;
# later `logits_to_keep=logits_to_keep + 1`, VLMs too where the model's forward takes it) and ms-swift's GRPOTrainer
# built on it compute the logits of the completion only (trl/trainer/grpo_trainer.py _get_per_token_logps); R1-V's
# open-r1-multimodal copy calls the VLM without it (every position's logits)
LOGITS_TO_KEEP = "huggingface/trl:trl/trainer/grpo_trainer.py (_get_per_token_logps: logits_to_keep)"
# the keys that say the GRPO step is TRL's trainer (GRPOConfig's own fields or class, open-r1's grpo.py) or ms-swift's
# `rlhf_type grpo`; verl's `algorithm.adv_estimator` and OpenRLHF's `advantage_estimator` run their own actor, whose
# forward returns every position's logits (verl dp_actor, OpenRLHF models/actor.py)
TRL_GRPO_KEYS = frozenset({"num_generations", "GRPOConfig", "GRPOTrainer", "grpo.py", "rlhf_type"})


def logit_share(job) -> dict:
    """{"logit_share": share of the trained sequence whose logits exist} for TRL's and ms-swift's GRPO (see above)."""
    rl = spec(job)
    said = job.settings.get("stage")
    if rl is None or job.runner not in ("hf", "ms-swift") or per_prompt_generations(job) \
            or said is None or said.native not in TRL_GRPO_KEYS:
        return {}
    if rl.swift and any(job.get(k) not in (None, "", "None", "none") for k in ("multi_turn_scheduler", "multi_turn_func")):
        # ms-swift multi-turn GRPO (3.5 --multi_turn_func, 3.6 --multi_turn_scheduler): _prepare_batch_inputs keeps
        # logits_to_keep = seq_len - the first trained label's position, i.e. every later turn, the environment's
        # replies between them included (swift/trainers/rlhf_trainer/grpo_trainer.py): no completion-only share
        job.notes.append("ms-swift multi-turn GRPO: the logits span every turn after the first prompt (logits_to_keep "
                         "from the first completion token to the end), counted over the whole sequence")
        return {}
    total = int(_num(job.get("cutoff_len"), rl.prompt + rl.completion))
    keep = rl.completion + 1
    if total <= keep:
        return {}
    job.notes.append(f"GRPO: the loss takes the logits of the completion only (logits_to_keep = "
                     f"max_completion_length {rl.completion} + 1 of {total} positions; {LOGITS_TO_KEEP})")
    return {"logit_share": keep / total}
