"""transformers' causal-LM loss release by release (helper c-loss8). Sources, read in the release wheels:
models/llama/modeling_llama.py LlamaForCausalLM.forward @ v4.30.2 (no upcast), v4.31.0 - v4.45.2 (`logits =
logits.float()`, `shift_logits = logits[..., :-1, :].contiguous()`: 12 bytes per logit), loss/loss_utils.py
ForCausalLMLoss @ v4.46.0 - v4.48.0 (the 16-bit logits returned, an fp32 upcast and a shifted fp32 copy inside the
loss: 14) and @ v4.49.0 (labels padded: 10); modeling_mistral.py kept its own forward through v4.47.1,
modeling_qwen2_vl.py through v4.50.0. The YAML is written for the test; it is no corpus case."""

from __future__ import annotations

import json
from pathlib import Path

from rocm_tune.cli import main
from rocm_tune.core.runners import hf_loss

LF = """model_name_or_path: {model}
stage: sft
do_train: true
finetuning_type: lora
lora_target: all
dataset: alpaca_en_demo
template: llama3
cutoff_len: 4096
per_device_train_batch_size: {mbs}
gradient_checkpointing: true
{precision}: true
output_dir: saves/x
"""
LLAMA = "meta-llama/Meta-Llama-3-8B-Instruct"


def _check(tmp_path: Path, capsys, extra: str | None = None, model: str = LLAMA, precision: str = "bf16",
           mbs: int = 8) -> dict:
    cfg = tmp_path / "train.yaml"
    cfg.write_text(LF.format(model=model, precision=precision, mbs=mbs))
    files = [str(cfg)]
    if extra is not None:
        side = tmp_path / "requirements.txt"
        side.write_text(extra)
        files.append(str(side))
    rc = main(["check", *files, "--gpu", "mi300x", "--gpus", "1", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc in (0, 1), out
    return out


def _bytes(out: dict):
    return (out.get("understood") or {}).get("hf_loss_bytes")


def test_rows_by_release_and_family():
    assert hf_loss.row("llama", (4, 30)) is None                 # no upcast before v4.31: not modelled
    assert hf_loss.row("llama", (4, 31))[:2] == (12, 8)
    assert hf_loss.row("qwen2", (4, 45))[:2] == (12, 8)
    assert hf_loss.row("llama", (4, 46))[:2] == (14, 10)
    assert hf_loss.row("gemma2", (4, 48))[:2] == (14, 10)
    assert hf_loss.row("mistral", (4, 47))[:2] == (12, 8)       # its own forward until v4.48.0
    assert hf_loss.row("mistral", (4, 48))[:2] == (14, 10)
    assert hf_loss.row("llama", (4, 49))[:2] == (10, 10)
    assert hf_loss.row("gpt_neox", (4, 40)) is None              # not one of the checked model types
    assert hf_loss.row("qwen2", (4, 50), vlm=True)[:2] == (12, 8)
    assert hf_loss.row("qwen2", (4, 44), vlm=True) is None
    assert hf_loss.row("llama", (4, 46), vlm=True) is None       # another wrapper's forward: not modelled


def test_pinned_446_holds_14_bytes_and_less_margin(tmp_path, capsys):
    today = _check(tmp_path, capsys)
    old = _check(tmp_path, capsys, "transformers==4.46.1\n")
    new = _check(tmp_path, capsys, "transformers==4.49.0\n")
    assert _bytes(today) is None and _bytes(new) is None
    assert _bytes(old) == [14, 10]
    assert new["margin_bytes"] == today["margin_bytes"]
    assert old["margin_bytes"] < today["margin_bytes"]
    assert "ForCausalLMLoss @ v4.46.0" in json.dumps(old)


def test_env_dump_and_pip_list_date_the_release(tmp_path, capsys):
    env = _check(tmp_path, capsys, "- `transformers` version: 4.44.2\n- Platform: Linux\n")
    listed = _check(tmp_path, capsys, "torch          2.4.0+rocm6.1\ntransformers   4.47.1\n")
    assert _bytes(env) == [12, 8]
    assert _bytes(listed) == [14, 10]


def test_llamafactory_pin_dates_by_its_declared_range(tmp_path, capsys):
    assert _bytes(_check(tmp_path, capsys, "llamafactory==0.9.0\n")) == [12, 8]    # transformers <= 4.45.0
    assert _bytes(_check(tmp_path, capsys, "llamafactory==0.9.1\n")) == [12, 8]    # <= 4.46.1: at least 12
    assert _bytes(_check(tmp_path, capsys, "llamafactory==0.9.3\n")) is None        # allows 4.49+: today's
    assert _bytes(_check(tmp_path, capsys, "llamafactory>=0.9.0\n")) is None        # a floor dates nothing


def test_undated_ambiguous_and_fp32_keep_todays_figure(tmp_path, capsys):
    assert _bytes(_check(tmp_path, capsys, "transformers==4.46.1\ntransformers==4.50.0\n")) is None
    assert _bytes(_check(tmp_path, capsys, "transformers>=4.40\n")) is None
    assert _bytes(_check(tmp_path, capsys, "transformers==4.46.1\n", precision="pure_bf16")) == [14, 10]
    # fp32 compute: the upcasts return the tensor itself, every release holds what is counted
    out = _check(tmp_path, capsys, "transformers==4.46.1\n", precision="fp32")
    assert _bytes(out) is None


def test_understood_row_is_documented(tmp_path, capsys):
    doc = (Path(__file__).resolve().parent.parent / "docs" / "internals.md").read_text()
    section = doc.split("### check json: understood", 1)[1].split("\n### ", 1)[0]
    assert "| `hf_loss_bytes` | [int, int], optional |" in section
    out = _check(tmp_path, capsys, "transformers==4.45.2\n")
    assert _bytes(out) == [12, 8]


def test_a_comment_stating_the_env_dates_the_release(tmp_path, capsys):
    stated = _check(tmp_path, capsys, "# lab env: CUDA 12.4, PyTorch 2.4, PEFT 0.11, Transformers 4.44\n")
    bound = _check(tmp_path, capsys, "# needs transformers 4.46 or later\n")
    two = _check(tmp_path, capsys, "# ran with transformers 4.44.2\n# later transformers 4.49.0\n")
    assert _bytes(stated) == [12, 8] and "stated in a comment" in json.dumps(stated)
    assert _bytes(bound) is None and _bytes(two) is None


def test_one_row_has_no_shifted_copy(tmp_path, capsys):
    # logits[..., :-1, :] of a one-row batch is already contiguous: v4.31-v4.45 then hold 8 bytes per logit, not 12
    today = _check(tmp_path, capsys, mbs=1)
    old = _check(tmp_path, capsys, "transformers==4.44.2\n", mbs=1)
    mid = _check(tmp_path, capsys, "transformers==4.47.1\n", mbs=1)
    assert _bytes(old) == [12, 8] and _bytes(mid) == [14, 10]
    assert old["margin_bytes"] >= today["margin_bytes"] == mid["margin_bytes"]
