"""`check` on notebooks as users save them (issue 26, c-nb): the model a notebook trains is the one of its training
cell, not a reload after `trainer.train()`; configs a Python cell writes (yaml.dump / f.write / json.dump /
OmegaConf.save / Path.write_text) are read by the runner's own reader; hub names with "-" for a size's point;
bitsandbytes' fp16 default; CodeGemma's Gemma shapes; GRPO's logits_to_keep. The notebooks are written from the
shapes of the HF cookbook, the Gemma cookbook and the Axolotl / LLaMA-Factory Colab notebooks, not the corpus'."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from rocm_tune.cli import main
from rocm_tune.core.formats import nb_cells, notebook_code
from rocm_tune.core.memory.estimate import TrainConfig, estimate
from rocm_tune.core.model.names import parse_name
from rocm_tune.core.model.architecture import load_model
from rocm_tune.core.errors import UserError


@pytest.fixture
def offline(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def _nb(*cells: str) -> str:
    return json.dumps({"cells": [{"cell_type": "code", "source": c.splitlines(keepends=True), "outputs": [],
                                  "metadata": {}, "execution_count": None} for c in cells],
                       "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def _check(capsys, tmp_path, files: dict[str, str], *args: str) -> dict:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    rc = main(["check", *[str(tmp_path / n) for n in files], *args, "--json", "--no-app"])
    out = capsys.readouterr().out
    assert rc in (0, 1), out
    return json.loads(out)


def _said(d) -> str:
    return " ".join(d.get("notes", []) + d.get("assumptions", []))


# --- the model trained: the cell of trainer.train(), not the inference reload after it ---------------------------

GRPO_CELLS = (
    "!pip install -U -q trl peft\n",
    'model_id = "Qwen/Qwen2-1.5B-Instruct"\n'
    "model = AutoModelForCausalLM.from_pretrained(model_id, torch_dtype=torch.bfloat16, device_map='auto')\n",
    "from peft import LoraConfig, get_peft_model\n"
    "model = get_peft_model(model, LoraConfig(r=16, lora_alpha=32, target_modules=['q_proj', 'v_proj']))\n",
    "training_args = GRPOConfig(output_dir='Qwen2-1-5B-GRPO-test', per_device_train_batch_size=4, bf16=True,\n"
    "    gradient_accumulation_steps=4, num_generations=4, max_prompt_length=256, max_completion_length=256)\n",
    "trainer = GRPOTrainer(model=model, reward_funcs=[reward], args=training_args, train_dataset=ds)\n",
    "trainer.train()\n",
    "trainer.push_to_hub(dataset_name='x')\n",
    # the cookbook's last part: the pushed result reloaded for inference, under the same name
    'model_id = "someuser/Qwen2-1-5B-GRPO-test"\n'
    "trained_model = AutoModelForCausalLM.from_pretrained(model_id, torch_dtype='auto', device_map='auto')\n",
)


def test_a_reload_after_training_is_not_the_model_trained(offline, tmp_path, capsys):
    d = _check(capsys, tmp_path, {"grpo.ipynb": _nb(*GRPO_CELLS)}, "--gpu", "a100-40gb")
    assert d["model"]["identified"].startswith("Qwen/Qwen2-1.5B-Instruct"), d["model"]
    assert d["understood"]["lora_rank"] == 16 and d["understood"]["micro_batch"] == 4
    assert d["verdict"] == "fits"


def test_the_notebook_program_ends_with_its_training_cell():
    code = notebook_code(_nb(*GRPO_CELLS)) or ""
    assert "trainer.train()" in code and "someuser/" not in code
    # `model.train()` (a module's train mode) and a notebook without a Trainer keep every cell
    loop = _nb("model = AutoModelForCausalLM.from_pretrained('a/b-7b')\n", "model.train()\n", "x = 'c/d-1b'\n")
    assert "c/d-1b" in (notebook_code(loop) or "")
    assert nb_cells.training_cell(["t = SFTTrainer(model=m)\n", "stats = t.train()\n", "y = 1\n"]) == 1


# --- configs a notebook's Python writes ---------------------------------------------------------------------------

AXO_CELL = '''import yaml
yaml_string = """
base_model: google/gemma-2b
load_in_4bit: true
adapter: qlora
lora_r: 8
lora_alpha: 16
lora_target_linear: true
sequence_len: 1024
micro_batch_size: 1
gradient_accumulation_steps: 4
gradient_checkpointing: true
optimizer: adamw_bnb_8bit
bf16: false
fp16: true
datasets:
  - path: mhenrichsen/alpaca_2k_test
    type: alpaca
"""
yaml_dict = yaml.safe_load(yaml_string)
file_path = "gemma_cfg.yml"
with open(file_path, "w") as file:
    yaml.dump(yaml_dict, file)
'''


def test_axolotl_yaml_written_by_yaml_dump_is_read(offline, tmp_path, capsys):
    nb = _nb("!pip install axolotl\n", AXO_CELL, "!accelerate launch -m axolotl.cli.train /content/gemma_cfg.yml\n")
    d = _check(capsys, tmp_path, {"axo.ipynb": nb}, "--gpu", "t4")
    assert d["runner"] == "axolotl"
    assert d["model"]["name"] == "gemma-2b"
    u = d["understood"]
    assert (u["method"], u["lora_rank"], u["cutoff_len"], u["micro_batch"]) == ("qlora", 8, 1024, 1)
    assert d["verdict"] == "fits"


LF_CELL = '''args = dict(
  stage="sft",
  do_train=True,
  model_name_or_path="Qwen/Qwen2.5-7B-Instruct",
  dataset="identity,alpaca_en_demo",
  template="qwen",
  finetuning_type="lora",
  lora_target="all",
  per_device_train_batch_size=2,
  gradient_accumulation_steps=4,
  cutoff_len=2048,
  bf16=True,
  output_dir="saves",
)
json.dump(args, open("train_qwen.json", "w", encoding="utf-8"), indent=2)
'''


def test_llamafactory_args_written_by_json_dump_are_read(offline, tmp_path, capsys):
    nb = _nb("import json\n", LF_CELL, "!llamafactory-cli train train_qwen.json\n")
    d = _check(capsys, tmp_path, {"lf.ipynb": nb}, "--gpu", "a100-80gb")
    assert d["runner"] == "llamafactory"
    assert d["model"]["name"] == "qwen2.5-7b"
    u = d["understood"]
    assert (u["method"], u["cutoff_len"], u["micro_batch"]) == ("lora", 2048, 2)
    assert d["verdict"] == "fits"


def test_the_ways_a_cell_writes_a_file():
    code = '''
cfg_text = """
a: 1
"""
with open("a.yaml", "w") as f:
    f.write(cfg_text)
OmegaConf.save(OmegaConf.create({"model": "m/n-7b"}), "b.yaml")
Path("c.yaml").write_text("c: 3\\n")
with open("d.json", "w") as fp:
    json.dump({"zero_optimization": {"stage": 2}}, fp)
with open("e.yaml", "a") as f:
    f.write("appended: 1\\n")
yaml.safe_dump({"e": 5}, open("r.yaml"))
'''
    got = nb_cells.written_files(code)
    assert got["a.yaml"].strip() == "a: 1"
    assert "model: m/n-7b" in got["b.yaml"]
    assert got["c.yaml"] == "c: 3\n"
    assert json.loads(got["d.json"]) == {"zero_optimization": {"stage": 2}}
    assert "e.yaml" not in got and "r.yaml" not in got          # append, and a file opened for reading
    assert nb_cells.written_files("def broken(:\n") == {}
    assert nb_cells.written_files("json.dump({'a': {1, 2}}, open('s.json', 'w'))\n") == {}     # a set: no JSON


# --- sizes with "-" for the point --------------------------------------------------------------------------------

@pytest.mark.parametrize("ref, series, size", [
    ("sergiopaniego/Qwen2-0-5B-GRPO-vllm-trl", "qwen2", 0.5),
    ("me/Qwen2-1-5B-Instruct-sft", "qwen2", 1.5),
    ("me/Qwen2.5-0-5B-dpo", "qwen2.5", 0.5),
    ("me/Qwen3-0-6B-grpo", "qwen3", 0.6),
    ("me/SmolLM2-1-7B-Instruct-ft", "smollm2", 1.7),
    ("Qwen/Qwen2___5-0___5B-Instruct", "qwen2.5", 0.5),           # ModelScope's "___"
    ("Qwen2.5-1_5B", "qwen2.5", 1.5),
    # a version, then the size: a bare word or a number before it keeps its first number a version
    ("meta-llama/Llama-3-8B", "llama3", 8.0),
    ("google/gemma-2-9b", "gemma2", 9.0),
    ("me/Llama-3-2-1B-ft", "llama32", 1.0),
    ("me/llama-2-7b-chat", "llama2", 7.0),
])
def test_hyphen_for_the_point_of_a_size(ref, series, size):
    p = parse_name(ref)
    assert (p.series, p.size_b) == (series, size)


# --- bitsandbytes' fp16 default; CodeGemma --------------------------------------------------------------------------

CODEGEMMA_CELLS = (
    'model_id = "google/codegemma-7b-it"\n',
    "bnb_config = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type='nf4',\n"
    "                                bnb_4bit_compute_dtype=torch.bfloat16)\n"
    "model = AutoModelForCausalLM.from_pretrained(model_id, quantization_config=bnb_config, device_map={'': 0})\n",
    "lora_config = LoraConfig(r=8, task_type='CAUSAL_LM', target_modules=['q_proj', 'v_proj'])\n",
    "trainer = SFTTrainer(model=model, train_dataset=d, peft_config=lora_config,\n"
    "    args=transformers.TrainingArguments(per_device_train_batch_size=1, gradient_accumulation_steps=4,\n"
    "        max_steps=50, fp16=True, output_dir='outputs', optim='paged_adamw_8bit',\n"
    "        gradient_checkpointing=True), max_seq_length=512)\n",
    "trainer.train()\n",
)


def test_a_4bit_load_without_dtype_is_fp16_and_codegemma_is_gemma(offline, tmp_path, capsys):
    d = _check(capsys, tmp_path, {"codegemma.ipynb": _nb(*CODEGEMMA_CELLS)}, "--gpu", "t4")
    assert d["model"]["name"] == "gemma-7b"
    assert "transformers sets float16 for bitsandbytes" in _said(d)
    assert d["understood"]["method"] == "qlora" and d["verdict"] == "fits"


def test_an_unquantized_load_without_dtype_stays_fp32(offline, tmp_path, capsys):
    cells = ("model = AutoModelForCausalLM.from_pretrained('Qwen/Qwen2.5-0.5B')\n",
             "trainer = Trainer(model=model, args=TrainingArguments(output_dir='o', per_device_train_batch_size=1))\n",
             "trainer.train()\n")
    d = _check(capsys, tmp_path, {"plain.ipynb": _nb(*cells)}, "--gpu", "t4")
    assert "loads the weights in fp32" in _said(d) and "float16 for bitsandbytes" not in _said(d)


# --- GRPO's logits over the completion only ------------------------------------------------------------------------

def test_grpo_counts_the_completions_logits_only(offline, tmp_path, capsys):
    d = _check(capsys, tmp_path, {"grpo.ipynb": _nb(*GRPO_CELLS)}, "--gpu", "a100-40gb")
    assert d["understood"]["logit_share"] == pytest.approx(257 / 512)
    assert "logits_to_keep" in _said(d)


def test_a_smaller_logit_share_lowers_only_the_loss_terms():
    model = load_model("qwen2.5-7b")
    cfg = TrainConfig(method="lora", cutoff_len=4096, micro_batch=2, precision="bf16")
    full, part = estimate(model, cfg), estimate(model, replace(cfg, logit_share=0.25))
    assert part.per_gpu.peak_allocated_bytes < full.per_gpu.peak_allocated_bytes
    assert part.per_gpu.weights_bytes == full.per_gpu.weights_bytes
    for bad in (0, 1.5, True):
        with pytest.raises(UserError):
            replace(cfg, logit_share=bad).validate()


def _grpo_job(runner: str, native: str):
    from rocm_tune.core.runners.common import Job, Setting

    job = Job()
    job.runner = runner
    for k, v in (("stage", "grpo"), ("max_prompt_length", 1025), ("max_completion_length", 1023)):
        job.settings[k] = Setting(k, v, "f", 1, native if k == "stage" else k, "flag")
    return job


def test_only_trls_and_swifts_grpo_keep_the_completions_logits():
    from rocm_tune.core.runners import rl

    assert rl.logit_share(_grpo_job("hf", "GRPOConfig")) == {"logit_share": 0.5}
    assert rl.logit_share(_grpo_job("ms-swift", "rlhf_type")) == {"logit_share": 0.5}
    # verl's and OpenRLHF's own actors take every position's logits
    assert rl.logit_share(_grpo_job("hf", "algorithm.adv_estimator")) == {}
    assert rl.logit_share(_grpo_job("hf", "advantage_estimator")) == {}


# --- the model the Trainer gets ------------------------------------------------------------------------------------

def _trained(code: str):
    import ast

    from rocm_tune.core.runners import trained_model

    got = trained_model.trained_model(ast.parse(code), {})
    return got if got is None or isinstance(got, str) else ast.unparse(got)


def test_the_trainers_model_is_followed_back_to_its_load():
    judge = "judge = AutoModelForCausalLM.from_pretrained('meta-llama/Llama-3.1-70B-Instruct')\n"
    assert _trained(judge + "t = SFTTrainer(model='Qwen/Qwen2.5-1.5B', args=a)\n") == "Qwen/Qwen2.5-1.5B"
    peft = ("base = AutoModelForCausalLM.from_pretrained('mistralai/Mistral-7B-v0.1', load_in_4bit=True)\n"
            "base = prepare_model_for_kbit_training(base)\n"
            "model = get_peft_model(base, LoraConfig(r=8)).to('cuda')\n")
    assert _trained(judge + peft + "trainer = Trainer(model=model, args=a)\n") == ("AutoModelForCausalLM.from_pretrained("
                                                                          "'mistralai/Mistral-7B-v0.1', load_in_4bit=True)")
    unsloth = ("model, tokenizer = FastLanguageModel.from_pretrained(model_name='unsloth/Llama-3.2-3B')\n"
               "model = FastLanguageModel.get_peft_model(model, r=16)\n")
    assert "unsloth/Llama-3.2-3B" in _trained(unsloth + "trainer = SFTTrainer(model, tokenizer=tokenizer)\n")
    adapter = ("base = AutoModelForCausalLM.from_pretrained('google/gemma-2-9b')\n"
               "model = PeftModel.from_pretrained(base, 'me/gemma-adapter', is_trainable=True)\n")
    assert _trained(adapter + "trainer = DPOTrainer(model=model, args=a)\n") == "AutoModelForCausalLM.from_pretrained('google/gemma-2-9b')"
    # the value a name has when the Trainer is built, not a later reload under the same name
    later = ("model = AutoModelForCausalLM.from_pretrained('Qwen/Qwen2.5-0.5B')\n"
             "trainer = GRPOTrainer(model=model, args=a)\ntrainer.train()\n"
             "model = AutoModelForCausalLM.from_pretrained('me/Qwen2.5-0-5B-GRPO')\n")
    assert _trained(later) == "AutoModelForCausalLM.from_pretrained('Qwen/Qwen2.5-0.5B')"
    assert _trained("model = build()\ntrainer = Trainer(model=model)\n") is None
    assert _trained("x = AutoModelForCausalLM.from_pretrained('a/b-7b')\n") is None


def test_a_judge_loaded_before_the_trainer_is_not_the_model(offline, tmp_path, capsys):
    cells = ("judge = AutoModelForCausalLM.from_pretrained('meta-llama/Llama-3.1-70B-Instruct', device_map='auto')\n",
             "trainer = SFTTrainer(model='Qwen/Qwen2.5-1.5B-Instruct', train_dataset=ds,\n"
             "    args=SFTConfig(output_dir='o', per_device_train_batch_size=2, max_length=1024, bf16=True))\n",
             "trainer.train()\n")
    d = _check(capsys, tmp_path, {"judge.ipynb": _nb(*cells)}, "--gpu", "a100-80gb")
    assert d["model"]["name"] == "qwen2.5-1.5b" and d["verdict"] == "fits"
    assert "load models it does not train" in _said(d)
