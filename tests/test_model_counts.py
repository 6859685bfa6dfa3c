"""Parameter counts of rocm_tune.core.model equal what transformers instantiates (meta device, no memory)."""

from __future__ import annotations

import pytest

from rocm_tune.core.model import model_from_config

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")


def meta_counts(config: dict) -> dict:
    """Instantiate the transformers model for `config` on the meta device; return component sums."""
    cfg = dict(config)
    model_type = cfg.pop("model_type")
    if "text_config" in cfg:
        hf_cfg = transformers.AutoConfig.for_model(model_type, **cfg)
    else:
        hf_cfg = transformers.AutoConfig.for_model(model_type, **cfg)
    with torch.device("meta"):
        model = transformers.AutoModelForCausalLM.from_config(hf_cfg)
    out = {"total": 0, "embed": 0, "lm_head": 0, "norms": 0, "layers": {}, "linears": {}}
    seen = set()
    for name, p in model.named_parameters():  # named_parameters skips tied duplicates
        if id(p) in seen:
            continue
        seen.add(id(p))
        n = p.numel()
        out["total"] += n
        if "embed_tokens" in name:
            out["embed"] += n
        elif name.startswith("lm_head"):
            out["lm_head"] += n
        if "norm" in name:
            out["norms"] += n
        if ".layers." in name:
            idx = int(name.split(".layers.")[1].split(".")[0])
            out["layers"][idx] = out["layers"].get(idx, 0) + n
    for name, mod in model.named_modules():
        if isinstance(mod, torch.nn.Linear) and ".layers." in name:
            short = name.rsplit(".", 1)[1]
            out["linears"][short] = out["linears"].get(short, 0) + 1
    return out


def check(config: dict):
    spec = model_from_config(config)
    ref = meta_counts(config)
    assert spec.params.total == ref["total"]
    assert spec.params.embed == ref["embed"]
    assert spec.params.lm_head == ref["lm_head"]
    assert spec.params.norms == ref["norms"]
    assert spec.params.per_layer == tuple(ref["layers"][i] for i in range(spec.num_layers))
    # every nn.Linear in the decoder layers is listed under its PEFT name
    listed = {}
    for g in spec.linears:
        if g.kind in ("expert", "router"):
            continue  # fused parameters / non-Linear router in transformers 5
        listed[g.name] = listed.get(g.name, 0) + g.count * g.layers
    assert listed == ref["linears"]
    return spec


SMALL = dict(hidden_size=64, intermediate_size=96, num_hidden_layers=3, num_attention_heads=4,
             num_key_value_heads=2, vocab_size=128, max_position_embeddings=256)


@pytest.mark.parametrize("tie", [False, True])
def test_llama_small(tie):
    check({"model_type": "llama", **SMALL, "tie_word_embeddings": tie})


def test_llama_bias_and_head_dim():
    check({"model_type": "llama", **SMALL, "attention_bias": True, "mlp_bias": True, "head_dim": 24})


def test_qwen2_small():
    spec = check({"model_type": "qwen2", **SMALL})
    assert {g.name: g.bias for g in spec.linears}["q_proj"] is True
