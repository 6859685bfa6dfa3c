"""Terms check counted that the runner never materialises (helper c-over4, issue 26). Every file is written for the test
from the sources named; none is a corpus case.

* A program's tokenizer that truncates (transformers' PreTrainedTokenizerBase.__call__ / encode with truncation=True and
  max_length=N: tokenization_utils_base.py truncate_sequences) caps every sample at N tokens: the length counted where
  no sequence-length setting is read (core/runners/program_bounds.py).
* `per_device_train_batch_size=args.batch_size // world_size` (world_size from os.environ["WORLD_SIZE"],
  torch.distributed.get_world_size(), accelerator.num_processes): the command's --batch_size is the batch of all ranks.
* GPT-Neo (transformers models/gpt_neo): its own shape (wpe, q/k/v without bias, c_fc/c_proj, LayerNorms), eager-only
  attention, not a Llama-style guess.
* Unsloth's 4-bit loader builds gpt-oss's experts as one nn.Linear per expert (unsloth_zoo temporary_patches/gpt_oss.py
  GptOssExpertsBnb4bit; unsloth/models/mapper.py maps gpt-oss to *-unsloth-bnb-4bit): bitsandbytes quantizes them.
* Mistral-Small-Instruct-2409 (22B): its published shape, not a 22B guess with another model's vocabulary."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rocm_tune.cli import main
from rocm_tune.core.model.architecture import load_model, model_from_config

PROGRAM = '''import os
import argparse
import torch
from datasets import load_dataset
from transformers import AutoModelForCausalLM, AutoTokenizer, Trainer, TrainingArguments, DataCollatorForLanguageModeling

parser = argparse.ArgumentParser()
parser.add_argument("--max_len", type=int, default=384)
parser.add_argument("--global_batch", type=int, default=32)
args = parser.parse_args()
{world}
model_id = "{model}"
tokenizer = AutoTokenizer.from_pretrained(model_id)
tokenizer.pad_token = tokenizer.eos_token
model = AutoModelForCausalLM.from_pretrained(model_id, torch_dtype=torch.bfloat16)


def tokenize(batch):
{tokenize}


data = load_dataset("imdb")["train"].map(tokenize, batched=True, remove_columns=["text", "label"])
training_args = TrainingArguments(
    output_dir="out",
    per_device_train_batch_size={batch},
    bf16=True,
    learning_rate=2e-5,
    max_steps=100,
)
trainer = Trainer(model=model, args=training_args, train_dataset=data,
                  data_collator=DataCollatorForLanguageModeling(tokenizer, mlm=False))
trainer.train()
'''


def _program(model: str = "EleutherAI/gpt-neo-1.3B", tokenize: str = "    return tokenizer(batch['text'])",
             batch: str = "32", world: str = "") -> str:
    return PROGRAM.format(model=model, tokenize=tokenize, batch=batch, world=world)


def _check(tmp_path: Path, capsys, files: dict[str, str], *args: str) -> dict:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    first = [str(tmp_path / n) for n in files]
    rc = main(["check", *first, *args, "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc in (0, 1), out
    return out


def _said(out: dict, words: str) -> bool:
    return any(words in str(a) for a in [*out.get("assumptions", []), *out.get("notes", [])])


# ----------------------------------------------------------------------------------------- tokenizer length cap
@pytest.mark.parametrize("tokenize, cap", [
    ("    return tokenizer(batch['text'], truncation=True, max_length=256)", 256),
    # a local name the function assigns, as a helper module writes it
    ("    max_length = 200\n    return tokenizer(batch['text'], max_length=max_length, truncation=True)", 200),
    # the program's argparse default
    ("    return tokenizer(batch['text'], truncation='longest_first', max_length=args.max_len)", 384),
    # encode() of a tokenizer held by another name; the largest of two truncating calls counts
    ("    a = tok.encode(batch['text'], truncation=True, max_length=128)\n"
     "    return tokenizer(batch['text'], truncation=True, max_length=320)", 320),
    ("    return tokenizer.apply_chat_template(batch['messages'], tokenize=True, truncation=True, max_length=640)", 640),
])
def test_a_truncating_tokenizer_caps_the_sample_length(tmp_path, capsys, tokenize, cap):
    out = _check(tmp_path, capsys, {"train.py": _program(tokenize=tokenize)}, "--gpu", "mi250x")
    assert out["understood"]["cutoff_len"] == cap
    assert _said(out, f"truncates every sample at max_length {cap}")


@pytest.mark.parametrize("tokenize", [
    "    return tokenizer(batch['text'])",
    "    return tokenizer(batch['text'], truncation=False, max_length=256)",   # no truncation: max_length only pads
    "    return tokenizer(batch['text'], max_length=256)",                     # truncation not asked
    "    return tokenizer.apply_chat_template(batch['m'], tokenize=False, truncation=True, max_length=256)",
])
def test_no_truncation_no_cap(tmp_path, capsys, tokenize):
    out = _check(tmp_path, capsys, {"train.py": _program(tokenize=tokenize)}, "--gpu", "mi250x")
    assert out["understood"]["cutoff_len"] == 1024          # the guess, said as one
    assert not _said(out, "truncates every sample")


def test_the_cap_turns_the_verdict(tmp_path, capsys):
    # GPT-Neo 1.3B full fine-tune, batch 32 without checkpointing on a 64 GiB MI250X GCD: 1024-token samples (the
    # guess) do not fit, the 256 the tokenizer cuts to do
    long = _check(tmp_path, capsys, {"train.py": _program()}, "--gpu", "mi250x")
    short = _check(tmp_path, capsys, {"train.py": _program(
        tokenize="    return tokenizer(batch['text'], truncation=True, max_length=256)")}, "--gpu", "mi250x")
    assert long["verdict"] == "oom" and short["verdict"] == "fits"


# ------------------------------------------------------------------------------------------ batch over the ranks
LAUNCH = "#!/bin/bash\ntorchrun --nproc_per_node 8 train.py {flags}\n"


@pytest.mark.parametrize("world, batch", [
    ('world_size = int(os.environ["WORLD_SIZE"])', "args.global_batch // world_size"),
    ('world_size = int(os.environ.get("WORLD_SIZE", 1))', "args.global_batch // world_size"),
    ("import torch.distributed as dist", "args.global_batch // dist.get_world_size()"),
    ("n = torch.distributed.get_world_size()", "args.global_batch / n"),
    ("from accelerate import Accelerator\naccelerator = Accelerator()", "args.global_batch // accelerator.num_processes"),
])
def test_a_global_batch_divided_by_the_world_size(tmp_path, capsys, world, batch):
    files = {"launch.sh": LAUNCH.format(flags="--global_batch 64"),
             "train.py": _program(model="Qwen/Qwen2.5-0.5B", batch=batch, world=world)}
    out = _check(tmp_path, capsys, files, "--gpu", "mi300x")
    assert out["understood"]["gpus"] == 8
    assert out["understood"]["micro_batch"] == 8                   # 64 over 8 ranks
    assert _said(out, "divides --global_batch (64, the batch of all ranks) by the world size (8)")


def test_the_eval_batch_divided_too(tmp_path, capsys):
    program = _program(model="Qwen/Qwen2.5-0.5B", batch="args.global_batch // world_size",
                       world='world_size = int(os.environ["WORLD_SIZE"])')
    program = program.replace('    max_steps=100,\n', '    max_steps=100,\n    eval_strategy="steps",\n'
                              '    per_device_eval_batch_size=args.global_batch // world_size,\n')
    files = {"launch.sh": LAUNCH.format(flags="--global_batch 64"), "train.py": program}
    out = _check(tmp_path, capsys, files, "--gpu", "mi300x")
    assert out["understood"]["micro_batch"] == 8
    assert out["memory"]["eval"] is not None
    assert not any(f["code"] == "default-eval-batch" for f in out["findings"])
    # eval batch 8 (not the HF default 8 by chance: 16 ranks' worth would be 4)
    four = _check(tmp_path, capsys, {**files, "launch.sh": LAUNCH.format(flags="--global_batch 32")}, "--gpu", "mi300x")
    assert four["memory"]["eval"]["peak_allocated_bytes"] < out["memory"]["eval"]["peak_allocated_bytes"]


def test_the_programs_default_global_batch_over_the_ranks(tmp_path, capsys):
    files = {"launch.sh": LAUNCH.format(flags=""),
             "train.py": _program(model="Qwen/Qwen2.5-0.5B", batch="args.global_batch // world_size",
                                  world='world_size = int(os.environ["WORLD_SIZE"])')}
    out = _check(tmp_path, capsys, files, "--gpu", "mi300x")
    assert out["understood"]["micro_batch"] == 4                   # argparse default 32 over 8 ranks


def test_a_division_by_something_else_is_not_the_world(tmp_path, capsys):
    files = {"launch.sh": LAUNCH.format(flags="--global_batch 64"),
             "train.py": _program(model="Qwen/Qwen2.5-0.5B", batch="args.global_batch // accum",
                                  world="accum = 4")}
    out = _check(tmp_path, capsys, files, "--gpu", "mi300x")
    assert not _said(out, "the batch of all ranks")


# ---------------------------------------------------------------------------------------------------- GPT-Neo
# transformers' GPTNeoForCausalLM on the meta device (transformers 5.24) from each config
@pytest.mark.parametrize("ref, total", [("EleutherAI/gpt-neo-125M", 125_198_592), ("EleutherAI/gpt-neo-1.3B",
                                                                                     1_315_575_808),
                                        ("EleutherAI/gpt-neo-2.7B", 2_651_307_520)])
def test_gpt_neo_presets_count_what_transformers_builds(ref, total):
    m = load_model(ref)
    assert m.family == "gpt_neo" and m.params.total == total
    assert not m.sdpa_supported and not m.gated_mlp and m.tie_word_embeddings


def test_gpt_neo_config_of_another_size():
    # a GPTNeoConfig of its own (4 layers, hidden 512, 8 heads, MLP 1024, 1024 positions): wte + wpe + per layer
    # q/k/v (no bias) + out_proj (bias) + c_fc/c_proj (bias) + 2 LayerNorms, ln_f
    cfg = {"model_type": "gpt_neo", "hidden_size": 512, "num_layers": 4, "num_heads": 8, "intermediate_size": 1024,
           "vocab_size": 1000, "max_position_embeddings": 1024, "attention_types": [[["global", "local"], 2]]}
    H, inner = 512, 1024
    layer = 3 * H * H + H * H + H + H * inner + inner + inner * H + H + 2 * 2 * H
    assert model_from_config(cfg).params.total == 1000 * H + 1024 * H + 4 * layer + 2 * H


def test_gpt_neo_eager_attention_is_said(tmp_path, capsys):
    out = _check(tmp_path, capsys, {"train.py": _program()}, "--gpu", "mi250x")
    assert out["model"]["name"] == "gpt-neo-1.3b"
    assert _said(out, "gpt_neo has no sdpa attention in transformers (no _supports_sdpa)")


# ---------------------------------------------------------------------------------------- Unsloth's gpt-oss
UNSLOTH = '''from unsloth import FastLanguageModel
from trl import SFTConfig, SFTTrainer

model, tokenizer = FastLanguageModel.from_pretrained(
    model_name = "{model}",
    max_seq_length = 1024,
    load_in_4bit = {four},
)
model = FastLanguageModel.get_peft_model(model, r = 8, lora_alpha = 16,
    target_modules = ["q_proj", "k_proj", "v_proj", "o_proj"], use_gradient_checkpointing = "unsloth")
trainer = SFTTrainer(model = model, tokenizer = tokenizer, train_dataset = None,
    args = SFTConfig(per_device_train_batch_size = 1, gradient_accumulation_steps = 4, max_steps = 30,
                     optim = "adamw_8bit", output_dir = "outputs"))
trainer.train()
'''

PLAIN_BNB = '''import torch
from transformers import AutoModelForCausalLM, BitsAndBytesConfig
from peft import LoraConfig, get_peft_model
from trl import SFTConfig, SFTTrainer

bnb = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_compute_dtype=torch.bfloat16)
model = AutoModelForCausalLM.from_pretrained("openai/gpt-oss-20b", quantization_config=bnb, torch_dtype=torch.bfloat16)
model = get_peft_model(model, LoraConfig(r=8, lora_alpha=16, target_modules=["q_proj", "k_proj", "v_proj", "o_proj"]))
trainer = SFTTrainer(model=model, train_dataset=None,
                     args=SFTConfig(per_device_train_batch_size=1, max_seq_length=1024, gradient_checkpointing=True,
                                    bf16=True, output_dir="outputs"))
trainer.train()
'''


@pytest.mark.parametrize("model", ["unsloth/gpt-oss-20b", "openai/gpt-oss-20b"])
def test_unsloth_4bit_quantizes_gpt_oss_experts(tmp_path, capsys, model):
    uns = _check(tmp_path, capsys, {"uns.py": UNSLOTH.format(model=model, four="True")}, "--gpu", "l4")
    plain = _check(tmp_path, capsys, {"plain.py": PLAIN_BNB}, "--gpu", "l4")
    load_u = uns["memory"]["load"]["peak_allocated_bytes"]
    load_p = plain["memory"]["load"]["peak_allocated_bytes"]
    # 21B parameters, ~19.1B of them experts: 4-bit under Unsloth (~11 GiB in all), 16-bit under plain bnb (~37 GiB)
    assert load_u < 14 * 2**30 < 30 * 2**30 < load_p
    assert _said(uns, "Unsloth loads gpt_oss's routed experts as one nn.Linear per expert")
    assert not _said(plain, "Unsloth loads")
    assert uns["verdict"] == "fits" and plain["verdict"] == "oom"          # an L4's 24 GB


def test_unsloth_16bit_keeps_gpt_oss_experts_16bit(tmp_path, capsys):
    out = _check(tmp_path, capsys, {"uns.py": UNSLOTH.format(model="unsloth/gpt-oss-20b", four="False")},
                 "--gpu", "l4")
    assert not _said(out, "Unsloth loads gpt_oss's routed experts")
    assert out["memory"]["load"]["peak_allocated_bytes"] > 30 * 2**30


# --------------------------------------------------------------------------------------- Mistral-Small-2409
def test_mistral_small_2409_shape():
    m = load_model("unsloth/Mistral-Small-Instruct-2409")
    assert m.name == "mistral-small-22b" and m.vocab_size == 32768 and m.params.total == 22_247_282_688
    # LoRA r=16 on the 7 projections: the 95,420,416 trainable parameters Unsloth prints for this model
    r = 16
    lora = sum(r * (g.in_features + g.out_features) * g.count * g.layers for g in m.linears if g.kind in ("attn", "mlp"))
    assert lora == 95_420_416
