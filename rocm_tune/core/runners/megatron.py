"""Megatron-LM arguments (`pretrain_gpt.py --tensor-model-parallel-size 2 ...`) and ms-swift's `megatron sft`
(`--tensor_model_parallel_size 2 --sequence_parallel true ...`) -> canonical settings plus the model-parallel layout
(pure).

What Megatron executes (NVIDIA/Megatron-LM megatron/training/arguments.py; ms-swift swift/megatron/argument):
* TP splits every layer's weights over `tensor_model_parallel_size` GPUs, PP the layers over
  `pipeline_model_parallel_size` stages, CP the sequence over `context_parallel_size`; data parallel is what is left
  of the world (world / (TP x PP x CP));
* `--sequence-parallel` splits the activations outside the TP regions (layer norms, dropout) over TP too;
* `--use-distributed-optimizer` shards the fp32 main weights and Adam moments over data parallel (ZeRO-1 like);
* `--micro-batch-size` per GPU, `--global-batch-size` = micro x DP x accumulation; `--seq-length` (ms-swift
  `--max_length`); `--bf16` / `--fp16`: fp32 main weights + 16-bit model (mixed precision);
* `--recompute-granularity full|selective` / `--recompute-activations`: activation recomputation."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from rocm_tune.core.runners.common import Default, Setting, as_bool, as_int
from rocm_tune.profiles import megatron_shapes, primus_recipes

ML = "NVIDIA/Megatron-LM:megatron/training/arguments.py"
DEFAULTS = {
    "method": Default("full", f"{ML} (Megatron trains every weight; ms-swift megatron: train_type full)"),
    "cutoff_len": Default(2048, "modelscope/ms-swift:swift/megatron/argument/megatron_args.py (max_length / "
                                "--seq-length; 2048 assumed when neither is given)"),
    "micro_batch": Default(1, f"{ML} (_add_training_args: --micro-batch-size default None -> 1)"),
    "eval_batch": Default(1, f"{ML} (evaluation uses the micro-batch size)"),
    "gradient_checkpointing": Default(False, f"{ML} (--recompute-granularity default None)"),
    "precision": Default("fp32", f"{ML} (--bf16/--fp16 default False)"),
    "executes": Default("builtin", f"{ML} (mixed precision: 16-bit model, fp32 main weights and moments)"),
}
PARALLEL = {"tensor_model_parallel_size": "tp", "pipeline_model_parallel_size": "pp",
            "context_parallel_size": "cp", "expert_model_parallel_size": "ep", "expert_tensor_parallel_size": "etp"}
# the routed experts' own tensor parallelism: Megatron-LM sets --expert-tensor-parallel-size to the TP when not given
# (megatron/training/arguments.py validate_args: `if args.expert_tensor_parallel_size is None:
# args.expert_tensor_parallel_size = args.tensor_model_parallel_size`); ms-swift's megatron defaults it to 1
# (swift/megatron/arguments/megatron_args.py `expert_tensor_parallel_size: int = 1`; Command-line-parameters.md)
ETP_SRC = ("NVIDIA/Megatron-LM:megatron/training/arguments.py (expert_tensor_parallel_size None -> the TP); "
           "modelscope/ms-swift:swift/megatron/arguments/megatron_args.py (expert_tensor_parallel_size: int = 1)")


@dataclass(frozen=True)
class Layout:
    tp: int = 1
    pp: int = 1
    cp: int = 1
    sp: bool = False
    distributed_optimizer: bool = False
    device_map: int = 0
    ep: int = 1                  # expert parallel: the routed experts' weights split over this many GPUs
    etp: int = 0                 # the experts' tensor parallelism; 0 = the TP (Megatron-LM's default, ETP_SRC)
    optimizer_offload: bool = False   # --optimizer_cpu_offload: the optimizer state in host RAM
    fsdp: int = 0                # data-parallel sharding (FSDP_SHARD): 1 optimizer, 2 + gradients, 3 + weights
    replicate: int = 1           # HSDP (torchtitan data_parallel_replicate_degree): the shards span dp / replicate
    shard_cp: bool = False       # the FSDP mesh spans the context-parallel ranks too (torchtitan's dp_shard_cp)

    @property
    def expert_tp(self) -> int:
        return self.etp or self.tp

    def expert_split(self, world: int) -> tuple[int, int]:
        """(GPUs one routed expert's weights are split over: EP x expert TP x PP, the expert data-parallel size
        world / that, which the distributed optimizer shards the experts' state over: Megatron-core
        parallel_state's expert grid, DistributedDataParallel's expert_parallel_buffers on the expert DP group)."""
        split = max(1, self.ep * self.expert_tp * self.pp)
        return split, max(1, world // split)

    def shard_dp(self, dp: int) -> int:
        """The ranks one FSDP shard group spans out of `dp` data-parallel ranks."""
        return max(1, dp // max(1, self.replicate)) * (self.cp if self.shard_cp else 1)

    @property
    def model_parallel(self) -> int:
        return self.tp * self.pp * self.cp

    def describe(self) -> str:
        if self.device_map:
            return f'device_map="auto": the layers split over {self.device_map} GPUs in one process (no DDP)'
        parts = [f"TP {self.tp}", f"PP {self.pp}", f"CP {self.cp}"] + (["sequence parallel"] if self.sp else []) + \
            (["distributed optimizer"] if self.distributed_optimizer else []) + \
            ([f"EP {self.ep}"] if self.ep > 1 else []) + (["optimizer in host RAM"] if self.optimizer_offload else []) + \
            ([f"FSDP ({FSDP_WHAT[self.fsdp]} sharded over data parallel"
              + (f", {self.replicate} replicas (HSDP)" if self.replicate > 1 else "")
              + (" and context parallel" if self.shard_cp and self.cp > 1 else "") + ")"] if self.fsdp else [])
        return "Megatron " + ", ".join(parts)


# Megatron's fully sharded data parallel (NVIDIA/Megatron-LM megatron/training/arguments.py, training.py get_model):
# `--use-torch-fsdp2` wraps every TransformerLayer, the embedding and the output layer with torch's fully_shard
# (megatron/core/distributed/torch_fully_sharded_data_parallel.py: weights, gradients and the optimizer's fp32 main
# weights and moments all sharded over the data-parallel group, each layer's weights gathered just in time);
# `--use-custom-fsdp` / `--use-megatron-fsdp` shard as `--data-parallel-sharding-strategy` says (no_shard | optim |
# optim_grads | optim_grads_params; default no_shard). FSDP_SHARD: what each level shards.
FSDP_SRC = "NVIDIA/Megatron-LM:megatron/core/distributed/torch_fully_sharded_data_parallel.py"
FSDP_STRATEGY = {"no_shard": 0, "optim": 1, "optim_grads": 2, "optim_grads_params": 3}
FSDP_WHAT = {1: "optimizer state", 2: "optimizer state and gradients", 3: "weights, gradients and optimizer state"}


def fsdp_level(f: dict[str, tuple[str, int]]) -> tuple[int, str, int] | None:
    """(sharding level 0-3, the flag that sets it, its line) for Megatron's FSDP flags (normalised names), or None."""
    if "use_torch_fsdp2" in f and as_bool(f["use_torch_fsdp2"][0]) is not False:
        return 3, "use_torch_fsdp2", f["use_torch_fsdp2"][1]
    for native in ("use_megatron_fsdp", "use_custom_fsdp"):
        if native in f and as_bool(f[native][0]) is not False:
            strat = str(f.get("data_parallel_sharding_strategy", ("no_shard", 0))[0]).strip().strip("'\"").lower()
            return FSDP_STRATEGY.get(strat, 0), native, f[native][1]
    return None


def norm(flag: str) -> str:
    return flag.lstrip("-").replace("-", "_")


def is_megatron_args(flags: dict) -> bool:
    keys = {norm(k) for k in flags}
    return bool(keys & set(PARALLEL)) or "micro_batch_size" in keys and "global_batch_size" in keys


SWIFT_MEGATRON = "modelscope/ms-swift:swift/megatron/argument/megatron_args.py"


def _swift_defaults(f: dict[str, tuple[str, int]], file: str, out: dict[str, Setting], notes: list[str]) -> None:
    """ms-swift `megatron sft` defaults that differ from Megatron-LM's (SWIFT_MEGATRON)."""
    if not any(k in f for k in ("bf16", "fp16", "torch_dtype")):
        out["bf16"] = Setting("bf16", True, file, None, "torch_dtype", "assumed")
        notes.append(f"ms-swift megatron: torch_dtype not set, the checkpoint's bf16 ({SWIFT_MEGATRON})")
    if "use_distributed_optimizer" not in f:
        out["__distopt__"] = Setting("__distopt__", True, file, None, "use_distributed_optimizer", "assumed")
    if "expert_tensor_parallel_size" not in f:
        out["__etp__"] = Setting("__etp__", 1, file, None, "expert_tensor_parallel_size (ms-swift's default)",
                                 "assumed")
    # MegatronTunerMixin (swift/megatron/argument/megatron_args.py): freeze_vit / freeze_aligner True by default
    for native, key in (("freeze_vit", "freeze_vision_tower"), ("freeze_aligner", "freeze_multi_modal_projector")):
        out[key] = (Setting(key, as_bool(f[native][0]), file, f[native][1], native, "flag")
                    if native in f and as_bool(f[native][0]) is not None else
                    Setting(key, True, file, None, f"{native} (ms-swift megatron's default)", "assumed"))


# Megatron's selective recomputation (megatron/core/transformer/transformer_config.py recompute_modules; arguments.py:
# --recompute-activations sets granularity selective): only the listed submodules are recomputed, default
# ["core_attn"]. With fused / flash attention (Transformer Engine's, the default) core attention keeps no score matrix,
# so recomputing it frees next to nothing: counted as no recomputation. Other modules (mlp, moe, layernorm, ...)
# drop more: counted as recomputation (approximate).
SELECTIVE_LIGHT = {"core_attn"}


def _selective_core_attn(f: dict[str, tuple[str, int]]) -> str | None:
    """A note when the recompute flags are Megatron's selective recomputation of core attention alone, else None."""
    gran = str((f.get("recompute_granularity") or ("", 0))[0]).strip().strip("'\"").lower()
    act = f.get("recompute_activations")
    selective = gran == "selective" or (not gran and act is not None and as_bool(act[0]) is not False)
    if not selective:
        return None
    mods = {m for m in re.split(r"[\s,\[\]'\"]+", str((f.get("recompute_modules") or ("core_attn", 0))[0])) if m}
    if not mods <= SELECTIVE_LIGHT:
        return None
    return ("Megatron selective recomputation of core attention only (recompute_modules default core_attn): fused "
            "attention keeps no score matrix, so the layers' activations are counted as without recomputation "
            "(NVIDIA/Megatron-LM megatron/core/transformer/transformer_config.py)")


def _read_recompute(f: dict, out: dict[str, Setting], notes: list[str], put) -> None:
    """Megatron's activation recompute flags: full recompute (checkpointing on), selective recompute of core
    attention alone (counted as none), and block recompute of the first N layers of each stage."""
    rec = f.get("recompute_granularity") or f.get("recompute_activations") or f.get("recompute_method") \
        or f.get("checkpoint_activations")       # Megatron-DeepSpeed's older spelling of full recomputation
    if rec is not None and str(rec[0]).lower() not in ("none", "false"):
        light = _selective_core_attn(f)
        if light is not None:
            notes.append(light)
        else:
            put("disable_gradient_checkpointing", False, "recompute_granularity", rec[1])
            out["disable_gradient_checkpointing"].invert = True
    blk = f.get("recompute_method")
    if rec is not None and blk is not None and str(blk[0]).strip().strip("'\"").lower() == "block" \
            and str((f.get("recompute_granularity") or ("full", 0))[0]).lower() == "full" \
            and as_int(f.get("recompute_num_layers", ("", 0))[0]) is not None:
        # --recompute-method block: only the first N layers of each pipeline stage are recomputed, the others keep
        # every activation (megatron/core/transformer/transformer_block.py _checkpointed_forward, block method)
        put("__recompute_layers__", as_int(f["recompute_num_layers"][0]), "recompute_num_layers",
            f["recompute_num_layers"][1])


def _read_optimizer(f: dict[str, tuple[str, int]], put, notes: list[str]) -> None:
    """Where the optimizer's state lives: the distributed optimizer, Megatron's FSDP, the precision-aware optimizer
    and its state dtypes, CPU offload."""
    if "use_distributed_optimizer" in f:
        put("__distopt__", as_bool(f["use_distributed_optimizer"][0]) is not False, "use_distributed_optimizer",
            f["use_distributed_optimizer"][1])
    fsdp = fsdp_level(f)
    if fsdp is not None and fsdp[0]:
        put("__fsdp__", fsdp[0], fsdp[1], fsdp[2])
        notes.append(f"--{fsdp[1].replace('_', '-')}: Megatron's FSDP shards the {FSDP_WHAT[fsdp[0]]} over data "
                     f"parallel ({FSDP_SRC})")
    if "use_precision_aware_optimizer" in f and as_bool(f["use_precision_aware_optimizer"][0]) is not False:
        put("__pao__", True, "use_precision_aware_optimizer", f["use_precision_aware_optimizer"][1])
    for native in STATE_DTYPE_FLAGS:
        if native in f:
            put(f"__{native}__", str(f[native][0]).strip().strip("'\"").lower(), native, f[native][1])
    if "optimizer_cpu_offload" in f and as_bool(f["optimizer_cpu_offload"][0]):
        put("__optoff__", True, "optimizer_cpu_offload", f["optimizer_cpu_offload"][1])


def read_flags(flags: dict[str, tuple[str, int]], file: str, swift: bool = False
               ) -> tuple[dict[str, Setting], list[str]]:
    """Megatron-LM / `megatron sft` flags (dashes or underscores) -> canonical settings, notes. `swift`: ms-swift's
    `megatron sft`, whose defaults differ from Megatron-LM's: the checkpoint's dtype (bf16) and the distributed
    optimizer on (SWIFT_MEGATRON: torch_dtype None, use_distributed_optimizer True)."""
    out: dict[str, Setting] = {}
    notes: list[str] = []
    f = {norm(k): v for k, v in flags.items()}
    if swift:
        _swift_defaults(f, file, out, notes)

    def put(key, value, native, line):
        out[key] = Setting(key, value, file, line, native, "flag")

    for native, key in (("micro_batch_size", "per_device_train_batch_size"), ("seq_length", "cutoff_len"),
                        ("max_length", "cutoff_len"), ("global_batch_size", "global_batch_size"),
                        ("hf_checkpoint", "model_name_or_path"), ("model", "model_name_or_path"),
                        ("load", "model_name_or_path")):
        if native in f and key not in out:
            v = f[native][0]
            if key == "model_name_or_path" and re.search(r"[-_]mcore/?$", v, re.IGNORECASE):
                notes.append(f"--{native} {v}: a Megatron (mcore) conversion of {re.sub(r'[-_]mcore/?$', '', v)}")
                v = re.sub(r"[-_]mcore/?$", "", v, flags=re.IGNORECASE)
            put(key, v, native, f[native][1])
    shape = None if swift else model_from_flags(f)
    if shape is not None and (out.get("model_name_or_path") is None or out["model_name_or_path"].native == "load"):
        # Megatron builds the model from these flags; `--load DIR` only fills it (a resumed run's own checkpoint)
        put("model_name_or_path", shape[0], "num_layers", f["num_layers"][1])
        notes.append(shape[1])
    if "max_tokens_per_gpu" in f and "cutoff_len" not in out and as_int(f["max_tokens_per_gpu"][0]):
        # slime / Miles `--use-dynamic-batch-size --max-tokens-per-gpu N`: each micro-batch is packed up to N tokens
        # per GPU, so one sequence of N tokens is what a step's activations hold (THUDM/slime slime/utils/arguments.py)
        put("cutoff_len", as_int(f["max_tokens_per_gpu"][0]), "max_tokens_per_gpu", f["max_tokens_per_gpu"][1])
        notes.append(f"--max-tokens-per-gpu {f['max_tokens_per_gpu'][0]}: dynamic batches of up to that many tokens "
                     f"per GPU, counted as one sequence of that length")
    for native, key in (("bf16", "bf16"), ("fp16", "fp16")):
        if native in f and as_bool(f[native][0]) is not False:
            put(key, True, native, f[native][1])
    if "torch_dtype" in f:
        d = f["torch_dtype"][0].lower()
        put("bf16" if "bf" in d else "fp16" if "16" in d else "pure_fp32", True, "torch_dtype", f["torch_dtype"][1])
    _read_recompute(f, out, notes, put)
    tt = f.get("train_type") or f.get("tuner_type")       # ms-swift 4 renamed train_type to tuner_type
    if tt is not None:
        put("finetuning_type", "lora" if "lora" in tt[0].lower() else "full", "train_type", tt[1])
    for native, short in PARALLEL.items():
        if native in f and as_int(f[native][0]):
            put(f"__{short}__", as_int(f[native][0]), native, f[native][1])
    for native in ("cross_entropy_loss_fusion", "cross_entropy_fusion_impl"):
        if native in f and as_bool(f[native][0]) is not False:
            put("cut_cross_entropy", True, native, f[native][1])
    if "sequence_parallel" in f and as_bool(f["sequence_parallel"][0]) is not False:
        put("__sp__", True, "sequence_parallel", f["sequence_parallel"][1])
    _read_optimizer(f, put, notes)
    if "save" in f:                    # Megatron-LM writes checkpoints only with --save DIR (arguments.py: None)
        put("output_dir", f["save"][0], "save", f["save"][1])
    if "no_save_optim" in f:           # --no-save-optim: the checkpoint holds no optimizer state
        put("save_only_model", True, "no_save_optim", f["no_save_optim"][1])
    for native in ("transformer_impl", "normalization"):      # the layer kernels' saved tensors (check.py)
        if native in f:
            put(native, str(f[native][0]), native, f[native][1])
    _read_attention(f, put, notes)
    _read_kernels(f, put, swift)
    if "no_bias_swiglu_fusion" in f and as_bool(f["no_bias_swiglu_fusion"][0]) is not False:
        put("no_bias_swiglu_fusion", True, "no_bias_swiglu_fusion", f["no_bias_swiglu_fusion"][1])
    for native in ("lora_rank", "lora_alpha"):
        if native in f:
            put(native, f[native][0], native, f[native][1])
    if not swift and "finetuning_type" not in out and (as_int(f.get("lora_rank", ("0", 0))[0]) or 0) > 0:
        # slime / Miles / Megatron-Bridge `--lora-rank N` is the switch itself (ms-swift's has a separate train_type)
        put("finetuning_type", "lora", "lora_rank", f["lora_rank"][1])
    return out, notes


# Megatron's main gradients and optimizer states in lower precision (megatron/training/arguments.py: --main-grads-dtype
# fp32|bf16 - bf16 leaves accumulate_allreduce_grads_in_fp32 off, so the grad buffer is the 16-bit params' dtype
# (validate_args; distributed/param_and_grad_buffer.py); --use-precision-aware-optimizer with --main-params-dtype
# fp32|fp16, --exp-avg-dtype / --exp-avg-sq-dtype fp32|fp16|bf16|fp8: TransformerEngine's FusedAdam keeps the master
# weights and the moments in those dtypes; defaults fp32)
STATE_DTYPE_FLAGS = ("main_grads_dtype", "main_params_dtype", "exp_avg_dtype", "exp_avg_sq_dtype")
STATE_DTYPE_BYTES = {"fp32": 4, "float32": 4, "fp16": 2, "float16": 2, "bf16": 2, "bfloat16": 2, "fp8": 1}
PAO_SRC = "NVIDIA/Megatron-LM:megatron/training/arguments.py (--use-precision-aware-optimizer, --main-grads-dtype ...)"


def state_bytes(settings: dict) -> tuple[int, int, int, int]:
    """(bytes per trained element of the main gradient, the master weight, exp_avg, exp_avg_sq) as the flags set them
    (STATE_DTYPE_FLAGS): the moments and master only under --use-precision-aware-optimizer; 4 each by default."""
    def get(native: str, applies: bool) -> int:
        s = settings.get(f"__{native}__")
        return STATE_DTYPE_BYTES.get(str(s.value), 4) if applies and s is not None else 4
    pao = bool(settings.get("__pao__") is not None and settings["__pao__"].value)
    return (get("main_grads_dtype", True), get("main_params_dtype", pao), get("exp_avg_dtype", pao),
            get("exp_avg_sq_dtype", pao))


def layout(settings: dict, world: int) -> Layout | None:
    """The model-parallel layout a job's settings state (Megatron flags, device_map), or None when none."""
    g = {k: s.value for k, s in settings.items()}
    dm = g.get("device_map")
    per = as_int(g.get("__devmap_gpus__")) or world      # GPUs one process spans (ms-swift: visible / NPROC)
    if isinstance(dm, str) and dm.lower() in ("auto", "balanced", "balanced_low_0", "sequential") and per > 1:
        return Layout(device_map=per)
    tp, pp, cp = (as_int(g.get(k)) or 1 for k in ("__tp__", "__pp__", "__cp__"))
    # ms-swift `--sequence_parallel_size N` (Ulysses / ring attention): each GPU holds 1/N of every sequence's
    # activations; the model states stay whole (DDP) -- the same split as Megatron's context parallelism
    cp = cp * (as_int(g.get("sequence_parallel_size")) or 1)
    sp = bool(g.get("__sp__"))
    ep = as_int(g.get("__ep__")) or 1
    etp = as_int(g.get("__etp__")) or 0
    fsdp = as_int(g.get("__fsdp__")) or 0
    if tp == pp == cp == ep == 1 and not sp and not g.get("__distopt__") and not g.get("__optoff__") and not fsdp:
        return None
    return Layout(tp, pp, cp, sp and tp > 1, bool(g.get("__distopt__")), ep=ep, etp=etp,
                  optimizer_offload=bool(g.get("__optoff__")), fsdp=fsdp,
                  replicate=(as_int(g.get("__dp_replicate__")) or 1) if fsdp else 1,
                  shard_cp=bool(g.get("__fsdp_cp__")) and bool(fsdp))


# AMD Primus (AMD-AGI/Primus, docs/02-user-guide): an experiment YAML whose `modules.<pre|post>_trainer` names the
# framework (megatron / megatron_bridge), the model file (`qwen3_32b.yaml`) and Megatron `overrides`; started by
# `primus-cli ... train pretrain|posttrain --config X`.
PRIMUS = "AMD-AGI/Primus:docs/02-user-guide/posttraining.md"


def primus_module(d) -> dict | None:
    """The Megatron trainer module of a Primus experiment mapping, or None."""
    mods = d.get("modules") if isinstance(d, dict) else None
    if not isinstance(mods, dict):
        return None
    for m in mods.values():
        if isinstance(m, dict) and str(m.get("framework", "")).startswith("megatron"):
            return m
    return None


# Primus' loader replaces `${VAR}` / `${VAR:default}` in every string of the experiment file with the environment
# variable, else the default (AMD-AGI/Primus:primus/core/config/yaml_loader.py, ENV_PATTERN / _resolve_env_in_string)
PRIMUS_ENV = re.compile(r"\$\{([^:{}]+)(?::([^}]*))?\}")
PRIMUS_ENV_SRC = "AMD-AGI/Primus:primus/core/config/yaml_loader.py"
PRIMUS_BASE = "AMD-AGI/Primus:primus/configs/modules/megatron/trainer_base.yaml"


def primus_env(value, used: list[str]):
    """`value` with Primus' `${VAR:default}` placeholders replaced by their defaults (the variable is set, if at all,
    in the shell that starts the job); a placeholder without a default is left as it is. `used` collects notes."""
    if isinstance(value, dict):
        return {k: primus_env(v, used) for k, v in value.items()}
    if not isinstance(value, str) or "${" not in value:
        return value

    def one(m: re.Match) -> str:
        if m.group(2) is None:
            return m.group(0)
        used.append(f"{m.group(1)}={m.group(2)}")
        return m.group(2)
    return PRIMUS_ENV.sub(one, value)


def primus_lora(over: dict, lines: dict[str, int]) -> dict[str, tuple[str, int]]:
    """Primus' native SFT `lora:` block: `enabled: true` makes the trainer wrap the model with LoRA of rank `dim`
    (AMD-AGI/Primus:primus/backends/megatron/megatron_sft_trainer.py, _init_lora); else full fine-tuning."""
    lora = over.get("lora")
    if not isinstance(lora, dict) or as_bool(str(lora.get("enabled"))) is not True:
        return {}
    out = {"tuner_type": ("lora", lines.get("lora", 0))}
    if as_int(str(lora.get("dim"))):
        out["lora_rank"] = (str(lora["dim"]), lines.get("dim", 0))
    return out


def read_primus(data: dict, text: str, file: str) -> tuple[dict[str, Setting], list[str]]:
    used: list[str] = []
    mod: dict = primus_env(primus_module(data) or {}, used)
    raw = mod.get("overrides")
    over: dict = raw if isinstance(raw, dict) else {}
    lines: dict[str, int] = {}
    for no, t in enumerate(text.splitlines(), 1):
        k = t.strip().split(":", 1)[0]
        if ":" in t and not t.lstrip().startswith("#"):
            lines.setdefault(k, no)
    flags = {k: (str(v), lines.get(k, 0)) for k, v in over.items() if v is not None and not isinstance(v, dict)}
    if str(over.get("peft") or "").lower() in ("lora", "dora"):
        flags["tuner_type"] = ("lora", lines.get("peft", 0))
    flags.update(primus_lora(over, lines))
    recipe = primus_recipes.recipe_lora(str(mod.get("model") or "")) \
        if str(mod.get("framework")) == "megatron_bridge" and flags.get("tuner_type", ("",))[0] == "lora" else None
    if recipe is not None and "lora_rank" not in flags:
        flags["lora_rank"] = (str(recipe[0]), lines.get("model", 0))
    prec = str(over.get("precision_config") or "").lower()
    if "bf16" in prec:
        flags["bf16"] = ("true", lines.get("precision_config", 0))
    elif "fp16" in prec:
        flags["fp16"] = ("true", lines.get("precision_config", 0))
    unset = not prec and not any(k in over for k in ("bf16", "fp16", "torch_dtype"))
    bridge_bf16 = str(mod.get("framework")) == "megatron_bridge" and unset
    if bridge_bf16:
        # Megatron-Bridge's recipes default to precision_config "bf16_mixed" (NVIDIA-NeMo/Megatron-Bridge
        # src/megatron/bridge/recipes/*: precision_config="bf16_mixed"), not Megatron-LM's fp32
        flags["bf16"] = ("true", 0)
    primus_bf16 = str(mod.get("framework")) == "megatron" and unset
    if primus_bf16:
        # Primus' Megatron-LM modules (pre_trainer.yaml, sft_trainer.yaml) extend trainer_base.yaml: bf16: true
        flags["bf16"] = ("true", 0)
    if "use_distributed_optimizer" not in flags:
        # Megatron-Bridge's recipes (and Primus' configs built on them) shard the optimizer over data parallel
        flags["use_distributed_optimizer"] = ("true", 0)
        extra = ["Primus / Megatron-Bridge: the distributed optimizer is on (its recipes' default)"]
    else:
        extra = []
    out, notes = read_flags(flags, file)
    notes += extra
    if recipe is not None and "lora_target" not in out:
        out["lora_target"] = Setting("lora_target", ",".join(recipe[1]), file, lines.get("model"), "model", "yaml")
        notes.append(f"{mod.get('model')}: its recipe builds its own LoRA, rank {recipe[0]} on {', '.join(recipe[1])} "
                     f"(the override peft: lora, a string, does not replace it; {recipe[2]})")
    if used:
        notes.append(f"Primus placeholders ${{VAR:default}}: the defaults {', '.join(dict.fromkeys(used))} (the "
                     f"variables are not set in the files; {PRIMUS_ENV_SRC})")
    if bridge_bf16:
        notes.append("Megatron-Bridge: precision_config not set, its recipes' default bf16_mixed")
    if primus_bf16:
        notes.append(f"Primus Megatron ({mod.get('config') or 'trainer'}): bf16 not set, its trainer_base.yaml's "
                     f"default bf16: true ({PRIMUS_BASE})")
    model = os.path.splitext(os.path.basename(str(mod.get("model") or "")))[0]
    if model and "model_name_or_path" not in out:
        # qwen3_32b -> qwen3-32b; qwen2_5_7b -> qwen2.5-7b (a version's point only before a size)
        name = re.sub(r"(\d)_(\d+)_(\d+(?:\.\d+)?[bBmM])", r"\1.\2-\3", model).replace("_", "-")
        out["model_name_or_path"] = Setting("model_name_or_path", name, file, lines.get("model"), "model", "yaml")
    notes.append(f"AMD Primus experiment ({mod.get('framework')}): the model file {mod.get('model')} and the "
                 f"Megatron overrides are read ({PRIMUS})")
    return out, notes


# AMD's Megatron-LM training docker (rocm/megatron-lm; the ROCm docs' "Training a model with Megatron-LM") starts its
# benchmarks with a launcher script configured by environment variables: `MBS=2 BS=128 TP=1 SEQ_LENGTH=8192
# MODEL_SIZE=8 bash examples/llama/train_llama3.sh`. Each launcher below is read from its source: the variables it
# reads, their defaults, the Megatron flags it builds from them, and the model its size names.
# ROCm/Megatron-LM examples/llama/train_llama3.sh: MODEL_SIZE 8|70 (Llama 3.1 shapes), TP 8, PP 1, CP 1, MBS 2, BS 8,
# SEQ_LENGTH 2048, RECOMPUTE 0 (1: --recompute-granularity full), SEQ_PARALLEL 1, FSDP 0 (1: torch FSDP2, TP forced
# to 1, no distributed optimizer), OPTIMIZER adam (adam: --use-distributed-optimizer), always --bf16; the GPUs per
# node are torch.cuda.device_count(), NNODES 1; `KEY=VALUE` arguments are exported like the prefixes.
# ROCm/Megatron-LM examples/deepseek_v2/train_deepseekv2.sh: DeepSeek-V2-Lite (MODEL_SIZE=16B, --load
# deepseek-ai/DeepSeek-V2-Lite set in the script), MBS 4, GBS 256, SEQ_LEN 2048, PR bf16 (fp16|bf16|fp8), AC sel
# (full|sel|none), TP 1, PP 1, EP 8, distributed optimizer on, HIP_VISIBLE_DEVICES 0-7 (8 GPUs).
AMD_ENTRY = "ROCm Megatron-LM"
_AMD_LLAMA3 = {"8": "meta-llama/Llama-3.1-8B", "70": "meta-llama/Llama-3.1-70B"}


def amd_launcher(script: str) -> str | None:
    """The name of a known AMD Megatron-LM launcher script (`examples/llama/train_llama3.sh`), else None."""
    base = os.path.basename(script)
    return base if base in ("train_llama3.sh", "train_deepseekv2.sh") else None


def read_amd_launcher(base: str, env: dict[str, str], args: list[tuple[str, int]], line: int
                      ) -> tuple[dict[str, tuple[str, int]], list[str], int | None]:
    """(the Megatron flags the launcher builds, notes, the GPUs per node it fixes or None) from its variables."""
    v = dict(env)
    for text, _ in args:                       # train_llama3.sh exports its KEY=VALUE arguments
        if "=" in text and not text.startswith("-"):
            k, val = text.split("=", 1)
            v[k] = val

    def get(name: str, default: str) -> str:
        val = str(v.get(name, default)).strip().strip("'\"")
        return val if val and "$" not in val else default

    flags: dict[str, tuple[str, int]] = {}

    def put(flag: str, value: object) -> None:
        flags[flag] = (str(value), line)

    src = f"ROCm/Megatron-LM:examples/{'llama' if base == 'train_llama3.sh' else 'deepseek_v2'}/{base}"
    if base == "train_llama3.sh":
        size = get("MODEL_SIZE", "70")
        notes = [f"{base}: AMD's Megatron-LM launcher, its variables read as it reads them ({src})"]
        if size in _AMD_LLAMA3:
            put("model", _AMD_LLAMA3[size])
            notes.append(f"MODEL_SIZE={size}: the launcher builds {_AMD_LLAMA3[size]}'s shape")
        fsdp = get("FSDP", "0") == "1"
        put("tensor-model-parallel-size", 1 if fsdp else get("TP", "8"))
        put("pipeline-model-parallel-size", get("PP", "1"))
        put("context-parallel-size", get("CP", "1"))
        put("micro-batch-size", get("MBS", "2"))
        put("global-batch-size", get("BS", "8"))
        put("seq-length", get("SEQ_LENGTH", "2048"))
        put("bf16", "true")
        if get("RECOMPUTE", "0") == "1":
            put("recompute-granularity", "full")
        if get("SEQ_PARALLEL", "1") == "1" and not fsdp:
            put("sequence-parallel", "true")
        if get("OPTIMIZER", "adam") == "adam" and not fsdp:
            put("use-distributed-optimizer", "true")
        if fsdp:
            put("use-torch-fsdp2", "true")
        return flags, notes, None
    # train_deepseekv2.sh
    put("load", "deepseek-ai/DeepSeek-V2-Lite")
    put("micro-batch-size", get("MBS", "4"))
    put("global-batch-size", get("GBS", "256"))
    put("seq-length", get("SEQ_LEN", "2048"))
    pr = get("PR", "bf16")
    put("fp16" if pr == "fp16" else "bf16", "true")
    ac = get("AC", "sel")
    if ac in ("full", "sel"):
        put("recompute-granularity", "full" if ac == "full" else "selective")
    put("tensor-model-parallel-size", "1")
    put("pipeline-model-parallel-size", "1")
    put("expert-model-parallel-size", "8")
    put("use-distributed-optimizer", "true")
    return flags, [f"{base}: AMD's Megatron-LM launcher for DeepSeek-V2-Lite, its variables read as it reads "
                   f"them ({src}); it sets HIP_VISIBLE_DEVICES=0-7 (8 GPUs)"], 8


def _read_attention(f: dict[str, tuple[str, int]], put, notes: list[str]) -> None:
    """Megatron's attention kernel: `--use-flash-attn` (the local implementation's FlashAttention) or
    `--attention-backend flash|fused` -> FlashAttention; `--transformer-impl local` without it -> the local
    CoreAttention, which materialises the b x a x s x s scores and their softmax (megatron/core/transformer/
    dot_product_attention.py with FusedScaleMaskSoftmax), counted as eager attention."""
    backend = str((f.get("attention_backend") or ("", 0))[0]).strip("'\"").lower().replace("attnbackend.", "")
    if "use_flash_attn" in f and as_bool(f["use_flash_attn"][0]) is not False or backend in ("flash", "fused"):
        key = "use_flash_attn" if "use_flash_attn" in f else "attention_backend"
        put("flash_attn", "fa2", key, f[key][1])
    elif backend == "sdpa":        # torchtitan's plain-torch blocks (runners/torchtitan.py): PyTorch's SDPA
        put("flash_attn", "sdpa", "attention_backend", f["attention_backend"][1])
    elif backend == "unfused" or not backend and \
            str((f.get("transformer_impl") or ("", 0))[0]).strip("'\"").lower() == "local":
        key = "attention_backend" if backend == "unfused" else "transformer_impl"
        put("flash_attn", "eager", key, f[key][1])
        notes.append(f"--{key.replace('_', '-')} {f[key][0]} without --use-flash-attn: Megatron's unfused core "
                     f"attention keeps the attention scores' softmax (counted as eager attention, with the bytes its softmax "
                     f"kernel keeps)")


# Transformer Engine's FP8 training: Megatron-LM `--fp8-format e4m3|hybrid` (dest fp8; megatron/training/
# arguments.py), ms-swift `--fp8_format` (swift/megatron/arguments/megatron_args.py: self.fp8 = self.fp8_format), Primus'
# `fp8: hybrid` override; unset / null = bf16 linears
FP8_FORMATS = ("e4m3", "hybrid", "e5m2")


def _read_kernels(f: dict[str, tuple[str, int]], put, swift: bool) -> None:
    """The flags that change what the layer kernels keep: FP8 linears, attention dropout, the fused softmax switch
    (core/memory/megatron_attention.py)."""
    for native in ("fp8_format", "fp8"):
        v = str((f.get(native) or ("", 0))[0]).strip().strip("'\"").lower()
        if v in FP8_FORMATS:
            put("__fp8__", v, native, f[native][1])
            break
    if "attention_dropout" in f:
        try:
            put("__attn_dropout__", float(str(f["attention_dropout"][0]).strip("'\"")), "attention_dropout",
                f["attention_dropout"][1])
        except ValueError:
            pass
    elif swift:
        put("__attn_dropout__", 0.0, "attention_dropout (ms-swift megatron's default 0.)", None)
    if "moe_use_legacy_grouped_gemm" in f:
        put("moe_use_legacy_grouped_gemm", as_bool(f["moe_use_legacy_grouped_gemm"][0]) is not False,
            "moe_use_legacy_grouped_gemm", f["moe_use_legacy_grouped_gemm"][1])
    if "no_masked_softmax_fusion" in f and as_bool(f["no_masked_softmax_fusion"][0]) is not False:
        put("__softmax_fusion__", False, "no_masked_softmax_fusion", f["no_masked_softmax_fusion"][1])
    elif "masked_softmax_fusion" in f and as_bool(f["masked_softmax_fusion"][0]) is False:
        put("__softmax_fusion__", False, "masked_softmax_fusion", f["masked_softmax_fusion"][1])


def _tokenizer_vocab(f: dict[str, tuple[str, int]]) -> tuple[int, str] | None:
    """(vocabulary size, how) of the tokenizer the flags name, before padding; None when the files do not say."""
    if "vocab_size" in f and as_int(f["vocab_size"][0]):
        return as_int(f["vocab_size"][0]) or 0, f"--vocab-size {f['vocab_size'][0]}"
    kind = str((f.get("tokenizer_type") or ("", 0))[0]).strip("'\"").lower()
    if not kind and "vocab_file" in f:
        stem = os.path.basename(str(f["vocab_file"][0])).lower()
        kind = next((t for mark, t in megatron_shapes.VOCAB_FILE_TOKENIZER if mark in stem), "")
        if kind == "gpt2bpetokenizer" and "merge_file" not in f:
            kind = ""
    if kind in megatron_shapes.TOKENIZER_VOCAB:
        return megatron_shapes.TOKENIZER_VOCAB[kind], kind
    return None


def model_from_flags(f: dict[str, tuple[str, int]]) -> tuple[dict, str] | None:
    """The model Megatron builds from `--num-layers --hidden-size --num-attention-heads` (+ ffn, GQA, swiglu, tied
    embeddings, the tokenizer's padded vocab) as config.json keys, with a note; None when a dimension or the
    vocabulary is not in the files (keys normalised: underscores)."""
    dims = {k: as_int(f[k][0]) for k in ("num_layers", "hidden_size", "num_attention_heads") if k in f}
    if len(dims) < 3 or not all(dims.values()):
        return None
    vocab = _tokenizer_vocab(f)
    if vocab is None:
        return None
    layers, hidden, heads = (int(dims[k] or 0) for k in ("num_layers", "hidden_size", "num_attention_heads"))
    swiglu = "swiglu" in f and as_bool(f["swiglu"][0]) is not False
    ffn = as_int(f.get("ffn_hidden_size", ("", 0))[0]) or \
        (int((4 * hidden * 2 / 3) / 64) * 64 if swiglu else 4 * hidden)
    tp = as_int(f.get("tensor_model_parallel_size", ("1", 0))[0]) or 1
    multiple = (as_int(f.get("make_vocab_size_divisible_by", ("", 0))[0]) or megatron_shapes.VOCAB_DIVISIBLE_BY) * tp
    padded = -(-vocab[0] // multiple) * multiple
    gqa = "group_query_attention" in f and as_bool(f["group_query_attention"][0]) is not False
    kv = (as_int(f.get("num_query_groups", ("", 0))[0]) or 1) if gqa else heads
    untied = "untie_embeddings_and_output_weights" in f
    cfg: dict[str, object] = {
        "model_type": "llama" if swiglu else "gpt_neox", "hidden_act": "silu" if swiglu else "gelu",
        "tie_word_embeddings": not untied, "num_hidden_layers": layers, "num_attention_heads": heads,
        "num_key_value_heads": kv, "hidden_size": hidden, "intermediate_size": ffn, "vocab_size": padded}
    if "max_position_embeddings" in f and as_int(f["max_position_embeddings"][0]):
        cfg["max_position_embeddings"] = as_int(f["max_position_embeddings"][0])
    note = (f"the model Megatron builds from its flags ({megatron_shapes.MEGATRON_SHAPE_SOURCE}): {layers} layers x "
            f"{hidden}, {heads} heads ({kv} key/value), ffn {ffn}{' swiglu' if swiglu else ''}, vocab {vocab[0]} "
            f"({vocab[1]}) padded to {padded}, embeddings {'untied' if untied else 'tied'}")
    return cfg, note
