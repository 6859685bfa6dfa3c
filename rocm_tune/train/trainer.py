"""The built-in trainer: transformers `Trainer` + PEFT from a LLaMA-Factory-style YAML.

`train(cfg)` loads a local model, applies LoRA / DoRA / QLoRA / freeze / full fine-tuning in the
precision regime the estimator assumes (fp32; bf16/fp16 = 16-bit frozen weights, fp32 trainable +
autocast; pure_bf16), builds the dataset (alpaca / sharegpt / messages, chat template, prompt masked),
and trains with checkpoints and resume. It writes metrics.jsonl (schema in docs/internals.md) into
`$ROCM_TUNE_RUN_DIR` when started by `rocm-tune run`, else into output_dir. NaN/Inf loss or grad
norm -> an error record and a stop (or a skipped step with `nan_policy: skip`). SIGTERM (and the
first Ctrl-C) saves a checkpoint at the end of the current step and exits cleanly with an end record
of status "stopped". torch/transformers/peft are imported inside functions only.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

from rocm_tune.core.errors import UserError
from rocm_tune.train.config import TrainerConfig, reentrant_needed

EXIT_OK = 0
EXIT_FAILED = 1


# ----------------------------------------------------------------------------------------------
# metrics.jsonl


class MetricsWriter:
    """Appends one JSON object per line, flushed at once (readers tail the file)."""

    def __init__(self, path: str | os.PathLike | None, enabled: bool = True):
        self.path = Path(path) if path else None
        self.enabled = enabled and self.path is not None
        self._fh = None
        if self.enabled and self.path is not None:  # enabled implies a path
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fh = open(self.path, "a", encoding="utf-8", buffering=1)

    def write(self, rec: dict) -> None:
        if not self._fh:
            return
        rec = {"type": rec.pop("type"), "time": round(time.time(), 3), **rec}
        self._fh.write(json.dumps(rec, allow_nan=False, default=_json_default) + "\n")
        self._fh.flush()

    def close(self) -> None:
        if self._fh:
            self._fh.close()
            self._fh = None


def _json_default(o: Any):
    try:
        return float(o)
    except (TypeError, ValueError):
        return str(o)


def _finite_or_none(v: Any) -> float | None:
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) else None


def metrics_path_for(output_dir: str) -> Path:
    run_dir = os.environ.get("ROCM_TUNE_RUN_DIR")
    if run_dir and os.path.isdir(run_dir):
        return Path(run_dir) / "metrics.jsonl"
    return Path(output_dir) / "metrics.jsonl"


# ----------------------------------------------------------------------------------------------
# stop requests (SIGTERM / first Ctrl-C)


class StopRequest:
    def __init__(self):
        self.requested = False
        self.signal: int | None = None
        self._old: dict[int, Any] = {}

    def install(self) -> None:
        for sig in (signal.SIGTERM, signal.SIGINT):
            try:
                self._old[sig] = signal.signal(sig, self._handler)
            except (ValueError, OSError):  # not the main thread
                pass

    def restore(self) -> None:
        for sig, old in self._old.items():
            try:
                signal.signal(sig, old)
            except (ValueError, OSError, TypeError):
                pass

    def _handler(self, signum, frame):
        if self.requested and signum == signal.SIGINT:
            raise KeyboardInterrupt
        self.requested = True
        self.signal = signum
        print(f"[rocm-tune] received {signal.Signals(signum).name}: saving a checkpoint at the end of this step",
              flush=True)


# ----------------------------------------------------------------------------------------------
# helpers


def _dist_info() -> tuple[int, int, int]:
    """(rank, local_rank, world_size) from the launcher's environment."""
    rank = int(os.environ.get("RANK", "0") or 0)
    local = int(os.environ.get("LOCAL_RANK", "0") or 0)
    world = int(os.environ.get("WORLD_SIZE", "1") or 1)
    return rank, local, world


def _attn_impl(flash_attn: str) -> str:
    if flash_attn in ("auto", "sdpa"):
        return "sdpa"
    if flash_attn == "disabled":
        return "eager"
    try:
        import flash_attn as _flash_attn  # noqa: F401 - only whether it imports matters
    except Exception:
        raise UserError("flash_attn: fa2 needs the flash-attn package, which does not import here; "
                        "use flash_attn: sdpa") from None
    return "flash_attention_2"


def _check_bitsandbytes() -> None:
    try:
        import bitsandbytes  # noqa: F401
        import torch

        if not torch.cuda.is_available():
            raise RuntimeError("no GPU")
    except Exception as exc:
        raise UserError(
            f"quantization_bit (QLoRA) needs a working bitsandbytes on a GPU, which is not available here ({exc}); "
            "drop quantization_bit to train plain LoRA"
        ) from None


def _decoder_layers(model):
    """The decoder's ModuleList of layers (the longest ModuleList in the model)."""
    import torch

    best = None
    for _, mod in model.named_modules():
        if isinstance(mod, torch.nn.ModuleList) and (best is None or len(mod) > len(best)):
            best = mod
    return best


def _resolve_lora_targets(spec: str):
    s = (spec or "all").strip()
    if s == "all":
        return "all-linear"
    return [t.strip() for t in s.split(",") if t.strip()]


def count_params(model) -> tuple[int, int]:
    total = trainable = 0
    for p in model.parameters():
        n = p.numel()
        if hasattr(p, "ds_numel"):
            n = p.ds_numel
        total += n
        if p.requires_grad:
            trainable += n
    return total, trainable


def resolve_resume(cfg: TrainerConfig, resume_flag: bool | str | None) -> str | None:
    """The checkpoint to resume from: explicit path, True = latest, or automatic latest."""
    from transformers.trainer_utils import get_last_checkpoint

    out = Path(cfg.output_dir)
    want = resume_flag if resume_flag not in (None, False) else cfg.resume_from_checkpoint
    last = get_last_checkpoint(str(out)) if out.is_dir() else None
    if isinstance(want, str):
        if not Path(want).is_dir():
            raise UserError(f"resume checkpoint {want!r} is not a directory")
        return want
    if want is True:
        if last is None:
            raise UserError(f"resume requested but output_dir {str(out)!r} holds no checkpoint-* directory")
        return last
    if last is not None and not cfg.overwrite_output_dir:
        print(f"[rocm-tune] resuming from {last} (set overwrite_output_dir: true to start over)", flush=True)
        return last
    if out.is_dir() and not cfg.overwrite_output_dir and last is None:
        made = [f for f in ("adapter_model.safetensors", "model.safetensors", "pytorch_model.bin", "adapter_config.json")
                if (out / f).exists()]
        if made:
            raise UserError(f"output_dir {str(out)!r} already holds a trained model ({made[0]}); "
                            "set overwrite_output_dir: true or choose another output_dir")
    return None


# ----------------------------------------------------------------------------------------------
# model


def load_model_and_tokenizer(cfg: TrainerConfig, use_cpu: bool):
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    prec = cfg.precision
    if use_cpu and prec == "fp16":
        raise UserError("fp16 mixed precision needs a GPU; on CPU use bf16: true or fp32 (both false)")
    half = {"bf16": torch.bfloat16, "fp16": torch.float16, "pure_bf16": torch.bfloat16}.get(prec)
    # mixed precision: frozen weights in 16 bit, trainable ones fp32 (full FT: everything trainable -> fp32)
    load_dtype: torch.dtype | None
    if prec == "fp32" or (prec in ("bf16", "fp16") and cfg.finetuning_type == "full"):
        load_dtype = torch.float32
    else:
        load_dtype = half
    try:
        tok = AutoTokenizer.from_pretrained(cfg.model_name_or_path, trust_remote_code=cfg.trust_remote_code)
    except Exception as exc:
        raise UserError(f"cannot load the tokenizer of {cfg.model_name_or_path!r}: {exc}") from None
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token or tok.unk_token
    kwargs: dict[str, Any] = {
        "dtype": load_dtype,
        "attn_implementation": _attn_impl(cfg.flash_attn),
        "trust_remote_code": cfg.trust_remote_code,
    }
    if cfg.quantization_bit:
        _check_bitsandbytes()
        from transformers import BitsAndBytesConfig

        compute = half or torch.float32
        if cfg.quantization_bit == 4:
            kwargs["quantization_config"] = BitsAndBytesConfig(
                load_in_4bit=True, bnb_4bit_compute_dtype=compute, bnb_4bit_use_double_quant=cfg.double_quantization,
                bnb_4bit_quant_type="nf4")
        else:
            kwargs["quantization_config"] = BitsAndBytesConfig(load_in_8bit=True)
        _, local, _ = _dist_info()
        kwargs["device_map"] = {"": local}
    try:
        model = AutoModelForCausalLM.from_pretrained(cfg.model_name_or_path, **kwargs)
    except UserError:
        raise
    except Exception as exc:
        raise UserError(f"cannot load model {cfg.model_name_or_path!r}: {exc}") from None
    model.config.use_cache = False
    return model, tok


def apply_method(model, cfg: TrainerConfig):
    """LoRA/DoRA/QLoRA via PEFT, freeze (last N layers trainable) or full; returns the model to train."""
    import torch

    gc_kwargs = {"use_reentrant": cfg.use_reentrant_gc}
    if cfg.finetuning_type == "full":
        for p in model.parameters():
            p.requires_grad_(True)
        return model
    if cfg.finetuning_type == "freeze":
        layers = _decoder_layers(model)
        if layers is None or len(layers) == 0:
            raise UserError("finetuning_type freeze: cannot find the decoder layers of this model")
        n = cfg.freeze_trainable_layers
        chosen = list(layers)[-n:] if n > 0 else list(layers)[: -n]
        if abs(n) > len(layers):
            raise UserError(f"freeze_trainable_layers {n} is more than the model's {len(layers)} layers")
        for p in model.parameters():
            p.requires_grad_(False)
        for layer in chosen:
            for p in layer.parameters():
                p.requires_grad_(True)
                if p.dtype in (torch.float16, torch.bfloat16) and cfg.precision in ("bf16", "fp16"):
                    p.data = p.data.float()  # trainable weights fp32 under mixed precision
        return model
    from peft import LoraConfig, get_peft_model, prepare_model_for_kbit_training

    if cfg.quantization_bit:
        model = prepare_model_for_kbit_training(
            model, use_gradient_checkpointing=cfg.gradient_checkpointing, gradient_checkpointing_kwargs=gc_kwargs)
    lcfg = LoraConfig(
        r=cfg.lora_rank,
        lora_alpha=cfg.lora_alpha or cfg.lora_rank * 2,
        lora_dropout=cfg.lora_dropout,
        target_modules=_resolve_lora_targets(cfg.lora_target),
        use_dora=cfg.use_dora,
        task_type="CAUSAL_LM",
    )
    try:
        model = get_peft_model(model, lcfg, autocast_adapter_dtype=(cfg.precision != "pure_bf16"))
    except ValueError as exc:
        raise UserError(f"lora_target {cfg.lora_target!r}: {exc}") from None
    if cfg.precision == "pure_bf16":
        model = model.to(torch.bfloat16)
    return model


# ----------------------------------------------------------------------------------------------
# the Trainer subclass and callback


class _TrainerMixin:
    """(mixed into transformers.Trainer by _make_classes) A Trainer that refuses to apply a step whose loss or gradient is not finite."""

    rt_nan_policy = "stop"
    rt_writer: MetricsWriter | None = None
    rt_bad: str | None = None          # "nan_loss" | "nan_grad" for the current optimizer step
    rt_nan_stop = False
    rt_skipped = 0

    def training_step(self, model, inputs, num_items_in_batch=None):
        loss = super().training_step(model, inputs, num_items_in_batch)
        if not _finite_tensor(loss):
            self.rt_bad = self.rt_bad or "nan_loss"
        return loss

    def _get_grad_norm(self, model, grad_norm=None):
        gn = super()._get_grad_norm(model, grad_norm=grad_norm)
        if self.rt_bad is None and gn is not None and not math.isfinite(float(gn)):
            self.rt_bad = "nan_grad"
        if self.rt_bad is not None:
            self._rt_on_bad_step(model)
        return gn

    def _rt_on_bad_step(self, model):
        """Drop this step's gradients (grad None = the optimizer leaves the weights alone)."""
        kind = self.rt_bad
        step = self.state.global_step + 1
        what = "loss" if kind == "nan_loss" else "gradient norm"
        if self.rt_nan_policy == "skip":
            self.rt_skipped += 1
            msg = f"{what} is NaN/Inf at step {step}: step skipped (nan_policy: skip)"
        else:
            msg = (f"{what} is NaN/Inf at step {step}: training stopped before the weights were updated "
                   "(fp16 overflow? try bf16 or fp32, a lower learning_rate or max_grad_norm; "
                   "nan_policy: skip skips such steps)")
            self.rt_nan_stop = True
        print(f"[rocm-tune] {msg}", flush=True)
        if self.rt_writer is not None and self.is_world_process_zero():
            self.rt_writer.write({"type": "error", "step": step, "kind": kind, "message": msg})
        model.zero_grad(set_to_none=True)
        self.rt_bad = None


class _MetricsMixin:
    """(mixed into transformers.TrainerCallback by _make_classes) metrics.jsonl records of every step, eval and
    save, and a stop requested by a signal, agreed across ranks."""

    def __init__(self, writer: MetricsWriter, collator, stop: StopRequest, config: dict, world: int):
        self.writer = writer
        self.collator = collator
        self.stop = stop
        self.config = config
        self.world = world
        self.trainer = None
        self.t_train = None
        self._t_last = None
        self._step_last = 0
        self._tok_last = 0
        self._samp_last = 0
        self.stopped = False
        self.resumed_from = None

    def on_train_begin(self, args, state, control, **kw):
        self.t_train = time.time()
        self._t_last = self.t_train
        self._step_last = state.global_step
        self._tok_last = self.collator.tokens
        self._samp_last = self.collator.samples
        if state.is_world_process_zero:
            rec = {"type": "start", "total_steps": state.max_steps, "num_train_epochs": args.num_train_epochs,
                   "config": self.config, "world_size": self.world}
            if state.global_step:
                rec["resumed_from_step"] = state.global_step
            self.writer.write(rec)

    def on_step_end(self, args, state, control, **kw):
        import torch

        tr = self.trainer
        if tr is not None and tr.rt_nan_stop:
            control.should_training_stop = True
            control.should_save = False
            return control
        flag = self.stop.requested
        if self.world > 1:
            import torch.distributed as dist

            if dist.is_available() and dist.is_initialized():
                dev = tr.args.device if tr is not None else "cpu"
                t = torch.tensor([1 if flag else 0], device=dev)
                dist.all_reduce(t, op=dist.ReduceOp.MAX)
                flag = bool(t.item())
        if flag and not self.stopped:
            self.stopped = True
            control.should_save = True
            control.should_training_stop = True
        return control

    def _mem(self):
        import torch

        if not torch.cuda.is_available():
            return []
        mine = {"rank": int(os.environ.get("RANK", "0") or 0),
                "allocated_bytes": int(torch.cuda.memory_allocated()),
                "reserved_bytes": int(torch.cuda.memory_reserved()),
                "max_allocated_bytes": int(torch.cuda.max_memory_allocated())}
        if self.world > 1:
            import torch.distributed as dist

            if dist.is_available() and dist.is_initialized():
                out = [None] * dist.get_world_size()
                dist.all_gather_object(out, mine)
                return sorted(out, key=lambda m: m["rank"])
        return [mine]

    def on_log(self, args, state, control, logs=None, **kw):
        logs = logs or {}
        mem = self._mem() if "loss" in logs else None  # collective: every rank joins
        if not state.is_world_process_zero:
            return
        if "loss" in logs:
            now = time.time()
            dt = max(now - (self._t_last or now), 1e-9)
            dsteps = max(state.global_step - self._step_last, 1)
            dtok = (self.collator.tokens - self._tok_last) * self.world
            dsamp = (self.collator.samples - self._samp_last) * self.world
            rec = {
                "type": "step", "step": state.global_step, "epoch": _finite_or_none(state.epoch),
                "loss": _finite_or_none(logs.get("loss")), "grad_norm": _finite_or_none(logs.get("grad_norm")),
                "learning_rate": _finite_or_none(logs.get("learning_rate")),
                "tokens_per_s": round(dtok / dt, 2), "samples_per_s": round(dsamp / dt, 3),
                "step_time_s": round(dt / dsteps, 4), "mem": mem or [],
            }
            if self.trainer is not None and self.trainer.rt_skipped:
                rec["skipped_steps"] = self.trainer.rt_skipped
            self.writer.write(rec)
            self._t_last, self._step_last = now, state.global_step
            self._tok_last, self._samp_last = self.collator.tokens, self.collator.samples
        elif "eval_loss" in logs:
            self.writer.write({"type": "eval", "step": state.global_step,
                               "eval_loss": _finite_or_none(logs.get("eval_loss"))})

    def on_save(self, args, state, control, **kw):
        if state.is_world_process_zero:
            path = os.path.join(args.output_dir, f"checkpoint-{state.global_step}")
            self.writer.write({"type": "checkpoint", "step": state.global_step, "path": path})


def _finite_tensor(t) -> bool:
    import torch

    return bool(torch.isfinite(t).all())


def _make_classes():
    """The Trainer and callback classes (transformers is imported only when a training starts)."""
    from transformers import Trainer, TrainerCallback

    class RocmTuneTrainer(_TrainerMixin, Trainer):
        pass

    class MetricsCallback(_MetricsMixin, TrainerCallback):
        pass

    return RocmTuneTrainer, MetricsCallback


# ----------------------------------------------------------------------------------------------
# the entry point


def train(cfg: TrainerConfig, *, resume: bool | str | None = None, metrics_path: str | None = None,
          max_steps: int | None = None) -> int:
    """Run one training; returns the process exit code (0 finished or stopped cleanly, 1 failed)."""
    import warnings

    import torch

    warnings.filterwarnings("ignore", category=FutureWarning)
    rank, _local, world = _dist_info()
    if reentrant_needed(cfg):
        if rank == 0:
            print("rocm-tune train: LoRA + DeepSpeed ZeRO-3: gradient checkpointing runs reentrant "
                  "(use_reentrant_gc: true; non-reentrant fails with CheckpointError, DeepSpeed#8148)", flush=True)
        cfg = dataclasses.replace(cfg, use_reentrant_gc=True)
    t0 = time.time()
    out_dir = Path(cfg.output_dir)
    mpath = Path(metrics_path) if metrics_path else metrics_path_for(cfg.output_dir)
    writer = MetricsWriter(mpath, enabled=(rank == 0))
    stop = StopRequest()
    step_now = 0

    def fail(kind: str, msg: str) -> int:
        writer.write({"type": "error", "step": step_now, "kind": kind, "message": msg[:2000]})
        writer.write({"type": "end", "status": "failed", "step": step_now, "train_loss": None,
                      "runtime_s": round(time.time() - t0, 3)})
        writer.close()
        return EXIT_FAILED

    try:
        use_cpu = cfg.use_cpu or not torch.cuda.is_available()
        resume_ckpt = resolve_resume(cfg, resume)
        model, tok, train_ds, eval_ds = _prepare(cfg, rank, use_cpu)
        args = _training_arguments(cfg, out_dir, use_cpu, world, eval_ds is not None, max_steps)
        trainer, cb = _build_trainer(cfg, model, tok, args, train_ds, eval_ds, writer, stop, world, out_dir)
        stop.install()
        try:
            result = trainer.train(resume_from_checkpoint=resume_ckpt)
        finally:
            stop.restore()
        step_now = trainer.state.global_step
        if trainer.rt_nan_stop:
            status, code = "failed", EXIT_FAILED
        elif cb.stopped:
            status, code = "stopped", EXIT_OK
        else:
            status, code = "finished", EXIT_OK
            trainer.save_model(str(out_dir))
            if trainer.is_world_process_zero():
                tok.save_pretrained(str(out_dir))
        writer.write({"type": "end", "status": status, "step": step_now,
                      "train_loss": _finite_or_none(getattr(result, "training_loss", None)),
                      "runtime_s": round(time.time() - t0, 3)})
        if rank == 0:
            print(f"[rocm-tune] {status} at step {step_now} in {time.time() - t0:.1f} s; output in {out_dir}",
                  flush=True)
        writer.close()
        return code
    except UserError as exc:
        fail("exception", str(exc))
        raise
    except KeyboardInterrupt:
        writer.write({"type": "end", "status": "stopped", "step": step_now, "train_loss": None,
                      "runtime_s": round(time.time() - t0, 3)})
        writer.close()
        return 130
    except Exception as exc:
        oom = type(exc).__name__ == "OutOfMemoryError" or "out of memory" in str(exc).lower()
        fail("oom" if oom else "exception", f"{type(exc).__name__}: {exc}")
        raise


def _prepare(cfg: TrainerConfig, rank: int, use_cpu: bool):
    """(model with the method applied, tokenizer, train dataset, eval dataset or None)."""
    if cfg.deepspeed:
        try:
            import deepspeed  # noqa: F401
        except Exception:
            raise UserError(f"deepspeed: {cfg.deepspeed!r} is set but DeepSpeed does not import here "
                            "(pip install deepspeed, or drop the deepspeed key)") from None
    from transformers import set_seed

    set_seed(cfg.seed)
    model, tok = load_model_and_tokenizer(cfg, use_cpu)
    from rocm_tune.train.data import build_datasets

    train_ds, eval_ds, dstats = build_datasets(cfg, tok)
    if rank == 0:
        print(f"[rocm-tune] samples rendered with {dstats['rendering']}", flush=True)
    model = apply_method(model, cfg)
    total, trainable = count_params(model)
    if trainable == 0:
        raise UserError("no trainable parameters: check lora_target / freeze_trainable_layers")
    if rank == 0:
        print(f"[rocm-tune] {cfg.finetuning_type} {cfg.precision}: {trainable:,} of {total:,} parameters trainable "
              f"({100 * trainable / max(total, 1):.3f}%); {dstats['train_samples']} train samples"
              f"{', ' + str(dstats['eval_samples']) + ' eval' if dstats['eval_samples'] else ''}"
              f"{', ' + str(dstats['truncated']) + ' truncated at cutoff_len' if dstats['truncated'] else ''}",
              flush=True)
    return model, tok, train_ds, eval_ds


def _training_arguments(cfg: TrainerConfig, out_dir: Path, use_cpu: bool, world: int, has_eval: bool,
                        max_steps: int | None):
    from transformers import TrainingArguments

    eval_strategy = cfg.eval_strategy if cfg.eval_strategy != "no" else ("steps" if has_eval else "no")
    mixed = cfg.precision in ("bf16", "fp16")
    targs: dict[str, Any] = dict(
        output_dir=str(out_dir),
        per_device_train_batch_size=cfg.per_device_train_batch_size,
        per_device_eval_batch_size=cfg.per_device_eval_batch_size,
        gradient_accumulation_steps=cfg.gradient_accumulation_steps,
        learning_rate=cfg.learning_rate, weight_decay=cfg.weight_decay,
        num_train_epochs=cfg.num_train_epochs, max_steps=max_steps or cfg.max_steps,
        lr_scheduler_type=cfg.lr_scheduler_type,
        # warmup_steps >= 1 counts steps; a fraction is a ratio (transformers >= 5.2 dropped warmup_ratio)
        warmup_steps=(int(cfg.warmup_steps) if cfg.warmup_steps >= 1 else cfg.warmup_steps) or cfg.warmup_ratio,
        max_grad_norm=cfg.max_grad_norm,
        adam_beta1=cfg.adam_beta1, adam_beta2=cfg.adam_beta2, adam_epsilon=cfg.adam_epsilon,
        bf16=mixed and cfg.precision == "bf16", fp16=mixed and cfg.precision == "fp16",
        optim=cfg.optim, logging_steps=cfg.logging_steps, logging_nan_inf_filter=False,
        save_steps=cfg.save_steps, save_total_limit=cfg.save_total_limit, save_only_model=cfg.save_only_model,
        eval_strategy=eval_strategy, eval_steps=(cfg.eval_steps or cfg.save_steps) if eval_strategy == "steps" else None,
        seed=cfg.seed, report_to=[] if cfg.report_to in ("none", "", None) else cfg.report_to.split(","),
        dataloader_num_workers=cfg.dataloader_num_workers,
        ddp_find_unused_parameters=cfg.ddp_find_unused_parameters,
        ddp_timeout=cfg.ddp_timeout, deepspeed=cfg.deepspeed,
        use_cpu=use_cpu, disable_tqdm=True, remove_unused_columns=False,
    )
    if use_cpu and world > 1:
        targs["ddp_backend"] = "gloo"
    # transformers 5 renamed gradient_checkpointing to activation_checkpointing
    names = set(getattr(TrainingArguments, "__dataclass_fields__", {}))
    gc = "activation_checkpointing" if "activation_checkpointing" in names else "gradient_checkpointing"
    targs[gc] = cfg.gradient_checkpointing
    targs[gc + "_kwargs"] = {"use_reentrant": cfg.use_reentrant_gc} if cfg.gradient_checkpointing else None
    try:
        return TrainingArguments(**targs)
    except (ValueError, ImportError) as exc:
        raise UserError(f"the training arguments are not usable here: {str(exc).splitlines()[0]}") from None


def _build_trainer(cfg: TrainerConfig, model, tok, args, train_ds, eval_ds, writer: MetricsWriter,
                   stop: StopRequest, world: int, out_dir: Path):
    """(trainer, metrics callback) with rocm-tune's callbacks: metrics, measured memory per rank, save on a
    Slurm signal, and the hang timeout once the Trainer is built."""
    from rocm_tune.train import callbacks as rcb
    from rocm_tune.train.data import Collator

    collator = Collator(tok.pad_token_id)
    RocmTuneTrainer, MetricsCallback = _make_classes()
    shown = {k: v for k, v in cfg.to_dict().items()}
    cb = MetricsCallback(writer, collator, stop, shown, world)
    rank_cb = rcb.make_rank_callback(str(out_dir), token_counter=lambda: collator.tokens)  # -> RUN_DIR/ranks/
    save_cb = rcb.make_save_on_signal_callback(str(out_dir))  # Slurm time-limit warning: save and stop
    more = [save_cb]
    hang = rcb.hang_timeout_from_env()
    if hang is not None:  # ddp_timeout covered the data preparation; a hung collective now ends the job
        more.append(rcb.make_hang_timeout_callback(hang))
    trainer = RocmTuneTrainer(model=model, args=args, train_dataset=train_ds, eval_dataset=eval_ds,
                              data_collator=collator, processing_class=tok, callbacks=[cb, rank_cb, *more])
    trainer.rt_nan_policy = cfg.nan_policy
    trainer.rt_writer = writer
    cb.trainer = trainer
    return trainer, cb


def main_from_args(config_path: str, output_dir: str | None = None, resume: bool | str = False,
                   max_steps: int | None = None) -> int:
    from rocm_tune.train.callbacks import register_stack_dump
    from rocm_tune.train.config import load_config

    cfg = load_config(config_path, output_dir=os.path.abspath(output_dir) if output_dir else None)
    register_stack_dump()   # `rocm-tune explain RUN` of a hung run: where each rank waits
    for k in cfg.ignored:
        print(f"[rocm-tune] note: config key {k!r} is a LLaMA-Factory option the built-in trainer ignores",
              file=sys.stderr)
    return train(cfg, resume=resume if isinstance(resume, str) else (True if resume else None), max_steps=max_steps)
