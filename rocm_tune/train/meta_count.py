"""Exact parameter counts of architectures `rocm_tune.core.model.architecture` does not know, from transformers on the meta device.

`count(config)` builds ``AutoModelForCausalLM.from_config`` under ``torch.device("meta")`` (no memory, no
weights, no network) and sums the real parameters: total, input embedding, untied output head, each decoder
layer, norms, and the linear layers of the decoder layers (for LoRA targets). The commands layer installs it
into core with ``install()``; core stays free of torch. Where transformers is missing, does not know the
model type or the model needs remote code, ``count`` returns the reason as one line and core falls back to
its Llama-style count (and says so).
"""

from __future__ import annotations

from typing import Any

from rocm_tune.core.model.architecture import ExactCount, LinearGroup, ParamCounts, set_exact_counter

_ATTN_WORDS = ("attn", "attention", "q_proj", "k_proj", "v_proj", "o_proj", "query", "key", "value")


def install() -> None:
    """Make core.model.architecture count unknown architectures exactly (idempotent, imports nothing heavy)."""
    set_exact_counter(count)


def _decoder_layers(model: Any, torch: Any) -> list:
    """The longest ModuleList whose items all share one class: the decoder layers."""
    best: list = []
    for mod in model.modules():
        if isinstance(mod, torch.nn.ModuleList) and len(mod) > len(best):
            kinds = {type(m) for m in mod}
            if len(kinds) == 1:
                best = list(mod)
    return best


def _causal_lm(hf_cfg: Any, transformers: Any) -> Any:
    """AutoModelForCausalLM's model of `hf_cfg`; for the text sub-config of a multimodal model that the auto class
    does not map (Llama 3.2 Vision's MllamaTextConfig), its own <Name>ForCausalLM by transformers' naming
    (<Name>TextConfig -> <Name>ForCausalLM), else the auto class's ValueError."""
    try:
        return transformers.AutoModelForCausalLM.from_config(hf_cfg)
    except ValueError:
        name = type(hf_cfg).__name__
        cls = getattr(transformers, name[: -len("TextConfig")] + "ForCausalLM", None) \
            if name.endswith("TextConfig") else None
        if cls is None:
            raise
        return cls(hf_cfg)


def _meta_model(config: dict, torch, transformers):
    """The model of `config` built on the meta device by transformers, or why not (a line)."""
    if "auto_map" in config:
        return "remote-code model (auto_map): its modeling code is not in transformers"
    cfg = {k: v for k, v in config.items() if k not in ("architectures", "transformers_version", "_name_or_path")}
    model_type = cfg.pop("model_type", None)
    if not isinstance(model_type, str) or not model_type:
        return "config.json has no model_type"
    try:
        hf_cfg = transformers.AutoConfig.for_model(model_type, **cfg)
    except (ValueError, KeyError) as exc:
        return f"transformers {transformers.__version__} does not know model_type {model_type!r} ({str(exc).splitlines()[0][:80]})"
    except Exception as exc:  # noqa: BLE001 - the config class refused a value (huggingface_hub's strict dataclass
        # validation: StrictDataclassFieldValidationError for Infinity where an int belongs): fall back, said why
        why = " ".join(str(exc).split())[:120]
        return f"transformers' {model_type} config refused config.json ({type(exc).__name__}: {why})"
    verbosity = transformers.logging.get_verbosity()
    transformers.logging.set_verbosity_error()  # a tiny config's token ids outside its vocabulary are no news here
    try:
        with torch.device("meta"):
            model = _causal_lm(hf_cfg, transformers)
    except Exception as exc:  # noqa: BLE001 - any failure of a foreign model class is a reason to fall back
        return f"transformers could not build a causal LM for {model_type!r} ({type(exc).__name__}: {str(exc).splitlines()[0][:80]})"
    finally:
        transformers.logging.set_verbosity(verbosity)
    return model


def count(config: dict) -> ExactCount | str:
    try:
        import torch
        import transformers
    except ImportError as exc:
        return f"transformers/torch not installed ({exc.name})"
    model = _meta_model(config, torch, transformers)
    if isinstance(model, str):
        return model
    seen: set[int] = set()
    total = 0
    for p in model.parameters():  # parameters() yields a tied weight once
        if id(p) not in seen:
            seen.add(id(p))
            total += p.numel()
    emb_mod = model.get_input_embeddings()
    emb_w = getattr(emb_mod, "weight", None)
    embed = emb_w.numel() if emb_w is not None else 0
    out_mod = model.get_output_embeddings()
    lm_head = 0
    if out_mod is not None:
        for p in out_mod.parameters():
            if p is not emb_w:
                lm_head += p.numel()
    layers = _decoder_layers(model, torch)
    per_layer = tuple(sum(p.numel() for p in layer.parameters()) for layer in layers)
    norms = 0
    for mod in model.modules():
        if "norm" in type(mod).__name__.lower():
            norms += sum(p.numel() for p in mod.parameters(recurse=False))
    # linear layers of the decoder layers (nn.Linear, and GPT-2's Conv1D whose weight is [in, out])
    conv1d = getattr(getattr(transformers, "pytorch_utils", None), "Conv1D", None)
    groups: dict[tuple, int] = {}
    attention = mlp = 0
    for layer in layers:
        for name, mod in layer.named_modules():
            if isinstance(mod, torch.nn.Linear):
                fin, fout = mod.in_features, mod.out_features
            elif conv1d is not None and isinstance(mod, conv1d):
                fin, fout = mod.weight.shape
            else:
                continue
            short = name.rsplit(".", 1)[-1]
            kind = "attn" if any(w in name.lower() for w in _ATTN_WORDS) else "mlp"
            bias = getattr(mod, "bias", None) is not None
            key = (short, int(fin), int(fout), bias, kind)
            groups[key] = groups.get(key, 0) + 1
            n = int(fin) * int(fout) + (int(fout) if bias else 0)
            if kind == "attn":
                attention += n
            else:
                mlp += n
    n_layers = len(layers)
    linears = []
    for (short, fin, fout, bias, kind), cnt in groups.items():
        # `count` instances per layer in the layers that hold it (all layers for a uniform decoder)
        per = max(1, cnt // n_layers) if n_layers and cnt % n_layers == 0 else 1
        linears.append(LinearGroup(short, fin, fout, per, cnt // per, bias, kind))
    other = total - embed - lm_head - attention - mlp - norms
    params = ParamCounts(embed=embed, lm_head=lm_head, attention=attention, mlp=mlp, experts=0, shared_experts=0,
                         router=0, norms=norms, other=other, total=total, per_layer=per_layer)
    return ExactCount(params=params, linears=tuple(linears),
                      counter=f"transformers {transformers.__version__} ({type(model).__name__})")
