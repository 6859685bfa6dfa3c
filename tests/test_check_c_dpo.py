"""TRL's DPO under DeepSpeed keeps its logits 16-bit (helper c-dpo). accelerate sets native_amp (autocast and
convert_outputs_to_fp32) only outside DeepSpeed (src/accelerate/accelerator.py Accelerator.__init__); TRL takes the
log-softmax of the 16-bit logits itself (v0.12-v0.14 get_batch_logps, v0.15-v0.28 selective_log_softmax row by row,
v0.29 on _compute_loss with the reference pass beside the policy's logits). LLaMA-Factory's DPO upcasts
(`.logits.to(torch.float32)`). Every file is written for the test from those sources; none is a corpus case."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from rocm_tune.cli import main
from rocm_tune.core.errors import UserError
from rocm_tune.core.memory.estimate import TrainConfig, estimate
from rocm_tune.core.model.architecture import load_model
from rocm_tune.core.runners import preference_logits as pl

AX = """base_model: {model}
rl: {rl}
datasets:
  - path: ./prefs.jsonl
    split: train
    type: chatml.intel
sequence_len: 2048
micro_batch_size: 4
{precision}
gradient_checkpointing: true
flash_attention: true
{ds}
"""
ZERO3 = '{"bf16": {"enabled": "auto"}, "zero_optimization": {"stage": 3}, "train_micro_batch_size_per_gpu": "auto"}'
QWEN3_VOCAB = 151936


def _check(tmp_path: Path, capsys, files: dict[str, str], *extra: str) -> dict:
    paths = []
    for name, text in files.items():
        (tmp_path / name).write_text(text)
        paths.append(str(tmp_path / name))
    rc = main(["check", *paths, "--gpu", "mi300x", *extra, "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc in (0, 1), out
    return out


def _step(out: dict) -> int:
    return int(out["memory"]["step"]["peak_allocated_bytes"])


def _said(out: dict) -> str:
    return next((str(n) for n in out.get("notes") or [] if str(n).startswith("TRL DPO under DeepSpeed")), "")


def _ax(model="Qwen/Qwen3-8B", rl="dpo", precision="bf16: true", ds="deepspeed: zero3.json") -> str:
    return AX.format(model=model, rl=rl, precision=precision, ds=ds)


def test_pinned_release_reads_one_pin_of_the_package():
    assert pl.pinned_release({"r.sh": "pip install peft==0.14.0 transformers==4.47.1 trl==0.13.0"}) == (0, 13)
    assert pl.pinned_release({"r.sh": "pip install transformers==4.47.1 trl==0.13.0"}, "transformers") == (4, 47)
    assert pl.pinned_release({"requirements.txt": "trl[peft] == 0.17.1\naccelerate\n"}) == (0, 17)
    assert pl.pinned_release({"requirements.txt": "trl~=0.19\n"}) is None       # 0.19 up to any 0.x: not one row
    assert pl.pinned_release({"Dockerfile": "RUN pip install (trl==0.16.1, vllm)"}) == (0, 16)
    assert pl.pinned_release({"r.txt": "trl>=0.12"}) is None                 # a floor is not the release that runs
    assert pl.pinned_release({"a": "trl==0.13.0", "b": "trl==0.17.0"}) is None   # two pins: not known which
    assert pl.pinned_release({"r.txt": "my-trl==1.2.0\npeft-trl==3.1"}) is None


def test_copies_per_trl_release():
    assert pl.copies((0, 11)) is None          # transformers 4.40-4.45 may upcast in the forward: fp32 logits
    assert pl.copies((0, 13))[:2] == (2.5, 3.0)
    assert pl.copies((0, 17))[:2] == (2.5, 2.0)
    assert pl.copies((1, 2))[:2] == (5.0, 2.0)
    assert pl.copies((1, 8))[:2] == (3.0, 2.0)
    # release unknown: only where transformers is newer than 4.45, the most any release holds
    assert pl.copies(None, "llama") is None
    assert pl.copies(None, "qwen3_moe")[:2] == (5.0, 3.0)
    assert pl.copies(None, "llama", (4, 47))[:2] == (5.0, 3.0)
    assert pl.copies(None, "llama", (4, 44)) is None


def test_axolotl_dpo_under_deepspeed_counts_16bit_logits_per_release(tmp_path, capsys):
    base = {"ax.yaml": _ax(), "zero3.json": ZERO3}
    old = _check(tmp_path, capsys, {**base, "requirements.txt": "trl==0.11.4\n"})
    unknown = _check(tmp_path, capsys, base)
    rows = _check(tmp_path, capsys, {**base, "requirements.txt": "trl==0.17.0\n"})
    assert _said(old) == "" and "5 copies" in _said(unknown) and "2.5 copies" in _said(rows)
    logits = 2 * 4 * 2048 * QWEN3_VOCAB      # chosen + rejected rows x micro-batch x tokens x vocab
    # before v0.12 the 12 B per logit of the fp32 loss; release unknown 10 B (5 copies); v0.15-v0.28 5 B
    assert _step(old) - _step(unknown) == pytest.approx(2 * logits, rel=0.02)
    # at 5 B another phase of the step (the lm_head / layers' backward) can be the peak: at most 7 B per logit less
    assert _step(unknown) > _step(rows) >= _step(old) - 7 * logits * 1.02


def test_no_16bit_logits_outside_trl_dpo_deepspeed_16bit(tmp_path, capsys):
    # no DeepSpeed: accelerate's autocast and convert_outputs_to_fp32 make the logits fp32
    assert _said(_check(tmp_path, capsys, {"ax.yaml": _ax(ds="")})) == ""
    # fp32 training: nothing 16-bit to keep
    assert _said(_check(tmp_path, capsys, {"ax.yaml": _ax(precision="bf16: false\nfp16: false"),
                                           "zero3.json": ZERO3.replace('"auto"}', 'false}', 1)})) == ""
    # a supervised step: transformers' loss upcasts (labels given)
    assert _said(_check(tmp_path, capsys, {"ax.yaml": _ax(rl="").replace("type: chatml.intel", "type: alpaca"),
                                           "zero3.json": ZERO3})) == ""
    # a model type older than transformers 4.46 and no release pinned: an old stack may upcast in the forward
    assert _said(_check(tmp_path, capsys, {"ax.yaml": _ax(model="meta-llama/Llama-3.1-8B"),
                                           "zero3.json": ZERO3})) == ""


def test_llamafactory_dpo_keeps_the_fp32_count(tmp_path, capsys):
    # LLaMA-Factory's CustomDPOTrainer.concatenated_forward: `model(**batch, ...).logits.to(torch.float32)`
    lf = ("model_name_or_path: Qwen/Qwen3-8B\nstage: dpo\ndo_train: true\nfinetuning_type: full\n"
          "deepspeed: zero3.json\ndataset: dpo_en_demo\ntemplate: qwen3\ncutoff_len: 2048\n"
          "per_device_train_batch_size: 4\nbf16: true\noutput_dir: out\n")
    out = _check(tmp_path, capsys, {"lf.yaml": lf, "zero3.json": ZERO3, "requirements.txt": "trl==0.17.0\n"})
    assert _said(out) == ""


def test_trl_liger_loss_has_no_logits_to_count(tmp_path, capsys):
    prog = ("import torch\nfrom transformers import AutoModelForCausalLM\nfrom trl import DPOConfig, DPOTrainer\n"
            "model = AutoModelForCausalLM.from_pretrained('Qwen/Qwen3-8B', torch_dtype=torch.bfloat16)\n"
            "args = DPOConfig(output_dir='o', per_device_train_batch_size=4, max_length=2048, bf16=True,\n"
            "                 deepspeed='zero3.json', use_liger_loss={liger})\n"
            "trainer = DPOTrainer(model=model, args=args, train_dataset=ds)\ntrainer.train()\n")
    plain = _check(tmp_path, capsys, {"dpo.py": prog.format(liger="False"), "zero3.json": ZERO3})
    liger = _check(tmp_path, capsys, {"dpo.py": prog.format(liger="True"), "zero3.json": ZERO3})
    assert "5 copies" in _said(plain) and _said(liger) == ""


def test_estimate_counts_the_copies_only_in_16bit_compute():
    model = load_model("qwen3-8b")
    cfg = TrainConfig(method="full", stage="dpo", precision="pure_bf16", cutoff_len=2048, micro_batch=4,
                      zero_stage=3, gpus=8)
    full = estimate(model, cfg).per_gpu.peak_allocated_bytes
    rows = estimate(model, replace(cfg, logits_16bit_loss=(2.5, 2.0))).per_gpu.peak_allocated_bytes
    logits = 2 * 4 * 2048 * QWEN3_VOCAB
    assert 2 * logits < full - rows <= 7 * logits * 1.02
    fp32 = replace(cfg, precision="fp32", attn="sdpa")
    assert estimate(model, replace(fp32, logits_16bit_loss=(2.5, 2.0))).per_gpu.peak_allocated_bytes == \
        estimate(model, fp32).per_gpu.peak_allocated_bytes


def test_bad_copy_counts_are_refused():
    with pytest.raises(UserError, match="logits_16bit_loss"):
        TrainConfig(stage="dpo", logits_16bit_loss=(2.5,)).validate()
    with pytest.raises(UserError, match="logits_16bit_loss"):
        TrainConfig(stage="dpo", logits_16bit_loss=(-1.0, 2.0)).validate()
