"""c-new15 (issue 26): what this session's independent samples showed check misses, as families.

* DeBERTa-v2/v3 (transformers models/deberta_v2/modeling_deberta_v2.py): its own family (query_proj/key_proj/
  value_proj with bias, relative position embeddings, no SDPA) and microsoft/deberta-v3-{xsmall,small,base,large}
  presets from the published config.json, checked against the model cards' backbone + embedding counts.
* MiniCPM-2B (openbmb/MiniCPM-2B-sft-bf16 config.json, remote code model_type minicpm = Llama's weights) under its
  Hugging Face ids and the ModelScope ids OpenBMB/miniCPM-bf16 / -bf32.
* A program with its own loop (PEFT's README loop): its from_pretrained / BitsAndBytesConfig / LoraConfig calls are
  read; a LoraConfig no call applies, or one applied under a flag's `if`, is no LoRA.
* A program whose settings live in its own module (`from config import Config`) and which builds its model in
  another (model.py): both are read with it.
* The program's own cut of a sample's ids (`input_ids = input_ids[:MAX_LENGTH]`) caps the sequence length.
The configs below are written from those sources, not taken from the corpus."""

from __future__ import annotations

import json

import pytest

from rocm_tune.cli import main
from rocm_tune.core import formats
from rocm_tune.core.model.architecture import by_name, model_from_config


def _check(paths: list[str], capsys, gpu: str = "rtx3090") -> dict:
    rc = main(["check", *paths, "--gpu", gpu, "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc in (0, 1), out
    return out


def _settings(paths: list[str]) -> dict:
    return {k: s.value for k, s in formats.read_job(paths).settings.items()}


# ------------------------------------------------------------------------------------------------ DeBERTa-v2/v3
@pytest.mark.parametrize("name,backbone_m,embed_m", [
    # the model cards: "xsmall: 12 layers, hidden 384, 22M backbone parameters, 48M in the embedding layer" ...
    ("microsoft/deberta-v3-xsmall", 22, 48), ("microsoft/deberta-v3-small", 44, 98),
    ("microsoft/deberta-v3-base", 86, 98), ("microsoft/deberta-v3-large", 304, 131),
])
def test_deberta_v3_presets_match_the_model_cards(name, backbone_m, embed_m):
    got = by_name(name)
    assert got is not None and got.spec.family == "deberta-v2"
    p = got.spec.params
    assert abs(p.embed / 1e6 - embed_m) < 1.5
    assert abs((p.total - p.embed) / 1e6 - backbone_m) < 0.05 * backbone_m + 2
    assert not got.spec.sdpa_supported          # DebertaV2PreTrainedModel has no _supports_sdpa


def test_deberta_v2_config_terms():
    # microsoft/deberta-v2-xlarge's config.json: 24 x 1536, conv_kernel_size 3, relative attention, 900M on its card
    cfg = {"model_type": "deberta-v2", "hidden_size": 1536, "num_hidden_layers": 24, "num_attention_heads": 24,
           "intermediate_size": 6144, "vocab_size": 128100, "max_position_embeddings": 512, "relative_attention": True,
           "position_buckets": 256, "norm_rel_ebd": "layer_norm", "share_att_key": True, "pos_att_type": "p2c|c2p",
           "conv_kernel_size": 3, "conv_act": "gelu", "position_biased_input": False, "type_vocab_size": 0,
           "max_relative_positions": -1}
    xl = model_from_config(cfg, name="xl").params.total
    assert 0.85e9 < xl < 0.92e9
    no_conv = model_from_config({**cfg, "conv_kernel_size": 0}, name="x").params.total
    assert xl - no_conv == 1536 * 1536 * 3 + 1536 + 2 * 1536
    # DebertaV2Config's defaults: absolute positions on (position_biased_input True), separate position projections
    biased = model_from_config({**cfg, "position_biased_input": True}, name="b").params.total
    assert biased - xl == 512 * 1536
    unshared = model_from_config({**cfg, "share_att_key": False}, name="u").params.total
    assert unshared - xl == 24 * 2 * (1536 * 1536 + 1536)


# ------------------------------------------------------------------------------------------------ MiniCPM-2B
@pytest.mark.parametrize("ref", ["openbmb/MiniCPM-2B-sft-bf16", "openbmb/MiniCPM-2B-dpo-fp32", "OpenBMB/miniCPM-bf16",
                                 "/root/models/OpenBMB/miniCPM-bf32", "./MiniCPM-2B-sft-fp32"])
def test_minicpm_2b_ids(ref):
    got = by_name(ref)
    assert got is not None and got.spec.name == "minicpm-2b"
    # 2.44B non-embedding (the card's 2.4B) + 122753 x 2304 tied embeddings
    assert abs(got.spec.params.total / 1e9 - 2.72) < 0.01
    assert got.spec.family == "llama"


def test_minicpm_other_sizes_are_not_the_2b():
    for ref in ("openbmb/MiniCPM-1B-sft-bf16", "openbmb/MiniCPM3-4B"):
        got = by_name(ref)
        assert got is None or got.spec.name != "minicpm-2b"


# ------------------------------------------------------------------------------------------------ own-loop program
LOOP = '''import torch
from peft import LoraConfig, TaskType, get_peft_model
from transformers import AutoModelForSequenceClassification, BitsAndBytesConfig

model_name_or_path = "microsoft/deberta-v3-base"
batch_size = 16
max_length = 512

bnb = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_compute_dtype=torch.float16)
model = AutoModelForSequenceClassification.from_pretrained(model_name_or_path, num_labels=2,
                                                           quantization_config=bnb, torch_dtype=torch.float16)
peft_config = LoraConfig(task_type=TaskType.SEQ_CLS, r=16, lora_alpha=32)
{apply}
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
for batch in loader:
    loss = model(**batch).loss
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
'''


def test_own_loop_reads_lora_quantization_and_head(tmp_path):
    p = tmp_path / "train.py"
    p.write_text(LOOP.replace("{apply}", "model = get_peft_model(model, peft_config)"))
    s = _settings([str(p)])
    assert s["finetuning_type"] == "lora" and s["quantization_bit"] == 4 and s["lora_rank"] == 16
    assert s["model_name_or_path"] == "microsoft/deberta-v3-base" and s["per_device_train_batch_size"] == 16
    assert s["__head__"] == "score"


@pytest.mark.parametrize("apply", ["# model = get_peft_model(model, peft_config)",
                                   "if args.use_lora:\n    model = get_peft_model(model, peft_config)"])
def test_own_loop_lora_not_applied_is_full(tmp_path, apply):
    p = tmp_path / "train.py"
    p.write_text(LOOP.replace("{apply}", apply))
    s = _settings([str(p)])
    assert s["finetuning_type"] == "full"
    assert "lora_rank" not in s


def test_own_loop_under_main_guard_is_applied(tmp_path):
    body = LOOP.replace("{apply}", "model = get_peft_model(model, peft_config)")
    head, loop = body.split("model = AutoModel", 1)
    p = tmp_path / "train.py"
    p.write_text(head + 'if "__main__" == __name__:\n' + "".join(
        "    " + ln + "\n" for ln in ("model = AutoModel" + loop).splitlines()))
    assert _settings([str(p)])["finetuning_type"] == "lora"


def test_own_loop_deberta_fits_a_12gb_card(tmp_path, capsys):
    p = tmp_path / "train.py"
    p.write_text(LOOP.replace("{apply}", "model = get_peft_model(model, peft_config)"))
    out = _check([str(p)], capsys, gpu="rtx3060")
    assert out["verdict"] == "fits"
    assert out["model"]["name"] == "deberta-v3-base" and out["model"]["family"] == "deberta-v2"


# ------------------------------------------------------------------------------------------------ own modules
CONFIG_PY = '''class Config:
    epochs = 3
    batch_size = 4
    sequence_len = 256
    lora_r = 16
    lora_alpha = 32
    lora_target_modules = ["q_proj", "k_proj", "v_proj", "o_proj"]
    base_model = "Qwen/Qwen2.5-1.5B"
'''
MODEL_PY = '''import torch
from torch import nn
from transformers import AutoModelForCausalLM
from peft import LoraConfig, get_peft_model
from config import Config


class LoraModel(nn.Module):
    def __init__(self):
        super().__init__()
        model = AutoModelForCausalLM.from_pretrained(Config.base_model, torch_dtype=torch.bfloat16)
        self.peft_model = get_peft_model(model, LoraConfig(r=Config.lora_r, target_modules=Config.lora_target_modules))
'''
TRAIN_PY = '''import torch
from accelerate import Accelerator
from config import Config
from model import LoraModel

accelerator = Accelerator()
model = LoraModel()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
model, optimizer = accelerator.prepare(model, optimizer)
for step, batch in enumerate(loader):
    loss = model(**batch)
    accelerator.backward(loss)
    optimizer.step()
torch.save(model.state_dict(), "out.pt")
'''


def test_program_with_its_own_config_and_model_modules(tmp_path, capsys):
    for name, text in (("config.py", CONFIG_PY), ("model.py", MODEL_PY), ("train.py", TRAIN_PY)):
        (tmp_path / name).write_text(text)
    paths = [str(tmp_path / n) for n in ("train.py", "config.py", "model.py")]
    s = _settings(paths)
    assert s["model_name_or_path"] == "Qwen/Qwen2.5-1.5B"
    assert s["per_device_train_batch_size"] == 4 and s["cutoff_len"] == 256
    assert s["finetuning_type"] == "lora" and s["lora_target"] == "q_proj,k_proj,v_proj,o_proj"
    assert "save_strategy" not in s                    # train.py saves: the config module's "no save" is not its
    out = _check(paths, capsys, gpu="rtx3090")
    assert out["verdict"] == "fits"


def test_own_module_not_imported_is_not_read(tmp_path):
    (tmp_path / "config.py").write_text(CONFIG_PY)
    (tmp_path / "train.py").write_text(TRAIN_PY.replace("from config import Config\n", "").replace(
        "from model import LoraModel\n", ""))
    assert "model_name_or_path" not in _settings([str(tmp_path / "train.py"), str(tmp_path / "config.py")])


# ------------------------------------------------------------------------------------------------ slice cap
SFT = '''from transformers import AutoModelForCausalLM, AutoTokenizer, TrainingArguments, Trainer
tokenizer = AutoTokenizer.from_pretrained("Qwen/Qwen2.5-0.5B-Instruct")
def process_func(example):
    {local}
    instruction = tokenizer(example["instruction"])
    response = tokenizer(example["output"])
    input_ids = instruction["input_ids"] + response["input_ids"]
    if len(input_ids) > MAX_LENGTH:
        input_ids = input_ids{cut}
    return {{"input_ids": input_ids}}
model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B-Instruct")
args = TrainingArguments(output_dir="out", per_device_train_batch_size=4, gradient_checkpointing=True)
Trainer(model=model, args=args).train()
'''


@pytest.mark.parametrize("local,cut,want", [
    ("MAX_LENGTH = 384", "[:MAX_LENGTH]", 384),     # self-llm's process_func
    ("MAX_LENGTH = 2048", "[-MAX_LENGTH:]", 2048),  # keep the last tokens
    ("MAX_LENGTH = 384", "[:512]", 512),
])
def test_slice_caps_the_length(tmp_path, local, cut, want):
    p = tmp_path / "train.py"
    p.write_text(SFT.format(local=local, cut=cut))
    assert _settings([str(p)])["__tokenizer_max_length__"] == want


def test_slice_of_other_lists_is_no_cap(tmp_path):
    p = tmp_path / "train.py"
    p.write_text(SFT.format(local="MAX_LENGTH = 384", cut="[:MAX_LENGTH]").replace(
        "        input_ids = input_ids[:MAX_LENGTH]", "        rows = rows[:MAX_LENGTH]"))
    assert "__tokenizer_max_length__" not in _settings([str(p)])


def test_truncating_tokenizer_wins_over_slice(tmp_path):
    p = tmp_path / "train.py"
    p.write_text(SFT.format(local="MAX_LENGTH = 4096", cut="[:MAX_LENGTH]").replace(
        'tokenizer(example["instruction"])', 'tokenizer(example["instruction"], truncation=True, max_length=300)'))
    assert _settings([str(p)])["__tokenizer_max_length__"] == 300



def test_deberta_lora_targets_by_its_own_names(tmp_path, capsys):
    # PEFT's TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING["deberta-v2"] = ["query_proj", "value_proj"]
    p = tmp_path / "train.py"
    p.write_text(LOOP.replace("{apply}", "model = get_peft_model(model, peft_config)").replace(
        "r=16, lora_alpha=32)", 'r=16, lora_alpha=32, target_modules=["query_proj", "value_proj"])'))
    out = _check([str(p)], capsys, gpu="rtx3060")
    assert out["verdict"] == "fits"
    assert out["understood"]["method"] == "qlora"
    assert out["understood"]["lora_targets"] == ["query_proj", "value_proj"]


def test_deberta_peft_default_targets(tmp_path, capsys):
    # LoraConfig without target_modules: PEFT's default for deberta-v2, query_proj and value_proj
    p = tmp_path / "train.py"
    p.write_text(LOOP.replace("{apply}", "model = get_peft_model(model, peft_config)"))
    assert _check([str(p)], capsys, gpu="rtx3060")["understood"]["lora_targets"] == ["query_proj", "value_proj"]


# ------------------------------------------------------------------------------------------------ notebook shell lines
NOTEBOOK = '''# %% [cell 1]
from transformers import AutoModelForCausalLM, TrainingArguments, Trainer
# %% [cell 2]
huggingface-cli download --repo-type dataset openai/gsm8k --local-dir data/gsm8k
{more}
# %% [cell 3]
model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B-Instruct")
args = TrainingArguments(output_dir="out", per_device_train_batch_size=2, max_steps=10)
Trainer(model=model, args=args).train()
'''


@pytest.mark.parametrize("more", ["", "pip install -U trl peft\n!nvidia-smi",
                                  "modelscope download --model Qwen/Qwen2.5-0.5B-Instruct"])
def test_notebook_shell_cell_without_bang_is_no_python(tmp_path, more):
    p = tmp_path / "train.py"
    p.write_text(NOTEBOOK.format(more=more))
    s = _settings([str(p)])
    assert s["model_name_or_path"] == "Qwen/Qwen2.5-0.5B-Instruct" and int(s["per_device_train_batch_size"]) == 2


def test_a_syntax_error_of_the_program_is_not_hidden(tmp_path):
    # a broken Python line (no command-line program's name) keeps the file unparsed: nothing is read from it
    p = tmp_path / "train.py"
    p.write_text(NOTEBOOK.format(more="model = = 3"))
    assert "model_name_or_path" not in _settings([str(p)])
