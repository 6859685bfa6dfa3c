"""transformers' causal-LM loss of a pinned release before 4.48 (profiles/model_losses.py PRE_450_LOSS_BYTES_16BIT):
the fp32 shifted copy of the logits its loss makes, counted through the real `check` CLI (helper c-under8b)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PROGRAM = '''import torch
from datasets import load_dataset
from transformers import AutoModelForCausalLM, AutoTokenizer, TrainingArguments
from trl import SFTTrainer

model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B", torch_dtype=torch.bfloat16)
tokenizer = AutoTokenizer.from_pretrained("Qwen/Qwen2.5-0.5B")
dataset = load_dataset("json", data_files="train.jsonl", split="train")
args = TrainingArguments(output_dir="out", per_device_train_batch_size=4, gradient_checkpointing=True,
                         {precision}, optim="adamw_torch_fused")
trainer = SFTTrainer(model=model, args=args, train_dataset=dataset, tokenizer=tokenizer,
                     dataset_text_field="text", max_seq_length=2048)
trainer.train()
'''
TOKENS = 4 * 2048
VOCAB = 151936      # Qwen2.5-0.5B's vocab (profiles/models/qwen2.5-0.5b.yaml)


def _check(tmp_path: Path, pin: str | None, precision: str = "bf16=True") -> dict:
    d = tmp_path / (pin or "none").replace("=", "_")
    d.mkdir(exist_ok=True)
    (d / "train.py").write_text(PROGRAM.format(precision=precision))
    files = [str(d / "train.py")]
    if pin:
        (d / "requirements.txt").write_text(f"torch\ntrl==0.11.4\n{pin}\n")
        files.append(str(d / "requirements.txt"))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-m", "rocm_tune", "check", *files, "--gpu", "mi300x", "--json"],
                         capture_output=True, text=True, env=env, cwd=ROOT, check=False)
    assert out.returncode in (0, 1), out.stderr
    return json.loads(out.stdout)


def _step(d: dict) -> int:
    return int(d["memory"]["step"]["peak_allocated_bytes"])


def test_loss_copies_by_pinned_transformers_release(tmp_path):
    base = _check(tmp_path, None)
    v447 = _check(tmp_path, "transformers==4.47.1")
    v444 = _check(tmp_path, "transformers==4.44.2")
    v451 = _check(tmp_path, "transformers==4.51.3")
    logits = TOKENS * VOCAB
    # without a pin the step's loss peak is its backward's (12 B per logit: the saved fp32 log-softmax, its gradient
    # and the input's gradient) above the forward's 10 B. 4.46-4.47 ForCausalLMLoss: 16-bit logits + fp32 upcast +
    # fp32 shifted copy + log-softmax = 14 B at the forward's end: 2 B per logit over that
    assert abs(_step(v447) - _step(base) - 2 * logits) < 2**20
    # 4.36-4.45 LlamaForCausalLM-style forward: fp32 logits + fp32 shifted copy + log-softmax = 12 B, as high as the
    # backward's: the peak does not move
    assert _step(v444) == _step(base)
    # 4.50 on: the labels are padded, no copy: the count the estimate made already
    assert _step(v451) == _step(base)
    assert any("transformers 4.47 pinned" in n for n in v447["notes"])
    assert not any("pinned: its causal-LM loss" in n for n in v451["notes"])


def test_fp32_compute_holds_no_extra_copy(tmp_path):
    # in fp32 `.float()` returns the tensor itself: the fp32 count (12 B) already holds the shifted copy
    base = _check(tmp_path, None, precision="bf16=False")
    pinned = _check(tmp_path, "transformers==4.47.1", precision="bf16=False")
    assert base["understood"]["precision"] == "fp32"
    assert _step(pinned) == _step(base)


DPO_PROGRAM = '''import torch
from datasets import load_dataset
from transformers import AutoModelForCausalLM, AutoTokenizer
from trl import DPOConfig, DPOTrainer

model = AutoModelForCausalLM.from_pretrained("HuggingFaceTB/SmolLM2-135M-Instruct", torch_dtype=torch.float32)
tokenizer = AutoTokenizer.from_pretrained("HuggingFaceTB/SmolLM2-135M-Instruct")
dataset = load_dataset("my-org/my-preference-pairs", split="train")
args = DPOConfig(output_dir="out", per_device_train_batch_size=4, gradient_checkpointing=True, bf16=True)
trainer = DPOTrainer(model=model, args=args, train_dataset=dataset, processing_class=tokenizer)
trainer.train()
'''


def _dpo(tmp_path: Path, trl: str | None, gpu: str = "t4") -> dict:
    d = tmp_path / f"dpo-{trl or 'none'}"
    d.mkdir(exist_ok=True)
    (d / "train.py").write_text(DPO_PROGRAM)
    files = [str(d / "train.py")]
    if trl:
        (d / "requirements.txt").write_text(f"trl=={trl}\ndatasets\n")
        files.append(str(d / "requirements.txt"))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-m", "rocm_tune", "check", *files, "--gpu", gpu, "--json"],
                         capture_output=True, text=True, env=env, cwd=ROOT, check=False)
    assert out.returncode in (0, 1), out.stderr
    return json.loads(out.stdout)


def test_trl_dpo_length_by_pinned_release(tmp_path):
    # v0.9-v0.11: DPOTrainer falls back to 512; v0.14 on: DPOConfig's 1024; unpinned: the 1024 guess as before
    assert _dpo(tmp_path, "0.11.4")["understood"]["cutoff_len"] == 512
    assert _dpo(tmp_path, "0.15.2")["understood"]["cutoff_len"] == 1024
    assert _dpo(tmp_path, None)["understood"]["cutoff_len"] == 1024
    # v0.12-v0.13: max_length None, nothing truncates: the model's context is counted, and where that is over the
    # card the data's longest pair decides (the answer names the length that still fits and the setting that caps it)
    d = _dpo(tmp_path, "0.13.0")
    assert d["understood"]["cutoff_len"] == 8192          # SmolLM2's max_position_embeddings
    assert d["verdict"] == "unknown"
    assert "DPOConfig max_length" in d["reason"] and "longest sample decides" in d["reason"]
    fit = int(d["reason"].split("stays within ")[1].split()[0])
    assert 1024 < fit < 8192


LLAMA_PROGRAM = '''import torch
from datasets import load_dataset
from transformers import AutoModelForCausalLM, BitsAndBytesConfig, TrainingArguments
from peft import LoraConfig
from trl import SFTTrainer

bnb = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_compute_dtype=torch.bfloat16)
model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf", quantization_config=bnb)
args = TrainingArguments(output_dir="out", per_device_train_batch_size=4, bf16=True, optim="paged_adamw_32bit")
trainer = SFTTrainer(model=model, args=args, train_dataset=load_dataset("imdb", split="train"),
                     peft_config=LoraConfig(r=8, target_modules=["q_proj", "v_proj"], task_type="CAUSAL_LM"),
                     dataset_text_field="text", max_seq_length=1024)
trainer.train()
'''


def _llama(tmp_path: Path, pin: str | None) -> dict:
    d = tmp_path / f"llama-{pin or 'none'}"
    d.mkdir(exist_ok=True)
    (d / "train.py").write_text(LLAMA_PROGRAM)
    files = [str(d / "train.py")]
    if pin:
        (d / "requirements.txt").write_text(f"transformers=={pin}\npeft\n")
        files.append(str(d / "requirements.txt"))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-m", "rocm_tune", "check", *files, "--gpu", "a100-40gb", "--json"],
                         capture_output=True, text=True, env=env, cwd=ROOT, check=False)
    assert out.returncode in (0, 1), out.stderr
    return json.loads(out.stdout)


def test_llama_before_transformers_436_runs_eager_attention(tmp_path):
    old, new, unpinned = _llama(tmp_path, "4.33.2"), _llama(tmp_path, "4.36.2"), _llama(tmp_path, None)
    assert old["understood"]["attn"] == "eager"
    assert new["understood"]["attn"] == unpinned["understood"]["attn"] == "sdpa"
    # no GC, 4 rows x 1024 tokens x 32 heads: each of the 32 layers keeps its [4, 32, 1024, 1024] scores' fp32
    # softmax and 16-bit copy (6 B per score: 0.75 GiB a layer) - over 20 GiB more than SDPA
    extra = old["memory"]["step"]["peak_allocated_bytes"] - new["memory"]["step"]["peak_allocated_bytes"]
    scores = 32 * 4 * 32 * 1024 * 1024
    assert 5 * scores < extra < 8 * scores
    assert any("transformers 4.33 pinned" in n for n in old["notes"])


def test_dpo_trainer_max_length_keyword_is_read(tmp_path):
    # TRL before v0.12 takes max_length in DPOTrainer(...) itself: that length, not the release's fallback
    d = tmp_path / "dpo-kw"
    d.mkdir()
    (d / "train.py").write_text(DPO_PROGRAM.replace("processing_class=tokenizer)",
                                                    "tokenizer=tokenizer, max_length=2048, max_prompt_length=256)"))
    (d / "requirements.txt").write_text("trl==0.11.4\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-m", "rocm_tune", "check", str(d / "train.py"), str(d / "requirements.txt"),
                          "--gpu", "t4", "--json"], capture_output=True, text=True, env=env, cwd=ROOT, check=False)
    assert out.returncode in (0, 1), out.stderr
    assert json.loads(out.stdout)["understood"]["cutoff_len"] == 2048
