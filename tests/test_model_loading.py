"""load_model: directories, config.json paths, offline Hugging Face / ModelScope caches, and bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rocm_tune.core.errors import UserError
from rocm_tune.core.model.architecture import SUPPORTED_FAMILIES, load_model, model_from_config

TINY = {"model_type": "qwen2", "architectures": ["Qwen2ForCausalLM"], "hidden_size": 64, "intermediate_size": 96,
        "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 128,
        "max_position_embeddings": 512, "tie_word_embeddings": True, "torch_dtype": "bfloat16"}


def tiny_total(cfg: dict) -> int:
    """Count a Qwen2 by hand: embeddings, q/k/v (bias) + o, gated MLP, two RMSNorms per layer, final norm."""
    h, i, n, nh, kv, v = (cfg[k] for k in ("hidden_size", "intermediate_size", "num_hidden_layers",
                                          "num_attention_heads", "num_key_value_heads", "vocab_size"))
    hd = h // nh
    attn = h * nh * hd + nh * hd + 2 * (h * kv * hd + kv * hd) + nh * hd * h
    layer = attn + 3 * h * i + 2 * h
    return v * h * (1 if cfg.get("tie_word_embeddings") else 2) + n * layer + h


@pytest.fixture
def home(tmp_path, monkeypatch):
    """An empty HOME and no cache variables, so a developer's real caches never leak into the tests."""
    h = tmp_path / "home"
    h.mkdir()
    monkeypatch.setenv("HOME", str(h))
    for var in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_HOME", "MODELSCOPE_CACHE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(h / ".cache"))
    return h


def write_hf_snapshot(hub, repo_id, rev, cfg, blob_name=None):
    repo = hub / ("models--" + repo_id.replace("/", "--"))
    snap = repo / "snapshots" / rev
    snap.mkdir(parents=True)
    blobs = repo / "blobs"
    blobs.mkdir(exist_ok=True)
    blob = blobs / (blob_name or f"blob{rev}")
    blob.write_text(json.dumps(cfg))
    os.symlink(os.path.relpath(blob, snap), snap / "config.json")  # the real cache layout: symlink into blobs/
    return repo


def test_directory_and_config_path(tmp_path, home):
    d = tmp_path / "my-model"
    d.mkdir()
    (d / "config.json").write_text(json.dumps(TINY))
    spec = load_model(str(d))
    assert (spec.source, spec.name, spec.location) == ("path", "my-model", str((d / "config.json").resolve()))
    assert spec.params.total == tiny_total(TINY)
    assert spec.torch_dtype == "bfloat16" and spec.family == "qwen2"
    spec2 = load_model(str(d / "config.json"))
    assert spec2.source == "path" and spec2.params == spec.params


def test_relative_and_home_paths(tmp_path, home, monkeypatch):
    d = home / "models" / "m"
    d.mkdir(parents=True)
    (d / "config.json").write_text(json.dumps(TINY))
    assert load_model("~/models/m").location == str((d / "config.json").resolve())
    monkeypatch.chdir(home / "models")
    assert load_model("m").source == "path"
    assert load_model("./m/config.json").source == "path"


def test_hf_cache_prefers_refs_main(tmp_path, home, monkeypatch):
    hub = tmp_path / "hub"
    repo = write_hf_snapshot(hub, "acme/Tiny-1", "aaa111", {**TINY, "num_hidden_layers": 3})
    write_hf_snapshot(hub, "acme/Tiny-1", "bbb222", TINY)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text("aaa111")
    monkeypatch.setenv("HF_HUB_CACHE", str(hub))
    spec = load_model("acme/Tiny-1")
    assert spec.source == "hf-cache"
    assert spec.location == str(repo / "snapshots" / "aaa111" / "config.json")
    assert spec.num_layers == 3
    assert spec.name == "acme/Tiny-1"


def test_hf_cache_without_refs_takes_newest_snapshot(tmp_path, home, monkeypatch):
    hub = home / ".cache" / "huggingface" / "hub"  # the default location, no variables set
    repo = write_hf_snapshot(hub, "acme/Tiny-2", "old", {**TINY, "num_hidden_layers": 5})
    write_hf_snapshot(hub, "acme/Tiny-2", "new", TINY)
    os.utime(repo / "snapshots" / "old" / "config.json", (1_000_000, 1_000_000), follow_symlinks=False)
    os.utime(repo / "blobs" / "blobold", (1_000_000, 1_000_000))
    spec = load_model("acme/Tiny-2")
    assert spec.source == "hf-cache" and spec.num_layers == 2


def test_hf_home_hub(tmp_path, home, monkeypatch):
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hfhome"))
    write_hf_snapshot(tmp_path / "hfhome" / "hub", "acme/Tiny-3", "r1", TINY)
    assert load_model("acme/Tiny-3").source == "hf-cache"


def test_cached_hub_id_wins_over_preset_with_same_hub_id(tmp_path, home, monkeypatch):
    hub = tmp_path / "hub"
    write_hf_snapshot(hub, "Qwen/Qwen2.5-7B-Instruct", "r", TINY)
    assert load_model("Qwen/Qwen2.5-7B-Instruct").source == "preset"  # not cached yet: the preset
    monkeypatch.setenv("HF_HUB_CACHE", str(hub))
    spec = load_model("Qwen/Qwen2.5-7B-Instruct")
    assert spec.source == "hf-cache" and spec.hidden_size == 64


@pytest.mark.parametrize("layout", ["models/{org}/{name}", "{org}/{name}", "models/{org}/{name_us}"])
def test_modelscope_cache_layouts(tmp_path, home, monkeypatch, layout):
    base = tmp_path / "ms"
    monkeypatch.setenv("MODELSCOPE_CACHE", str(base))
    d = base / layout.format(org="acme", name="Tiny-4.5", name_us="Tiny-4___5")
    d.mkdir(parents=True)
    (d / "config.json").write_text(json.dumps(TINY))
    spec = load_model("acme/Tiny-4.5")
    assert spec.source == "modelscope-cache"
    assert spec.location == str(d / "config.json")


def test_modelscope_default_location(home):
    d = home / ".cache" / "modelscope" / "hub" / "models" / "acme" / "Tiny-5"
    d.mkdir(parents=True)
    (d / "config.json").write_text(json.dumps(TINY))
    assert load_model("acme/Tiny-5").source == "modelscope-cache"


def test_hf_cache_is_searched_before_modelscope(tmp_path, home, monkeypatch):
    write_hf_snapshot(tmp_path / "hub", "acme/Both", "r", TINY)
    d = tmp_path / "ms" / "models" / "acme" / "Both"
    d.mkdir(parents=True)
    (d / "config.json").write_text(json.dumps(TINY))
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setenv("MODELSCOPE_CACHE", str(tmp_path / "ms"))
    assert load_model("acme/Both").source == "hf-cache"


# ------------------------------------------------------------------------------------------- bad input


def one_line_error(ref) -> str:
    with pytest.raises(UserError) as e:
        load_model(ref)
    msg = str(e.value)
    assert "\n" not in msg and msg
    return msg


def test_unknown_hub_id_not_in_any_cache(home):
    msg = one_line_error("acme/NotThere")
    assert "'acme/NotThere'" in msg and "cache" in msg


def test_directory_without_config_json(tmp_path, home):
    (tmp_path / "empty").mkdir()
    msg = one_line_error(str(tmp_path / "empty"))
    assert "config.json" in msg and str(tmp_path / "empty") in msg


def test_missing_config_path(tmp_path, home):
    msg = one_line_error(str(tmp_path / "nope" / "config.json"))
    assert "nope" in msg and "no such file" in msg


def test_malformed_json_names_file_and_line(tmp_path, home):
    p = tmp_path / "config.json"
    p.write_text('{"hidden_size": 64,\n "num_hidden_layers": }')
    msg = one_line_error(str(p))
    assert str(p) in msg and "malformed JSON" in msg and "line 2" in msg


@pytest.mark.parametrize("text", ["[1, 2]", "42", '"x"', "null", "\x00\xff garbage"])
def test_config_json_not_an_object(tmp_path, home, text):
    p = tmp_path / "config.json"
    p.write_text(text, encoding="latin-1")
    one_line_error(str(p))


def test_binary_garbage_config(tmp_path, home):
    p = tmp_path / "config.json"
    p.write_bytes(bytes(range(256)))
    assert "config" in one_line_error(str(p))


@pytest.mark.parametrize(
    "change,needle",
    [
        ({"hidden_size": None}, "hidden_size"),
        ({"num_hidden_layers": None}, "num_hidden_layers"),
        ({"vocab_size": None}, "vocab_size"),
        ({"hidden_size": 0}, "hidden_size=0"),
        ({"num_hidden_layers": -3}, "num_hidden_layers=-3"),
        ({"num_attention_heads": 0}, "num_attention_heads=0"),
        ({"intermediate_size": -1}, "intermediate_size=-1"),
        ({"vocab_size": "many"}, "vocab_size='many'"),
        ({"hidden_size": True}, "hidden_size=True"),
        ({"hidden_size": 64.5}, "hidden_size=64.5"),
        ({"num_hidden_layers": 10**12}, "absurdly large"),
        ({"num_key_value_heads": 3}, "not a multiple"),
        ({"tie_word_embeddings": "yes"}, "tie_word_embeddings"),
        ({"model_type": 7}, "model_type"),
    ],
)
def test_bad_config_values(tmp_path, home, change, needle):
    cfg = {**TINY, **change}
    cfg = {k: v for k, v in cfg.items() if v is not None}
    p = tmp_path / "config.json"
    p.write_text(json.dumps(cfg))
    msg = one_line_error(str(p))
    assert needle in msg and str(p) in msg


def test_float_sizes_that_are_integers_are_accepted():
    spec = model_from_config({**TINY, "hidden_size": 64.0})
    assert spec.hidden_size == 64 and spec.params.total == tiny_total(TINY)


def test_model_from_config_rejects_non_dict():
    with pytest.raises(UserError):
        model_from_config(["not", "a", "dict"])  # type: ignore[arg-type]


@pytest.mark.parametrize("ref", ["", "   "])
def test_empty_reference(ref, home):
    one_line_error(ref)


def test_moe_configs_validate_expert_fields():
    base = {"model_type": "qwen3_moe", **{k: v for k, v in TINY.items() if k != "model_type"}, "head_dim": 16,
            "moe_intermediate_size": 32, "num_experts": 4, "num_experts_per_tok": 2}
    assert model_from_config(base).num_experts == 4
    with pytest.raises(UserError, match="num_experts_per_tok=0"):
        model_from_config({**base, "num_experts_per_tok": 0})
    with pytest.raises(UserError, match="moe_intermediate_size=-5"):
        model_from_config({**base, "moe_intermediate_size": -5})
    with pytest.raises(UserError, match="mlp_only_layers"):
        model_from_config({**base, "mlp_only_layers": "all"})
    dense = model_from_config({**base, "num_experts": 0})
    assert dense.num_experts == 0 and dense.moe_layers == 0 and dense.params.experts == 0


def test_import_and_preset_load_in_a_fresh_interpreter_pulls_no_heavy_modules():
    code = (
        "import sys, time\n"
        "t = time.perf_counter()\n"
        "from rocm_tune.core.model.architecture import load_model\n"
        "s = load_model('qwen2.5-7b')\n"
        "dt = time.perf_counter() - t\n"
        "heavy = [m for m in ('torch', 'transformers', 'peft', 'textual', 'rich') if m in sys.modules]\n"
        "print(s.params.total, heavy, dt)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out[0] == "7615616512"
    assert out[1] == "[]"


# ------------------------------------------------------------------------------ property: garbage in


_KEYS = ["model_type", "hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads",
         "num_key_value_heads", "head_dim", "vocab_size", "tie_word_embeddings", "attention_bias", "num_experts",
         "num_local_experts", "num_experts_per_tok", "moe_intermediate_size", "shared_expert_intermediate_size",
         "decoder_sparse_step", "mlp_only_layers", "n_routed_experts", "n_shared_experts", "first_k_dense_replace",
         "q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim", "moe_layer_freq",
         "text_config", "num_layers", "padded_vocab_size", "ffn_hidden_size", "kv_channels", "multi_query_attention",
         "multi_query_group_num", "torch_dtype", "max_position_embeddings", "rmsnorm", "use_bias"]
_json = st.recursive(
    st.none() | st.booleans() | st.integers(-10, 300) | st.floats(allow_nan=True) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(_KEYS), inner, max_size=4),
    max_leaves=8,
)
_value = st.one_of(st.integers(-3, 96), st.sampled_from([None, True, 0, 64.0, 1e30, "x", [1, 2], {}]), _json)
_types = st.sampled_from(list(SUPPORTED_FAMILIES) + ["gemma3", "unknown_x", None, 3])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(model_type=_types, values=st.dictionaries(st.sampled_from(_KEYS), _value, max_size=12))
def test_model_from_config_raises_only_user_error(model_type, values):
    cfg = {"hidden_size": 64, "intermediate_size": 96, "num_hidden_layers": 2, "num_attention_heads": 4,
           "vocab_size": 100, "model_type": model_type, **values}
    try:
        spec = model_from_config(cfg)
    except UserError as e:
        assert "\n" not in str(e)
        return
    p = spec.params
    assert p.total > 0 and len(p.per_layer) == spec.num_layers
    assert p.total == p.embed + p.lm_head + p.attention + p.mlp + p.experts + p.shared_experts + p.router + p.norms + p.other
