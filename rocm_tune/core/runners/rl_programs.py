"""Online-RL programs started without a training config: verl (`python3 -m verl.trainer.main_ppo key=value ...`,
Hydra overrides) and OpenRLHF (`python3 -m openrlhf.cli.train_ppo_ray --flag value ...`) -> the canonical settings
of the plain transformers program they train, plus the GRPO keys core/runners/rl.py reads (pure).

What the actor does on its GPUs (volcengine/verl verl/trainer/config/ppo_trainer.yaml, verl/workers/fsdp_workers.py;
OpenRLHF openrlhf/cli/train_ppo_ray.py, openrlhf/trainer/ray/ppo_actor.py):
* verl: the actor is FSDP FULL_SHARD over every GPU of the job (`trainer.n_gpus_per_node` x `trainer.nnodes`),
  loaded in fp32 with bf16 mixed precision; `actor.fsdp_config.param_offload` / `optimizer_offload` keep the shards
  in host RAM; the rollout engine (vLLM/SGLang) shares the GPUs and takes `rollout.gpu_memory_utilization` of each
  while it generates (its cache is freed for the update: `free_cache_engine`); a micro-batch is
  `ppo_micro_batch_size_per_gpu` sequences (the older `ppo_micro_batch_size` counts all GPUs) of
  `data.max_prompt_length + data.max_response_length` tokens; `actor.use_kl_loss` loads a reference copy (FSDP,
  on the host with `ref.fsdp_config.param_offload`).
* OpenRLHF: the actor is DeepSpeed ZeRO-`--zero_stage` over `--actor_num_gpus_per_node` x `--actor_num_nodes` GPUs
  (`--adam_offload`: the optimizer on the host); `--micro_train_batch_size` sequences of `--prompt_max_len +
  --generate_max_len` tokens; vLLM engines (`--vllm_num_engines`) run on GPUs of their own unless
  `--colocate_all_models`; the reference model has GPUs of its own unless `--colocate_actor_ref`.
"""

from __future__ import annotations

from rocm_tune.core.runners.common import Setting, as_bool, as_int

VERL = "volcengine/verl:verl/trainer/config/ppo_trainer.yaml"
OPENRLHF = "OpenRLHF/OpenRLHF:openrlhf/cli/train_ppo_ray.py"
# adv_estimator values without a critic (GRPO-like: the group's rewards are the baseline)
_NO_CRITIC = ("grpo", "rloo", "reinforce_plus_plus", "reinforce_plus_plus_baseline", "remax", "opo", "gpg",
              "grpo_passk", "group_norm", "dr_grpo")


def entry(argv: list[str]) -> tuple[int, str] | None:
    """(index of the module word, "verl" | "openrlhf") of an RL program inside a command, else None."""
    for i, w in enumerate(argv):
        if w.startswith("verl.trainer.main_ppo") or w.endswith("verl/trainer/main_ppo.py") \
                or w.startswith(("recipe.", "verl.recipe.")) and w.endswith("main_ppo") or w.endswith(".main_dapo"):
            return i, "verl"
        if _verl_copy(argv, i):
            return i, "verl"
        if w.startswith("openrlhf.cli.train_") and ("ppo" in w or "grpo" in w or "reinforce" in w):
            return i, "openrlhf"
        if w.startswith("openrlhf.cli.train_") and w.rsplit("_", 1)[-1] in ("sft", "dpo", "rm", "kto", "prm"):
            return i, "openrlhf-" + w.rsplit("_", 1)[-1]          # OpenRLHF's DeepSpeed SFT / DPO / reward model
    return None


def _verl_copy(argv: list[str], i: int) -> bool:
    """verl's trainer vendored or renamed in a project of its own (`python3 -m my_project.trainer.main_ppo`,
    `python3 some/dir/trainer/main_ppo.py`): the module named as verl names it, given the Hydra overrides of verl's
    own ppo_trainer.yaml (`actor_rollout_ref.*`), which no other program takes."""
    w = argv[i]
    named = (w.endswith(".trainer.main_ppo") and i > 0 and argv[i - 1] in ("-m", "--module")) \
        or w.endswith("/trainer/main_ppo.py")
    return named and any(a.lstrip("+~").startswith("actor_rollout_ref.") for a in argv[i + 1:])


def _put(out: dict, key: str, value, file: str, line: int | None, native: str, kind: str = "flag") -> None:
    out[key] = Setting(key, value, file, line, native, kind)


def read_verl(words: list, file: str) -> tuple[dict[str, Setting], list[str], int | None, int | None]:
    """verl's Hydra overrides (`a.b.c=value`, `+a.b=value`) -> (settings, notes, GPUs per node, nodes)."""
    ov: dict[str, tuple[str, int]] = {}
    for t in words:
        text = t.text.lstrip("+~")
        if "=" in text and not text.startswith("-"):
            k, v = text.split("=", 1)
            ov[k] = (v.strip("'\""), t.line)
    g = lambda k, d=None: ov[k][0] if k in ov else d          # noqa: E731
    ln = lambda k: ov[k][1] if k in ov else None               # noqa: E731
    out: dict[str, Setting] = {}
    notes: list[str] = [f"verl (python -m verl.trainer.main_ppo): the actor is read as an FSDP transformers program "
                        f"with its rollout engine on the same GPUs ({VERL})"]
    a, m = "actor_rollout_ref.actor.", "actor_rollout_ref.model."
    if g(m + "path"):
        _put(out, "model_name_or_path", g(m + "path"), file, ln(m + "path"), m + "path")
    gpus, nodes = as_int(g("trainer.n_gpus_per_node")), as_int(g("trainer.nnodes"))
    world = (gpus or 1) * (nodes or 1)
    per = as_int(g(a + "ppo_micro_batch_size_per_gpu"))
    if per is None and as_int(g(a + "ppo_micro_batch_size")):
        per = max(1, (as_int(g(a + "ppo_micro_batch_size")) or 1) // world)
        notes.append(f"{a}ppo_micro_batch_size {g(a + 'ppo_micro_batch_size')} counts all {world} GPUs: {per} per GPU")
    seq = (as_int(g("data.max_prompt_length", "512")) or 512) + (as_int(g("data.max_response_length", "512")) or 512)
    if as_bool(g(a + "use_dynamic_bsz")) and as_int(g(a + "ppo_max_token_len_per_gpu")):
        seq, per = as_int(g(a + "ppo_max_token_len_per_gpu")) or seq, 1
        notes.append(f"{a}use_dynamic_bsz: micro-batches of up to ppo_max_token_len_per_gpu = {seq} tokens")
    _put(out, "per_device_train_batch_size", per or 1, file, ln(a + "ppo_micro_batch_size_per_gpu"),
         a + "ppo_micro_batch_size_per_gpu", "flag" if per else "assumed")
    _put(out, "cutoff_len", seq, file, ln("data.max_response_length"), "data.max_prompt_length + max_response_length")
    # enable_gradient_checkpointing: True in verl's config since v0.2 (verl/trainer/config/ppo_trainer.yaml,
    # volcengine/verl 9fca71d2c "enable grad ckpt as default", 2025-01-28; False in v0.1)
    gc = as_bool(g(m + "enable_gradient_checkpointing", "true"))
    _put(out, "disable_gradient_checkpointing", not gc, file, ln(m + "enable_gradient_checkpointing"),
         m + "enable_gradient_checkpointing", "flag" if m + "enable_gradient_checkpointing" in ov else "assumed")
    out["disable_gradient_checkpointing"].invert = True
    lora = as_int(g(m + "lora_rank", "0")) or 0
    _put(out, "finetuning_type", "lora" if lora > 0 else "full", file, ln(m + "lora_rank"), m + "lora_rank")
    if lora > 0:
        _put(out, "lora_rank", lora, file, ln(m + "lora_rank"), m + "lora_rank")
        _put(out, "lora_target", g(m + "target_modules", "all-linear"), file, ln(m + "target_modules"),
             m + "target_modules")
    # FSDP actor: fp32 shards, bf16 compute; param_offload puts the shards (and their gradients) on the host
    _put(out, "load_dtype", "fp32", file, None, "verl actor (fp32 master weights)", "assumed")
    _put(out, "bf16", True, file, None, "fsdp_config.mixed_precision (bf16)", "assumed")
    off = as_bool(g(a + "fsdp_config.param_offload", "false"))
    _put(out, "fsdp", "full_shard auto_wrap" + (" offload" if off else ""), file, ln(a + "fsdp_config.param_offload"),
         a + "fsdp_config")
    if as_bool(g(a + "fsdp_config.optimizer_offload", "false")) and not off:
        notes.append(f"{a}fsdp_config.optimizer_offload: the optimizer state on the host is not subtracted (an "
                     f"upper bound for the GPU)")
    est = str(g("algorithm.adv_estimator", "gae")).lower()
    _put(out, "stage", "grpo", file, ln("algorithm.adv_estimator"), "algorithm.adv_estimator")
    _verl_side_models(g, ln, file, out, notes, est)
    r = "actor_rollout_ref.rollout."
    _put(out, "use_vllm", True, file, ln(r + "name"), r + "name")
    _put(out, "vllm_mode", "colocate", file, ln(r + "name"), r + "name")
    _put(out, "vllm_gpu_memory_utilization", g(r + "gpu_memory_utilization", "0.5"), file,
         ln(r + "gpu_memory_utilization"), r + "gpu_memory_utilization")
    if as_bool(g(r + "free_cache_engine", "true")) is not False:
        _put(out, "vllm_enable_sleep_mode", True, file, ln(r + "free_cache_engine"), r + "free_cache_engine")
    kl = as_bool(g(a + "use_kl_loss", "false")) and not as_bool(g("actor_rollout_ref.ref.fsdp_config.param_offload",
                                                                   "false"))
    _put(out, "beta", g(a + "kl_loss_coef", "0.001") if kl else "0", file, ln(a + "use_kl_loss"), a + "use_kl_loss")
    return out, notes, gpus, nodes


VERL_CRITIC = ("volcengine/verl:verl/workers/fsdp_workers.py (CriticWorker: model_dtype fp32 by default, FSDP over the "
               "actor's GPUs, offload_fsdp_model_to_cpu / offload_fsdp_optimizer only with critic.model.fsdp_config."
               "param_offload / optimizer_offload; RewardModelWorker: bf16, CPUOffload with param_offload)")


def _verl_side_models(g, ln, file: str, out: dict, notes: list[str], est: str) -> None:
    """verl's critic (algorithm.adv_estimator gae and the others that learn a value) and reward model
    (reward_model.enable) are FSDP workers colocated with the actor on the same GPUs (VERL_CRITIC); what they keep
    there between their own phases is counted beside the actor (core/check/check.py _rl_side_models)."""
    side, off = [], []
    if est not in _NO_CRITIC:
        side.append("critic")
        c = "critic.model.fsdp_config."
        off += [f"critic_{k}" for k in ("param", "optimizer") if as_bool(g(c + k + "_offload", "false"))]
        other = g("critic.model.path")
        if other and other != g("actor_rollout_ref.model.path"):
            notes.append(f"critic.model.path {other}: the critic counted with the actor's shape")
    if as_bool(g("reward_model.enable", "false")):
        side.append("reward")
        if as_bool(g("reward_model.model.fsdp_config.param_offload", "false")):
            off.append("reward_param")
    if side:
        _put(out, "__rl_side_models__", ",".join(side), file, ln("algorithm.adv_estimator"), "verl workers")
        _put(out, "__rl_side_offload__", ",".join(off), file, None, "fsdp_config.*_offload")


OPENRLHF_LOCAL = "OpenRLHF/OpenRLHF:openrlhf/cli/train_ppo.py"


def read_openrlhf(flags: dict[str, tuple[str, int]], file: str, stage_name: str = "ppo", local: bool = False
                  ) -> tuple[dict[str, Setting], list[str], int | None, int | None]:
    """OpenRLHF's train_ppo_ray flags -> (settings, notes, the actor's GPUs per node, its nodes); its SFT / DPO /
    reward-model trainers (`stage_name`) -> their DeepSpeed program's settings (the launcher says the GPUs)."""
    f = {k.replace("-", "_"): v for k, v in flags.items()}
    g = lambda k, d=None: f[k][0] if k in f else d            # noqa: E731
    ln = lambda k: f[k][1] if k in f else None                 # noqa: E731
    out: dict[str, Setting] = {}
    if stage_name in ("sft", "dpo", "rm", "kto", "prm"):
        out = _openrlhf_trainer(f, file, stage_name)
        return out, [f"OpenRLHF train_{stage_name} (openrlhf/cli/train_{stage_name}.py): a DeepSpeed program, "
                     f"--max_len {g('max_len', '2048')} tokens per sample", _openrlhf_attention(f, file, out),
                     *_openrlhf_optimizer(f, file, out)], None, None
    notes = [f"OpenRLHF ({OPENRLHF}): the actor is read as a DeepSpeed program on its own GPUs "
             f"(--actor_num_gpus_per_node)"]
    _common_ds(f, file, out)
    notes.append(_openrlhf_attention(f, file, out))
    notes += _openrlhf_optimizer(f, file, out)
    seq = (as_int(g("prompt_max_len", "1024")) or 1024) + (as_int(g("generate_max_len", "1024")) or 1024)
    _put(out, "cutoff_len", seq, file, ln("prompt_max_len"), "prompt_max_len + generate_max_len")
    _put(out, "stage", "grpo", file, ln("advantage_estimator"), "advantage_estimator")
    colocated = as_bool(g("colocate_all_models", "false"))
    if (as_int(g("vllm_num_engines", "0")) or 0) > 0:
        _put(out, "use_vllm", True, file, ln("vllm_num_engines"), "vllm_num_engines")
        _put(out, "vllm_mode", "colocate" if colocated else "server", file, ln("vllm_num_engines"), "vllm_num_engines")
        if colocated:
            _put(out, "vllm_gpu_memory_utilization", g("vllm_gpu_memory_utilization", "0.9"), file,
                 ln("vllm_gpu_memory_utilization"), "vllm_gpu_memory_utilization")
            if as_bool(g("vllm_enable_sleep", "false")):
                _put(out, "vllm_enable_sleep_mode", True, file, ln("vllm_enable_sleep"), "vllm_enable_sleep")
    else:
        notes.append("OpenRLHF without --vllm_num_engines: the actor generates with model.generate on its own GPUs")
    ref_here = local or colocated or as_bool(g("colocate_actor_ref", "false"))
    if colocated and not local and not as_bool(g("async_train", "false")):
        _openrlhf_colocated_side(g, ln, file, out, notes)
    if local:
        # train_ppo.py (no Ray): one DeepSpeed process per GPU builds the actor, the critic (trained, its own
        # optimizer), the reward model and the initial (reference) model, and strategy.prepare()s them all there
        side = "critic,reward" if not g("remote_rm_url") else "critic"
        _put(out, "__rl_side_models__", side, file, ln("reward_pretrain"), "train_ppo (no Ray)")
        notes.append(f"OpenRLHF train_ppo without Ray ({OPENRLHF_LOCAL}): the actor, critic, "
                     f"{'reward and ' if 'reward' in side else ''}reference models are all on every GPU (critic and "
                     f"reward counted with the actor's shape, a value head in place of its lm_head)")
    coef = g("init_kl_coef", "0.01") if (as_bool(g("use_kl_loss", "false")) or g("init_kl_coef")) else "0"
    _put(out, "beta", coef if ref_here else "0", file, ln("init_kl_coef"), "init_kl_coef")
    if not ref_here:
        notes.append("OpenRLHF: the reference model runs on GPUs of its own (--ref_num_gpus_per_node), not the actor's")
    if local:
        return out, [n for n in notes if "on its own GPUs" not in n], None, None
    return out, notes, as_int(g("actor_num_gpus_per_node")), as_int(g("actor_num_nodes"))


OPENRLHF_COLOCATE = ("OpenRLHF/OpenRLHF:openrlhf/cli/train_ppo_ray.py (--colocate_all_models: the critic and reward "
                     "RayActorGroups take the actor's placement group, num_gpus_per_actor 0.2; advantage_estimator "
                     "'gae' (default) keeps critic_pretrain; openrlhf/utils/deepspeed/deepspeed_utils.py "
                     "offload_deepspeed_states under --deepspeed_enable_sleep: optimizer states, gradient buffer and "
                     "fp32 master weights to the host, the 16-bit weights stay)")


def _openrlhf_colocated_side(g, ln, file: str, out: dict, notes: list[str]) -> None:
    """--colocate_all_models (without --async_train): the critic (advantage_estimator gae) and the reward model (no
    --remote_rm_url) live on the actor's GPUs too (OPENRLHF_COLOCATE)."""
    side = (["critic"] if str(g("advantage_estimator", "gae")).lower() == "gae" else []) \
        + ([] if g("remote_rm_url") else ["reward"])
    if not side:
        return
    _put(out, "__rl_side_models__", ",".join(side), file, ln("colocate_all_models"), "colocate_all_models")
    if as_bool(g("deepspeed_enable_sleep", "false")) and "critic" in side:
        _put(out, "__rl_side_offload__", "critic_sleep", file, ln("deepspeed_enable_sleep"), "deepspeed_enable_sleep")
    notes.append(f"OpenRLHF --colocate_all_models: the {' and '.join(side)} model(s) share the actor's GPUs"
                 + (" (--deepspeed_enable_sleep: the critic keeps only its 16-bit weights there while the actor "
                    "trains)" if "critic" in side and as_bool(g("deepspeed_enable_sleep", "false")) else ""))


# transformers' OptimizerNames of bitsandbytes' optimizers (training_args.py): 8-bit moments, paged state
BNB_OPTIMIZERS = ("adamw_bnb_8bit", "adamw_8bit", "paged_adamw_8bit", "paged_adamw_32bit", "paged_adamw",
                  "adamw_torch_8bit")


def _openrlhf_optimizer(f: dict, file: str, out: dict) -> list[str]:
    """`--optimizer NAME`: no upstream OpenRLHF flag (its trainers build DeepSpeed's FusedAdam, --adam_offload
    DeepSpeedCPUAdam; openrlhf/utils/deepspeed/deepspeed.py create_optimizer); a fork that adds it names the
    optimizer by transformers' names, and a bitsandbytes name is read as that optimizer's state (said)."""
    name = str(f["optimizer"][0]).strip("'\"").lower() if "optimizer" in f else ""
    if name not in BNB_OPTIMIZERS:
        return []
    _put(out, "optim", name, file, f["optimizer"][1], "optimizer")
    return [f"--optimizer {name}: not an upstream OpenRLHF flag (a fork's); its value names the bitsandbytes "
            f"optimizer, counted with that optimizer's state"]


def _common_ds(f: dict, file: str, out: dict) -> None:
    """OpenRLHF's DeepSpeed flags shared by every trainer: model, ZeRO stage, host offload, micro-batch, precision,
    checkpointing, LoRA (openrlhf/utils/deepspeed/deepspeed.py, openrlhf/cli/*)."""
    g = lambda k, d=None: f[k][0] if k in f else d            # noqa: E731
    ln = lambda k: f[k][1] if k in f else None                 # noqa: E731
    if g("pretrain"):
        _put(out, "model_name_or_path", g("pretrain"), file, ln("pretrain"), "pretrain")
    stage = as_int(g("zero_stage", "2"))
    _put(out, "deepspeed", "true", file, ln("zero_stage"), "zero_stage")
    _put(out, "zero_stage", stage if stage is not None else 2, file, ln("zero_stage"), "zero_stage")
    if as_bool(g("adam_offload", "false")):
        _put(out, "offload", "true", file, ln("adam_offload"), "adam_offload")
    _put(out, "per_device_train_batch_size", as_int(g("micro_train_batch_size", "8")) or 8, file,
         ln("micro_train_batch_size"), "micro_train_batch_size")
    for k in ("bf16", "fp16"):
        if as_bool(g(k, "false")):
            _put(out, k, True, file, ln(k), k)
    if as_bool(g("use_liger_kernel", "false")):
        # the Actor loads AutoLigerKernelForCausalLM (openrlhf/models/actor.py): Liger's RMSNorm / SwiGLU at their
        # defaults; its forward passes no labels and takes the log-probs from the logits, so Liger's fused
        # linear cross-entropy (only `if self.training and labels is not None`) never runs
        _put(out, "enable_liger_kernel", True, file, ln("use_liger_kernel"), "use_liger_kernel")
        _put(out, "liger_fused_linear_cross_entropy", False, file, ln("use_liger_kernel"), "use_liger_kernel")
    gc = as_bool(g("gradient_checkpointing", "false"))
    _put(out, "disable_gradient_checkpointing", not gc, file, ln("gradient_checkpointing"), "gradient_checkpointing")
    out["disable_gradient_checkpointing"].invert = True
    lora = as_int(g("lora_rank", "0")) or 0
    _put(out, "finetuning_type", "lora" if lora > 0 else "full", file, ln("lora_rank"), "lora_rank")
    if lora > 0:
        _put(out, "lora_rank", lora, file, ln("lora_rank"), "lora_rank")
    if as_bool(g("load_in_4bit", "false")):
        _put(out, "quantization_bit", 4, file, ln("load_in_4bit"), "load_in_4bit")


OPENRLHF_ATTN = "OpenRLHF/OpenRLHF:openrlhf/models/actor.py"


def _openrlhf_attention(f: dict, file: str, out: dict) -> str:
    """The attention the Actor loads (and a note saying why): `--attn_implementation X` (2025-08 on; dotted
    `--ds.attn_implementation` from 2026), default flash_attention_2; before that `--flash_attn` switched FlashAttention-2
    on and without it the Actor loaded `attn_implementation="eager"` (openrlhf/models/actor.py); `--packing_samples`
    turns FlashAttention-2 on in both (openrlhf/cli/train_sft.py)."""
    for k in ("attn_implementation", "ds.attn_implementation"):
        if k in f:
            _put(out, "flash_attn", f[k][0], file, f[k][1], k)
            return f"OpenRLHF --{k} {f[k][0]}"
    for k in ("flash_attn", "packing_samples", "ds.packing_samples"):
        if k in f and as_bool(f[k][0]) is not False:
            _put(out, "flash_attn", "flash_attention_2", file, f[k][1], k)
            return f"OpenRLHF --{k}: FlashAttention-2 ({OPENRLHF_ATTN})"
    if any(k.startswith("ds.") for k in f):      # the dotted flags of 2026: flash_attention_2 by default
        _put(out, "flash_attn", "flash_attention_2", file, None, "ds.attn_implementation", "assumed")
        return "OpenRLHF --ds.* flags: --ds.attn_implementation not given, its default flash_attention_2"
    _put(out, "flash_attn", "eager", file, None, "flash_attn", "assumed")
    return (f"OpenRLHF without --flash_attn (and without --attn_implementation, which only versions from 2025-08 "
            f"have): the Actor loads eager attention, the full seq x seq scores per head ({OPENRLHF_ATTN}: "
            f"attn_implementation = \"flash_attention_2\" if use_flash_attention_2 else \"eager\")")


def _openrlhf_trainer(f: dict, file: str, stage_name: str) -> dict[str, Setting]:
    out: dict[str, Setting] = {}
    _common_ds(f, file, out)
    line = f["max_len"][1] if "max_len" in f else None
    _put(out, "cutoff_len", as_int(f["max_len"][0]) if "max_len" in f else 2048, file, line, "max_len",
         "flag" if "max_len" in f else "assumed")
    if stage_name in ("dpo", "rm"):
        _put(out, "stage", stage_name, file, None, f"train_{stage_name}")
    return out
