"""One evaluator of Python values (core/runners/values.py_value) for every reader: hf's program reader, the
nanoGPT config reader, literal argument dicts, f-string command views. The expected values are what CPython
gives for the same expression (each test says so where it is not obvious); the programs are written for these tests,
in the shapes the transformers / peft / nanoGPT docs show."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from rocm_tune.cli import main
from rocm_tune.core.formats.pyargs import dict_arguments
from rocm_tune.core.runners import gpt_programs, hf
from rocm_tune.core.runners.values import module_names, program_names, py_value


def _v(expr: str, names: dict | None = None):
    return py_value(ast.parse(expr, mode="eval").body, names)


@pytest.mark.parametrize("expr, names, want", [
    ("lora_rank * 2", {"lora_rank": 4}, 8),
    ("int(128 / nproc)", {"nproc": 8}, 16),
    ("f'{org}/{name}-{n}B'", {"org": "Qwen", "name": "Qwen2.5", "n": 7}, "Qwen/Qwen2.5-7B"),
    ("'{}/{m}'.format('Qwen', m='Qwen3-8B')", {}, "Qwen/Qwen3-8B"),
    ("os.getenv('MODEL', 'Qwen/Qwen3-8B')", {}, "Qwen/Qwen3-8B"),          # the environment may set it: its default
    ("os.environ.get('MODEL', default_model)", {"default_model": "m/x"}, "m/x"),
    ("os.environ.get('MODEL') or 'Qwen/Qwen3-8B'", {}, "Qwen/Qwen3-8B"),   # left not known: the fallback
    ("name or 'fallback'", {"name": "meta-llama/Llama-3.1-8B"}, "meta-llama/Llama-3.1-8B"),   # Python: a truthy left
    ("name or 'fallback'", {"name": ""}, "fallback"),
    ("BASE / 'models' / 'qwen3-8b'", {"BASE": "/data"}, "/data/models/qwen3-8b"),
    ("Path(__file__).parent / 'models' / 'qwen3-8b'", {}, "models/qwen3-8b"),   # the base that is not read is left out
    ("os.path.join(BASE, 'qwen3-8b')", {"BASE": "/data/"}, "/data/qwen3-8b"),
    ("str(Path('/m/llama'))", {}, "/m/llama"),
    ("str(4)", {}, "4"),
    ("torch.bfloat16", {}, "torch.bfloat16"),
    ("args.model_name", {"args.model_name": "Qwen/Qwen3-8B"}, "Qwen/Qwen3-8B"),
    ("script_args.max_len", {"*.max_len": 4096}, 4096),
    ("[A, 'v_proj']", {"A": "q_proj"}, ["q_proj", "v_proj"]),
    ("('q_proj', 'v_proj')", {}, ("q_proj", "v_proj")),
    ("{'r': r, 'alpha': 2 * r}", {"r": 16}, {"r": 16, "alpha": 32}),
    ("[None, 1]", {}, [None, 1]),                 # a literal list keeps its None (ast.literal_eval)
    ("-(2 ** 3)", {}, -8),
])
def test_py_value_computes_what_python_does(expr, names, want):
    assert _v(expr, names) == want


@pytest.mark.parametrize("expr, names", [
    ("1 / 0", {}), ("x * 2", {}), ("[x, 1]", {}), ("{[1]: 2}", {}), ("Path(4)", {}), ("open('f').read()", {}),
    ("2 ** 100", {}), ("float('inf')", {}), ("{**base}", {"base": {"a": 1}}), ("'a' / 2", {}),
    ("os.getenv('MODEL')", {}), ("f'{x}'", {}),
])
def test_py_value_leaves_out_what_it_cannot_compute(expr, names):
    assert _v(expr, names) is None


def test_module_names_drops_a_reassigned_name_unless_the_last_wins():
    tree = ast.parse("bs = 4\nga: int = 128 // bs\nmodel = 'a/b'\nmodel = 'c/d'\nx = 1\nx = compute()\n"
                     "cfg = {'a': 1}\ntargets = ['q_proj', 'v_proj']\n")
    assert module_names(tree) == {"bs": 4, "ga": 32, "targets": ["q_proj", "v_proj"]}
    last = module_names(tree, last_wins=True)
    assert last["model"] == "c/d" and last["x"] == 1 and "cfg" not in last and last["ga"] == 32


PROGRAM = '''
import argparse, os
from dataclasses import dataclass, field
from transformers import AutoModelForCausalLM, TrainingArguments
from peft import LoraConfig

@dataclass
class ScriptArguments:
    max_len: int = field(default=2048)

parser = argparse.ArgumentParser()
parser.add_argument("--model-name", default="Qwen/Qwen2.5-7B")
parser.add_argument("--bs", type=int, default=2)
args = parser.parse_args()
script_args = ScriptArguments()
ROOT = os.environ.get("OUT") or "runs"
RANK = 16
TARGETS = ["q_proj", "k_proj", "v_proj", "o_proj"]

def load(name, dtype="bfloat16"):
    return AutoModelForCausalLM.from_pretrained(name, torch_dtype=torch.bfloat16)

model = load(args.model_name)
peft_config = LoraConfig(r=RANK, lora_alpha=RANK * 2, target_modules=TARGETS)
training_args = TrainingArguments(output_dir=f"{ROOT}/lora-r{RANK}", per_device_train_batch_size=args.bs * 2,
                                  gradient_accumulation_steps=int(32 / args.bs), bf16=True)
'''


def test_program_names_reads_argparse_dataclass_parameters_and_assignments():
    names = program_names(ast.parse(PROGRAM))
    assert names["args.model_name"] == "Qwen/Qwen2.5-7B" and names["args.bs"] == 2
    assert names["*.max_len"] == 2048 and names["dtype"] == "bfloat16"
    assert names["ROOT"] == "runs" and names["TARGETS"] == ["q_proj", "k_proj", "v_proj", "o_proj"]
    assert names["name"] == "Qwen/Qwen2.5-7B"            # load(args.model_name): what the call passes


def test_hf_program_reader_uses_the_one_evaluator():
    out, _notes = hf.read_python(PROGRAM, "train.py")
    assert out["per_device_train_batch_size"].value == "4"      # args.bs * 2 (flags are read as text)
    assert out["gradient_accumulation_steps"].value == "16"
    assert out["output_dir"].value == "runs/lora-r16"
    assert out["model_name_or_path"].value == "Qwen/Qwen2.5-7B"
    assert out["load_dtype"].value == "bf16"


def test_nanogpt_config_values_over_the_names_above_them():
    text = "init_from = 'scratch'\nn_layer = 6\nn_head = 6\nn_embd = n_head * 64\nblock_size = 256\n" \
           "batch_size = 64 // 2\ngradient_accumulation_steps = 1\nlearning_rate = 1e-3 / 2\n"
    assert gpt_programs.is_nanogpt_config(text)
    out, _ = gpt_programs.read_nanogpt_config(text, "config/train_tiny.py")
    assert out["model_name_or_path"].value["hidden_size"] == 384
    assert out["per_device_train_batch_size"].value == 32


def test_literal_argument_dict_values_are_computed():
    tree = ast.parse("BS = 4\nargs = dict(model_name_or_path='Qwen/Qwen2.5-7B', per_device_train_batch_size=2 * 2,"
                     " cutoff_len=1024 * 4, finetuning_type='lora')\nrun_exp(args)\n")
    got = dict_arguments(tree)
    assert got is not None and got["per_device_train_batch_size"][0] == "4" and got["cutoff_len"][0] == "4096"


def test_check_reads_the_program_end_to_end(tmp_path: Path, capsys):
    f = tmp_path / "train.py"
    f.write_text(PROGRAM)
    rc = main(["check", str(f), "--gpu", "mi300x", "--json"])
    d = json.loads(capsys.readouterr().out)
    assert rc in (0, 1) and d["understood"]["micro_batch"] == 4 and d["understood"]["lora_rank"] == 16
    assert d["understood"]["lora_alpha"] == 32
