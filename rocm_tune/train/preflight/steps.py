"""Real optimizer steps of a plan's exact configuration, one eval batch and one checkpoint save.

`run_attempt(spec, attempt)` builds the model (random init from its config, or real weights), applies the
plan's method with the built-in trainer's own code (`rocm_tune.train.trainer.apply_method`: LoRA/DoRA,
freeze, full, the precision regime), enables gradient checkpointing as planned, and runs `spec.steps`
optimizer steps of one micro-batch of `micro_batch` x `seq_len` random tokens, then one eval forward at
the eval batch size and one save of the planned kind (adapter or full model + optimizer state, as a
Trainer checkpoint holds). On a GPU it measures `max_memory_allocated` / `max_memory_reserved`, step
time and tokens/s; on the CPU it runs a scaled-down stand-in of the same family (the memory of the
planned model comes from the fake-tensor probe; see runner.py).

A CUDA/HIP out-of-memory error (or the test hook's simulated one, raised inside the forward pass when the
micro-batch exceeds `simulate_oom_above_micro_batch`) is caught: the attempt reports outcome "oom" after
freeing what it allocated, and the runner steps down.
"""

from __future__ import annotations

import gc
import os
import shutil
import tempfile
import time
from dataclasses import dataclass, replace

CPU_SEQ_CAP = 256   # the CPU stand-in's sequence length is capped (its memory is not the plan's anyway)


@dataclass(frozen=True)
class StepSpec:
    config: dict                  # the model's config.json (raw)
    method: str                   # full | freeze | lora | qlora
    precision: str                # fp32 | bf16 | fp16 | pure_bf16
    cutoff_len: int
    attn: str = "sdpa"
    optim: str = "adamw"
    lora_rank: int = 8
    lora_alpha: int | None = None
    lora_targets: tuple[str, ...] = ("all",)
    dora: bool = False
    freeze_trainable_layers: int = 2
    stage: str = "sft"
    weights: str | None = None    # a local model directory with real weights
    device: str = "cpu"           # "cuda" | "cpu"
    scaled_down: bool = False     # CPU stand-in: a tiny model of the same family
    steps: int = 3
    eval_batch: int = 1
    save_dir: str | None = None   # where the checkpoint save goes (the run's filesystem); deleted after
    simulate_oom_above_micro_batch: int | None = None


@dataclass(frozen=True)
class Attempt:
    micro_batch: int
    grad_accum: int
    gradient_checkpointing: bool
    zero_stage: int = 0

    def to_dict(self) -> dict:
        return {"micro_batch": self.micro_batch, "grad_accum": self.grad_accum,
                "gradient_checkpointing": self.gradient_checkpointing, "zero_stage": self.zero_stage}


def scaled_down_config(config: dict) -> dict:
    """A tiny config of the same model_type: 2 layers, hidden 64, small vocabulary and experts."""
    c = {k: v for k, v in config.items()
         if k not in ("architectures", "auto_map", "quantization_config", "_name_or_path", "transformers_version")}
    heads = 4
    kv = 2 if int(config.get("num_key_value_heads", config.get("num_attention_heads", 1)) or 1) < int(
        config.get("num_attention_heads", 1) or 1) else 4
    c.update({"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": heads,
              "num_key_value_heads": kv, "vocab_size": min(int(config.get("vocab_size", 512) or 512), 512),
              "max_position_embeddings": max(int(config.get("max_position_embeddings", 512) or 512), CPU_SEQ_CAP)})
    if "head_dim" in c:
        c["head_dim"] = 16
    for k in ("num_experts", "num_local_experts", "n_routed_experts"):
        if isinstance(c.get(k), int) and c[k] > 0:
            c[k] = min(c[k], 4)
    for k in ("num_experts_per_tok",):
        if isinstance(c.get(k), int) and c[k] > 0:
            c[k] = min(c[k], 2)
    for k in ("moe_intermediate_size", "shared_expert_intermediate_size"):
        if isinstance(c.get(k), int) and c[k] > 0:
            c[k] = 32
    for k in ("bos_token_id", "eos_token_id", "pad_token_id"):
        v = c.get(k)
        if isinstance(v, int) and v >= c["vocab_size"]:
            c[k] = c["vocab_size"] - 1
        elif isinstance(v, list):
            c[k] = [min(x, c["vocab_size"] - 1) for x in v if isinstance(x, int)] or None
    for k in ("layer_types",):
        if isinstance(c.get(k), list):
            c[k] = c[k][:2]
    return c


def _trainer_config(spec: StepSpec, attempt: Attempt):
    from rocm_tune.train.config import TrainerConfig

    method = spec.method
    return TrainerConfig(
        model_name_or_path=spec.weights or "random-init",
        finetuning_type="lora" if method in ("lora", "qlora") else method,
        lora_rank=spec.lora_rank, lora_alpha=spec.lora_alpha,
        lora_target="all" if "all" in spec.lora_targets else ",".join(spec.lora_targets),
        use_dora=spec.dora, freeze_trainable_layers=spec.freeze_trainable_layers,
        bf16=spec.precision == "bf16", fp16=spec.precision == "fp16", pure_bf16=spec.precision == "pure_bf16",
        gradient_checkpointing=attempt.gradient_checkpointing, cutoff_len=spec.cutoff_len,
    )


def _build(spec: StepSpec, attempt: Attempt):
    import torch
    import transformers
    from transformers import AutoConfig, AutoModelForCausalLM

    from rocm_tune.train.trainer import apply_method

    prec = spec.precision
    half = {"bf16": torch.bfloat16, "fp16": torch.float16, "pure_bf16": torch.bfloat16}.get(prec)
    full_mixed = prec in ("bf16", "fp16") and spec.method == "full"
    load_dtype = torch.float32 if (prec == "fp32" or full_mixed) else half
    attn = {"eager": "eager", "sdpa": "sdpa", "fa2": "flash_attention_2"}.get(spec.attn, "sdpa")
    transformers.logging.set_verbosity_error()
    if spec.weights:
        model = AutoModelForCausalLM.from_pretrained(spec.weights, dtype=load_dtype, attn_implementation=attn)
    else:
        conf = scaled_down_config(spec.config) if spec.scaled_down else {
            k: v for k, v in spec.config.items()
            if k not in ("architectures", "auto_map", "quantization_config", "_name_or_path", "transformers_version")}
        model_type = conf.pop("model_type")
        conf.pop("torch_dtype", None)
        hf_config = AutoConfig.for_model(model_type, **conf)
        hf_config.use_cache = False
        ctx = torch.device(spec.device) if spec.device == "cuda" else _Null()
        with ctx:  # initialise straight on the GPU: no host copy of a 7B model
            try:
                model = AutoModelForCausalLM.from_config(hf_config, dtype=load_dtype, attn_implementation=attn)
            except ValueError:
                model = AutoModelForCausalLM.from_config(hf_config, dtype=load_dtype, attn_implementation="eager")
    model.config.use_cache = False
    # PreTrainedModel.to is @wraps(nn.Module.to): its stub type wants the model as argument 1
    model = model.to(spec.device)  # type: ignore[arg-type]
    model = apply_method(model, _trainer_config(spec, attempt))
    if attempt.gradient_checkpointing:
        base = model.get_base_model() if hasattr(model, "get_base_model") else model
        base.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
        if spec.method != "full":
            base.enable_input_require_grads()
    model.train()
    return model, half


class _Null:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _optimizer(spec: StepSpec, params):
    import torch

    fused = spec.device == "cuda"
    if spec.optim in ("sgd",):
        return torch.optim.SGD(params, lr=1e-5)
    if spec.optim == "sgd_momentum":
        return torch.optim.SGD(params, lr=1e-5, momentum=0.9)
    if spec.optim == "adafactor":
        from transformers.optimization import Adafactor

        return Adafactor(params, lr=1e-5, scale_parameter=False, relative_step=False, warmup_init=False)
    # adamw and the bitsandbytes variants: torch AdamW (8-bit/paged states are smaller: an upper bound)
    return torch.optim.AdamW(params, lr=1e-5, fused=fused)


def is_oom(exc: BaseException) -> bool:
    import torch

    oom_type = getattr(torch, "OutOfMemoryError", None) or getattr(torch.cuda, "OutOfMemoryError", None)
    return (oom_type is not None and isinstance(exc, oom_type)) or "out of memory" in str(exc).lower()


def _dir_bytes(path: str) -> int:
    total = 0
    for root, _dirs, files in os.walk(path):
        for f in files:
            try:
                total += os.path.getsize(os.path.join(root, f))
            except OSError:
                pass
    return total


def run_attempt(spec: StepSpec, attempt: Attempt) -> dict:
    """One attempt: steps, eval, save. {"outcome": "ok"|"oom"|"error", ...measurements}."""
    import torch

    cuda = spec.device == "cuda"
    seq = min(spec.cutoff_len, CPU_SEQ_CAP) if spec.scaled_down else spec.cutoff_len
    out: dict = {**attempt.to_dict(), "seq_len": seq, "outcome": "ok"}
    model = opt = None
    hook = None
    try:
        if cuda:
            torch.cuda.empty_cache()
            torch.cuda.reset_peak_memory_stats()
        t_build = time.perf_counter()
        model, half = _build(spec, attempt)
        out["build_s"] = round(time.perf_counter() - t_build, 3)
        limit = spec.simulate_oom_above_micro_batch
        if limit is not None and attempt.micro_batch > limit:
            def _simulated_oom(_mod, _args):
                raise torch.OutOfMemoryError(
                    f"simulated out of memory (test hook: micro_batch {attempt.micro_batch} > {limit})")
            hook = _first_layer(model).register_forward_pre_hook(_simulated_oom)
        trainable = [p for p in model.parameters() if p.requires_grad]
        out["params_trainable"] = sum(p.numel() for p in trainable)
        out["params_total"] = sum(p.numel() for p in model.parameters())
        opt = _optimizer(spec, trainable)
        vocab = int(model.config.vocab_size)
        mixed = spec.precision in ("bf16", "fp16")
        dev_type = "cuda" if cuda else "cpu"
        autocast = torch.autocast(dev_type, dtype=half) if mixed else _Null()
        times = []
        for _ in range(spec.steps):
            ids = torch.randint(0, vocab, (attempt.micro_batch, seq), device=spec.device)
            t0 = time.perf_counter()
            with autocast:
                loss = model(input_ids=ids, labels=ids).loss
            loss.backward()
            torch.nn.utils.clip_grad_norm_(trainable, 1.0)
            opt.step()
            opt.zero_grad(set_to_none=True)
            if cuda:
                torch.cuda.synchronize()
            times.append(time.perf_counter() - t0)
            del loss, ids
        _timings(out, times, attempt, seq, cuda)
        _eval_batch(out, model, spec, seq, vocab, autocast, cuda)
        out["save"] = _save(model, opt, spec, cuda)
    except Exception as exc:  # noqa: BLE001 - an OOM is a measurement, anything else an error to report
        out["outcome"] = "oom" if is_oom(exc) else "error"
        out["message"] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:300] if str(exc) else ''}"
        if cuda:
            out["peak_allocated_bytes"] = int(torch.cuda.max_memory_allocated())
            out["peak_reserved_bytes"] = int(torch.cuda.max_memory_reserved())
    finally:
        if hook is not None:
            hook.remove()
        del model, opt
        gc.collect()
        if cuda:
            torch.cuda.empty_cache()
    return out


def _timings(out: dict, times: list[float], attempt: Attempt, seq: int, cuda: bool) -> None:
    """Step time (the first step is warm-up), tokens/s and the peaks into `out`."""
    import torch

    from rocm_tune.train.callbacks import rss_bytes

    steady = times[1:] or times
    micro = sum(steady) / len(steady)
    out["step_time_s"] = round(micro, 4)
    out["tokens_per_s"] = round(attempt.micro_batch * seq / micro, 2)
    out["seconds_per_step"] = round(micro * attempt.grad_accum, 3)
    if cuda:
        out["peak_allocated_bytes"] = int(torch.cuda.max_memory_allocated())
        out["peak_reserved_bytes"] = int(torch.cuda.max_memory_reserved())
    out["rss_bytes"] = rss_bytes()


def _eval_batch(out: dict, model, spec: StepSpec, seq: int, vocab: int, autocast, cuda: bool) -> None:
    """One eval batch at the eval batch size into out["eval"]."""
    import torch

    if cuda:
        torch.cuda.reset_peak_memory_stats()
    model.eval()
    ids = torch.randint(0, vocab, (spec.eval_batch, seq), device=spec.device)
    t0 = time.perf_counter()
    with torch.no_grad(), autocast:
        eval_loss = model(input_ids=ids, labels=ids).loss
    if cuda:
        torch.cuda.synchronize()
    out["eval"] = {"status": "ok", "batch_size": spec.eval_batch, "seconds": round(time.perf_counter() - t0, 4),
                   "loss_finite": bool(torch.isfinite(eval_loss).item()),
                   "peak_allocated_bytes": int(torch.cuda.max_memory_allocated()) if cuda else None}
    del ids, eval_loss
    model.train()


def _first_layer(model):
    import torch

    best = None
    for _name, mod in model.named_modules():
        if isinstance(mod, torch.nn.ModuleList) and len(mod) > 0 and (best is None or len(mod) > len(best)):
            best = mod
    return best[0] if best is not None else model


def _save(model, opt, spec: StepSpec, cuda: bool) -> dict:
    """One checkpoint of the planned kind: adapter (PEFT) or full model, plus the optimizer state."""
    import torch

    from rocm_tune.train.callbacks import peak_rss_bytes, rss_bytes

    base = spec.save_dir or tempfile.gettempdir()
    os.makedirs(base, exist_ok=True)
    d = tempfile.mkdtemp(prefix="preflight-ckpt-", dir=base)
    try:
        if cuda:
            torch.cuda.reset_peak_memory_stats()
        rss0 = rss_bytes()
        t0 = time.perf_counter()
        kind = "adapter" if hasattr(model, "peft_config") else "full"
        model.save_pretrained(d)
        torch.save(opt.state_dict(), os.path.join(d, "optimizer.pt"))
        if cuda:
            torch.cuda.synchronize()
        secs = time.perf_counter() - t0
        return {"status": "ok", "kind": kind, "bytes": _dir_bytes(d), "seconds": round(secs, 4),
                "peak_allocated_bytes": int(torch.cuda.max_memory_allocated()) if cuda else None,
                "host_rss_bytes": rss_bytes(), "host_rss_before_bytes": rss0, "host_peak_rss_bytes": peak_rss_bytes(),
                "path_fs": base}
    finally:
        shutil.rmtree(d, ignore_errors=True)


def with_attempt(spec: StepSpec, **kw) -> StepSpec:
    return replace(spec, **kw)
