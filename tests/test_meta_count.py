"""Architectures core.model.architecture does not know are counted exactly through transformers on the meta device
(rocm_tune/train/meta_count.py, installed by the CLI), else by the Llama-style fallback -- said either way."""

from __future__ import annotations

import json

import pytest

from rocm_tune.core.model import architecture as model_mod

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

TINY = {
    "gpt2": ({"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "n_embd": 64, "n_layer": 3, "n_head": 4,
              "n_positions": 128, "vocab_size": 300, "bos_token_id": 0, "eos_token_id": 0},
             lambda c: transformers.GPT2LMHeadModel(transformers.GPT2Config(**c))),
    # (OPT was the second example until core counted it itself: session 13's opt family; GPT-2 the first until
    # session 17's gpt2 family - it stays for the breakdown test below)
    "falcon": ({"model_type": "falcon", "architectures": ["FalconForCausalLM"], "hidden_size": 64,
                "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 300, "bos_token_id": 1,
                "eos_token_id": 2},
               lambda c: transformers.FalconForCausalLM(transformers.FalconConfig(**c))),
    "bloom": ({"model_type": "bloom", "architectures": ["BloomForCausalLM"], "hidden_size": 64, "n_layer": 2,
               "n_head": 4, "vocab_size": 300, "bos_token_id": 1, "eos_token_id": 2, "pad_token_id": 3},
              lambda c: transformers.BloomForCausalLM(transformers.BloomConfig(**c))),
}


def _real_total(kind: str) -> int:
    cfg, build = TINY[kind]
    torch.manual_seed(0)
    model = build({k: v for k, v in cfg.items() if k not in ("model_type", "architectures")})
    return sum(p.numel() for p in model.parameters())  # really instantiated, on the CPU


@pytest.fixture
def no_counter():
    """Start without an installed counter and leave none behind (the CLI installs it process-wide)."""
    previous = model_mod.set_exact_counter(None)
    yield
    model_mod.set_exact_counter(previous)


@pytest.mark.parametrize("kind", sorted(k for k in TINY if k not in model_mod.SUPPORTED_FAMILIES))
def test_cli_counts_an_unknown_architecture_exactly(kind, tmp_path, capsys, no_counter):
    """`rocm-tune models --show DIR --json` on a config.json of an architecture model.py does not know."""
    from rocm_tune.cli import main

    cfg, _ = TINY[kind]
    assert kind not in model_mod.SUPPORTED_FAMILIES
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    assert main(["models", "--show", str(tmp_path), "--json"]) == 0
    spec = json.loads(capsys.readouterr().out)
    model_mod.set_exact_counter(None)
    real = _real_total(kind)
    assert spec["params"]["total"] == real
    assert sum(spec["params"]["per_layer"]) < real and len(spec["params"]["per_layer"]) == cfg.get(
        "n_layer", cfg.get("num_hidden_layers"))
    assert any("counted exactly on the meta device by transformers" in n for n in spec["notes"])
    assert any(f"unknown model_type {kind!r}" in w and "exactly" in w for w in spec["warnings"])
    # the Llama-style fallback would have said something else (and counted differently)
    fallback = model_mod.model_from_config(cfg)
    assert fallback.params.total != real
    assert any("generic Llama-style decoder" in w for w in fallback.warnings)


def test_exact_count_breaks_down_like_the_real_model():
    from rocm_tune.train import meta_count

    cfg, build = TINY["gpt2"]
    got = meta_count.count(cfg)
    assert isinstance(got, model_mod.ExactCount)
    real = build({k: v for k, v in cfg.items() if k not in ("model_type", "architectures")})
    assert got.params.embed == real.transformer.wte.weight.numel()
    assert got.params.lm_head == 0  # tied to wte
    assert got.params.per_layer == tuple(sum(p.numel() for p in h.parameters()) for h in real.transformer.h)
    assert got.params.other == real.transformer.wpe.weight.numel()  # learned positions: neither linear nor norm
    names = {(g.name, g.in_features, g.out_features, g.kind) for g in got.linears}
    assert ("c_attn", 64, 192, "attn") in names and ("c_fc", 64, 256, "mlp") in names


def test_without_a_counter_the_fallback_is_said(no_counter):
    from rocm_tune.train import meta_count

    cfg, _ = TINY["bloom"]
    spec = model_mod.model_from_config(cfg)
    assert any("generic Llama-style decoder (no exact counter installed" in w for w in spec.warnings)
    model_mod.set_exact_counter(meta_count.count)
    assert model_mod.model_from_config(cfg).params.total == _real_total("bloom")
    # a type transformers does not know / remote code: the reason is said and the fallback counts
    spec = model_mod.model_from_config({**cfg, "model_type": "no_such_arch_xyz"})
    assert any("does not know model_type 'no_such_arch_xyz'" in w for w in spec.warnings)
    spec = model_mod.model_from_config({**cfg, "auto_map": {"AutoModelForCausalLM": "m.M"}})
    assert any("remote-code model" in w for w in spec.warnings)
