"""A plain transformers ``Trainer`` script (transformers 5, PEFT): what its defaults load and run.

transformers 5 loads with ``dtype="auto"`` (the checkpoint's config.json dtype) unless told otherwise;
``TrainingArguments(bf16=True / fp16=True)`` turns on torch autocast and casts nothing; PEFT's
``get_peft_model`` upcasts 16-bit adapters to fp32 (``autocast_adapter_dtype=True``). So full and freeze
fine-tuning train the weights in the checkpoint's dtype (optimizer moments in that dtype too), LoRA
adapters train in fp32, and "fp32" on a bf16 checkpoint computes in bf16.
"""

from __future__ import annotations

import ast
import os
import re

from rocm_tune.core.errors import UserError
from rocm_tune.core.runners import Fact, Regime, checkpoint_dtype, heads
from rocm_tune.core.runners.common import Default, Setting, as_bool, as_int, named_data
from rocm_tune.core.runners.values import call_name as _name
from rocm_tune.core.runners.values import module_names, program_names, py_value
from rocm_tune.profiles import bert_programs, ds_chat

TA = "huggingface/transformers:src/transformers/training_args.py (TrainingArguments"
# a plain Trainer / TRL script: transformers' own TrainingArguments defaults (v4.40 .. v5 agree)
DEFAULTS = {
    "micro_batch": Default(8, f"{TA}.per_device_train_batch_size)"),
    "eval_batch": Default(8, f"{TA}.per_device_eval_batch_size)"),
    "gradient_checkpointing": Default(False, f"{TA}.gradient_checkpointing)"),
}

FACTS = (
    Fact('from_pretrained dtype defaults to "auto": the dtype config.json names',
         "huggingface/transformers:src/transformers/modeling_utils.py (PreTrainedModel.from_pretrained)",
         "v5.23.0"),
    Fact("bf16/fp16 training arguments enable torch autocast; the model is not cast",
         "huggingface/transformers:src/transformers/trainer.py (autocast_smart_context_manager)", "v5.23.0"),
    Fact("get_peft_model(..., autocast_adapter_dtype=True) upcasts fp16/bf16 adapter weights to fp32",
         "huggingface/peft:src/peft/tuners/tuners_utils.py (_cast_adapter_dtype)", "v0.18.1"),
)


def regime(model, cfg) -> Regime:
    ckpt = checkpoint_dtype(model)
    p = cfg.precision
    if p == "pure_bf16":
        raise UserError("runner 'hf' has no pure_bf16 regime (a plain Trainer with bf16 weights and "
                        "fp32 adapters); use --runner llamafactory or builtin for pure_bf16")
    trainable = "fp32" if cfg.is_lora else ckpt
    autocast = p if p in ("bf16", "fp16") else None
    compute = p if autocast else (trainable if cfg.method == "full" else ckpt)
    ignored = (p == "fp32" and (compute != "fp32" or ckpt != "fp32")) or (autocast is not None and trainable != "fp32")
    notes = []
    if ignored:
        notes.append(f'transformers loads the checkpoint\'s {ckpt} weights (dtype="auto") and does not upcast them')
    return Regime("hf", p, ckpt, trainable, compute, autocast, ckpt, ignored, tuple(notes))


# ---------------------------------------------------------------------------------------------------- reader
# (moved from core/formats/hf_args.py)
# HF TrainingArguments flags of custom training scripts -> canonical settings (pure).
#
# The script's own arguments are not TrainingArguments; the common ones are mapped and the mapping is
# stated in the answer: `--model_max_length` (stanford_alpaca, Baichuan2 fine-tune.py: the tokenizer's
# max length) -> cutoff_len; `--use_lora True|False` (Baichuan2 fine-tune.py) -> lora | full;
# `--gradient_checkpointing` -> the opposite of LLaMA-Factory's disable_gradient_checkpointing.


# native flag -> (canonical key, note stated in the answer or None)
MAPPED = {
    "model_max_length": ("cutoff_len", "--model_max_length read as the sequence length (cutoff_len)"),
    # LLaVA-style scripts (haotian-liu/LLaVA, LLaVA-NeXT train.py ModelArguments): the CLIP tower they add to the
    # language model, frozen unless LLaVA-NeXT's --unfreeze_mm_vision_tower
    "vision_tower": ("vision_tower", None),
    "unfreeze_mm_vision_tower": ("unfreeze_mm_vision_tower", None),
    # MiniCPM-V finetune.py (--tune_vision trains the SigLIP tower, also under LoRA; --max_slice_nums) and InternVL's
    # internvl_chat_finetune.py (--max_dynamic_patch tiles per image)
    "tune_vision": ("tune_vision", None),
    "max_slice_nums": ("max_slice_nums", None),
    "max_dynamic_patch": ("max_dynamic_patch", None),
    "max_seq_length": ("cutoff_len", "--max_seq_length read as the sequence length (cutoff_len)"),
    "max_length": ("cutoff_len", "--max_length read as the sequence length (cutoff_len)"),
    "use_lora": ("finetuning_type", "--use_lora read as the fine-tuning method (True = lora, False = full)"),
    "lora_r": ("lora_rank", None),
    "lora_rank": ("lora_rank", None),
    "lora_alpha": ("lora_alpha", None),
    "gradient_checkpointing": ("disable_gradient_checkpointing", None),
    # huggingface/peft examples/sft/train.py (ModelArguments/DataTrainingArguments), copied by many scripts
    "use_peft_lora": ("finetuning_type", "--use_peft_lora read as the fine-tuning method (True = lora)"),
    "use_4bit_quantization": ("quantization_bit", None),
    "use_8bit_quantization": ("quantization_bit", None),
    "max_seq_len": ("cutoff_len", "--max_seq_len read as the sequence length (cutoff_len)"),
    # transformers' examples/pytorch/language-modeling/run_clm.py (texts grouped into blocks of block_size tokens)
    # and the scripts built on it (simplescaling/s1 train/sft.py: SFTConfig.max_seq_length = block_size)
    "block_size": ("cutoff_len", "--block_size read as the sequence length (cutoff_len)"),
    # TRL's early example scripts (examples/research_projects/stack_llama/scripts/supervised_finetuning.py
    # `--seq_length`, ConstantLengthDataset(seq_length=...)) and the programs built on them (OpenFedLLM)
    "seq_length": ("cutoff_len", "--seq_length read as the sequence length (cutoff_len)"),
    # the same name shortened (DeepSpeed pipeline / nanoGPT-style programs: `--seq_len 1024`)
    "seq_len": ("cutoff_len", "--seq_len read as the sequence length (cutoff_len)"),
    "use_flash_attn": ("flash_attn", None),
    "use_liger_kernel": ("enable_liger_kernel", None),      # TrainingArguments.use_liger_kernel
    "liger_kernel": ("enable_liger_kernel", None),
    # TRL DPOConfig / KTOConfig / GRPOConfig.use_liger_loss (trl v0.17-v0.27): the trainer's own chunked Liger loss
    "use_liger_loss": ("use_liger_loss", None),
    "attn_implementation": ("flash_attn", None),            # from_pretrained(attn_implementation=...)
    # TRL's ModelConfig (--use_peft, --lora_target_modules) and the scripts that copy it (MedicalGPT, alignment
    # recipes); DeepSpeed-Chat's step-1 main.py (--lora_dim N > 0 turns LoRA on, --lora_module_name)
    "use_peft": ("finetuning_type", "--use_peft read as the fine-tuning method (True = lora)"),
    "lora_dim": ("lora_rank", "--lora_dim (DeepSpeed-Chat) read as the LoRA rank: LoRA on"),
    "lora_target_modules": ("lora_target", None),
    "target_modules": ("lora_target", None),
    # LoraConfig(modules_to_save=...) as a script flag (ymcui/Chinese-LLaMA-Alpaca-2 run_clm_sft_with_peft.py
    # --modules_to_save embed_tokens,lm_head): those modules train whole beside the adapters
    "modules_to_save": ("additional_target", None),
    "load_in_4bit": ("quantization_bit", None),
    "load_in_8bit": ("quantization_bit", None),
    # lm-sys/FastChat fastchat/train/train_lora.py LoraArguments.q_lora (and the scripts copying it): the base model
    # loaded in 4 bits (BitsAndBytesConfig load_in_4bit, nf4) under LoRA
    "q_lora": ("quantization_bit", "--q_lora read as QLoRA: 4-bit base weights under LoRA"),
}
# seq2seq-style scripts truncate the prompt and the answer separately (MedicalGPT, ChatGLM/Baichuan fine-tune
# scripts): the longest sample is their sum
SOURCE_TARGET = ("max_source_length", "max_target_length")
# ModelArguments --tokenizer_name (run_clm.py and the scripts copying it), kept as given: a clue to the model where the
# model is a local folder whose name says nothing (core/model/clues.py)
TOKENIZER_FLAGS = ("tokenizer_name", "tokenizer_name_or_path", "tokenizer_path")
PASSTHROUGH = ("model_name_or_path", "per_device_train_batch_size", "gradient_accumulation_steps",
               "per_device_eval_batch_size", "fp16", "bf16", "deepspeed", "optim", "eval_steps",
               "evaluation_strategy", "eval_strategy", "do_eval", "warmup_steps", "save_total_limit",
               "ddp_timeout", "num_train_epochs", "save_only_model", "save_steps", "max_steps", "output_dir",
               "save_strategy", "eval_accumulation_steps", "gradient_checkpointing_kwargs",
               # what evaluation_loop keeps (profiles/eval_phase.py PREDS_RELEASED_BY); Seq2SeqTrainer's generation
               "prediction_loss_only", "batch_eval_metrics", "predict_with_generate", "generation_max_length",
               "generation_num_beams",
               "packing", "device_map", "max_memory", "zero_stage", "offload",
               # TrainingArguments --fsdp "full_shard auto_wrap [offload]": read by core/runners/fsdp.py
               "fsdp",
               # online RL (GRPOConfig / TRL scripts' flags): read by core/runners/rl.py
               "use_vllm", "vllm_mode", "vllm_gpu_memory_utilization", "vllm_enable_sleep_mode", "beta",
               "ds3_gather_for_generation",
               # DPOConfig/KTOConfig: the reference log-probabilities computed once before training, no frozen copy
               "precompute_ref_log_probs",
               "max_prompt_length", "max_completion_length", "num_generations")
# the trainer a TRL program builds -> the stage it runs
TRL_STAGES = {"GRPOConfig": "grpo", "GRPOTrainer": "grpo", "DPOConfig": "dpo", "DPOTrainer": "dpo",
              "ORPOConfig": "orpo", "ORPOTrainer": "orpo", "CPOConfig": "cpo", "CPOTrainer": "cpo",
              "KTOConfig": "kto", "KTOTrainer": "kto", "RewardConfig": "reward", "RewardTrainer": "reward"}


def read_flags(flags: dict[str, tuple[str, int]], file: str) -> tuple[dict[str, Setting], list[str]]:
    out: dict[str, Setting] = {}
    notes: list[str] = []
    # argparse and HfArgumentParser take `--load-in-4bit` for `load_in_4bit` (dest: dashes read as underscores)
    flags = {k.replace("-", "_"): v for k, v in flags.items()}
    for k, (v, line) in flags.items():
        if k in MAPPED:
            key, note = MAPPED[k]
            value: object = v
            invert = False
            if key == "finetuning_type":
                b = as_bool(v)
                value = "lora" if b else "full"
            elif key == "quantization_bit":
                if not as_bool(v):
                    continue
                value = 8 if "8bit" in k else 4
            elif key == "lora_target":
                value = "all" if str(v).strip().lower() in ("all", "all-linear", "all_linear") else str(v)
            elif key == "flash_attn" and k == "use_flash_attn":
                value = "fa2" if as_bool(v) else "sdpa"
            elif key == "disable_gradient_checkpointing":
                b = as_bool(v)
                value = (not b) if b is not None else v
                invert = True
            out[key] = Setting(key, value, file, line, k, "flag", invert)
            if note:
                notes.append(note)
        elif k in PASSTHROUGH or k in TOKENIZER_FLAGS:
            out[k] = Setting(k, v, file, line, k, "flag")
    _own_names(flags, out, notes, file)
    # the command's whole-number flags as written: a program may divide one of them by the world size
    # (core/runners/program_bounds.py), whatever its name
    counts = {k: (n, line) for k, (v, line) in flags.items() if (n := as_int(v)) is not None}
    if counts:
        out[CMD_COUNTS] = Setting(CMD_COUNTS, counts, file, None, "command", "flag")
    _y_trainer(flags, out, notes, file)
    if "dataset_name" in flags:        # TRL ScriptArguments / run_clm DataTrainingArguments: a hub id (issue 26)
        cfg_name = flags.get("dataset_config_name", ("", 0))[0].strip()     # a subset: `name:subset`
        name = flags["dataset_name"][0] + (f":{cfg_name}" if cfg_name and cfg_name.lower() != "none" else "")
        out.update(named_data([name], file, flags["dataset_name"][1], "dataset_name", "flag"))
    if "q_lora" in flags and "quantization_bit" in out and "finetuning_type" not in out:
        out["finetuning_type"] = Setting("finetuning_type", "lora", file, flags["q_lora"][1], "q_lora", "flag")
    if _lora_dim_on(out):
        out.setdefault("finetuning_type", Setting("finetuning_type", "lora", file, out["lora_rank"].line, "lora_dim",
                                                  "flag"))
    if "zero_stage" in flags and any(k in flags for k in ds_chat.MARKERS):
        _ds_chat_defaults(flags, out, notes, file)
    _peft_script(flags, out, notes, file)
    if "stage" not in out and "num_generations" in flags and (as_int(flags["num_generations"][0]) or 0) > 1:
        # --num_generations: a GRPOConfig field (trl/trainer/grpo_config.py; the GRPO trainers copied from it, as
        # open-r1-multimodal's Qwen2VLGRPOTrainer): each prompt is sampled that many times and trained on them all
        out["stage"] = Setting("stage", "grpo", file, flags["num_generations"][1], "num_generations", "flag")
        notes.append("--num_generations (a GRPOConfig field) read as a GRPO training")
    if "cutoff_len" not in out and all(k in flags for k in SOURCE_TARGET):
        try:
            total = sum(int(float(flags[k][0])) for k in SOURCE_TARGET)
        except (ValueError, OverflowError):  # "--max_source_length inf": float() reads it, int() cannot
            total = 0
        if total > 0:
            out["cutoff_len"] = Setting("cutoff_len", total, file, flags[SOURCE_TARGET[0]][1], "max_source_length",
                                        "flag")
            notes.append(f"--max_source_length + --max_target_length read as the sequence length (cutoff_len "
                         f"{total})")
    return out, notes


# A training program's own names for the model and the per-device batch, read where the TrainingArguments names are
# absent: alpaca-lora's finetune.py (--base_model, --micro_batch_size; its --batch_size is the global batch),
# FastChat/LLaVA-style --model_path, a custom trainer's --model_path_to_load (yafo-ai/y-trainer's
# training_code/start_training.py) or --model_dir. Each reading is said.
MODEL_FLAG = re.compile(r"^(?:base_|pretrained_)?model(?:_name|_path|_dir|_id|_or|_to|_load)*$")


# Any other argument whose name names the model (litgpt's --checkpoint_dir, LLM-QAT's --input_model_filename,
# --pretrained_path, --base_model_path, --ckpt_dir ...) is the model when its value reads as one (a name with a
# parameter count, core/model/names.parse_name): the general rule for argparse programs, said in the answer.
MODEL_NAMED = re.compile(r"^(?:input_|base_|pretrained_|init_|load_)?(?:model|checkpoint|ckpt|pretrained)"
                         r"(?:_[a-z]+)*$")
NOT_INPUT = re.compile(r"(?:^|_)(?:output|out|save|saved|target|ref|reward|critic|teacher|draft|tokenizer)(?:_|$)")


def names_a_model(value: str) -> bool:
    """A path or hub id whose last part names a model by its size (`Llama-2-7b-hf`, `vicuna-7b-v1.5`)."""
    from rocm_tune.core.model.names import parse_name

    v = str(value).strip().strip("'\"")
    if not v or v.startswith(("-", "$")) or as_int(v) is not None or v.lower() in ("true", "false", "none"):
        return False
    parts = parse_name(v)
    return parts.size_b is not None and parts.series is not None


def model_flag(flags: dict[str, tuple[str, int]]) -> str | None:
    """The argument that names the model to train: a MODEL_FLAG name, else a MODEL_NAMED one whose value reads as a
    model (never one that names an output, a reference or a tokenizer)."""
    k = next((k for k in flags if k != "model_name_or_path" and MODEL_FLAG.match(k) and flags[k][0]
              and not flags[k][0].startswith("-")), None)
    if k is None:
        k = next((k for k in flags if MODEL_NAMED.match(k) and not NOT_INPUT.search(k)
                  and names_a_model(flags[k][0])), None)
    return k


def _bert_pretraining(flags: dict[str, tuple[str, int]], out: dict[str, Setting], notes: list[str], file: str) -> None:
    """NVIDIA's BERT run_pretraining.py flags (profiles/bert_programs.py): --bert_model (`bert-large-uncased`,
    `BERT-L-uncased`) -> the google-bert preset; --train_batch_size over --gradient_accumulation_steps -> the batch
    of one process."""
    m = re.fullmatch(r"(?:google-bert/)?bert[-_](l|large|b|base)[-_](uncased|cased)", str(flags["bert_model"][0])
                     .strip().strip("'\"").lower())
    if m and "model_name_or_path" not in out:
        ref = f"bert-{bert_programs.BERT_SIZE_WORDS[m.group(1)]}-{m.group(2)}"
        out["model_name_or_path"] = Setting("model_name_or_path", ref, file, flags["bert_model"][1], "bert_model",
                                            "flag")
        out["finetuning_type"] = Setting("finetuning_type", "full", file, flags["bert_model"][1], "bert_model", "flag")
        notes.append(f"--bert_model {flags['bert_model'][0]} read as {ref} ({bert_programs.BERT_SOURCE})")
    batch, accum = as_int(flags.get("train_batch_size", ("", 0))[0]), \
        as_int(flags.get("gradient_accumulation_steps", ("1", 0))[0]) or 1
    if batch and "per_device_train_batch_size" not in out:
        out["per_device_train_batch_size"] = Setting("per_device_train_batch_size", max(1, batch // accum), file,
                                                     flags["train_batch_size"][1], "train_batch_size", "flag")
        notes.append(f"--train_batch_size {batch} / --gradient_accumulation_steps {accum}: the batch of one process "
                     f"({bert_programs.BERT_SOURCE})")


CMD_COUNTS = "__command_counts__"


def _own_names(flags: dict[str, tuple[str, int]], out: dict[str, Setting], notes: list[str], file: str) -> None:
    if "bert_model" in flags:
        _bert_pretraining(flags, out, notes, file)
    if "model_name_or_path" not in out:
        k = model_flag(flags)
        if k is not None:
            out["model_name_or_path"] = Setting("model_name_or_path", flags[k][0], file, flags[k][1], k, "flag")
            notes.append(f"--{k} read as the model to train (model_name_or_path)")
    if "per_device_train_batch_size" not in out:
        k = next((k for k in ("micro_batch_size", "batch_size", "bsz") if k in flags), None)
        if k is not None and as_int(flags[k][0]):
            out["per_device_train_batch_size"] = Setting("per_device_train_batch_size", flags[k][0], file,
                                                         flags[k][1], k, "flag")
            notes.append(f"--{k} read as the per-device batch (per_device_train_batch_size)")
    if "cutoff_len" not in out and as_int(flags.get("cutoff_len", ("", 0))[0]):
        # alpaca-lora finetune.py train(cutoff_len=256) under fire.Fire: tokenize(max_length=cutoff_len, truncation)
        out["cutoff_len"] = Setting("cutoff_len", flags["cutoff_len"][0], file, flags["cutoff_len"][1], "cutoff_len",
                                    "flag")


# yafo-ai/y-trainer's own CLI (src/train/config_manager.py argparse, read at 654b832): `--token_batch`, `--use_NLIRG`,
# `--model_path_to_load` are its names. `--max_seq_len` (default 20520) is the longest sample it keeps
# (trainer_sft.py SampleDataset._process_sample: a longer one is dropped, none is cut), the batch is padded to its
# longest sample (collate_fn); `--enable_gradit_checkpoing 'true'` (its spelling, default "false") turns on
# model.gradient_checkpointing_enable() (train_engine.py).
Y_TRAINER_FLAGS = ("token_batch", "use_nlirg", "model_path_to_load", "enable_gradit_checkpoing")
Y_TRAINER_MAX_SEQ_LEN = 20520


def _y_trainer(flags: dict[str, tuple[str, int]], out: dict[str, Setting], notes: list[str], file: str) -> None:
    names = {k.lower(): k for k in flags}
    if sum(n in names for n in Y_TRAINER_FLAGS) < 2:
        return
    if "cutoff_len" not in out:
        out["cutoff_len"] = Setting("cutoff_len", Y_TRAINER_MAX_SEQ_LEN, file, None, "max_seq_len", "derived")
        notes.append(f"y-trainer (yafo-ai/y-trainer src/train/config_manager.py): no --max_seq_len, so its default "
                     f"{Y_TRAINER_MAX_SEQ_LEN}: samples up to that length are trained whole (a longer one is dropped), "
                     f"counted at it (the worst case)")
    gc = names.get("enable_gradit_checkpoing")
    if gc is not None and "disable_gradient_checkpointing" not in out:
        on = str(flags[gc][0]).strip("'\"").lower() == "true"
        out["disable_gradient_checkpointing"] = Setting("disable_gradient_checkpointing", not on, file, flags[gc][1],
                                                        gc, "flag", True)
        notes.append(f"--{gc} (y-trainer's spelling) read as gradient checkpointing {'on' if on else 'off'}")


# a training program that trains LoRA only, by its name (FastChat fastchat/train/train_lora.py, `finetune_lora.py`,
# `train_qlora.py`): its --lora_r is the adapter's rank, with no switch to turn LoRA on
LORA_PROGRAM = re.compile(r"(?:^|[_\-/])q?lora(?:[_\-.]|$)", re.IGNORECASE)
QLORA_PROGRAM = re.compile(r"(?:^|[_\-/])qlora(?:[_\-.]|$)", re.IGNORECASE)


def lora_by_program(entry: str, out: dict, file: str, notes: list[str]) -> None:
    """The method from the program's name when no flag states it (said)."""
    name = os.path.basename(entry.split()[-1]) if entry else ""
    if "finetuning_type" in out or not name.endswith(".py") or not LORA_PROGRAM.search(name):
        return
    out["finetuning_type"] = Setting("finetuning_type", "lora", file, None, name, "flag")
    notes.append(f"{name}: a LoRA training program by its name (LoRA with its --lora_r), read as LoRA")
    if QLORA_PROGRAM.search(name) and "quantization_bit" not in out:
        # artidoro/qlora qlora.py (`bits: int = 4`), yangjianxin1/Firefly train_qlora.py
        # (BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4")): the 4-bit base is the program's own
        out["quantization_bit"] = Setting("quantization_bit", 4, file, None, name, "assumed")
        notes.append(f"{name}: a QLoRA program by its name: 4-bit NF4 base weights (as qlora.py and Firefly's "
                     f"train_qlora.py load them)")


def _peft_script(flags: dict[str, tuple[str, int]], out: dict, notes: list[str], file: str) -> None:
    """ymcui/Chinese-LLaMA-Alpaca(-2)'s run_clm_(sft_with_)pt/peft.py and the scripts copying them: LoRA on
    `--trainable` (comma separated, `LoraConfig(target_modules=training_args.trainable.split(','))`) with
    `--lora_rank` and `--modules_to_save`, switched off only by `--full_finetuning` (`--enable_peft` in some copies)."""
    if "lora_rank" not in out or "finetuning_type" in out:
        return
    for switch, on_means_lora in (("full_finetuning", False), ("enable_peft", True)):
        if switch in flags and as_bool(flags[switch][0]) is not None:
            lora = as_bool(flags[switch][0]) == on_means_lora
            out["finetuning_type"] = Setting("finetuning_type", "lora" if lora else "full", file, flags[switch][1],
                                             switch, "flag")
            return
    if "trainable" in flags and "lora_target" not in out:
        v, line = flags["trainable"]
        out["lora_target"] = Setting("lora_target", str(v), file, line, "trainable", "flag")
    if "lora_target" in out or "additional_target" in out:
        s = out["lora_rank"]
        out["finetuning_type"] = Setting("finetuning_type", "lora", file, s.line, s.native, "flag")
        notes.append("--lora_rank with LoRA targets (--trainable/--target_modules) or --modules_to_save and no method "
                     "switch read as LoRA")


def _ds_chat_defaults(flags: dict[str, tuple[str, int]], out: dict[str, Setting], notes: list[str], file: str) -> None:
    """DeepSpeed-Chat's main.py defaults the launch leaves (profiles/ds_chat.py): --max_seq_len 512, --dtype fp16,
    batch 16; --lora_dim trains the adapters alone only with --only_optimize_lora."""
    out["__ds_chat__"] = Setting("__ds_chat__", True, file, flags["zero_stage"][1], "zero_stage", "flag")
    if "cutoff_len" not in out:
        out["cutoff_len"] = Setting("cutoff_len", ds_chat.MAX_SEQ_LEN, file, None, "max_seq_len (main.py default)",
                                    "default")
        notes.append(f"DeepSpeed-Chat main.py: --max_seq_len not given, its default {ds_chat.MAX_SEQ_LEN} "
                     f"({ds_chat.DS_CHAT_SOURCE})")
    if ds_chat.YI_MARKER in flags and "flash_attn" not in out:
        out["flash_attn"] = Setting("flash_attn", "eager", file, flags[ds_chat.YI_MARKER][1], ds_chat.YI_MARKER,
                                    "assumed")
        notes.append(f"Yi's DeepSpeed-Chat main (--{ds_chat.YI_MARKER}): eager attention, its fp32 softmax scores "
                     f"({ds_chat.YI_SOURCE})")
    if "per_device_train_batch_size" not in out:
        out["per_device_train_batch_size"] = Setting("per_device_train_batch_size", ds_chat.BATCH, file, None,
                                                     "per_device_train_batch_size (main.py default)", "default")
    if out.get("finetuning_type") is not None and out["finetuning_type"].value == "lora" \
            and "only_optimize_lora" not in flags:
        out["finetuning_type"] = Setting("finetuning_type", "full", file, out["finetuning_type"].line, "lora_dim",
                                         "flag")
        notes.append("DeepSpeed-Chat --lora_dim without --only_optimize_lora: the adapters are added and every base "
                     "weight still trains (counted as full fine-tuning)")
    if not any(k in out for k in ("bf16", "fp16", "pure_fp32")):
        dtype = str(flags.get("dtype", (ds_chat.DTYPE, 0))[0]).strip("'\"").lower()
        key = "bf16" if dtype == "bf16" else "fp16"
        out[key] = Setting(key, True, file, flags["dtype"][1] if "dtype" in flags else None,
                           "dtype" if "dtype" in flags else "dtype (main.py default)",
                           "flag" if "dtype" in flags else "default")
        if "dtype" not in flags:
            notes.append(f"DeepSpeed-Chat main.py: --dtype not given, its default {ds_chat.DTYPE} (the DeepSpeed config "
                         f"it writes: fp16 enabled)")


def _lora_dim_on(out: dict) -> bool:
    """DeepSpeed-Chat's --lora_dim N > 0 is what turns LoRA on (no separate switch)."""
    s = out.get("lora_rank")
    if s is None or s.native != "lora_dim":
        return False
    try:
        return int(float(str(s.value))) > 0
    except (ValueError, OverflowError):  # "--lora_dim inf"
        return False


# ------------------------------------------------------------------------------------------- Python source
# A training program that builds its arguments in code (a notebook or blog script): the literal keyword values of
# the calls that decide memory are read with `ast` (nothing is executed), and every default we fill is stated.
ARG_CALLS = ("TrainingArguments", "Seq2SeqTrainingArguments", "SFTConfig", "DPOConfig", "ORPOConfig", "GRPOConfig",
             "KTOConfig", "CPOConfig", "RewardConfig", "PPOConfig", "GKDConfig")
# peft/utils/constants.py TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING: LoraConfig without target_modules
PEFT_DEFAULT_TARGETS = {"llama": "q_proj,v_proj", "mistral": "q_proj,v_proj", "qwen2": "q_proj,v_proj",
                        "gemma": "q_proj,v_proj", "gemma2": "q_proj,v_proj", "phi3": "qkv_proj",
                        "deberta-v2": "query_proj,value_proj"}
# the calls that put a LoraConfig on the model (peft mapping.get_peft_model, PeftModel(...) /
# PeftModel.from_pretrained, transformers' PeftAdapterMixin.add_adapter, peft inject_adapter_in_model, Unsloth's
# FastLanguageModel.get_peft_model); a trainer's peft_config= keyword is read beside them
PEFT_APPLY = ("get_peft_model", "PeftModel", "PeftModelForCausalLM", "add_adapter", "inject_adapter_in_model")
NOT_MODELLED_LIBS = {"unsloth": "unsloth patches attention, the loss and gradient checkpointing (activations "
                                "offloaded to the host) with its own kernels"}


# from_pretrained(torch_dtype=...|dtype=...) -> the dtype the weights are loaded in
_DTYPES = {"bfloat16": "bf16", "bf16": "bf16", "float16": "fp16", "half": "fp16", "fp16": "fp16",
           "float32": "fp32", "float": "fp32", "fp32": "fp32"}


# keys only LLaMA-Factory's argument dataclasses have (FinetuningArguments / DataArguments): a dict that holds one of
# them beside model_name_or_path is LLaMA-Factory's argument set
LF_ONLY_KEYS = ("finetuning_type", "stage", "template", "lora_target", "cutoff_len", "dataset_dir")


def lf_args_dict(text: str, file: str) -> tuple[dict[str, tuple[object, int]], str, int] | None:
    """LLaMA-Factory driven from Python: ``run_exp(dict(...))`` (llamafactory.train.tuner.run_exp(args: dict)), the
    README's ``args = dict(...)`` before it, or a fork's wrapper (DB-GPT-Hub ``start_sft(train_args)``): the literal
    keys of that dict with their lines, the call's name and line; None when there is no such call."""
    import ast

    from rocm_tune.core.errors import UserError
    from rocm_tune.core.files import parse_python
    from rocm_tune.core.formats.pyargs import dict_pairs

    try:
        tree = parse_python(text, file, "Python program")
    except UserError as exc:
        if "is not valid Python" in str(exc):
            return None
        raise
    bound: dict[str, ast.AST] = {}
    for n in ast.walk(tree):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            bound[n.targets[0].id] = n.value

    for c in (n for n in ast.walk(tree) if isinstance(n, ast.Call)):
        for arg in [*c.args[:1], *(kw.value for kw in c.keywords if kw.arg == "args")]:
            kv = dict_pairs(arg, bound)
            keys = {k for k, _ in kv or ()}
            if kv and "model_name_or_path" in keys and keys & set(LF_ONLY_KEYS):
                out = {k: (v, getattr(node, "lineno", c.lineno)) for k, node in kv
                       if (v := py_value(node)) is not None}
                return out, _name(c.func) or "a call", c.lineno
    return None


def python_program(text: str) -> str | None:
    """Why a Python training program cannot be modelled (a library we do not model), or None."""
    for lib, why in NOT_MODELLED_LIBS.items():
        if f"from {lib} import" in text or f"import {lib}" in text:
            return why
    return None


def without_shell_lines(lines: list[str]) -> list[str]:
    """A cell's lines with IPython's shell (`!pip ...`) and magic (`%cd`, `%%capture`) lines made `pass` at their own
    indentation (an `if "COLAB_" not in ...:` whose body is `!pip install unsloth` stays a valid block), with the
    lines a trailing backslash continues."""
    out: list[str] = []
    going = False
    for ln in lines:
        if going or ln.lstrip().startswith(("!", "%")):
            indent = ln[:len(ln) - len(ln.lstrip())]
            out.append(("# " + ln) if going else f"{indent}pass  # {ln.lstrip()}")
            going = ln.rstrip().endswith("\\")
        else:
            out.append(ln)
    return out


def without_bare_shell_lines(text: str, tries: int = 20) -> str:
    """The program with each line Python cannot parse that starts with a command-line program's name
    (runner_commands.NOTEBOOK_SHELL_WORDS: `huggingface-cli download ...` left in a notebook's script without its
    `!`) made `pass`, one syntax error at a time; the text unchanged when an error lies on any other line."""
    import ast

    from rocm_tune.profiles.runner_commands import NOTEBOOK_SHELL_WORDS

    lines = text.splitlines()
    for _ in range(tries):
        try:
            ast.parse("\n".join(lines))
            return "\n".join(lines)
        except (SyntaxError, ValueError) as exc:
            i = (getattr(exc, "lineno", None) or 0) - 1
            if not 0 <= i < len(lines):
                return text
            word = lines[i].lstrip().split(" ", 1)[0]
            if word not in NOTEBOOK_SHELL_WORDS:
                return text
            indent = lines[i][:len(lines[i]) - len(lines[i].lstrip())]
            lines[i] = f"{indent}pass  # {lines[i].lstrip()}"
    return text


def read_python(text: str, file: str, configs: dict | None = None) -> tuple[dict[str, Setting], list[str]] | None:
    """Settings from a Python training program's literal call arguments, or None when it has no
    TrainingArguments-like call (or does not parse)."""
    import ast

    from rocm_tune.core.errors import UserError
    from rocm_tune.core.files import parse_python

    def parse(src: str):
        try:   # files.parse_python's limits: nesting, size; a syntax error is "no Python program"
            return parse_python(src, file, "Python program")
        except UserError as exc:
            if "is not valid Python" in str(exc):
                return None
            raise

    tree = parse(text)
    if tree is None:
        # notebook cells pasted as a script: IPython's `!shell` and `%magic` lines are no Python, nor a shell
        # cell's command kept without its `!`
        text = "\n".join(without_shell_lines(text.splitlines()))
        text = without_bare_shell_lines(text)
        tree = parse(text)
        if tree is None:
            return None
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)]
    names = program_names(tree, configs)
    loaded = names.pop("__notes__", [])
    read = _read_python_calls(tree, calls, names, file, text)
    if read is None and configs is not None and configs.get("modules"):
        read = _read_own_modules(tree, file, text, configs["modules"])
    if read is not None and loaded:
        read[1].extend(loaded)
    return read


def _own_modules(tree, modules: dict[str, str]) -> list[str]:
    """The given Python files the program imports as its own modules (`from config import Config`, `import
    config`, `from .model import LlamaLoraModel`): a module is named by its file's stem."""
    import ast

    stems = {os.path.splitext(os.path.basename(q))[0]: q for q in modules}
    got: list[str] = []
    for n in ast.walk(tree):
        mods = [a.name for a in n.names] if isinstance(n, ast.Import) else \
            [n.module or ""] if isinstance(n, ast.ImportFrom) else []
        for m in mods:
            q = stems.get(m.split(".")[-1]) if m else None
            if q is not None and q not in got:
                got.append(q)
    return got


def _read_own_modules(tree, file: str, text: str,
                      modules: dict[str, str]) -> tuple[dict[str, Setting], list[str]] | None:
    """A program whose settings live in a module of its own (`class Config: base_model = "..."; batch_size = 8`
    in config.py, read as `Config.base_model`) and which builds its model in another (model.py:
    `get_peft_model(LlamaForCausalLM.from_pretrained(Config.base_model, ...), LoraConfig(...))`): the first
    imported module whose assignments name the model and a batch or length gives the settings, and every imported
    module's unconditional model/LoRA/quantization calls fill the rest, each under its own file."""

    from rocm_tune.core.files import parse_python

    trees: dict[str, object] = {}
    for q in _own_modules(tree, modules):
        try:
            trees[q] = parse_python(modules[q], q, "Python program")
        except UserError:
            continue
    read = None
    for q, t in trees.items():
        read = _read_assignments(t, program_names(t), q, modules[q])
        if read is not None:
            read[1][0] = read[1][0].replace("Python program without", f"{file} imports its own {q}, a module without")
            break
    if read is None:
        return None
    read[0].pop("save_strategy", None)   # the loop that saves is the program's, not its config module's
    _own_loop(tree, text, read[0], file)
    for q, t in trees.items():
        _merge_code_calls(_unconditional_calls(t), program_names(t), read, q)
    return read


def _read_python_calls(tree, calls: list, names: dict, file: str, text: str) -> tuple[dict[str, Setting], list[str]] | None:
    """read_python over the program's parsed tree and the names it binds."""

    args = [c for c in calls if _name(c.func) in ARG_CALLS]
    if not args and any(_unsloth_owner(c) for c in calls if _name(c.func) == "from_pretrained"):
        return _read_unsloth_program(calls, names, file)
    if not args:
        read = _read_assignments(tree, names, file, text)
        if read is not None:
            _merge_code_calls(_unconditional_calls(tree), names, read, file)
        if read is not None and "stage" not in read[0]:
            _imported_trainer(tree, read[0], read[1], file)
        elif read is None:
            found: dict[str, Setting] = {}
            more: list[str] = []
            _imported_trainer(tree, found, more, file)
            read = (found, more) if found else None
        kbit = _kbit_prepared(calls, file)
        if kbit is not None:
            read = read or ({}, [])
            read[0].setdefault("kbit_fp32", kbit)
        return read
    flags: dict[str, tuple[str, int]] = {}
    for c in args:
        for kw in c.keywords:
            v = py_value(kw.value, names)
            if kw.arg and v is not None:
                flags[kw.arg] = (str(v), kw.value.lineno)
    notes = [(f"Python program: the literal arguments of {_name(args[0].func)}(...) (line {args[0].lineno}) and of "
              f"the model, LoRA and trainer calls are read; nothing is executed")]
    out, more = read_flags(flags, file)
    notes += more

    calls = _trained_calls(tree, calls, names, out, notes, file)
    _call_settings(calls, names, out, notes, file)
    for k, v in heads.program_head(calls, names, file).items():
        out.setdefault(k, v)
    stage = next((TRL_STAGES[_name(c.func)] for c in calls if _name(c.func) in TRL_STAGES), None)
    if stage and "stage" not in out:
        out["stage"] = Setting("stage", stage, file, args[0].lineno, _name(args[0].func), "flag")
    elif "stage" not in out:
        _imported_trainer(tree, out, notes, file)
    if "finetuning_type" not in out:
        out["finetuning_type"] = Setting("finetuning_type", "full", file, args[0].lineno, ARG_CALLS[0], "flag")
    return out, notes


def _unconditional_calls(tree) -> list:
    """The program's calls that run whatever its flags say: a call under an `if` (`if args.use_lora:
    model = get_peft_model(model, LoraConfig(...))`) runs only when a flag the files may not set is on, so it is
    left out; the `if __name__ == "__main__":` guard is no condition."""
    import ast

    def main_guard(test) -> bool:
        sides = [test.left, *test.comparators] if isinstance(test, ast.Compare) else []
        return any(isinstance(x, ast.Name) and x.id == "__name__" for x in sides)   # either order

    out: list = []

    def visit(node, guarded: bool) -> None:
        if isinstance(node, ast.Call) and not guarded:
            out.append(node)
        for child in ast.iter_child_nodes(node):
            inner = guarded or (isinstance(node, (ast.If, ast.IfExp)) and child is not node.test
                                and not main_guard(node.test))
            visit(child, inner)

    visit(tree, False)
    return out


def _merge_code_calls(calls: list, names: dict, read: tuple[dict[str, Setting], list[str]], file: str) -> None:
    """A program read by its assignments (its own training loop, no TrainingArguments) still builds its model in
    code: from_pretrained(torch_dtype=..., quantization_config=BitsAndBytesConfig(load_in_4bit=...)) and
    get_peft_model(model, LoraConfig(...)) (PEFT's own README loop) say the method, the bits, the dtype and the head. Those
    calls' literal keywords fill what the assignments left unsaid; LoraConfig replaces the "no LoRA setting" full."""
    found: dict[str, Setting] = {}
    _call_settings(calls, names, found, [], file)
    if not any(_name(c.func) in PEFT_APPLY or any(k.arg == "peft_config" for k in c.keywords) for c in calls):
        # a LoraConfig no call applies (`# model = get_peft_model(model, config)` commented out): full training
        for k in [k for k, v in found.items() if k.startswith("lora_") or v.native == "LoraConfig"]:
            del found[k]
    for k, v in heads.program_head(calls, names, file).items():
        found.setdefault(k, v)
    out = read[0]
    fallback = out.get("finetuning_type")
    if fallback is not None and fallback.line is None and "finetuning_type" in found:
        del out["finetuning_type"]
    said = [k for k in found if k not in out]
    for k in said:
        out[k] = found[k]
    if said:
        read[1].append("the program's model, quantization and LoRA calls read: " + ", ".join(
            f"{found[k].native} -> {k}" for k in said))


def _kbit_prepared(calls: list, file: str) -> Setting | None:
    """PEFT's prepare_model_for_kbit_training (src/peft/utils/other.py, from v0.4.0 where the function took this name;
    its predecessor prepare_model_for_int8_training cast nothing before v0.3.0, so that name says no release) "cast
    all non INT8 parameters to fp32": every fp16/bf16 weight bitsandbytes left unquantised (embeddings, lm_head, norms)
    and, on an unquantised model, every weight; the hidden states then flow in fp32 from the fp32 embedding."""
    c = next((c for c in calls if _name(c.func) == "prepare_model_for_kbit_training"), None)
    return None if c is None else Setting("kbit_fp32", True, file, c.lineno, "prepare_model_for_kbit_training", "flag")


def program_bounds(text: str, file: str) -> dict[str, Setting]:
    """What the program's code says of its length cap and per-rank batch (core/runners/program_bounds.py): the
    truncating tokenizer's max_length, a global batch divided by the world size. {} when neither (or no Python)."""
    from rocm_tune.core.files import parse_python
    from rocm_tune.core.runners import program_bounds as pb

    for src in (text, "\n".join(without_shell_lines(text.splitlines()))):
        try:
            tree = parse_python(src, file, "Python program")
        except UserError:
            continue
        return pb.read(tree, program_names(tree), file)[0]
    return {}


def _imported_trainer(tree, out: dict, notes: list[str], file: str) -> None:
    """A program that builds its trainer in a helper of another file (`trainer = get_local_dpo_trainer(...)`) still
    imports the one TRL trainer class it uses: `from trl import DPOTrainer` names the stage when it is the only
    trainer class imported (TRL's trainers are its classes *Trainer; SFTTrainer names the default stage)."""
    import ast

    got = {a.name: n.lineno for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and (n.module or "").split(".")[0]
           == "trl" for a in n.names if a.name.endswith("Trainer")}
    if len(got) != 1:
        return
    (cls, line), = got.items()
    if cls in TRL_STAGES:
        out["stage"] = Setting("stage", TRL_STAGES[cls], file, line, cls, "flag")
        notes.append(f"stage {TRL_STAGES[cls]}: the program imports TRL's {cls} (its only trainer class), built "
                     f"outside the files read")


def _call_settings(calls: list, names: dict, out: dict, notes: list[str], file: str) -> None:
    """The model's from_pretrained, BitsAndBytesConfig, LoraConfig and the trainer's own keywords -> settings."""

    def put(key, value, native, line):
        out[key] = Setting(key, value, file, line, native, "flag")

    for c in calls:
        name = _name(c.func)
        kws = {kw.arg: (py_value(kw.value, names), kw.value.lineno) for kw in c.keywords if kw.arg}
        owner = _name(c.func.value) if name == "from_pretrained" and hasattr(c.func, "value") else ""
        if name == "from_pretrained" and any(w in owner for w in ("Tokenizer", "Processor", "Config")):
            continue                                   # the tokenizer's from_pretrained is not the model's
        _config_model_call(name, c, put, out, notes, names)
        _model_call(name, c, kws, owner, put, out, notes, names)
        if name in ("from_pretrained", "BitsAndBytesConfig"):
            for k, bits in (("load_in_4bit", 4), ("load_in_8bit", 8)):
                if kws.get(k, (None, 0))[0] is True:
                    put("quantization_bit", bits, k, kws[k][1])
        if name == "from_pretrained" and _unsloth_owner(c) and "quantization_bit" not in out and not any(
                k in kws for k in ("load_in_4bit", "load_in_8bit", "load_in_16bit", "full_finetuning")):
            # Unsloth's Fast*Model.from_pretrained(load_in_4bit=True) by default (UNSLOTH_LOADER)
            put("quantization_bit", 4, "load_in_4bit", c.lineno)
            notes.append(f"line {c.lineno}: {_name(c.func.value)}.from_pretrained without load_in_4bit: Unsloth loads "
                         f"the base in 4 bits by default ({UNSLOTH_LOADER})")
        if name == "from_pretrained" and _unsloth_owner(c):
            put("__unsloth_loader__", _name(c.func.value), "from_pretrained", c.lineno)
        if name == "from_pretrained" and _unsloth_owner(c) and kws.get("fast_inference", (None, 0))[0] is True:
            # fast_inference=True: a vLLM engine inside the training process (unsloth_zoo vllm_utils load_vllm) that
            # takes gpu_memory_utilization of the GPU (0.5 by default); its generations feed GRPO (trl's colocate)
            line = kws["fast_inference"][1]
            put("use_vllm", True, "fast_inference", line)
            put("vllm_mode", "colocate", "fast_inference", line)
            util = kws.get("gpu_memory_utilization", (0.5, line))
            put("vllm_gpu_memory_utilization", util[0], "gpu_memory_utilization", util[1])
        if name == "from_pretrained" and _unsloth_owner(c) and kws.get("qat_scheme", (None, 0))[0] is not None:
            put("__unsloth_qat__", str(kws["qat_scheme"][0]), "qat_scheme", kws["qat_scheme"][1])  # core/runners/unsloth
        if name == "from_pretrained" and _unsloth_owner(c) and kws.get("unsloth_tiled_mlp", (None, 0))[0] is True:
            put("unsloth_tiled_mlp", True, "unsloth_tiled_mlp", kws["unsloth_tiled_mlp"][1])   # core/runners/unsloth
        if name == "from_pretrained" and _unsloth_owner(c) and kws.get("full_finetuning", (None, 0))[0] is True:
            put("finetuning_type", "full", "full_finetuning", kws["full_finetuning"][1])
            put("__unsloth_full__", True, "full_finetuning", kws["full_finetuning"][1])     # core/runners/unsloth
        _adapter_call(name, c, kws, put, out)
        _trainer_call(name, c, kws, put, out, notes)
        _eval_outputs_call(name, c, kws, owner, put)


_BUILT_MODEL_CLASS = re.compile(r"[A-Z]\w*(?:For[A-Z]\w*|Model|LMHeadModel)$")


def _config_model_call(name: str, c, put, out: dict, notes: list[str], names: dict) -> None:
    """A model built from a named config, not loaded: `BertForPreTraining(BertConfig.from_pretrained("bert-base-
    cased"))` or `AutoModelForCausalLM.from_config(AutoConfig.from_pretrained(id))` (transformers: the config's
    architecture, new weights in torch's default dtype fp32, every weight trained)."""
    import ast

    if "model_name_or_path" in out or not c.args or not isinstance(c.args[0], ast.Call):
        return
    inner = c.args[0]
    if _name(inner.func) != "from_pretrained" or "Config" not in _name(getattr(inner.func, "value", None)) \
            or not (name == "from_config" or _BUILT_MODEL_CLASS.fullmatch(name)):
        return
    ref = py_value(inner.args[0], names) if inner.args else None
    if not isinstance(ref, str) or not ref.strip():
        return
    owner = _name(getattr(inner.func, "value", None))
    put("model_name_or_path", ref, f"{name}({owner}.from_pretrained)", c.lineno)
    put("load_dtype", "fp32", name, c.lineno)
    put("finetuning_type", "full", name, c.lineno)
    notes.append(f"line {c.lineno}: {name}({owner}.from_pretrained({ref!r})): the model built "
                 f"from {ref}'s config with new fp32 weights (trained from scratch, every weight)")


def _downloaded_model(var: str, names: dict, line: int, notes: list[str]) -> str | None:
    """from_pretrained(LOCAL_DIR) where LOCAL_DIR is not computed here (`snapshot_download(MODEL_ID)` of the hub or
    ModelScope, or a notebook cell not kept): the one hub id of a sized model the file binds to a name that says
    model (`MODEL_ID = "org/Name-7B"`) is the checkpoint downloaded; several or none: not guessed."""
    ids = {v for k, v in names.items() if "model" in str(k).lower() and isinstance(v, str)
           and re.fullmatch(r"[\w.-]+/[\w.-]+", v.strip()) and names_a_model(v)}
    if len(ids) != 1:
        return None
    got = next(iter(ids))
    notes.append(f"line {line}: from_pretrained({var}): {var} is not set in the file; the one model id it names, "
                 f"{got}, read as the checkpoint it loads (a download of it)")
    return got


def _trained_calls(tree, calls: list, names: dict, out: dict, notes: list[str], file: str) -> list:
    """The calls read for the model: where the program's Trainer gets a model followed back to one load
    (core/runners/trained_model.py), the other models' from_pretrained calls (a judge, a baseline, the result
    reloaded for inference) are left out; a hub id given to the Trainer itself is the model."""
    from rocm_tune.core.runners import trained_model

    got = trained_model.trained_model(tree, names)
    if got is None:
        return calls
    others = [c for c in calls if c is not got and trained_model.is_model_load(c)]
    if isinstance(got, str) and "model_name_or_path" not in out:
        line = next((c.lineno for c in calls if _name(c.func).endswith("Trainer")), None)
        out["model_name_or_path"] = Setting("model_name_or_path", got, file, line, "Trainer(model=...)", "flag")
    if others:
        notes.append(f"the Trainer trains {got if isinstance(got, str) else 'the model of line ' + str(got.lineno)}"
                     f": the other from_pretrained call(s) (line {', '.join(str(c.lineno) for c in others)}) load "
                     f"models it does not train")
    return [c for c in calls if c not in others]


def _quantized_load(c) -> bool:
    """from_pretrained(..., quantization_config=<a BitsAndBytesConfig>) or load_in_4bit=/load_in_8bit=True."""
    for kw in c.keywords:
        if kw.arg == "quantization_config" and not (isinstance(kw.value, ast.Constant) and kw.value.value is None):
            return True
        if kw.arg in ("load_in_4bit", "load_in_8bit") and isinstance(kw.value, ast.Constant) \
                and kw.value.value is True:
            return True
    return False


def _model_call(name: str, c, kws: dict, owner: str, put, out: dict, notes: list[str], names: dict) -> None:
    """The model's from_pretrained: its name, the dtype the weights load in, device_map, attention, Unsloth's
    max_seq_length."""
    if name == "from_pretrained" and "model_name_or_path" not in out:
        first = py_value(c.args[0], names) if c.args else (kws.get("pretrained_model_name_or_path")
                                                            or kws.get("model_name") or (None, 0))[0]
        if first is None and c.args and isinstance(c.args[0], ast.Name):
            first = _downloaded_model(c.args[0].id, names, c.lineno, notes)
        if isinstance(first, str) and ("/" in first or "\\" in first):     # a hub id or a path (Windows too)
            put("model_name_or_path", first, "from_pretrained", c.lineno)
            dtype = kws.get("torch_dtype") or kws.get("dtype")
            if dtype is not None and dtype[0] is None:      # `dtype = None` (Unsloth's notebooks): as not given
                dtype = None
            if dtype is None and owner.startswith("Fast"):
                # Unsloth's FastLanguageModel / FastVisionModel / FastModel.from_pretrained(dtype=None): bfloat16
                # where the GPU has it (unslothai/unsloth unsloth/models/loader.py, llama.py)
                put("load_dtype", "bf16", "from_pretrained", c.lineno)
                notes.append(f"line {c.lineno}: Unsloth's {owner}.from_pretrained without dtype loads the "
                             f"weights in bfloat16")
            elif dtype is None and _quantized_load(c):
                # transformers 4.x quantizers (quantizer_bnb_4bit.py / quantizer_bnb_8bit.py update_torch_dtype):
                # "Overriding torch_dtype=None with `torch_dtype=torch.float16` due to requirements of
                # `bitsandbytes`": the weights left unquantized (embeddings, norms, lm_head) load in fp16
                put("load_dtype", "fp16", "from_pretrained", c.lineno)
                notes.append(f"line {c.lineno}: from_pretrained of a quantized model without torch_dtype: "
                             f"transformers sets float16 for bitsandbytes (quantizer update_torch_dtype)")
            elif dtype is None:
                put("load_dtype", "fp32", "from_pretrained", c.lineno)
                notes.append(f"line {c.lineno}: from_pretrained without torch_dtype loads the weights in fp32 "
                             f"(transformers < 5)")
            elif _DTYPES.get(str(dtype[0]).lower().removeprefix("torch.")):
                # an explicit dtype (torch_dtype=, or dtype= since transformers 4.56) is what the frozen weights
                # take, whatever the checkpoint stores (an MXFP4 / fp32 checkpoint loaded as bfloat16)
                put("load_dtype", _DTYPES[str(dtype[0]).lower().removeprefix("torch.")],
                    "dtype" if "dtype" in kws and "torch_dtype" not in kws else "torch_dtype", dtype[1])
    if name == "from_pretrained" and isinstance(kws.get("device_map", (None, 0))[0], str) \
            and str(kws["device_map"][0]).lower() in ("auto", "balanced", "balanced_low_0", "sequential"):
        put("device_map", str(kws["device_map"][0]).lower(), "device_map", kws["device_map"][1])
        notes.append(f'line {kws["device_map"][1]}: device_map="{kws["device_map"][0]}": one process, the '
                     f'layers split over the visible GPUs (no DDP): each GPU holds its share of the weights')
    if name == "from_pretrained" and kws.get("attn_implementation", (None, 0))[0]:
        put("flash_attn", str(kws["attn_implementation"][0]), "attn_implementation",
            kws["attn_implementation"][1])
    if name == "from_pretrained" and isinstance(kws.get("max_seq_length", (None, 0))[0], int) \
            and "cutoff_len" not in out:      # Unsloth's FastLanguageModel/FastVisionModel.from_pretrained
        put("cutoff_len", kws["max_seq_length"][0], "max_seq_length", kws["max_seq_length"][1])


UNSLOTH_LOADER = "unslothai/unsloth:unsloth/models/loader.py (FastLanguageModel.from_pretrained load_in_4bit=True)"
UNSLOTH_PEFT = ("unslothai/unsloth:unsloth/models/llama.py (FastLlamaModel.get_peft_model: r=16, target_modules = the "
                "7 projections, lora_alpha=16, use_gradient_checkpointing=\"unsloth\")")


def _unsloth_owner(c) -> bool:
    """`FastLanguageModel.x(...)`, `FastVisionModel.x(...)`, `FastModel.x(...)`: Unsloth's loader classes."""
    import ast

    return isinstance(c.func, ast.Attribute) and _name(c.func.value).startswith("Fast") and \
        _name(c.func.value).endswith("Model")


def _read_unsloth_program(calls: list, names: dict, file: str) -> tuple[dict[str, Setting], list[str]]:
    """An Unsloth program with no TrainingArguments/SFTConfig call in the text given (a notebook or a script cut
    before its trainer): what its calls load, LoRA with get_peft_model's defaults where that call is absent or
    leaves them out; the batch is then transformers' default (said by check)."""
    out: dict[str, Setting] = {}
    notes = [f"{file}: an Unsloth program; no TrainingArguments/SFTConfig call in it: the trainer's batch is not "
             f"in the text given (transformers' default applies)"]
    _call_settings(calls, names, out, notes, file)
    # the trainer's batch is not in the text: an estimate of Unsloth's kernels at transformers' default batch would
    # decide nothing (core/runners/unsloth.py keeps the upper bound)
    out["__no_trainer_args__"] = Setting("__no_trainer_args__", True, file, None, "TrainingArguments", "default")
    peft = next((c for c in calls if _name(c.func) == "get_peft_model" and _unsloth_owner(c)), None)
    if "finetuning_type" not in out:
        line = peft.lineno if peft is not None else None
        out["finetuning_type"] = Setting("finetuning_type", "lora", file, line, "get_peft_model", "default")
        out.setdefault("lora_rank", Setting("lora_rank", 16, file, line, "r", "default"))
        out.setdefault("lora_target", Setting("lora_target", "all", file, line, "target_modules", "default"))
        notes.append(("get_peft_model(...) without r: " if peft is not None else
                      "no get_peft_model call in the text given: ") + f"LoRA r=16 on every projection ({UNSLOTH_PEFT})")
    if "disable_gradient_checkpointing" not in out and out["finetuning_type"].value == "lora":
        out["disable_gradient_checkpointing"] = Setting("disable_gradient_checkpointing", False, file, None,
                                                        "use_gradient_checkpointing", "default", True)
        out["use_unsloth_gc"] = Setting("use_unsloth_gc", True, file, None, "use_gradient_checkpointing", "default")
    return out, notes


def _adapter_call(name: str, c, kws: dict, put, out: dict) -> None:
    """Checkpointing switches (PEFT's kbit preparation, Unsloth's get_peft_model) and the LoRA settings."""
    gc = kws.get("use_gradient_checkpointing", (None, 0))
    if name in ("get_peft_model", "prepare_model_for_kbit_training", "prepare_model_for_int8_training") and (
            gc[0] is not None or name.startswith("prepare")):
        # Unsloth's get_peft_model(use_gradient_checkpointing=True|"unsloth") and PEFT's
        # prepare_model_for_kbit_training (use_gradient_checkpointing=True by default; its old name
        # prepare_model_for_int8_training, peft <= 0.3 its own def with the same default, later an alias) turn it on;
        # "unsloth" also moves the checkpointed layer inputs to host memory (unsloth_zoo gradient_checkpointing)
        on = gc[0] if gc[0] is not None else True
        if on not in (False, "false", "False", None):
            put("disable_gradient_checkpointing", False, "use_gradient_checkpointing", gc[1] or c.lineno)
            out["disable_gradient_checkpointing"].invert = True
        if str(on).lower() == "unsloth":
            put("use_unsloth_gc", True, "use_gradient_checkpointing", gc[1] or c.lineno)
    if name == "prepare_model_for_kbit_training":
        put("kbit_fp32", True, name, c.lineno)      # _kbit_prepared
    if name == "gradient_checkpointing_enable":
        put("disable_gradient_checkpointing", False, "gradient_checkpointing_enable", c.lineno)
        out["disable_gradient_checkpointing"].invert = True
    if name == "get_peft_model" and _unsloth_owner(c) and gc[0] is None:
        # Unsloth's get_peft_model(use_gradient_checkpointing="unsloth") by default (UNSLOTH_PEFT)
        put("disable_gradient_checkpointing", False, "use_gradient_checkpointing", c.lineno)
        out["disable_gradient_checkpointing"].invert = True
        put("use_unsloth_gc", True, "use_gradient_checkpointing", c.lineno)
    if name == "get_peft_model" and _unsloth_owner(c) and out.get("__unsloth_full__") is not None:
        # from_pretrained(full_finetuning=True): Unsloth's get_peft_model returns the model untouched ("Full
        # finetuning is enabled, so .get_peft_model has no effect": unsloth/models/vision.py, llama.py)
        return
    if name == "get_peft_model" and _unsloth_owner(c) and not isinstance(kws.get("r", (None, 0))[0], int):
        put("finetuning_type", "lora", "get_peft_model", c.lineno)
        put("lora_rank", 16, "r", c.lineno)
        t = kws.get("target_modules", (None, 0))[0]
        put("lora_target", ",".join(map(str, t)) if isinstance(t, (list, tuple)) else "all", "target_modules",
            c.lineno)
    if name == "get_peft_model" and _unsloth_owner(c):
        # lora_dropout / bias decide whether Unsloth's LoRA autograd functions run (core/runners/unsloth.py)
        for k, key in (("lora_dropout", "lora_dropout"), ("bias", "lora_bias")):
            if isinstance(kws.get(k, (None, 0))[0], (int, float, str)) and not isinstance(kws[k][0], bool):
                put(key, kws[k][0], k, kws[k][1])
    if name == "get_peft_model" and isinstance(kws.get("r", (None, 0))[0], int):
        # Unsloth's FastLanguageModel.get_peft_model(model, r=..., target_modules=...): LoRA on every
        # projection unless target_modules says otherwise
        put("finetuning_type", "lora", "get_peft_model", c.lineno)
        put("lora_rank", kws["r"][0], "r", kws["r"][1])
        if isinstance(kws.get("lora_alpha", (None, 0))[0], int):
            put("lora_alpha", kws["lora_alpha"][0], "lora_alpha", kws["lora_alpha"][1])
        t = kws.get("target_modules", (None, 0))[0]
        put("lora_target", ",".join(map(str, t)) if isinstance(t, (list, tuple)) else "all",
            "target_modules", kws.get("target_modules", (None, c.lineno))[1])
    if name == "LoraConfig":
        put("finetuning_type", "lora", "LoraConfig", c.lineno)
        for k, key in (("r", "lora_rank"), ("lora_alpha", "lora_alpha")):
            if isinstance(kws.get(k, (None, 0))[0], int):
                put(key, kws[k][0], k, kws[k][1])
        mts = kws.get("modules_to_save", (None, 0))
        if isinstance(mts[0], (list, tuple, str)) and mts[0]:
            put("additional_target", ",".join(map(str, mts[0])) if not isinstance(mts[0], str) else mts[0],
                "modules_to_save", mts[1])
        t = kws.get("target_modules", (None, 0))[0]
        if isinstance(t, (list, tuple)):
            put("lora_target", ",".join(map(str, t)), "target_modules", kws["target_modules"][1])
        elif t in ("all-linear", "all"):
            put("lora_target", "all", "target_modules", kws["target_modules"][1])
        else:
            put("lora_target", "__peft_default__", "LoraConfig", c.lineno)


def _eval_outputs_call(name: str, c, kws: dict, owner: str, put) -> None:
    """What evaluation keeps besides the model (profiles/eval_phase.py): a task head's label count
    (`<Arch>ForSequenceClassification.from_pretrained(..., num_labels=N)`: logits of N per token, not the vocabulary)
    and a trainer call's compute_metrics / preprocess_logits_for_metrics (a keyword given and not None)."""
    import ast

    from rocm_tune.profiles.eval_phase import (DEFAULT_NUM_LABELS, FIXED_HEAD_OUTPUTS, METRICS_KEYWORDS, POOLED_HEADS,
                                               TASK_HEAD_CLASS)

    head = TASK_HEAD_CLASS.match(owner) if name == "from_pretrained" else None
    if head:
        labels = kws.get("num_labels", (None, c.lineno))
        n = FIXED_HEAD_OUTPUTS.get(head.group(1)) or (labels[0] if isinstance(labels[0], int) and labels[0] > 0
                                                       else DEFAULT_NUM_LABELS)
        put("__head_outputs__", n, f"{owner}.from_pretrained", c.lineno)
        put("__head_pooled__", head.group(1) in POOLED_HEADS, f"{owner}.from_pretrained", c.lineno)
    if name.endswith("Trainer"):
        for kw in c.keywords:
            if kw.arg in METRICS_KEYWORDS and not (isinstance(kw.value, ast.Constant) and kw.value.value is None):
                put(f"__{kw.arg}__", True, kw.arg, kw.value.lineno)


def _trainer_call(name: str, c, kws: dict, put, out: dict, notes: list[str]) -> None:
    """The sequence length a (SFT)Trainer call sets or TRL's default; the model a TRL trainer loads itself from the
    id it is given (`SFTTrainer(model="Qwen/Qwen2.5-0.5B", ...)`: trl sft_trainer.py / dpo_trainer.py / grpo_trainer.py
    `model: str | PreTrainedModel`, a string is loaded with from_pretrained)."""
    if (name == "SFTTrainer" or name in TRL_STAGES) and name.endswith("Trainer") and "model_name_or_path" not in out:
        ref, line = kws.get("model", (None, c.lineno))
        if ref is None and c.args:
            import ast
            ref, line = (c.args[0].value, c.args[0].lineno) if isinstance(c.args[0], ast.Constant) else (None, 0)
        if isinstance(ref, str) and ref.strip() and ("/" in ref or names_a_model(ref)):
            put("model_name_or_path", ref, f"{name}(model=)", line)
            notes.append(f"line {line}: {name} loads the model {ref!r} itself (TRL: model given as an id)")
    if name in ("SFTTrainer", "Trainer") and "max_seq_length" in kws and kws["max_seq_length"][0] is not None:
        put("cutoff_len", kws["max_seq_length"][0], "max_seq_length", kws["max_seq_length"][1])
        notes.append("SFTTrainer max_seq_length read as the sequence length (cutoff_len)")
    if name == "DPOTrainer" and kws.get("max_length", (None, 0))[0] is not None and "cutoff_len" not in out:
        # TRL before v0.12 takes max_length in DPOTrainer itself (trl/trainer/dpo_trainer.py v0.11: `if max_length
        # is not None: ... args.max_length = max_length`)
        put("cutoff_len", kws["max_length"][0], "max_length", kws["max_length"][1])
    if name == "SFTTrainer" and kws.get("packing", (None, 0))[0] is True:
        # TRL < 0.12 takes packing in SFTTrainer itself (trl/trainer/sft_trainer.py: packing=False): every sequence
        # is max_seq_length tokens of concatenated samples (ConstantLengthDataset)
        put("packing", True, "packing", kws["packing"][1])
    if name == "SFTTrainer" and "cutoff_len" not in out and "max_seq_length" not in kws:
        put("cutoff_len", 1024, "SFTTrainer", c.lineno)
        notes.append(f"line {c.lineno}: SFTTrainer without max_seq_length truncates at TRL's default "
                     f"min(model_max_length, 1024): 1024 assumed")


def python_cli_text(text: str, file: str) -> str | None:
    """The command-line words a Python launcher writes in its string literals (f-string fields filled from the
    module's constants and dataclass field defaults, an unresolved field left as a placeholder), joined; None when
    the source does not parse or has no `--flag` in its strings."""
    import ast

    from rocm_tune.core.errors import UserError
    from rocm_tune.core.files import parse_python

    try:
        tree = parse_python(text, file, "Python program")
    except UserError:
        return None
    consts: dict = {}
    for n in ast.walk(tree):            # NAME = "..." and dataclass fields `name: str = "..."`
        target = (n.targets[0] if isinstance(n, ast.Assign) and len(n.targets) == 1 else
                  n.target if isinstance(n, ast.AnnAssign) else None)
        value = getattr(n, "value", None)
        if isinstance(target, ast.Name) and isinstance(value, ast.Constant) \
                and isinstance(value.value, (str, int, float)) and not isinstance(value.value, bool):
            consts.setdefault(target.id, value.value)
    inner = {id(v) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for v in n.values}

    from rocm_tune.core.runners.values import py_value

    def field(node) -> str:
        name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else None
        if name in consts:
            return str(consts[name])
        v = py_value(node, consts)      # `{2 * TP}`, `{int(GBS / MBS)}` over the constants (core/runners/values)
        return "__unknown__" if v is None or isinstance(v, bool) else str(v)

    pieces = []
    for n in ast.walk(tree):
        if isinstance(n, ast.JoinedStr):
            pieces.append("".join(str(v.value) if isinstance(v, ast.Constant) else
                                  field(v.value) if isinstance(v, ast.FormattedValue) else "" for v in n.values))
        elif isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in inner \
                and n.value.lstrip().startswith("--"):
            pieces.append(n.value)
    joined = " ".join(p.strip() for p in pieces if p.strip().startswith("--"))
    return joined or None


def read_program_calls(text: str, file: str) -> tuple[dict[str, Setting], list[str]]:
    """The LoRA, quantization and trainer calls a program makes in code (LoraConfig, BitsAndBytesConfig,
    from_pretrained's keywords) when its TrainingArguments come from elsewhere (a recipe YAML it parses):
    read_python answers None for such a program, as it builds no TrainingArguments of its own."""
    import ast

    from rocm_tune.core.errors import UserError
    from rocm_tune.core.files import parse_python

    try:
        tree = parse_python(text, file, "Python program")
    except UserError:
        return {}, []
    names = module_names(tree, last_wins=True)
    out: dict[str, Setting] = {}
    notes: list[str] = []
    _call_settings([n for n in ast.walk(tree) if isinstance(n, ast.Call)], names, out, notes, file)
    return out, notes


# a training program's own config (a dataclass's field defaults, module-level constants): common names -> keys
_CONFIG_NAMES = {
    "model_name_or_path": ("model_name_or_path", "model_name", "base_model", "model_id", "model_path",
                           "pretrained_model_name_or_path"),
    "per_device_train_batch_size": ("per_device_train_batch_size", "batch_size", "micro_batch_size",
                                    "train_batch_size", "bsz"),
    "cutoff_len": ("cutoff_len", "max_seq_length", "max_sequence_length", "max_length", "seq_length",
                   "sequence_length", "max_seq_len", "model_max_length", "sequence_len", "block_size"),
    "gradient_accumulation_steps": ("gradient_accumulation_steps", "grad_accum", "gradient_accumulation"),
    "lora_rank": ("lora_rank", "lora_r"),
    "lora_alpha": ("lora_alpha",),
}


# a model the program builds itself from its dimensions (a config dataclass's defaults or a dict literal: nanoGPT,
# torchtitan ModelArgs, TransformerEngine examples): the names these dimensions go by -> config.json's keys
_DIMS = {"num_hidden_layers": ("n_layers", "n_layer", "num_layers", "num_hidden_layers"),
         "hidden_size": ("d_embd", "n_embd", "d_model", "dim", "hidden_size", "embed_dim"),
         "num_attention_heads": ("n_heads", "n_head", "num_heads", "num_attention_heads"),
         "num_key_value_heads": ("n_kv_heads", "num_kv_heads", "num_key_value_heads"),
         "intermediate_size": ("d_hid", "intermediate_size", "ffn_hidden_size", "ffn_dim"),
         "vocab_size": ("vocab_size",)}


def _dims_of(values: dict) -> dict | None:
    """config.json keys from a mapping of dimension names, when it has the layers, the width and the heads."""
    out = {}
    for key, aliases in _DIMS.items():
        v = next((values[a] for a in aliases if isinstance(values.get(a), int) and not isinstance(values[a], bool)),
                 None)
        if v is not None and 0 < v < 10**7:
            out[key] = v
    return out if {"num_hidden_layers", "hidden_size", "num_attention_heads"} <= set(out) else None


def program_shape(tree, names: dict, text: str) -> dict | None:
    """The dimensions of a model the program builds itself, as a config.json dict (gated SwiGLU MLP, a Llama-style
    decoder, when the program says swiglu/silu or its FFN width is not 4x the width; else GPT-2/NeoX's 4x GELU MLP),
    or None. Read from a dict literal with the dimensions (the last one), else from a class's field defaults."""
    import ast

    found = None
    for n in ast.walk(tree):
        if isinstance(n, ast.Dict):
            vals = {py_value(k): py_value(v, names) for k, v in zip(n.keys, n.values) if k is not None}
            found = _dims_of({k: v for k, v in vals.items() if isinstance(k, str)}) or found
    if found is None:
        found = _dims_of({k[2:]: v for k, v in names.items() if k.startswith("*.")})
    if found is None:
        return None
    h = found["hidden_size"]
    gated = bool(re.search(r"swiglu|silu|SwiGLU", text)) or found.get("intermediate_size", 4 * h) != 4 * h
    found.setdefault("vocab_size", 50304)
    found.setdefault("intermediate_size", 4 * h)
    if gated:
        return {"model_type": "llama", "hidden_act": "silu", "tie_word_embeddings": False, **found}
    return {"model_type": "gpt_neox", "hidden_act": "gelu", "tie_word_embeddings": False, **found}


# torch.distributed.fsdp ShardingStrategy -> TrainingArguments --fsdp words (core/runners/fsdp.py reads them)
_SHARDING = {"FULL_SHARD": "full_shard", "SHARD_GRAD_OP": "shard_grad_op", "HYBRID_SHARD": "hybrid_shard",
             "_HYBRID_SHARD_ZERO2": "hybrid_shard_zero2"}
_SAVES = re.compile(r"\b(?:save_pretrained|save_model|save_checkpoint|save_state|torch\.save|dcp\.save|"
                    r"save_file)\s*\(")


def _own_loop(tree, text: str, out: dict[str, Setting], file: str) -> None:
    """A program with its own training loop: FSDP as it wraps the model (`FSDP(model, sharding_strategy=
    ShardingStrategy.FULL_SHARD, mixed_precision=MixedPrecision(param_dtype=torch.bfloat16))`, FSDP2's
    `fully_shard(...)`), the 16-bit dtype it computes in (FSDP's param_dtype, torch.autocast's dtype), and no
    checkpoint when it never saves one."""
    import ast

    for n in ast.walk(tree):
        if not isinstance(n, ast.Call):
            continue
        name, kws = _name(n.func), {k.arg: k.value for k in n.keywords if k.arg}
        if name in ("FSDP", "FullyShardedDataParallel") and "fsdp" not in out:
            st = _name(kws["sharding_strategy"]) if "sharding_strategy" in kws else "FULL_SHARD"
            if st in _SHARDING:
                out["fsdp"] = Setting("fsdp", _SHARDING[st], file, n.lineno, f"{name}(sharding_strategy={st})", "flag")
        elif name == "fully_shard" and "fsdp" not in out:
            out["fsdp"] = Setting("fsdp", "full_shard", file, n.lineno, "fully_shard", "flag")
        elif name in ("MixedPrecision", "autocast", "MixedPrecisionPolicy"):
            d = kws.get("param_dtype") or kws.get("dtype")
            dt = _name(d) if d is not None else ""
            key = "bf16" if dt == "bfloat16" else "fp16" if dt in ("float16", "half") else None
            if key and not {"bf16", "fp16"} & set(out):
                out[key] = Setting(key, True, file, n.lineno, f"{name}({dt})", "flag")
    if not _SAVES.search(text):
        out.setdefault("save_strategy", Setting("save_strategy", "no", file, None, "(the program saves nothing)",
                                                "flag"))


# the model classes whose from_pretrained loads the model a program trains (transformers' Auto classes and every
# <Arch>For<Task> class: Qwen2VLForConditionalGeneration, LlamaForCausalLM ...)
_MODEL_CLASS = re.compile(r"^(?:Auto\w*|\w+)For(?:CausalLM|ConditionalGeneration|Vision2Seq|ImageTextToText|"
                          r"SequenceClassification|Seq2SeqLM)$")


def _loaded_model(tree, names: dict) -> tuple[str, int, str] | None:
    """(model id, line, what) of the first `<Model class>.from_pretrained(X)` whose X is a literal or a constant of
    the program (`MODEL_ID = "Qwen/Qwen2-VL-2B-Instruct"`), else None."""
    import ast

    for n in ast.walk(tree):
        if isinstance(n, ast.Call) and _name(n.func) == "from_pretrained" and isinstance(n.func, ast.Attribute) \
                and _MODEL_CLASS.match(_name(n.func.value)):
            arg = n.args[0] if n.args else next((k.value for k in n.keywords
                                                 if k.arg == "pretrained_model_name_or_path"), None)
            v = py_value(arg, names) if arg is not None else None
            if isinstance(v, str) and v.strip():
                return v, n.lineno, f"{_name(n.func.value)}.from_pretrained"
    return None


def _read_assignments(tree, names: dict, file: str, text: str = "") -> tuple[dict[str, Setting], list[str]] | None:
    """A program without a TrainingArguments call whose settings are plain assignments (a config dataclass's field
    defaults, module constants) under the usual names: read when the model and a batch or length are among them."""
    import ast

    found: dict[str, tuple[object, int, str]] = {}
    for n in ast.walk(tree):
        target, value = None, None
        if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name) and n.value is not None:
            target, value = n.target.id, n.value
        elif isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            target, value = n.targets[0].id, n.value
        if target is None:
            continue
        v = py_value(value, names)
        if v is None and isinstance(value, ast.Call) and _name(value.func) == "field":   # field(default_factory=...)
            kw = {k.arg: k.value for k in value.keywords}
            fac = kw.get("default_factory")
            v = py_value(fac.body, names) if isinstance(fac, ast.Lambda) else py_value(kw.get("default"), names)
        if v is not None:
            found[target.lower()] = (v, getattr(n, "lineno", 0), target)
    out: dict[str, Setting] = {}
    for key, aliases in _CONFIG_NAMES.items():
        hit = next((found[a] for a in aliases if a in found), None)
        if hit is not None:
            out[key] = Setting(key, hit[0], file, hit[1], hit[2], "flag")
    loaded: tuple[object, int, str] | None = _loaded_model(tree, names)   # what it loads: a training program
    shape = program_shape(tree, names, text) if loaded is None and "model_name_or_path" not in out else None
    if shape is not None:
        loaded = (shape, 1, "the program's own model dimensions")
    if loaded is None and ("model_name_or_path" not in out or
                           not ({"per_device_train_batch_size", "cutoff_len"} & set(out))):
        return None
    if "model_name_or_path" not in out and loaded is not None:
        out["model_name_or_path"] = Setting("model_name_or_path", loaded[0], file, loaded[1], loaded[2], "flag")
    lora = next((found[a] for a in ("use_lora", "use_peft", "lora") if a in found), None)
    if lora is not None:
        out["finetuning_type"] = Setting("finetuning_type", "lora" if as_bool(lora[0]) else "full", file, lora[1],
                                         lora[2], "flag")
    for a, bits in (("use_4bit", 4), ("load_in_4bit", 4), ("use_8bit", 8), ("load_in_8bit", 8)):
        if a in found and as_bool(found[a][0]) and "finetuning_type" in out:
            out["quantization_bit"] = Setting("quantization_bit", bits, file, found[a][1], found[a][2], "flag")
    for a in ("bf16", "fp16", "gradient_checkpointing"):
        if a in found and as_bool(found[a][0]) is not None:
            key = "disable_gradient_checkpointing" if a == "gradient_checkpointing" else a
            v = not as_bool(found[a][0]) if a == "gradient_checkpointing" else as_bool(found[a][0])
            out[key] = Setting(key, v, file, found[a][1], a, "flag", a == "gradient_checkpointing")
    mods = next((found[a] for a in ("lora_target_modules", "target_modules") if a in found), None)
    if mods is not None and isinstance(mods[0], (list, tuple)):
        out["lora_target"] = Setting("lora_target", ",".join(map(str, mods[0])), file, mods[1], mods[2], "flag")
    if "finetuning_type" not in out:
        out["finetuning_type"] = Setting("finetuning_type", "full", file, None, "(no LoRA setting)", "flag")
    _own_loop(tree, text, out, file)
    return out, ["Python program without a TrainingArguments call: its config's assignments are read by their names "
                 "(" + ", ".join(f"{s.native} -> {k}" for k, s in out.items() if s.line) + "); nothing is executed"]


# ------------------------------------------------------------------------------------- HfArgumentParser recipe YAML
# TRL's TrlParser (`trl sft|dpo|grpo --config x.yaml`, open-r1's `--config`), alignment-handbook's `run_dpo.py
# recipe.yaml` and every HfArgumentParser.parse_yaml_file script: the model's and the TrainingArguments' keys in
# one YAML mapping.
TA_KEYS = ("per_device_train_batch_size", "learning_rate", "output_dir", "gradient_accumulation_steps",
           "num_train_epochs", "max_steps", "bf16", "fp16", "gradient_checkpointing", "max_length", "max_seq_length",
           "logging_steps", "lr_scheduler_type", "warmup_ratio", "optim", "save_strategy", "beta",
           "num_generations", "max_completion_length", "use_peft", "lora_r")
GRPO_KEYS = ("num_generations", "max_completion_length", "use_vllm", "vllm_mode", "vllm_gpu_memory_utilization")
DPO_KEYS = ("max_prompt_length", "loss_type", "rpo_alpha", "precompute_ref_log_probs")


# the keys a recipe names its model by: TRL's ModelConfig, and the `model_id` of the ScriptArguments dataclass in the
# TrlParser scripts of Hugging Face's and vendors' FSDP/Q-LoRA guides (`--config llama_3_70b_fsdp_lora.yaml`)
RECIPE_MODEL_KEYS = ("model_name_or_path", "model_name", "model_id")


def is_recipe_mapping(d) -> bool:
    return isinstance(d, dict) and any(k in d for k in RECIPE_MODEL_KEYS) \
        and sum(k in d for k in TA_KEYS) >= 2


# A program's own config file in sections (`model:` / `training:` / `lora:` / `quantization:` ... as in TensorWave's
# DeepSpeed #6725 dp.yaml): the sections' keys are its arguments, under the short names such programs give them
SECTION_ALIASES = {"batch_size": "per_device_train_batch_size", "micro_batch_size": "per_device_train_batch_size",
                   "train_batch_size_per_device": "per_device_train_batch_size",
                   "grad_accumulation_steps": "gradient_accumulation_steps",
                   "gradient_accumulation": "gradient_accumulation_steps", "grad_accum_steps": "gradient_accumulation_steps",
                   "num_epochs": "num_train_epochs", "epochs": "num_train_epochs", "lr": "learning_rate"}


def flatten_sections(d) -> dict | None:
    """A mapping of sections read as one recipe (the first occurrence of a key wins, a section's own name is
    dropped), or None when it is not one: no section, or no model and training keys in them."""
    if not isinstance(d, dict) or not any(isinstance(v, dict) for v in d.values()):
        return None
    flat: dict = {}
    for k, v in d.items():
        if isinstance(k, str) and not isinstance(v, dict):
            flat.setdefault(SECTION_ALIASES.get(k, k), v)
    for v in d.values():
        if isinstance(v, dict):
            for k, x in v.items():
                if isinstance(k, str):
                    flat.setdefault(SECTION_ALIASES.get(k, k), x)
    if not is_recipe_mapping(flat):
        return None
    r = flat.get("lora_r", flat.get("lora_rank"))
    if "use_peft" not in flat and "use_lora" not in flat and isinstance(r, int) and r > 0:
        flat["use_peft"] = True      # a LoRA rank with no switch: the program trains LoRA adapters
    return flat


def read_recipe(data: dict, lines: dict[str, int], file: str, entry: str = "") -> tuple[dict[str, Setting], list[str]]:
    """A recipe YAML's keys as settings (read as the same flags on a command line), its stage from its keys or the
    script's name (TRL names its scripts after the trainer: sft.py, dpo.py, grpo.py; run_dpo.py)."""
    flags = {str(k): (str(v).lower() if isinstance(v, bool) else str(v), lines.get(str(k), 0))
             for k, v in data.items() if v is not None and not isinstance(v, (dict, list))}
    for alias in RECIPE_MODEL_KEYS[1:]:
        if alias in flags and "model_name_or_path" not in flags:
            flags["model_name_or_path"] = flags.pop(alias)
    out, notes = read_flags(flags, file)
    mixer = data.get("dataset_mixer") or data.get("dataset_mixture")
    if isinstance(mixer, dict) and mixer:      # alignment-handbook: {hub id: fraction}
        out.update(named_data(list(mixer), file, lines.get("dataset_mixer"), "dataset_mixer"))
    if isinstance(data.get("fsdp_config"), dict) and out.get("fsdp") is not None:
        out["fsdp_config"] = Setting("fsdp_config", dict(data["fsdp_config"]), file, lines.get("fsdp_config"),
                                     "fsdp_config", "yaml")
    dtype = str(data.get("torch_dtype") or data.get("dtype") or "").lower()
    if dtype in ("bfloat16", "float16", "float32"):
        out["load_dtype"] = Setting("load_dtype", {"bfloat16": "bf16", "float16": "fp16"}.get(dtype, "fp32"), file,
                                    lines.get("torch_dtype"), "torch_dtype", "yaml")
    name = os.path.basename(entry).lower()
    stage = ("grpo" if any(k in data for k in GRPO_KEYS) or "grpo" in name else
             "dpo" if ("beta" in data and any(k in data for k in DPO_KEYS)) or "dpo" in name else None)
    if stage:
        out["stage"] = Setting("stage", stage, file, None, "recipe keys" if "grpo" not in name and "dpo" not in name
                               else os.path.basename(entry), "yaml")
    _longqlora_recipe(data, lines, out, file, notes)
    if "finetuning_type" not in out:
        lora = as_bool(data.get("use_peft"))
        out["finetuning_type"] = Setting("finetuning_type", "lora" if lora else "full", file,
                                         lines.get("use_peft"), "use_peft", "yaml")
    notes.append(f"{file}: an HfArgumentParser recipe (model and TrainingArguments keys) read as the program's "
                 f"arguments" + (f"; a {stage.upper()} run" if stage else ""))
    return out, notes


def _longqlora_recipe(data: dict, lines: dict[str, int], out: dict[str, Setting], file: str,
                      notes: list[str]) -> None:
    """LongQLoRA's train.py recipe (profiles/qlora_programs.py LONGQLORA_*): known by its required arguments, keys
    only of its own dataclass and TrainingArguments; what its source does whatever the YAML says, each said."""
    from rocm_tune.profiles import qlora_programs as q
    from rocm_tune.profiles.fp32_programs import TRAINING_ARGUMENTS_MORE
    from rocm_tune.profiles.runner_args import TRAINING_ARGUMENTS_FIELDS

    keys = {str(k) for k in data}
    if not all(k in keys for k in q.LONGQLORA_REQUIRED) \
            or not keys <= q.LONGQLORA_OWN | TRAINING_ARGUMENTS_FIELDS | TRAINING_ARGUMENTS_MORE:
        return
    line = lines.get("sft")
    rank = as_int(data.get("lora_rank")) or q.LONGQLORA_DEFAULT_RANK
    flash = as_bool(data.get("use_flash_attn")) is True
    fixed = {"finetuning_type": "lora", "quantization_bit": 4, "lora_rank": rank,
             "lora_target": str(data.get("target_modules") or "all"),
             "flash_attn": "fa2" if flash else "eager"}
    for k, v in fixed.items():
        out[k] = Setting(k, v, file, lines.get(k, line), "LongQLoRA train.py", "assumed")
    if not flash:
        out["__attn_span__"] = Setting("__attn_span__", q.LONGQLORA_GROUP_RATIO, file, line, "use_flash_attn",
                                       "assumed")
    notes.append(f"{file}: LongQLoRA's train.py recipe: QLoRA 4-bit, LoRA r{rank} on "
                 f"{fixed['lora_target']} linears" + ("" if flash else ", attention in eager S2-Attn over groups of "
                 "1/4 of the sequence (no use_flash_attn)") + f" ({q.LONGQLORA_SOURCE})")


# ------------------------------------------------------------------------------ llama-recipes / llama-cookbook
# meta-llama/llama-recipes (renamed llama-cookbook) `finetuning.py`: its own flags (configs/training.py train_config,
# configs/fsdp.py fsdp_config, configs/peft.py lora_config), not TrainingArguments. It loads the model in bf16
# (fp16 with --use_fp16) and its AdamW runs on those 16-bit weights: no fp32 master copy (FSDP's MixedPrecision
# policy casts compute only; the sharded weights and the optimizer states stay in the loaded dtype). Activation checkpointing is on under FSDP
# (fsdp_activation_checkpointing: True), off without it; batching_strategy "packing" (the default) fills every
# sample to context_length.
LLAMA_RECIPES_FLAGS = ("batch_size_training", "enable_fsdp", "context_length", "batching_strategy",
                       "fsdp_activation_checkpointing", "dist_checkpoint_root_folder", "use_fast_kernels")
_LR_DEFAULTS = {"batch_size_training": 4, "context_length": 4096, "batching_strategy": "packing"}


def is_llama_recipes(flags: dict, entry: str) -> bool:
    e = entry.replace("\\", "/").lower()
    return any(k in flags for k in LLAMA_RECIPES_FLAGS) or "llama_recipes" in e or "llama-recipes" in e \
        or "llama_cookbook" in e or "llama-cookbook" in e


def read_llama_recipes(flags: dict[str, tuple[str, int]], file: str) -> tuple[dict[str, Setting], list[str]]:
    """llama-recipes' finetuning.py flags as settings; every default it fills is said."""
    out: dict[str, Setting] = {}
    notes: list[str] = []
    said: list[str] = []

    def flag(k: str):
        v = flags.get(k)
        if v is None:
            return None
        return "true" if v[0] == "" else v[0]

    def put(key: str, k: str, value, kind: str = "flag") -> None:
        out[key] = Setting(key, value, file, flags[k][1] if k in flags else None, k, kind)

    if "model_name" in flags:
        put("model_name_or_path", "model_name", flags["model_name"][0])
    for key, k in (("per_device_train_batch_size", "batch_size_training"), ("cutoff_len", "context_length"),
                   ("gradient_accumulation_steps", "gradient_accumulation_steps")):
        if k in flags:
            put(key, k, flags[k][0])
        elif k in _LR_DEFAULTS:
            put(key, k, _LR_DEFAULTS[k], "assumed")
            said.append(f"--{k} {_LR_DEFAULTS[k]}")
    strategy = str(flag("batching_strategy") or "packing").lower()
    if strategy == "packing":
        put("packing", "batching_strategy", True, "flag" if "batching_strategy" in flags else "assumed")
        notes.append("llama-recipes batching_strategy packing: every sample is a full context_length block")
    fsdp_on = as_bool(flag("enable_fsdp")) is True
    if fsdp_on:
        offload = as_bool(flag("fsdp_cpu_offload")) is True
        put("fsdp", "enable_fsdp", "full_shard auto_wrap" + (" offload" if offload else ""))
    ac = as_bool(flag("fsdp_activation_checkpointing")) if "fsdp_activation_checkpointing" in flags else None
    put("disable_gradient_checkpointing", "fsdp_activation_checkpointing" if ac is not None else "enable_fsdp",
        not (fsdp_on and ac is not False), "flag")
    peft = as_bool(flag("use_peft")) is True
    put("finetuning_type", "use_peft", "lora" if peft else "full")
    if peft:
        put("lora_rank", "lora_config.r", 8, "assumed")
        put("lora_target", "lora_config.target_modules", "q_proj,v_proj", "assumed")
        said.append("LoRA r 8 on q_proj,v_proj (lora_config)")
    q = str(flag("quantization") or "").lower()
    if q in ("4bit", "8bit", "true"):
        put("quantization_bit", "quantization", 4 if q == "4bit" else 8)
    half = "fp16" if as_bool(flag("use_fp16")) is True else "bf16"
    put(half, "use_fp16", True, "flag" if half == "fp16" else "assumed")
    put("load_dtype", "use_fp16", half, "flag" if half == "fp16" else "assumed")
    said.append(f"weights loaded in {half} (from_pretrained torch_dtype) and AdamW on them: no fp32 master copy")
    notes.append("llama-recipes finetuning.py flags read (train_config/fsdp_config); its defaults: "
                 + ("; ".join(said) if said else "none needed")
                 + ("; activation checkpointing on (fsdp_activation_checkpointing)" if fsdp_on and ac is not False
                    else "; no activation checkpointing (llama-recipes applies it only under FSDP)"))
    return out, notes


# ------------------------------------------------------------------------------ Answer.AI fsdp_qlora train.py
def is_fsdp_qlora(flags: dict, entry: str) -> bool:
    """AnswerDotAI/fsdp_qlora's train.py (profiles/qlora_programs.py): its file name and a flag only it spells, or
    --train_type with one of its choices."""
    from rocm_tune.profiles import qlora_programs as Q

    name = os.path.basename(entry.split()[-1]) if entry.strip() else ""
    if name not in Q.FSDP_QLORA_ENTRIES:
        return False
    f = {k.replace("-", "_") for k in flags}
    tt = str(flags.get("train_type", flags.get("train-type", ("", 0)))[0]).strip("'\"").lower()
    return any(k in f for k in Q.FSDP_QLORA_MARKERS) or tt in Q.FSDP_QLORA_TRAIN_TYPES \
        or tt in Q.FSDP_QLORA_UNMODELLED_TYPES


def read_fsdp_qlora(flags: dict[str, tuple[str, int]], file: str) -> tuple[dict[str, Setting], list[str], int | None]:
    """fsdp_qlora train.py's flags over its defaults as settings (every default it fills is said), and the GPUs
    --world_size names (None: every visible GPU)."""
    from rocm_tune.profiles import qlora_programs as Q

    f = {k.replace("-", "_"): (str(v[0]).strip("'\""), v[1]) for k, v in flags.items()}
    out: dict[str, Setting] = {}
    said: list[str] = []

    def val(k: str):
        return f[k][0] if k in f else Q.FSDP_QLORA_DEFAULTS[k]

    def put(key: str, k: str, value) -> None:
        out[key] = Setting(key, value, file, f[k][1] if k in f else None, k, "flag" if k in f else "assumed")
        if k not in f and f"--{k}" not in " ".join(said):
            said.append(f"--{k} {Q.FSDP_QLORA_DEFAULTS[k]}")

    put("model_name_or_path", "model_name", val("model_name"))
    put("per_device_train_batch_size", "batch_size", val("batch_size"))
    put("cutoff_len", "context_length", val("context_length"))
    if "gradient_accumulation_steps" in f:
        put("gradient_accumulation_steps", "gradient_accumulation_steps", val("gradient_accumulation_steps"))
    if str(val("dataset")).lower() == "dummy":
        put("packing", "dataset", True)      # its samples outrun context_length: every batch is that long
    tt = str(val("train_type")).lower()
    notes: list[str] = []
    method, quant, dora = Q.FSDP_QLORA_TRAIN_TYPES.get(tt, ("lora", "bnb", False))
    if tt not in Q.FSDP_QLORA_TRAIN_TYPES:
        notes.append(f"--train_type {tt}: not modelled (llama_pro block expansion), estimated as qlora")
    put("finetuning_type", "train_type", method)
    if quant is not None:
        put("quantization_bit", "train_type", 4 if quant == "bnb" else as_int(val("n_bits")) or 4)
        put("double_quantization", "train_type", False)      # bnb Linear4bit nf4, no nested quantisation
    if dora:
        put("use_dora", "train_type", True)
    if method == "lora":
        put("lora_rank", "lora_rank", val("lora_rank"))
        put("lora_alpha", "lora_alpha", val("lora_alpha"))
        t = str(val("lora_target_modules")).lower()
        put("lora_target", "lora_target_modules",
            "__peft_default__" if t == "default" else Q.FSDP_QLORA_ALL_TARGETS)
    strategy = Q.FSDP_QLORA_SHARDING.get(str(val("sharding_strategy")).lower(), "full_shard")
    offload = as_bool(val("use_cpu_offload")) is not False
    put("fsdp", "sharding_strategy" if "sharding_strategy" in f or "use_cpu_offload" not in f else
        "use_cpu_offload", f"{strategy} auto_wrap" + (" offload" if offload else ""))
    if "use_cpu_offload" not in f:
        said.append("--use_cpu_offload True")
    put("disable_gradient_checkpointing", "use_gradient_checkpointing",
        as_bool(val("use_gradient_checkpointing")) is False)
    if as_bool(val("use_activation_cpu_offload")):
        put("activation_offloading", "use_activation_cpu_offload", True)
    # checkpoint_wrapper(checkpoint_impl=REENTRANT if --reentrant_checkpointing else NO_REENTRANT), under FSDP
    put("gradient_checkpointing_kwargs", "reentrant_checkpointing",
        {"use_reentrant": as_bool(val("reentrant_checkpointing")) is True})
    if as_bool(val("low_memory")) is False:
        # low_memory False: every rank loads (and quantizes) the whole model onto its own GPU before FSDP shards it
        put(Q.FSDP_WHOLE_LOAD_KEY, "low_memory", True)
    load, auto = Q.FSDP_QLORA_PRECISION.get(str(val("precision")).lower(), ("bf16", "bf16"))
    put("load_dtype", "precision", load)
    if auto is not None:
        put(auto, "precision", True)
    world = as_int(val("world_size"))
    notes.append(f"fsdp_qlora train.py flags read ({Q.FSDP_QLORA_SOURCE}): --train_type {tt}, FSDP {strategy} "
                 f"per decoder layer over every process" + (" with CPU offload of the sharded parameters, gradients "
                 "and AdamW state" if offload else "") + f"; weights loaded {load}"
                 + (" and AdamW on them (no fp32 copy)" if load != "fp32" else "")
                 + ("; its defaults: " + ", ".join(said) if said else ""))
    return out, notes, world if world and world > 0 else None


# QwenLM's qwen-vl-finetune (Qwen2.5-VL / Qwen3-VL repositories: qwen-vl-finetune/qwenvl/train/train_qwen.py, its
# arguments in qwenvl/train/argument.py): --tune_mm_vision / --tune_mm_mlp / --tune_mm_llm (all False by default)
# set requires_grad per part (train_qwen.py set_model); --max_pixels (DataArguments, 28 * 28 * 576) and
# --min_pixels replace the image processor's own (data_processor.py update_processor_pixels); --lora_enable wraps
# q/k/v/o_proj with LoRA of rank --lora_r (64); train() loads with attn_implementation="flash_attention_2".
QWEN_VL_FINETUNE = "QwenLM/Qwen3-VL:qwen-vl-finetune/qwenvl/train"
QWEN_VL_FLAGS = ("tune_mm_vision", "tune_mm_mlp", "tune_mm_llm")
QWEN_VL_MAX_PIXELS = 28 * 28 * 576


def is_qwen_vl_finetune(entry: str, flags: dict[str, tuple[str, int]]) -> bool:
    """qwen-vl-finetune's train_qwen.py: by its path, or by its own --tune_mm_* flags."""
    path = (entry.split()[-1] if entry else "").replace("\\", "/")
    return path.endswith("qwenvl/train/train_qwen.py") or any(k.replace("-", "_") in QWEN_VL_FLAGS for k in flags)


def read_qwen_vl_finetune(entry: str, flags: dict[str, tuple[str, int]], out: dict[str, Setting], file: str,
                          notes: list[str]) -> None:
    """The settings train_qwen.py derives from its own arguments (said), where no flag already set them."""
    if not is_qwen_vl_finetune(entry, flags):
        return
    f = {k.replace("-", "_"): v for k, v in flags.items()}
    vis = f.get("tune_mm_vision")
    trains = bool(as_bool(vis[0])) if vis is not None else False
    out.setdefault("freeze_vision_tower", Setting(
        "freeze_vision_tower", not trains, file, vis[1] if vis else None,
        f"tune_mm_vision {vis[0]}, so freeze_vision_tower" if vis else
        "tune_mm_vision not set (qwen-vl-finetune's default False), so freeze_vision_tower", "flag" if vis else "assumed"))
    px = f.get("max_pixels")
    if px is not None and as_int(px[0]):
        out.setdefault("image_max_pixels", Setting("image_max_pixels", as_int(px[0]), file, px[1], "max_pixels",
                                                   "flag"))
    else:
        out.setdefault("image_max_pixels", Setting(
            "image_max_pixels", QWEN_VL_MAX_PIXELS, file, None,
            f"max_pixels not set: qwen-vl-finetune's default 28*28*576 ({QWEN_VL_FINETUNE}/argument.py)", "assumed"))
    if "flash_attn" not in out:
        out["flash_attn"] = Setting("flash_attn", "fa2", file, None,
                                    "train_qwen.py train(attn_implementation=\"flash_attention_2\")", "assumed")
    lora = f.get("lora_enable")
    if lora is not None and as_bool(lora[0]) and "finetuning_type" not in out:
        out["finetuning_type"] = Setting("finetuning_type", "lora", file, lora[1], "lora_enable", "flag")
        out.setdefault("lora_rank", Setting("lora_rank", 64, file, None, "lora_r (qwen-vl-finetune's default 64)",
                                            "assumed"))
        out.setdefault("lora_target", Setting("lora_target", "q_proj,k_proj,v_proj,o_proj", file, None,
                                              "train_qwen.py LoraConfig(target_modules=...)", "assumed"))
    notes.append(f"qwen-vl-finetune's train_qwen.py: the vision tower "
                 f"{'trains' if not out['freeze_vision_tower'].value else 'frozen'} ({out['freeze_vision_tower'].native}: "
                 f"{out['freeze_vision_tower'].value})"
                 f", images of at most {out['image_max_pixels'].value} pixels ({out['image_max_pixels'].native}), "
                 f"flash_attention_2 ({QWEN_VL_FINETUNE}/train_qwen.py, argument.py, data_processor.py)")


# QwenLM/Qwen and QwenLM/Qwen-VL finetune.py (the repos' finetune_lora_*.sh start it): `--use_lora` without
# `--q_lora` builds LoraConfig(modules_to_save=["wte", "lm_head"]) ("serves for adding new tokens"): PEFT trains a
# full copy of the embedding and the output layer beside the adapters. Qwen-VL always; Qwen (LLM) not for a model
# path holding "chat" (`if lora_args.q_lora or 'chat' in model_args.model_name_or_path.lower()`).
QWEN_V1_MODEL = re.compile(r"(?i)(?:^|[/\\])Qwen-(?:VL|\d+(?:_\d+)?B)")
QWEN_V1_SOURCE = "QwenLM/Qwen-VL finetune.py, QwenLM/Qwen finetune.py (LoraConfig modules_to_save)"


def read_qwen_v1_finetune(entry: str, flags: dict[str, tuple[str, int]], out: dict[str, Setting], file: str,
                          notes: list[str]) -> None:
    """Qwen(-VL) v1's finetune.py: the whole embedding and lm_head its LoRA trains (said), where no flag set them."""
    f = {k.replace("-", "_"): v for k, v in flags.items()}
    name = os.path.basename(entry.split()[-1]) if entry else ""
    model = out.get("model_name_or_path")
    if name != "finetune.py" or "use_lora" not in f or not as_bool(f["use_lora"][0]) or model is None \
            or not QWEN_V1_MODEL.search(str(model.value)) or "additional_target" in out:
        return
    if "q_lora" in f and as_bool(f["q_lora"][0]):
        return
    vl = "-vl" in str(model.value).lower()
    if not vl and "chat" in str(model.value).lower():
        return
    out["additional_target"] = Setting("additional_target", "wte,lm_head", file, f["use_lora"][1],
                                       "finetune.py LoraConfig(modules_to_save=['wte', 'lm_head'])", "assumed")
    notes.append(f"{'Qwen-VL' if vl else 'Qwen'}'s finetune.py with --use_lora and no --q_lora trains whole copies "
                 f"of wte and lm_head beside the adapters ({QWEN_V1_SOURCE})")


# tloen/alpaca-lora finetune.py (fire.Fire(train); also its forks and the repos that copied it): the base model is
# loaded `LlamaForCausalLM.from_pretrained(base_model, load_in_8bit=True, torch_dtype=torch.float16)` and passed to
# PEFT's prepare_model_for_int8_training (gradient checkpointing on), LoraConfig(r=lora_r=8,
# target_modules=["q_proj", "v_proj"]), TrainingArguments(per_device_train_batch_size=micro_batch_size=4, fp16=True,
# evaluation_strategy="steps" while val_set_size (2000) > 0, no eval batch: the Trainer's 8), cutoff_len 256,
# DataCollatorForSeq2Seq(padding=True): padded to each batch's longest sample.
ALPACA_LORA_FLAGS = ("micro_batch_size", "lora_target_modules", "val_set_size", "cutoff_len", "prompt_template_name",
                     "train_on_inputs", "num_epochs", "lora_r", "data_path", "group_by_length", "add_eos_token")
ALPACA_LORA_SOURCE = ("tloen/alpaca-lora finetune.py: fp16=True, load_in_8bit=True + prepare_model_for_int8_training "
                      "unless a fork's 8-bit switch is off")


def read_alpaca_lora(entry: str, flags: dict[str, tuple[str, int]], out: dict[str, Setting], file: str,
                     notes: list[str]) -> None:
    """alpaca-lora's finetune.py, from its flags and its defaults (each said)."""
    f = {k.replace("-", "_"): v for k, v in flags.items()}
    name = os.path.basename(entry.split()[-1]) if entry else ""
    if not re.fullmatch(r"finetune(?:_\w+)?\.py", name) or "base_model" not in f \
            or sum(k in f for k in ALPACA_LORA_FLAGS) < 2:
        return
    line = f["base_model"][1]
    # forks name the 8-bit switch (h2oGPT's --train_8bit, --load_8bit, --load_in_8bit): the user's value wins
    eight = next((as_bool(v[0]) for k, v in f.items() if re.fullmatch(r"(?:train|load)(?:_in)?_8bit", k)), True)
    targets = str(f.get("lora_target_modules", ("q_proj,v_proj", line))[0]).strip("[]'\" ").replace("'", "")
    defaults: list[tuple[str, object]] = [
        # prepare_model_for_int8_training turns checkpointing on: only where the base is loaded in 8-bit
        ("finetuning_type", "lora"), ("fp16", True),
        *([("quantization_bit", 8), ("disable_gradient_checkpointing", False)] if eight is not False else []),
        ("lora_rank", 8), ("lora_target", ",".join(t.strip() for t in targets.split(",") if t.strip())),
        ("cutoff_len", 256), ("per_device_train_batch_size", 4)]
    val = as_int(f.get("val_set_size", ("2000", line))[0])
    if val is not None and val > 0:
        defaults.append(("eval_strategy", "steps"))
    said = [k for k, v in defaults if k not in out]
    for k, v in defaults:
        if k not in out:
            out[k] = Setting(k, v, file, line, "finetune.py", "assumed")
    if said:
        notes.append(f"alpaca-lora's finetune.py: {', '.join(said)} from the program itself ({ALPACA_LORA_SOURCE})")


def read_fp32_program(entry: str, flags: dict[str, tuple[str, int]], out: dict[str, Setting], file: str,
                      notes: list[str]) -> None:
    """FastChat's train*.py and stanford_alpaca's train.py (profiles/fp32_programs.py), run from a script whose program
    is not given: their from_pretrained passes no torch_dtype, so transformers 4.x loads the weights in fp32 (said)."""
    from rocm_tune.profiles import fp32_programs as fp
    from rocm_tune.profiles.runner_args import TRAINING_ARGUMENTS_FIELDS

    path = (entry.split()[-1] if entry else "").strip("'\"")
    f = {k.replace("-", "_") for k in flags}
    if "load_dtype" in out or not path:
        return
    if re.search(fp.FASTCHAT_ENTRY, path):
        source = fp.FASTCHAT_SOURCE
    elif re.fullmatch(fp.ALPACA_ENTRY, os.path.basename(path)) and {"data_path", "model_name_or_path"} <= f \
            and f <= fp.ALPACA_OWN_FLAGS | TRAINING_ARGUMENTS_FIELDS | fp.TRAINING_ARGUMENTS_MORE:
        source = fp.ALPACA_SOURCE
    else:
        return
    line = flags.get("model_name_or_path", ("", None))[1]
    out["load_dtype"] = Setting("load_dtype", "fp32", file, line, "from_pretrained without torch_dtype", "assumed")
    notes.append(f"{os.path.basename(path)}: the weights load in fp32 whatever --bf16/--fp16 say (transformers 4.x, "
                 f"which the program was written for: {source}); bf16/fp16 only turn on autocast / FSDP's mixed "
                 f"precision")


def read_vocab_program(entry: str, flags: dict[str, tuple[str, int]], out: dict[str, Setting], file: str) -> None:
    """A program of profiles/vocab_programs.py (Chinese-LLaMA-Alpaca's run_clm_*_with_peft.py), known by its file name
    and its tokenizer flag: it resizes the model's vocabulary to its tokenizer's; the size depends on the base, so the
    program's name is kept (``__vocab_program__``) and check applies it to the model it resolves."""
    from rocm_tune.profiles import vocab_programs as vp

    name = os.path.basename(entry.split()[-1]).strip("'\"") if entry else ""
    prog = vp.RESIZING_PROGRAMS.get(name)
    f = {k.replace("-", "_"): v for k, v in flags.items()}
    if prog is None or prog[0] not in f:
        return
    out["__vocab_program__"] = Setting("__vocab_program__", name, file, f[prog[0]][1], prog[0], "assumed")
    kbits = as_int(f.get(vp.KBITS_FLAG, ("", 0))[0])
    if kbits in vp.KBITS and "quantization_bit" not in out:     # Chinese-LLaMA-Alpaca-2: the base in 4 / 8 bits
        out["quantization_bit"] = Setting("quantization_bit", kbits, file, f[vp.KBITS_FLAG][1], vp.KBITS_FLAG, "flag")


def read_qlora_program(entry: str, flags: dict[str, tuple[str, int]], out: dict[str, Setting], file: str,
                       notes: list[str], before: dict | None = None) -> None:
    """A QLoRA program of profiles/qlora_programs.py: its gradient checkpointing (PEFT's prepare_model_for_kbit_training
    turns it on) and its sample cap (the sum of its length flags), each said. `before`: settings other files gave (a
    TrainingArguments JSON), whose gradient checkpointing the program's own default does not override."""
    from rocm_tune.profiles.qlora_programs import QLORA_PROGRAMS

    f = {k.replace("-", "_"): v for k, v in flags.items()}
    name = os.path.basename(entry.split()[-1]) if entry else ""
    prog = next((p for p in QLORA_PROGRAMS if p[0] == name and any(k in f for k in p[1])), None)
    if prog is None:
        return
    _, _, gc, caps, fixed, source = prog
    line = next(f[k][1] for k in prog[1] if k in f)
    said = [f"{k} {v}" for k, v in fixed.items() if k not in out]
    for k, v in fixed.items():
        out.setdefault(k, Setting(k, v, file, line, name, "assumed"))
    given = "disable_gradient_checkpointing" in out or "disable_gradient_checkpointing" in (before or {})
    if gc == "forced" or not given:
        out["disable_gradient_checkpointing"] = Setting("disable_gradient_checkpointing", False, file, line, name,
                                                        "assumed")
        said.append("gradient checkpointing on" + (" (whatever its TrainingArguments say)" if gc == "forced" else ""))
    if "cutoff_len" not in out:
        lens = [as_int(f[k][0]) if k in f else d for k, d in caps]
        if all(n is not None and n > 0 for n in lens):
            out["cutoff_len"] = Setting("cutoff_len", sum(int(n) for n in lens if n), file, line,
                                        " + ".join(k for k, _ in caps), "derived")
            said.append(f"samples cut at {' + '.join(f'{k} {n}' for (k, _), n in zip(caps, lens))} tokens")
    if said:
        notes.append(f"{name}: {'; '.join(said)} ({source})")


# A program's own argparse help for a flag (`parser.add_argument("--model-name", help="A name for the trained model
# under. A subdirectory ... under the output-path")`): a flag whose help says it names what the run WRITES is not the
# model it trains, whatever its name (MODEL_FLAG reads `--model_name` as the model by name alone).
OUTPUT_HELP = re.compile(r"(?i)\b(?:output|save[ds]?|saving|subdirectory|sub-directory|write|written|"
                         r"name (?:for|of|under) (?:the )?(?:trained|fine-?tuned|new|resulting|final)\b|run name|"
                         r"experiment name|wandb|hub repo|push)")


# ... unless the help also says the flag is what is loaded (`Path to pretrained model or model identifier`)
INPUT_HELP = re.compile(r"(?i)\b(?:pre-?trained|base model|model identifier|hub id|huggingface\.co|to (?:fine-?tune|"
                        r"train|load|start from)|load(?:ed)? from|initiali[sz]e from)\b")


def output_named_flags(text: str) -> set[str]:
    """The flags (underscored, no dashes) a program's argparse help describes as naming its output."""
    import ast

    from rocm_tune.core.errors import UserError
    from rocm_tune.core.files import parse_python

    try:   # files.parse_python's limits (nesting, NUL bytes): a program it refuses names no flag
        tree = parse_python(text, "program", "Python program")
    except UserError:
        return set()
    out: set[str] = set()
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "add_argument"):
            continue
        names = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        helps = [k.value.value for k in node.keywords if k.arg == "help" and isinstance(k.value, ast.Constant)
                 and isinstance(k.value.value, str)]
        if helps and OUTPUT_HELP.search(helps[0]) and not INPUT_HELP.search(helps[0]):
            out.update(n.lstrip("-").replace("-", "_") for n in names if n.startswith("--"))
    return out


# The pre-training program of ReLoRA (Guitaricet/relora torchrun_main.py) that GaLore (jiaweizzhao/GaLore), APOLLO,
# Fira, Q-GaLore and others copied: `--model_config configs/llama_7b.json` (a config.json: the model is built from
# it), `--batch_size` per device, `--max_length` (default 256), `--dtype` (default bfloat16: `model.to(dtype)`, the
# optimizer steps the 16-bit weights, no fp32 copy), `--optimizer` (adam | adamw | adam8bit | adafactor |
# galore_adamw | galore_adamw8bit | galore_adamw8bit_per_layer ...), `--activation_checkpointing` (off by default).
PRETRAIN_MAIN_FLAGS = ("total_batch_size", "num_training_steps", "update_proj_gap", "galore_scale", "rank",
                       "eval_every", "single_gpu", "relora", "grad_clipping")
PRETRAIN_MAIN_OPTIM = {"adam": "adamw_torch", "adamw": "adamw_torch", "adam8bit": "adamw_bnb_8bit",
                       "adafactor": "adafactor", "galore_adamw": "galore_adamw", "galore_adamw8bit": "galore_adamw_8bit",
                       "galore_adamw8bit_per_layer": "galore_adamw_8bit_layerwise", "galore_adafactor": "galore_adafactor",
                       "apollo_adamw": "apollo_adamw", "sgd": "sgd"}
PRETRAIN_MAIN_SOURCE = "the ReLoRA/GaLore torchrun_main.py (Guitaricet/relora, jiaweizzhao/GaLore)"


def read_pretrain_main(entry: str, flags: dict[str, tuple[str, int]], out: dict[str, Setting], file: str,
                       notes: list[str]) -> None:
    """ReLoRA/GaLore's torchrun_main.py, from its flags and its argparse defaults (each said)."""
    f = {k.replace("-", "_"): v for k, v in flags.items()}
    if "model_config" not in f or sum(k in f for k in PRETRAIN_MAIN_FLAGS) < 2:
        return
    line = f["model_config"][1]
    given = {"model_name_or_path", "cutoff_len" if "max_length" in f else "", "optim" if "optimizer" in f else "",
             "disable_gradient_checkpointing" if "activation_checkpointing" in f else ""}
    put: list[tuple[str, object]] = [("model_name_or_path", f["model_config"][0]), ("finetuning_type", "full"),
                                     ("cutoff_len", f.get("max_length", ("256", line))[0])]
    dtype = str(f.get("dtype", ("bfloat16", line))[0]).lower()
    if dtype in ("bfloat16", "bf16", "float16", "fp16"):
        half = "bf16" if dtype.startswith("b") else "fp16"
        put += [(half, True), ("load_dtype", half)]      # the weights themselves in 16-bit
    else:
        put.append(("load_dtype", "fp32"))
    if "dtype" in f:
        given |= {"bf16", "fp16", "load_dtype"}
    opt = str(f.get("optimizer", ("adam", line))[0]).lower()
    put.append(("optim", PRETRAIN_MAIN_OPTIM.get(opt, "adamw_torch")))
    put.append(("disable_gradient_checkpointing", not ("activation_checkpointing" in f
                                                       and as_bool(f["activation_checkpointing"][0]) is not False)))
    said = [k for k, _v in put if k not in out]
    for k, v in put:
        if k not in out:
            out[k] = Setting(k, v, file, line, "torchrun_main.py", "flag" if k in given else "default")
    notes.append(f"{PRETRAIN_MAIN_SOURCE}: {', '.join(said)} from its flags and defaults (a model built from "
                 f"--model_config, --dtype {dtype} weights stepped in place)")
