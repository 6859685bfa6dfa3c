"""Models and settings where users' programs put them (issue 26 items 1-2): a function parameter's default
(`def load_model_and_tokenizer(model_name="Qwen/Qwen2.5-72B-Instruct")`, the AMD hackathon's Unsloth script), the
model as a program's positional argument (`python finetune.py data/ THUDM/glm-4-9b-chat configs/lora.yaml`, GLM-4's
typer scripts), GLM's finetune-demo YAML read as THUDM/GLM-4 finetune_demo/finetune.py uses it, and GLM-4V-9B's
total (13.9B with its vision tower) where its name says the decoder's 9B. Cases: benchmarks/corpus/configs/
unsloth-amdhack-*, other-glm4-* (fit)."""

from __future__ import annotations

import json
import subprocess
import sys

from rocm_tune.core.check.check import check
from rocm_tune.core.formats import read_job

PROGRAM = '''from transformers import AutoModelForCausalLM, TrainingArguments, Trainer

def load_model(model_name="Qwen/Qwen2.5-7B-Instruct", dtype="bfloat16"):
    return AutoModelForCausalLM.from_pretrained(model_name, torch_dtype=dtype)

model = load_model()
args = TrainingArguments(output_dir="out", per_device_train_batch_size=2, bf16=True, gradient_checkpointing=True)
Trainer(model=model, args=args).train()
'''

GLM_YAML = '''data_config:
  train_file: train.jsonl
  val_file: dev.jsonl
  num_proc: 1
max_input_length: {n_in}
max_output_length: {n_out}
training_args:
  output_dir: ./output
  max_steps: 3000
  per_device_train_batch_size: {mb}
  per_device_eval_batch_size: 4
  predict_with_generate: true
  generation_config:
    max_new_tokens: 512
peft_config:
  peft_type: LORA
  task_type: CAUSAL_LM
  r: 8
  lora_alpha: 32
  target_modules: ["query_key_value"]
'''


def test_function_parameter_default_names_the_model(tmp_path):
    p = tmp_path / "train.py"
    p.write_text(PROGRAM)
    rep = check([str(p)], gpu_id="mi300x")
    assert rep.model.name == "qwen2.5-7b"
    # a later module-level assignment of the same name still wins over the parameter's default
    p.write_text("model_name = 'meta-llama/Llama-3.1-8B'\n" + PROGRAM.replace("model = load_model()",
                                                                             "model = load_model(model_name)"))
    assert check([str(p)], gpu_id="mi300x").model.name == "llama-3.1-8b"


def _glm(tmp_path, cmd: str, n_in=512, n_out=512, mb=1):
    (tmp_path / "configs").mkdir(exist_ok=True)
    (tmp_path / "configs" / "lora.yaml").write_text(GLM_YAML.format(n_in=n_in, n_out=n_out, mb=mb))
    (tmp_path / "run.sh").write_text(cmd + "\n")
    return [str(tmp_path / "configs" / "lora.yaml"), str(tmp_path / "run.sh")]


def test_glm_finetune_demo_yaml_and_positional_model(tmp_path):
    files = _glm(tmp_path, "torchrun --standalone --nnodes=1 --nproc_per_node=4 finetune.py data/AdvertiseGen/ "
                           "THUDM/glm-4-9b-chat configs/lora.yaml", n_in=4096, n_out=2048, mb=2)
    job = read_job(files)
    got = {k: job.get(k) for k in ("model_name_or_path", "cutoff_len", "per_device_train_batch_size",
                                   "finetuning_type", "lora_rank", "lora_target", "load_dtype", "max_new_tokens")}
    assert got == {"model_name_or_path": "THUDM/glm-4-9b-chat", "cutoff_len": 4096 + 2048 + 1,
                   "per_device_train_batch_size": "2", "finetuning_type": "lora", "lora_rank": 8,
                   "lora_target": "query_key_value", "load_dtype": "bf16", "max_new_tokens": 512}
    assert job.get("disable_gradient_checkpointing") is False       # finetune.py always enables it
    assert job.gpus.value == 4                                      # the command's torchrun, not the YAML
    assert any("positional argument 'THUDM/glm-4-9b-chat'" in n for n in job.notes)


def test_positional_words_that_are_not_the_model(tmp_path):
    for cmd in ("python train.py outputs/llama-7b-run data/alpaca_7b.json",     # an output folder, a data file
                "python train.py data/my_vqa/ configs/lora.yaml"):
        (tmp_path / "run.sh").write_text(cmd + " --per_device_train_batch_size 1\n")
        assert read_job([str(tmp_path / "run.sh")]).get("model_name_or_path") is None, cmd


def test_glm4v_counts_its_vision_tower(tmp_path):
    files = _glm(tmp_path, "python finetune_vision.py data/my_vqa/ THUDM/glm-4v-9b configs/lora.yaml")
    rep = check(files, gpu_id="rtx4090")
    # 13.9B (model card), not the decoder's 9B: the glm-4v-9b preset counts the EVA2-CLIP-E tower beside it
    assert 13e9 < rep.model.params.total + rep.model.vision.params < 15e9
    assert rep.verdict == "oom"                           # 27.8 GB of bf16 weights on a 24 GB card
    out = subprocess.run([sys.executable, "-m", "rocm_tune", "check", *files, "--gpu", "rtx-a6000", "--json"],
                         capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode in (0, 1), out.stderr
    d = json.loads(out.stdout)
    # the program cuts the ids at 1025; GLM-4V inserts the image's 1600 embeddings inside forward (c-tower)
    assert d["understood"]["cutoff_len"] == 1025 + 1600 and d["understood"]["method"] == "lora", d["understood"]


def test_glm_yaml_length_that_is_no_number_is_a_one_line_error(tmp_path):
    files = _glm(tmp_path, "python finetune.py data/ THUDM/glm-4-9b-chat configs/lora.yaml")
    yaml = tmp_path / "configs" / "lora.yaml"
    for bad in ("-5000", "many", "true"):
        yaml.write_text(GLM_YAML.format(n_in=bad, n_out=512, mb=1))
        out = subprocess.run([sys.executable, "-m", "rocm_tune", "check", *files, "--gpu", "rtx4090"],
                             capture_output=True, text=True, cwd=tmp_path)
        assert out.returncode == 2, out.stdout
        lines = out.stderr.strip().splitlines()
        assert len(lines) == 1 and "max_input_length" in lines[0] and bad.lower() in lines[0].lower(), lines
