"""`check` on the gaps an independent sample showed (helper c-g4): GPT programs that build their model from its shape
(nanoGPT config files and their --key=value overrides, a program's own table of shapes named by --model, nanochat's
base_train --depth), a model name passed into from_pretrained through a constructor or a function, device_map under a
launcher that starts a rank per GPU, PEFT's prepare_model_for_int8_training, and JAX programs said to be out of scope.
Every config here is written for the test from the tools' source (karpathy/nanoGPT train.py + configurator.py,
karpathy/nanochat scripts/base_train.py, peft utils/other.py, alpaca-lora finetune.py), none is a corpus case."""

from __future__ import annotations

from pathlib import Path

import pytest

from rocm_tune.cli import main
from rocm_tune.core.check.check import check
from rocm_tune.core.runners import gpt_programs


def _write(tmp_path: Path, name: str, text: str) -> str:
    p = tmp_path / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)
    return str(p)


# nanoGPT's config/train_shakespeare_char.py shape, with imports and a computed value as its finetune configs have
CHAR_CFG = """# train a miniature character-level model
import time
out_dir = 'out-shakespeare-char'
eval_interval = 250
wandb_run_name = 'mini-gpt' + str(time.time())
dataset = 'shakespeare_char'
gradient_accumulation_steps = 1
batch_size = 64
block_size = 256
n_layer = 6
n_head = 6
n_embd = 384
dropout = 0.2
"""


def test_nanogpt_config_with_command_overrides(tmp_path):
    cfg = _write(tmp_path, "config/train_char.py", CHAR_CFG)
    run = _write(tmp_path, "run.sh", "python train.py config/train_char.py --batch_size=32 --n_layer=8\n")
    rep = check([run, cfg], gpu_id="mi300x")
    assert rep.verdict == "fits"
    assert rep.model.num_layers == 8 and rep.model.hidden_size == 384 and rep.model.vocab_size == 50304
    assert rep.cfg.micro_batch == 32 and rep.cfg.cutoff_len == 256
    assert any("nanoGPT config file" in n for n in rep.job.notes)


def test_nanogpt_config_init_from_gpt2_xl_and_defaults(tmp_path):
    # config/finetune_shakespeare.py: init_from a GPT-2 checkpoint; block_size and batch from train.py's defaults
    cfg = _write(tmp_path, "ft.py", "out_dir = 'out-ft'\neval_interval = 5\ninit_from = 'gpt2-xl'\n"
                                    "always_save_checkpoint = False\n")
    rep = check([cfg], gpu_id="mi300x")
    assert (rep.model.num_layers, rep.model.hidden_size, rep.model.num_attention_heads) == (48, 1600, 25)
    assert rep.model.vocab_size == 50257
    assert rep.cfg.micro_batch == 12 and rep.cfg.cutoff_len == 1024


def test_nanogpt_config_detection_is_narrow():
    assert gpt_programs.is_nanogpt_config(CHAR_CFG)
    assert not gpt_programs.is_nanogpt_config("import torch\nn_layer = 4\ndef f():\n    return 1\n")
    assert not gpt_programs.is_nanogpt_config("learning_rate = 1e-4\nwarmup = 10\n")   # no nanoGPT marker pair


# a modded-nanogpt-style program: argparse --model picks a row of the program's own table of GPTConfig shapes
TABLE_PROGRAM = """import argparse
from dataclasses import dataclass
import torch

@dataclass
class GPTConfig:
    vocab_size: int = 50304
    n_layer: int = 12
    n_head: int = 12
    n_embd: int = 768

parser = argparse.ArgumentParser()
parser.add_argument("--model", type=str, default="d12")
parser.add_argument("--batch_size", type=int, default=4)
parser.add_argument("--sequence_length", type=int, default=64)
args = parser.parse_args()
num_vocab = 50257
model_config = {
    "d12": GPTConfig(vocab_size=num_vocab, n_layer=12, n_head=12, n_embd=768),
    "d48": GPTConfig(vocab_size=num_vocab, n_layer=48, n_head=25, n_embd=1600),
}[args.model]
with torch.autocast(device_type="cuda", dtype=torch.bfloat16):
    pass
"""


def test_model_named_by_a_row_of_the_programs_table(tmp_path):
    prog = _write(tmp_path, "train_gpt.py", TABLE_PROGRAM)
    run = _write(tmp_path, "run.sh", "torchrun --standalone --nproc_per_node=4 train_gpt.py --model d48 "
                                     "--batch_size 8 --sequence_length 1024\n")
    rep = check([run, prog], gpu_id="mi300x", gpus=4)
    assert (rep.model.num_layers, rep.model.hidden_size, rep.model.vocab_size) == (48, 1600, 50257)
    assert rep.verdict == "fits"
    assert any("own table of shapes" in n for n in rep.job.notes)


def test_named_shapes_reads_dict_rows():
    # nanoGPT model.py GPT.from_pretrained config_args
    text = "config_args = {'gpt2-medium': dict(n_layer=24, n_head=16, n_embd=1024), 'other': 3}\n"
    shapes = gpt_programs.named_shapes(text)
    assert list(shapes) == ["gpt2-medium"]
    assert shapes["gpt2-medium"]["num_hidden_layers"] == 24 and shapes["gpt2-medium"]["hidden_size"] == 1024


@pytest.mark.parametrize(("flags", "layers", "width", "heads", "batch"), [
    ("--depth=26 --device-batch-size=16", 26, 1664, 13, 16),            # today's dashes
    ("--depth=12 --device_batch_size=8 --max_seq_len=1024", 12, 768, 6, 8),   # Oct 2025 configurator underscores
    ("--run=x", 20, 1280, 10, 32),                                       # base_train's defaults
])
def test_nanochat_base_train_from_depth(tmp_path, flags, layers, width, heads, batch):
    run = _write(tmp_path, "speedrun.sh", f"torchrun --standalone --nproc_per_node=8 -m scripts.base_train -- {flags}\n")
    rep = check([run], gpu_id="mi300x", gpus=8)
    assert (rep.model.num_layers, rep.model.hidden_size, rep.model.num_attention_heads) == (layers, width, heads)
    assert rep.model.vocab_size == 65536 and rep.cfg.micro_batch == batch


def test_nanochat_over_the_card_is_an_upper_bound(tmp_path):
    run = _write(tmp_path, "speedrun.sh", "torchrun --nproc_per_node=8 -m scripts.base_train -- --depth=20 "
                                          "--device_batch_size=64\n")
    rep = check([run], gpu_id="mi300x", gpus=8)
    assert rep.verdict == "unknown" and "torch.compile" in (rep.reason or "")
    small = _write(tmp_path, "s2.sh", "python -m scripts.base_train --depth=4 --max_seq_len=512 --device_batch_size=1\n")
    assert check([small], gpu_id="mi300x").verdict == "fits"


CTOR_PROGRAM = """from unsloth import FastLanguageModel
from trl import SFTConfig, SFTTrainer

class Runner:
    def __init__(self, model_id, max_seq_length=2048):
        self.model_id = model_id
        self.max_seq_length = max_seq_length

    def load(self):
        self.model, self.tok = FastLanguageModel.from_pretrained(model_name=self.model_id,
                                                                 max_seq_length=self.max_seq_length)

    def train(self, ds):
        args = SFTConfig(per_device_train_batch_size=2, output_dir="o")
        SFTTrainer(model=self.model, args=args, train_dataset=ds).train()

if __name__ == "__main__":
    Runner(model_id="Qwen/Qwen2.5-0.5B-Instruct").load()
"""

FUNC_PROGRAM = """from transformers import AutoModelForCausalLM, Trainer, TrainingArguments

def build(name, dtype=None):
    return AutoModelForCausalLM.from_pretrained(name)

model = build("Qwen/Qwen2.5-1.5B")
args = TrainingArguments(output_dir="o", per_device_train_batch_size=1, bf16=True)
Trainer(model=model, args=args).train()
"""


@pytest.mark.parametrize(("text", "hub"), [(CTOR_PROGRAM, "Qwen/Qwen2.5-0.5B-Instruct"),
                                           (FUNC_PROGRAM, "Qwen/Qwen2.5-1.5B")])
def test_model_passed_through_a_call(tmp_path, text, hub):
    rep = check([_write(tmp_path, "train.py", text)], gpu_id="mi300x")
    assert rep.model is not None and rep.job.get("model_name_or_path") == hub


DEVMAP_PROGRAM = """import torch
from transformers import AutoModelForCausalLM, Trainer, TrainingArguments
model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-7B", torch_dtype=torch.bfloat16, device_map="auto")
args = TrainingArguments(output_dir="o", per_device_train_batch_size=1, bf16=True, gradient_checkpointing=True)
Trainer(model=model, args=args).train()
"""


def test_device_map_auto_under_torchrun_is_a_whole_model_per_gpu(tmp_path):
    prog = _write(tmp_path, "train.py", DEVMAP_PROGRAM)
    one = check([prog], gpu_id="mi300x", gpus=4)            # one process spread over 4 GPUs
    run = _write(tmp_path, "run.sh", "torchrun --nproc_per_node 4 train.py\n")
    ranks = check([run, prog], gpu_id="mi300x", gpus=4)     # 4 ranks, each spreading a whole copy over the 4
    step1, step4 = one.memory["step"]["peak_allocated_bytes"], ranks.memory["step"]["peak_allocated_bytes"]
    assert step4 > 3 * step1
    assert any("every rank loads a whole copy" in n for n in ranks.job.notes)
    assert not any("one process, the layers split" in n for n in ranks.job.notes)


INT8_PROGRAM = """import fire, torch
from peft import LoraConfig, get_peft_model, prepare_model_for_int8_training
from transformers import LlamaForCausalLM, Trainer, TrainingArguments

def train(base_model: str = "", micro_batch_size: int = 4, cutoff_len: int = 256):
    model = LlamaForCausalLM.from_pretrained(base_model, load_in_8bit=True, torch_dtype=torch.float16)
    model = prepare_model_for_int8_training(model)
    model = get_peft_model(model, LoraConfig(r=8, target_modules=["q_proj", "v_proj"]))
    Trainer(model=model, args=TrainingArguments(per_device_train_batch_size=micro_batch_size, fp16=True,
                                                output_dir="o")).train()

fire.Fire(train)
"""


def test_prepare_model_for_int8_training_checkpoints_and_cutoff_flag(tmp_path):
    prog = _write(tmp_path, "finetune.py", INT8_PROGRAM)
    run = _write(tmp_path, "ft.sh", "python finetune.py --base_model meta-llama/Llama-2-7b-hf --micro_batch_size 2 "
                                    "--cutoff_len 768\n")
    rep = check([run, prog], gpu_id="mi300x")
    assert rep.cfg.gradient_checkpointing is True
    assert rep.cfg.cutoff_len == 768


def test_jax_program_is_said_out_of_scope(tmp_path, capsys):
    prog = _write(tmp_path, "train_jax.py", "# no imports shown\ncfg = TrainerConfig()\n"
                                            "opt = optax.adamw(1e-4)\nstate = trainer.fit(opt)\n")
    # issue 26 (c-gross): a readable file is answered, never an error: unknown, the reason naming the JAX program
    rep = check([prog], gpu_id="mi300x")
    assert rep.verdict == "unknown" and "train_jax.py is a JAX/Flax program" in rep.reason
    assert main(["check", prog, "--gpu", "mi300x", "--json", "--no-app"]) != 2     # no bad-input exit
    out = capsys.readouterr().out
    assert "JAX/Flax" in out and "Traceback" not in out



def test_jax_program_read_as_python_says_why_it_is_not_answered(tmp_path):
    # a .py whose imports are shown is read as Python source (not an unknown file): still unknown, and the reason
    # names the JAX program instead of "no training command"
    prog = _write(tmp_path, "train_flax.py", "import jax\nimport flax.linen as nn\nimport optax\n\n"
                                             "def train_step(state, batch):\n    return state\n")
    rep = check([prog], gpu_id="mi300x")
    assert rep.verdict == "unknown"
    assert "train_flax.py is a JAX/Flax program" in rep.reason

def test_num_generations_flag_reads_a_grpo_run(tmp_path):
    # a GRPO program given only by its command (an open-r1-style grpo script): --num_generations is GRPOConfig's
    run = _write(tmp_path, "run.sh", "torchrun --nproc_per_node=4 src/train_rl.py --model_name_or_path "
                                     "Qwen/Qwen2.5-1.5B-Instruct --num_generations 4 --max_prompt_length 256 "
                                     "--per_device_train_batch_size 2 --bf16\n")
    rep = check([run], gpu_id="mi300x", gpus=4)
    assert rep.job.get("stage") == "grpo"
    assert rep.cfg.cutoff_len == 256 + 256          # prompt + GRPOConfig's max_completion_length default
    one = _write(tmp_path, "one.sh", "torchrun --nproc_per_node=4 src/train_rl.py --model_name_or_path "
                                     "Qwen/Qwen2.5-1.5B-Instruct --num_generations 1 --bf16\n")
    assert check([one], gpu_id="mi300x", gpus=4).job.get("stage") != "grpo"


DS_ZERO2 = '{"zero_optimization": {"stage": 2}, "bf16": {"enabled": "auto"}, "train_micro_batch_size_per_gpu": "auto"}'


@pytest.mark.parametrize(("launch", "nodes"), [
    ("srun --nodes=2 --ntasks-per-node=1 deepspeed train.py", 1),                 # each node: local resources only
    ("srun --nodes=2 --ntasks-per-node=1 deepspeed --hostfile hosts train.py", 2),  # a hostfile spans the nodes
    ("deepspeed train.py", 2),                                                      # no srun: --nodes as given
])
def test_srun_deepspeed_without_hostfile_is_one_node(tmp_path, launch, nodes):
    ds = _write(tmp_path, "ds.json", DS_ZERO2)
    run = _write(tmp_path, "run.sh", f"{launch} --deepspeed ds.json --model_name_or_path Qwen/Qwen2.5-7B "
                                     f"--per_device_train_batch_size 1 --bf16 --model_max_length 1024\n")
    rep = check([run, ds], gpu_id="a100-40gb", gpus=4, nodes=2)
    assert rep.cfg.nodes == nodes


UNSLOTH_FAST = """from unsloth import FastLanguageModel
from trl import GRPOConfig, GRPOTrainer

class Job:
    def __init__(self, name, quant=True):
        self.name = name
        self.quant = quant

    def run(self, ds, rewards):
        model, tok = FastLanguageModel.from_pretrained(model_name=self.name, load_in_4bit=self.quant,
                                                       fast_inference=True, gpu_memory_utilization=0.6)
        model = FastLanguageModel.get_peft_model(model, r=16, use_gradient_checkpointing="unsloth")
        args = GRPOConfig(per_device_train_batch_size=4, num_generations=4, max_completion_length=512, output_dir="o")
        GRPOTrainer(model=model, args=args, reward_funcs=rewards, train_dataset=ds).train()

Job("Qwen/Qwen2.5-3B-Instruct").run(None, [])
"""


def test_unsloth_fast_inference_is_a_colocated_vllm_and_self_defaults_are_read(tmp_path):
    rep = check([_write(tmp_path, "grpo.py", UNSLOTH_FAST)], gpu_id="mi300x")
    job = rep.job
    assert job.get("model_name_or_path") == "Qwen/Qwen2.5-3B-Instruct"
    assert job.get("use_vllm") is True and job.get("vllm_mode") == "colocate"
    assert job.get("vllm_gpu_memory_utilization") == 0.6
    assert rep.cfg.method == "qlora"          # self.quant = quant (default True) -> load_in_4bit=self.quant
    assert any("vLLM colocated" in n for n in rep.est_notes + job.notes)


@pytest.mark.parametrize(("line", "says"), [("n_layer = 'x'", "n_layer = 'x'"), ("n_layer = -3", "n_layer = -3"),
                                            ("n_layer = True", "n_layer = True"), ("n_layer = 10**9", "1000000000"),
                                            ("n_layer = depth * 2", "n_layer is computed")])
def test_nanogpt_config_bad_values_are_one_line_errors(tmp_path, capsys, line, says):
    cfg = _write(tmp_path, "bad.py", f"out_dir = 'o'\neval_interval = 5\n{line}\nbatch_size = 4\n")
    assert main(["check", cfg, "--gpu", "mi300x"]) == 2
    err = capsys.readouterr().err.strip()
    assert says in err and len(err.splitlines()) == 1 and "Traceback" not in err


def test_nanogpt_config_arithmetic_and_nanochat_bad_depth(tmp_path, capsys):
    cfg = _write(tmp_path, "ok.py", "out_dir = 'o'\nn_layer = 2 ** 3\ngradient_accumulation_steps = 5 * 8\n")
    rep = check([cfg], gpu_id="mi300x")
    assert rep.model.num_layers == 8 and rep.job.get("gradient_accumulation_steps") == 40
    run = _write(tmp_path, "nc.sh", "torchrun -m scripts.base_train -- --depth=abc\n")
    assert main(["check", run, "--gpu", "mi300x"]) == 2
    assert "depth = 'abc'" in capsys.readouterr().err
