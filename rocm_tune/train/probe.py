"""The fake-tensor memory probe: trace one steady-state training step of the real transformers model.

The model is built from its config with `FakeTensorMode` (no weights, no memory, no compute), and a
`TorchDispatchMode` tallies the bytes of every live tensor storage (each storage counted once, freed
when its last reference dies), rounded to the 512-byte blocks of the CUDA/HIP caching allocator.
Step 1 allocates the optimizer state; the peak is reset and step 2 is measured: that peak is what
`torch.cuda.max_memory_allocated()` reports on a GPU for the same configuration.

torch / transformers / peft are imported inside the functions (the `train` extra).
"""

from __future__ import annotations

import time
import weakref
from dataclasses import dataclass, field
from typing import Any

from rocm_tune.core.memory.estimate import TrainConfig

_NOTES: list[str] = []
_BLOCK = 512  # the caching allocator rounds every allocation up to 512 bytes


@dataclass(frozen=True)
class ProbeResult:
    peak_allocated_bytes: int | None      # None when the probe cannot follow the configuration
    reason: str | None = None             # why not, one line
    start_bytes: int = 0                  # live at the start of step 2 (weights + optimizer state)
    weights_bytes: int = 0
    trainable_weights_bytes: int = 0
    optimizer_bytes: int = 0
    gradients_bytes: int = 0              # gradients alive when backward ends (before the optimizer step)
    forward_end_bytes: int = 0            # live after the forward + loss of step 2 (before backward)
    params_total: int = 0
    params_trainable: int = 0
    seconds: float = 0.0
    notes: tuple[str, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict:
        return {
            "peak_allocated_bytes": self.peak_allocated_bytes,
            "reason": self.reason,
            "start_bytes": self.start_bytes,
            "weights_bytes": self.weights_bytes,
            "trainable_weights_bytes": self.trainable_weights_bytes,
            "optimizer_bytes": self.optimizer_bytes,
            "gradients_bytes": self.gradients_bytes,
            "forward_end_bytes": self.forward_end_bytes,
            "params_total": self.params_total,
            "params_trainable": self.params_trainable,
            "seconds": round(self.seconds, 3),
            "notes": list(self.notes),
        }


def unsupported_reason(cfg: TrainConfig) -> str | None:
    """Why the probe cannot trace this configuration faithfully, or None when it can."""
    if cfg.method == "qlora":
        return ("the probe cannot trace QLoRA: bitsandbytes 4/8-bit kernels have no fake-tensor "
                "implementation; the analytic estimate stands alone")
    if cfg.optim in ("adamw_8bit", "paged_adamw", "paged_adamw_8bit"):
        return (f"the probe cannot trace optim {cfg.optim!r}: bitsandbytes optimizers have no "
                "fake-tensor implementation; the analytic estimate stands alone")
    if cfg.zero_stage > 0 or cfg.offload != "none":
        return ("the probe cannot trace DeepSpeed ZeRO sharding/offload; it traces one un-sharded GPU "
                "only, so the analytic estimate stands alone")
    if cfg.attn == "fa2":
        return ("the probe cannot trace attn 'fa2': flash-attn kernels need a real GPU; "
                "use --attn sdpa for a comparable probe (same memory shape)")
    return None


class _Tally:
    """TorchDispatchMode that tracks every tensor storage it sees, by identity, until it is freed."""

    def __init__(self):
        import torch
        from torch.utils._python_dispatch import TorchDispatchMode
        from torch.utils._pytree import tree_map_only

        tally = self

        class Mode(TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                out = func(*args, **(kwargs or {}))
                tally.last_op = str(func)
                tree_map_only(torch.Tensor, tally.track, out)
                return out

        self.mode = Mode()
        self.live: dict[int, int] = {}      # id(storage) -> bytes
        self.refs: dict[int, weakref.ref] = {}
        self.current = 0
        self.peak = 0
        self.peak_op = ""
        self.last_op = ""

    def track(self, t) -> None:
        try:
            st = t.untyped_storage()
        except (NotImplementedError, RuntimeError):
            return
        key = id(st)
        if key in self.live:
            ref = self.refs.get(key)
            still_alive = ref is not None and ref() is st  # a bool: `if ref() is st` narrows st to Any | None
            if still_alive:
                nbytes = -(-st.nbytes() // _BLOCK) * _BLOCK
                if nbytes != self.live[key]:          # resized in place
                    self.current += nbytes - self.live[key]
                    self.live[key] = nbytes
                    self.peak = max(self.peak, self.current)
                return
            self._free(key)                            # stale id reused
        nbytes = -(-st.nbytes() // _BLOCK) * _BLOCK
        self.live[key] = nbytes
        self.refs[key] = weakref.ref(st, lambda _r: self._free(key))  # `key` is not rebound after this
        self.current += nbytes
        if self.current > self.peak:
            self.peak = self.current
            self.peak_op = self.last_op

    def _free(self, key: int) -> None:
        nbytes = self.live.pop(key, None)
        self.refs.pop(key, None)
        if nbytes is not None:
            self.current -= nbytes

    def bytes_of(self, tensors) -> int:
        seen = set()
        total = 0
        for t in tensors:
            if t is None:
                continue
            st = t.untyped_storage()
            if id(st) in seen:
                continue
            seen.add(id(st))
            total += -(-st.nbytes() // _BLOCK) * _BLOCK
        return total


def _lora_target_names(model, cfg: TrainConfig) -> list[str]:
    import torch

    names = set()
    for name, module in model.named_modules():
        if isinstance(module, torch.nn.Linear) and ".layers." in f".{name}":
            names.add(name.rsplit(".", 1)[-1])
    if "all" in cfg.lora_targets:
        return sorted(names)
    return list(cfg.lora_targets)


def probe(config: dict, cfg: TrainConfig, trace: dict | None = None) -> ProbeResult:
    """Trace one steady-state training step (step 2) of `config` under `cfg` on fake tensors."""
    cfg.validate()
    reason = unsupported_reason(cfg)
    if reason:
        return ProbeResult(peak_allocated_bytes=None, reason=reason)
    try:
        import torch  # noqa: F401
        import transformers  # noqa: F401
    except ImportError:
        return ProbeResult(peak_allocated_bytes=None,
                           reason="the probe needs the train extra: pip install 'rocm-tune[train]'")
    if cfg.is_lora:
        try:
            import peft  # noqa: F401
        except ImportError:
            return ProbeResult(peak_allocated_bytes=None, reason="LoRA probe needs peft: pip install peft")
    t0 = time.perf_counter()
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = _probe(config, cfg, trace)
    return ProbeResult(**{**result.__dict__, "seconds": time.perf_counter() - t0})


def _build_model(config: dict, cfg: TrainConfig):
    import torch  # noqa: F401 (the model is built with torch: fail here, plainly, when it is missing)
    import transformers
    from transformers import AutoConfig, AutoModelForCausalLM

    conf = dict(config)
    model_type = conf.get("model_type")
    if not model_type:
        raise ValueError("config has no model_type")
    for k in ("architectures", "auto_map", "quantization_config", "_name_or_path", "transformers_version"):
        conf.pop(k, None)
    hf_config = AutoConfig.for_model(**conf)
    hf_config.use_cache = False
    load_dtype = _TORCH_DTYPES[_regime(config, cfg).frozen_dtype]
    attn = {"eager": "eager", "sdpa": "sdpa"}[cfg.attn]
    transformers.logging.set_verbosity_error()
    try:
        model = AutoModelForCausalLM.from_config(hf_config, dtype=load_dtype, attn_implementation=attn)
    except ValueError as exc:
        if attn != "sdpa" or "scaled_dot_product_attention" not in str(exc):
            raise
        model = AutoModelForCausalLM.from_config(hf_config, dtype=load_dtype, attn_implementation="eager")
        _NOTES.append(f"{conf['model_type']} has no sdpa attention in transformers: traced with eager")
    return model, load_dtype


_TORCH_DTYPES: dict = {}


def _regime(config: dict, cfg: TrainConfig):
    """The regime the runner executes (core/runners): the probe traces exactly those dtypes."""
    import torch

    from rocm_tune.core.model.architecture import model_from_config
    from rocm_tune.core.runners import regime

    _TORCH_DTYPES.update(fp32=torch.float32, bf16=torch.bfloat16, fp16=torch.float16)
    return regime(model_from_config(config), cfg)


class _SwapFallback:
    """`Module.to()` swaps fake parameters with `torch.utils.swap_tensors`, which refuses tensors that
    fake mode holds weak references to; fall back to the `.data =` assignment (same result here)."""

    def __enter__(self):
        import torch.utils

        self._orig = torch.utils.swap_tensors
        orig = self._orig

        def swap(t1, t2):
            try:
                orig(t1, t2)
            except RuntimeError:
                t1.data = t2.data

        torch.utils.swap_tensors = swap
        return self

    def __exit__(self, *exc):
        import torch.utils

        torch.utils.swap_tensors = self._orig
        return False


def _probe(config: dict, cfg: TrainConfig, trace: dict | None = None) -> ProbeResult:
    try:
        import transformers.masking_utils as mu
    except ImportError:  # older transformers: no packed-sequence detection
        return _probe_inner(config, cfg, trace)
    # On fake tensors transformers cannot read position_ids, so it assumes packed sequences and builds an
    # S x S mask that a real (unpacked) run never allocates; answer as a real run does.
    orig = getattr(mu, "find_packed_sequence_indices", None)
    if orig is None:
        return _probe_inner(config, cfg, trace)
    mu.find_packed_sequence_indices = lambda position_ids: None
    try:
        return _probe_inner(config, cfg, trace)
    finally:
        mu.find_packed_sequence_indices = orig


def _prepare(config: dict, cfg: TrainConfig):
    """The model as the runner prepares it: trainable parameters chosen and cast, checkpointing on."""
    model, load_dtype = _build_model(config, cfg)
    run_as = _regime(config, cfg)
    layers = _decoder_layers(model)
    if cfg.method == "full":
        model.requires_grad_(True)
    elif cfg.method == "freeze":
        model.requires_grad_(False)
        n = min(cfg.freeze_trainable_layers, len(layers))
        for layer in layers[len(layers) - n:]:
            layer.requires_grad_(True)
    else:
        from peft import LoraConfig, get_peft_model

        lcfg = LoraConfig(r=cfg.lora_rank, lora_alpha=cfg.lora_alpha or cfg.lora_rank * 2,
                          lora_dropout=0.0, target_modules=_lora_target_names(model, cfg), use_dora=cfg.dora,
                          task_type="CAUSAL_LM")
        model = get_peft_model(model, lcfg)
    # the runner's trainable dtype (LLaMA-Factory / built-in: fp32 unless pure_bf16 or ZeRO-3)
    want = _TORCH_DTYPES[run_as.trainable_dtype]
    for p in model.parameters():
        if p.requires_grad and p.dtype != want:
            p.data = p.data.to(want)
    if cfg.gradient_checkpointing:
        base = model.get_base_model() if hasattr(model, "get_base_model") else model
        base.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
        if cfg.is_lora or cfg.method == "freeze":
            base.enable_input_require_grads()
    model.train()
    return model, layers, run_as


def _make_step(config: dict, cfg: TrainConfig, model, ref_model, opt, trainable, tally, run_as):
    """One training step (forward, loss, backward, clip, optimizer step) as the trainer runs it."""
    import torch

    batch = cfg.micro_batch * (2 if cfg.stage == "dpo" else 1)
    vocab_size: Any = getattr(model.config, "vocab_size", None) or config.get("vocab_size")  # a config.json value
    vocab = int(vocab_size)
    autocast = torch.autocast("cpu", dtype=_TORCH_DTYPES[run_as.autocast]) if run_as.autocast else _null()

    def step() -> tuple[int, int]:
        input_ids = torch.randint(0, vocab, (batch, cfg.cutoff_len))
        labels = input_ids.clone()
        with autocast:
            if cfg.stage == "dpo":
                loss = _dpo_loss(model, ref_model, input_ids, labels, cfg.micro_batch)
            else:
                loss = model(input_ids=input_ids, labels=labels).loss
        fwd_end = tally.current
        loss.backward()
        grads_bytes = tally.bytes_of(p.grad for p in trainable)
        torch.nn.utils.clip_grad_norm_(trainable, 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)
        return fwd_end, grads_bytes

    return step


def _dpo_loss(model, ref_model, input_ids, labels, half: int):
    import torch

    with torch.no_grad():
        if ref_model is not None:
            ref_logits = ref_model(input_ids=input_ids).logits
        else:
            with model.disable_adapter():
                ref_logits = model(input_ids=input_ids).logits
        ref_logps = _seq_logps(ref_logits, labels)
        del ref_logits
    logits = model(input_ids=input_ids).logits
    logps = _seq_logps(logits, labels)
    del logits
    ratio = (logps[:half] - ref_logps[:half]) - (logps[half:] - ref_logps[half:])
    return -torch.nn.functional.logsigmoid(0.1 * ratio).mean()


def _trace_hooks(trace: dict, layers, tally) -> list:
    trace["layers"] = []
    hooks = [layer.register_forward_hook(lambda *_a: trace["layers"].append(tally.current)) for layer in layers]
    hooks.append(layers[0].register_forward_pre_hook(lambda *_a: trace["layers"].append(tally.current)))
    if trace.get("modules"):
        trace["mods"] = []
        target = layers[min(1, len(layers) - 1)]
        for name, mod in target.named_modules():
            hooks.append(mod.register_forward_pre_hook(
                lambda *_a, n=name: trace["mods"].append((n, "pre", tally.current))))
            hooks.append(mod.register_forward_hook(
                lambda *_a, n=name: trace["mods"].append((n, "post", tally.current))))
    return hooks


def _probe_inner(config: dict, cfg: TrainConfig, trace: dict | None = None) -> ProbeResult:
    import torch
    from torch._subclasses.fake_tensor import FakeTensorMode

    notes = _NOTES
    notes.clear()
    if cfg.world_size > 1:
        notes.append("traced one GPU's step; DDP gradient buckets (see comm buffers) are not traced")
    fake = FakeTensorMode(allow_non_fake_inputs=True)
    with fake, _SwapFallback():
        model, layers, run_as = _prepare(config, cfg)
        trainable = [p for p in model.parameters() if p.requires_grad]
        params_total = sum(p.numel() for p in model.parameters())
        params_trainable = sum(p.numel() for p in trainable)
        opt = _make_optimizer(cfg, trainable)
        ref_model = None
        if cfg.stage == "dpo" and not cfg.is_lora:
            ref_model, _ = _build_model(config, cfg)
            ref_model.requires_grad_(False)
            ref_model.eval()
        tally = _Tally()
        step = _make_step(config, cfg, model, ref_model, opt, trainable, tally, run_as)
        with tally.mode:
            # register what exists before the first step: parameters, buffers (both models)
            for m in (model, ref_model):
                if m is not None:
                    for t in list(m.parameters()) + list(m.buffers()):
                        tally.track(t)
            weights = tally.current
            trainable_bytes = tally.bytes_of(trainable)
            step()
            opt_bytes = tally.bytes_of(
                v for s in opt.state.values() for v in s.values() if isinstance(v, torch.Tensor))
            tally.peak = tally.current
            start = tally.current
            hooks = _trace_hooks(trace, layers, tally) if trace is not None else []
            fwd_end, grads_bytes = step()
            peak = tally.peak
            if trace is not None:
                trace["peak_op"] = tally.peak_op
            for h in hooks:
                h.remove()
    return ProbeResult(
        peak_allocated_bytes=int(peak), start_bytes=int(start), weights_bytes=int(weights),
        trainable_weights_bytes=int(trainable_bytes), optimizer_bytes=int(opt_bytes),
        gradients_bytes=int(grads_bytes), forward_end_bytes=int(fwd_end),
        params_total=int(params_total), params_trainable=int(params_trainable), notes=tuple(notes))


class _null:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _seq_logps(logits, labels):
    """LLaMA-Factory / TRL: fp32 log-softmax over the vocabulary, gathered at the labels, summed."""
    import torch

    logits = logits.float()
    per_token = torch.gather(logits.log_softmax(-1), dim=2, index=labels.unsqueeze(2)).squeeze(2)
    return per_token.sum(-1)


def _decoder_layers(model):
    import torch

    best = None
    for _name, module in model.named_modules():
        if isinstance(module, torch.nn.ModuleList) and len(module) > 0:
            if best is None or len(module) > len(best):
                best = module
    return list(best) if best is not None else []


def _make_optimizer(cfg: TrainConfig, params):
    import torch

    if cfg.optim == "adamw":
        return torch.optim.AdamW(params, lr=1e-5, fused=True)   # transformers' default adamw_torch_fused
    if cfg.optim == "sgd":
        return torch.optim.SGD(params, lr=1e-5)
    if cfg.optim == "sgd_momentum":
        return torch.optim.SGD(params, lr=1e-5, momentum=0.9)
    if cfg.optim == "adafactor":
        from transformers.optimization import Adafactor

        return Adafactor(params, lr=1e-5, scale_parameter=False, relative_step=False, warmup_init=False)
    raise ValueError(cfg.optim)
