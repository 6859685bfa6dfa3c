"""`check` identifies the model the way the user named it, and says which way (issue 26 items 1 and 3).

Field report 000 (shared/seeds/000_*.txt, section 4): the final script of a Qwen2.5-7B-Instruct LoRA run on 2 x MI50
32 GB points at ModelScope's download folder `.../qwen/Qwen2___5-7B-Instruct`, which is not on this machine.
tests/fixtures/field_report_000/train_ddp_fp32.sh is that script verbatim.
"""

from __future__ import annotations

import json
import shutil
import threading
import typing
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest
import yaml

from rocm_tune.cli import main
from rocm_tune.core.model.architecture import identify_model, load_model
from rocm_tune.profiles.model_presets import PRESET_DIR

FIXTURE = Path(__file__).parent / "fixtures" / "field_report_000" / "train_ddp_fp32.sh"
# the published config.json of Qwen/Qwen2.5-0.5B-Instruct (value for value, as the preset keeps it)
QWEN05 = yaml.safe_load((PRESET_DIR / "qwen2.5-0.5b.yaml").read_text())["config"]

LF_YAML = """### model
model_name_or_path: {model}
### method
stage: sft
do_train: true
finetuning_type: lora
lora_target: all
### dataset
template: qwen
cutoff_len: 1024
### train
per_device_train_batch_size: 1
gradient_accumulation_steps: 8
bf16: true
output_dir: saves/lora
"""


@pytest.fixture
def home(tmp_path, monkeypatch):
    h = tmp_path / "home"
    h.mkdir()
    monkeypatch.setenv("HOME", str(h))
    for var in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_HOME", "MODELSCOPE_CACHE", "HF_ENDPOINT"):
        monkeypatch.delenv(var, raising=False)
    return h


def _check(capsys, *args):
    rc = main(["check", *map(str, args), "--no-app"])
    return rc, capsys.readouterr().out


def _yaml(tmp_path, model: str) -> Path:
    p = tmp_path / "train.yaml"
    p.write_text(LF_YAML.format(model=model))
    return p


# ------------------------------------------------------------------------------------------- field report 000
def test_field_report_000_final_script_fits_with_the_model_from_its_path(tmp_path, home, capsys):
    script = tmp_path / "train.sh"
    shutil.copy(FIXTURE, script)
    _rc, out = _check(capsys, script, "--gpu", "mi50", "--json")
    d = json.loads(out)
    assert d["verdict"] == "fits", d["reason"]
    assert d["model"]["name"] == "qwen2.5-7b" and d["model"]["identified_by"] == "name"
    assert "Qwen2___5-7B-Instruct" in d["model"]["identified"]
    assert not any(f["code"] == "model-unknown" for f in d["findings"])
    assert d["world_size"] == 2 and d["understood"]["micro_batch"] == 1
    # the text answer says how the model was identified
    rc, text = _check(capsys, script, "--gpu", "mi50")
    assert rc == 0 and "Verdict    fits mi50" in text
    assert "model identified by its name, matched to a preset" in text and "qwen2.5-7b" in text


def test_field_report_000_with_only_the_cards_memory(tmp_path, home, capsys):
    script = tmp_path / "train.sh"
    shutil.copy(FIXTURE, script)
    _rc, out = _check(capsys, script, "--vram-gib", "32", "--json")
    d = json.loads(out)
    assert d["verdict"] == "fits" and d["gpu"] == {"id": "a 32 GiB GPU", "vram_gib": 32.0}
    assert any("a card with 32 GiB" in a and "bf16" in a and "FlashAttention" in a for a in d["assumptions"])


# ------------------------------------------------------------------------------------------- which way
def _hf_snapshot(hub: Path, repo_id: str, cfg: dict) -> Path:
    repo = hub / ("models--" + repo_id.replace("/", "--"))
    rev = "7ae557604adf67be50417f59c2c2f167def9a775"
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(rev)
    (repo / "blobs").mkdir()
    blob = repo / "blobs" / "a1b2c3"
    blob.write_text(json.dumps(cfg, indent=2))
    snap = repo / "snapshots" / rev
    snap.mkdir(parents=True)
    (snap / "config.json").symlink_to(Path("..") / ".." / "blobs" / "a1b2c3")
    return snap / "config.json"


def test_path_not_here_found_in_the_hf_cache_by_its_last_component(tmp_path, home, monkeypatch, capsys):
    hub = tmp_path / "hf" / "hub"
    cfgp = _hf_snapshot(hub, "Qwen/Qwen2.5-0.5B-Instruct", {**QWEN05, "num_hidden_layers": 12})
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    _rc, out = _check(capsys, _yaml(tmp_path, "/data/llm/Qwen2.5-0.5B-Instruct"), "--gpu", "rtx4090", "--json")
    d = json.loads(out)
    assert d["model"]["identified_by"] == "hf-cache" and d["model"]["source"] == "hf-cache"
    assert str(cfgp) in d["model"]["identified"] and d["model"]["name"] == "Qwen/Qwen2.5-0.5B-Instruct"
    got = identify_model("/data/llm/Qwen2.5-0.5B-Instruct")
    assert got.spec.num_layers == 12                        # the cached config.json, not the preset
    _rc, text = _check(capsys, _yaml(tmp_path, "/data/llm/Qwen2.5-0.5B-Instruct"), "--gpu", "rtx4090")
    assert "model identified by the Hugging Face cache" in text


def test_modelscope_spelling_found_in_the_modelscope_cache(tmp_path, home, monkeypatch, capsys):
    ms = tmp_path / "ms"
    d = ms / "models" / "Qwen" / "Qwen2___5-0___5B-Instruct"
    d.mkdir(parents=True)
    (d / "config.json").write_text(json.dumps({**QWEN05, "num_hidden_layers": 10}, indent=2))
    monkeypatch.setenv("MODELSCOPE_CACHE", str(ms))
    for ref in ("/home/u/qwen/Qwen2___5-0___5B-Instruct", "Qwen2.5-0.5B-Instruct"):
        got = identify_model(ref)
        assert got.how == "modelscope-cache" and got.spec.num_layers == 10, ref
        assert got.spec.name == "Qwen/Qwen2.5-0.5B-Instruct"
    _rc, out = _check(capsys, _yaml(tmp_path, "/home/u/qwen/Qwen2___5-0___5B-Instruct"), "--gpu", "rtx4090",
                      "--json")
    assert json.loads(out)["model"]["identified_by"] == "modelscope-cache"


def test_a_directory_here_comes_first(tmp_path, home, monkeypatch, capsys):
    d = tmp_path / "Qwen2.5-7B-Instruct"          # named like a preset, but its config.json is what counts
    d.mkdir()
    (d / "config.json").write_text(json.dumps(QWEN05))
    _rc, out = _check(capsys, _yaml(tmp_path, str(d)), "--gpu", "rtx4090", "--json")
    m = json.loads(out)["model"]
    assert m["identified_by"] == "path" and m["name"] == "Qwen2.5-7B-Instruct"
    assert identify_model(str(d)).spec.params.total == identify_model("qwen2.5-0.5b").spec.params.total


def test_quantized_checkpoint_counts_its_weights_at_its_bits(tmp_path, home, capsys):
    _rc, out = _check(capsys, _yaml(tmp_path, "Qwen/Qwen2.5-7B-Instruct-AWQ"), "--gpu", "rtx4090", "--json")
    q = json.loads(out)
    _rc, out = _check(capsys, _yaml(tmp_path, "Qwen/Qwen2.5-7B-Instruct"), "--gpu", "rtx4090", "--json")
    plain = json.loads(out)
    assert q["model"]["quantization"] == "AWQ" and plain["model"]["quantization"] is None
    assert q["understood"]["method"] == "qlora" and q["understood"]["quant_bits"] == 4
    assert plain["understood"]["method"] == "lora"
    assert q["memory"]["load"]["peak_allocated_bytes"] < 0.5 * plain["memory"]["load"]["peak_allocated_bytes"]
    assert any("AWQ" in n and "4 bits" in n for n in q["notes"])


def test_fp8_checkpoint_on_a_card_without_fp8_is_counted_dequantized(tmp_path, home, capsys):
    _rc, out = _check(capsys, _yaml(tmp_path, "Qwen/Qwen3-8B-FP8"), "--gpu", "mi300x", "--json")
    fp8 = json.loads(out)                               # MI300X has FP8: the weights stay 8-bit
    _rc, out = _check(capsys, _yaml(tmp_path, "Qwen/Qwen3-8B-FP8"), "--gpu", "mi50", "--json")
    old = json.loads(out)                               # MI50 has none: bf16
    assert fp8["understood"]["method"] == "qlora" and fp8["understood"]["quant_bits"] == 8
    assert old["understood"]["method"] == "lora"
    assert any("has no FP8" in n and "16 bits" in n for n in old["notes"])


def test_assumed_model_gives_a_verdict_with_the_assumption_listed(tmp_path, home, capsys):
    _rc, out = _check(capsys, _yaml(tmp_path, "/data/llm/Qwen3.8-27B"), "--gpu", "mi300x", "--json")
    d = json.loads(out)
    assert d["verdict"] in ("fits", "oom") and d["model"]["identified_by"] == "assumed"
    assert any("assumed a dense ~27B model" in a for a in d["assumptions"])


def test_unknown_model_asks_one_question(tmp_path, home, capsys):
    y = _yaml(tmp_path, "/data/llm/my-own-model")
    # template "default" names no family (template: qwen would bound the answer over Qwen's sizes: c-unk2)
    y.write_text(y.read_text().replace("template: qwen", "template: default"))
    rc, out = _check(capsys, y, "--gpu", "mi300x", "--json")
    d = json.loads(out)
    assert rc == 1 and d["verdict"] == "unknown" and d["model"] is None
    f = next(f for f in d["findings"] if f["code"] == "model-unknown")
    assert f["message"].startswith("which model is '/data/llm/my-own-model'?") and "--model" in f["fix"]
    assert d["question"]["flag"] == "--model"
    _rc, text = _check(capsys, y, "--gpu", "mi300x")
    assert "Question   which model is '/data/llm/my-own-model'?" in text and "Give --model" in text


def test_vram_gib_alone_is_a_card_and_no_card_asks_for_one(tmp_path, home, capsys):
    y = _yaml(tmp_path, "Qwen/Qwen2.5-0.5B-Instruct")
    rc, out = _check(capsys, y, "--vram-gib", "16", "--json")
    d = json.loads(out)
    assert d["verdict"] == "fits" and d["vram_bytes"] == 16 * 2**30 and rc == 0
    assert any(a.startswith("GPU: a card with 16 GiB") and "give --gpu" in a for a in d["assumptions"])
    _rc, out = _check(capsys, y, "--json")     # no card: 0.5B LoRA fits even the smallest card (c-unk2)
    assert json.loads(out)["verdict"] == "fits"
    y = _yaml(tmp_path, "Qwen/Qwen2.5-7B-Instruct")     # a job that fits some cards and not others
    _rc, out = _check(capsys, y, "--json")
    d = json.loads(out)
    assert d["verdict"] == "unknown" and d["reason"].startswith("which GPU?") and "--gpu" in d["reason"]
    assert d["question"]["flag"] == "--gpu" and "--vram-gib" in d["question"]["give"]
    rc, out = _check(capsys, y, "--gpu", "mi300x", "--json")
    assert json.loads(out)["question"] is None


# ------------------------------------------------------------------------------------------- the Hub
class _Hub(BaseHTTPRequestHandler):
    seen: typing.ClassVar[list[str]] = []

    def do_GET(self):
        _Hub.seen.append(self.path)
        if self.path == "/acme/Tiny-Chat/resolve/main/config.json":
            body = json.dumps({**QWEN05, "num_hidden_layers": 6}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        else:
            self.send_response(404)
            self.end_headers()

    def log_message(self, *a):
        pass


def test_hub_config_json_only_kept_and_never_offline(home, monkeypatch):
    server = HTTPServer(("127.0.0.1", 0), _Hub)
    t = threading.Thread(target=server.serve_forever, daemon=True)
    t.start()
    try:
        monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{server.server_port}")
        got = identify_model("acme/Tiny-Chat")             # HF_HUB_OFFLINE=1 (conftest): no request
        assert got.how == "unknown" and _Hub.seen == []
        monkeypatch.delenv("HF_HUB_OFFLINE")
        monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
        got = identify_model("acme/Tiny-Chat")
        assert got.how == "hub" and got.spec.num_layers == 6
        assert _Hub.seen == ["/acme/Tiny-Chat/resolve/main/config.json"]   # config.json alone
        assert identify_model("acme/Missing-7B").how == "assumed"           # 404: the name's bound instead
    finally:
        server.shutdown()
        server.server_close()
    again = identify_model("acme/Tiny-Chat")                 # kept: no server needed
    assert again.how == "hub" and again.spec.num_layers == 6
    assert load_model("acme/Tiny-Chat").source == "hub"      # and `plan --model acme/Tiny-Chat` finds it too


def test_hub_that_never_answers_gives_no_config_and_is_asked_again(home, monkeypatch):
    import socket

    from rocm_tune.core.model import cache as model_cache

    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(1)                                        # accepts, never answers
    try:
        monkeypatch.delenv("HF_HUB_OFFLINE")
        monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
        monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{silent.getsockname()[1]}")
        cfg, why = model_cache.fetch_hub_config("acme/Slow-7B", timeout=0.3)
        assert cfg is None and "no answer" in why
        assert model_cache.kept_hub_config("acme/Slow-7B") is None     # a network failure is not remembered
        assert identify_model("acme/Slow-7B").how == "assumed"          # the name's bound instead
    finally:
        silent.close()
