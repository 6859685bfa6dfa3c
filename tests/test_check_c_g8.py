"""`check` on values written as something to compute instead of a literal (helper c-g8): bash arithmetic and
parameter expansion (bash(1) "Parameter Expansion", "Arithmetic Expansion"), `$(expr a / b)` (coreutils expr),
Python f-strings / str.format fields in a program that builds its command line (an os.system f-string, a subprocess
argv list), a notebook's `!cmd {var}` (IPython var_expand), and the templates no file computes (Jinja/Helm `{{ }}`,
OmegaConf `${oc.env:X}` / `${a.b}`, `%(x)s`, `$(cmd)`): computed where the same files compute them, else the value
is unread - said, the runner's default used - never a number cut out of the expression. Every file here is written
for the test from those tools' documented forms; none is a corpus case."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from rocm_tune.cli import main
from rocm_tune.core import formats
from rocm_tune.core.runners import launchers, values

MODEL = "Qwen/Qwen2.5-7B-Instruct"


def _write(tmp_path: Path, name: str, text: str) -> str:
    p = tmp_path / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)
    return str(p)


def _check(paths: list[str], capsys, gpu: str = "mi300x") -> dict:
    rc = main(["check", *paths, "--gpu", gpu, "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc in (0, 1), out
    return out


def _setting(paths: list[str], key: str):
    s = formats.read_job(paths).settings.get(key)
    return None if s is None else s.value


# ------------------------------------------------------------------------------------------------ bash arithmetic
@pytest.mark.parametrize("expr,env,want", [
    ("256 / 4 / 8", {}, 8),
    (" BATCH / (PER * GPUS) ", {"BATCH": "256", "PER": "4", "GPUS": "8"}, 8),
    ("$GA * 2", {"GA": "3"}, 6),
    ("${GA}+1", {"GA": "N * 2", "N": "5"}, 11),      # a variable's value is arithmetic itself
    ("0x10", {}, 16), ("010", {}, 8), ("2#101", {}, 5), ("64#_", {}, 63),
    ("-7 / 2", {}, -3), ("-7 % 2", {}, -1),          # C division: toward zero
    ("1 << 4", {}, 16),
])
def test_shell_arithmetic_computed(expr, env, want):
    assert values.shell_arith(expr, env) == want


@pytest.mark.parametrize("expr,env", [
    ("8/0", {}), ("8 % 0", {}), ("X * 2", {}), ("X * 2", {"X": ""}),
    ("2 ** 100", {}), ("1 << 99", {}), ("2#3", {}), ("1e400", {}), ("a = 3", {}), ("1 ? 2 : 3", {}),
    ("X", {"X": "X"}),                               # a variable that names itself: no answer, no hang
])
def test_shell_arithmetic_refused(expr, env):
    assert values.shell_arith(expr, env) is None


def test_expr_command_left_to_right_only_at_one_precedence():
    assert values.expr_command(["16", "/", "2"], {}) == 8
    assert values.expr_command(["64", "/", "$N"], {"N": "4"}) is None     # expansion happens before (launchers)
    assert values.expr_command(["1", "+", "2", "*", "3"], {}) is None       # mixed precedence: not computed
    assert values.expr_command(["16", "/", "0"], {}) is None
    assert values.expr_command(["length", "abc"], {}) is None


# ------------------------------------------------------------------------------------------------ forms
@pytest.mark.parametrize("value,form", [
    ("{bs}", "python-field"), ("{int(128/nproc)}", "python-field"),
    ("$((8/0))", "shell-arithmetic"), ("${X:?unset}", "shell-parameter"), ("$NGPU", "shell-parameter"),
    ("$(nproc)", "command-substitution"), ("`nproc`", "command-substitution"), ("$(BATCH)", "command-substitution"),
    ("{{ .Values.batchSize }}", "jinja"), ("{% raw %}", "jinja"),
    ("${oc.env:BS,4}", "omegaconf-resolver"), ("${train.batch_size}", "omegaconf-interpolation"),
    ("%(batch)d", "printf-field"), ("%d", "printf-field"),
])
def test_unread_names_the_form(value, form):
    got = values.unread(value)
    assert got is not None and got[0] == form


@pytest.mark.parametrize("value", ["8", "1e400", "-4", "0x10", "2e-5", "auto", "true", "Qwen/Qwen2.5-7B",
                                   "ckpt-%Y"])
def test_literals_are_not_templates(value):
    assert values.unread(value) is None


# ------------------------------------------------------------------------------------------------ shell scripts
SCRIPT = """#!/bin/bash
nproc_per_node=2
BATCH_SIZE=${{BATCH_SIZE:-256}}
PER_DEVICE=${{PER_DEVICE:=4}}
GA=$(( BATCH_SIZE / PER_DEVICE / nproc_per_node ))
NPROC_PER_NODE=$nproc_per_node \\
swift sft \\
    --model {model} \\
    --train_type lora \\
    --per_device_train_batch_size $PER_DEVICE \\
    --gradient_accumulation_steps {ga} \\
    --max_length $(( 1024 * 2 ))
"""


def test_script_arithmetic_and_expr_computed_and_said(tmp_path, capsys):
    p = _write(tmp_path, "a/train.sh", SCRIPT.format(model=MODEL, ga="$GA"))
    assert _setting([p], "gradient_accumulation_steps") == "32"
    assert _setting([p], "per_device_train_batch_size") == "4"
    assert str(_setting([p], "cutoff_len")) == "2048"
    out = _check([p], capsys)
    assert any("GA=$(( BATCH_SIZE / PER_DEVICE / nproc_per_node )) computed here as 32" in n for n in out["notes"])
    assert out["understood"]["micro_batch"] == 4 and out["understood"]["cutoff_len"] == 2048
    q = _write(tmp_path, "b/train.sh", SCRIPT.format(model=MODEL, ga="$(expr 64 / $nproc_per_node)"))
    assert _setting([q], "gradient_accumulation_steps") == "32"


@pytest.mark.parametrize("written,form", [
    ("{bs}", "f-string / str.format field"),
    ("$((8/0))", "bash arithmetic"),
    ("${BS:?set BS}", "shell variable"),
    ("$(nproc)", "output"),
    ("{{ .Values.batchSize }}", "Jinja/Helm"),
])
def test_script_value_not_computed_is_unread_not_cut(tmp_path, capsys, written, form):
    """The hostile spellings: the batch is never a number cut out of them; the answer says which value and why."""
    p = _write(tmp_path, "c/train.sh", f"swift sft --model {MODEL} --train_type lora "
                                       f'--per_device_train_batch_size "{written}" --max_length 2048\n')
    out = _check([p], capsys)
    assert out["verdict"] in ("fits", "oom"), out["reason"]
    said = [a for a in out["assumptions"] if a.startswith("per_device_train_batch_size " + written)]
    assert said and form in said[0] and "default" in said[0]
    assert out["understood"]["micro_batch"] == 1                  # ms-swift's default, not 8 or 0


@pytest.mark.parametrize("written", ["1e400", "0x10", "16.5"])
def test_literal_that_is_no_whole_number_stays_a_bad_value(tmp_path, capsys, written):
    """A literal the program's argparse `int()` refuses is the user's error, not a template: said, unknown."""
    p = _write(tmp_path, "d/train.sh", f"swift sft --model {MODEL} --train_type lora "
                                       f"--per_device_train_batch_size {written} --max_length 2048\n")
    out = _check([p], capsys)
    assert out["verdict"] == "unknown" and written in out["reason"]


def test_negative_batch_refused(tmp_path, capsys):
    p = _write(tmp_path, "e/train.sh", f"swift sft --model {MODEL} --per_device_train_batch_size -4 --max_length 512\n")
    out = _check([p], capsys)
    assert out["verdict"] == "unknown" and "-4" in out["reason"]


def test_parameter_operators():
    sc = launchers.parse_script("A=3\nE=\ntorchrun x.py --a ${A:?no} --b ${A:+on} --c ${Z:-7} --d ${E:-5} "
                                "--e ${E-5} --f ${Z:?unset} --g ${Z:+x}\n", "t.sh")
    flags = launchers.flag_values(sc.commands[0].tokens)
    # `${E-5}`: E is set (empty), so nothing; `${Z:?..}` / `${Z:+..}`: the environment decides - left as written
    assert {k: v for k, (v, _line) in flags.items()} == {
        "a": "3", "b": "on", "c": "7", "d": "5", "e": "", "f": "${Z:?unset}", "g": "${Z:+x}"}


def test_substitution_stays_one_word_with_its_line():
    sc = launchers.parse_script("N=4\ntorchrun train.py \\\n  --ga $(( 64 / ( N * 2 ) )) \\\n  --bs $(expr 8 / 2)\n",
                                "t.sh")
    flags = launchers.flag_values(sc.commands[0].tokens)
    assert flags["ga"] == ("8", 3) and flags["bs"] == ("4", 4)
    assert [(ln, v) for ln, _raw, v in sc.computed] == [(3, "8"), (4, "4")]


# ------------------------------------------------------------------------------------------------ Python programs
FSTRING = '''nproc_per_node = {nproc}
cmd = f"""\\
NPROC_PER_NODE={{nproc_per_node}} \\
swift sft \\
--model {model} \\
--train_type lora \\
--per_device_train_batch_size {{2 * 2}} \\
--gradient_accumulation_steps {{int(128 / nproc_per_node)}} \\
--max_length 4096
"""
'''


def test_fstring_command_fields_computed_from_the_module(tmp_path, capsys):
    p = _write(tmp_path, "f/train_cmd.py", FSTRING.format(nproc="8", model=MODEL))
    assert _setting([p], "gradient_accumulation_steps") == "16"
    assert _setting([p], "per_device_train_batch_size") == "4"
    out = _check([p], capsys)
    assert out["world_size"] == 8 and out["understood"]["micro_batch"] == 4
    assert any("builds its command line in strings" in n for n in out["notes"])


def test_fstring_field_over_an_unknown_name_is_unread(tmp_path, capsys):
    text = FSTRING.format(nproc="8", model=MODEL).replace("nproc_per_node = 8\n", "nproc_per_node = get_gpus()\n")
    p = _write(tmp_path, "g/train_cmd.py", text)
    out = _check([p, "--gpus", "8"], capsys)
    said = [a for a in out["assumptions"] if a.startswith("gradient_accumulation_steps {int(128/nproc_per_node)}")]
    assert said and "Python f-string" in said[0]
    assert out["verdict"] in ("fits", "oom")
    assert not any(f["code"] == "bad-value" for f in out["findings"])


def test_subprocess_argv_list_and_format_in_a_program_with_imports(tmp_path, capsys):
    text = f'''import os
import subprocess

GPUS = 4
BS = 2
SEQ = 1024

cmd = [
    "torchrun", f"--nproc_per_node={{GPUS}}", "train.py",
    "--model_name_or_path", "{MODEL}",
    "--per_device_train_batch_size", str(BS),
    "--gradient_accumulation_steps", f"{{64 // (GPUS * BS)}}",
    "--max_seq_length", "{{}}".format(SEQ * 2),
    "--bf16",
]
subprocess.run(cmd, check=True)
'''
    p = _write(tmp_path, "h/launch.py", text)
    view = values.python_command_view(text, ast.parse(text))
    assert view is not None
    assert "torchrun --nproc_per_node=4 train.py --model_name_or_path Qwen/Qwen2.5-7B-Instruct " \
           "--per_device_train_batch_size 2 --gradient_accumulation_steps 8 --max_seq_length 2048 --bf16" in view
    assert view.count("\n") == text.count("\n")       # same lines: findings point at the program's lines
    job = formats.read_job([p])
    assert job.settings["per_device_train_batch_size"].value == "2"
    assert job.settings["gradient_accumulation_steps"].value == "8"


def test_format_template_and_unknown_fields():
    text = 'import os\nbs = 4\nos.system("deepspeed train.py --per_device_train_batch_size {b} --x {y}".format(b=bs))\n'
    view = values.python_command_view(text, ast.parse(text)) or ""
    assert "--per_device_train_batch_size 4 --x {y}" in view
    # a field that reads an attribute or calls anything but int/float/str/round/abs/min/max is never evaluated
    t2 = 'import os\nos.system(f"torchrun t.py --a {args.bs} --b {__import__(\'os\').getpid()} --c {1/0}")\n'
    v2 = values.python_command_view(t2, ast.parse(t2)) or ""
    assert "--a {args.bs} --b {__import__('os').getpid()} --c {1/0}" in v2


def test_name_assigned_twice_is_not_used():
    tree = ast.parse("bs = 4\nif x:\n    bs = 8\nga = 2\nga = 2\nseq: int = 512 * 2\n")
    assert values.module_names(tree) == {"ga": 2, "seq": 1024}


def test_py_value_limits():
    def ev(src: str, names: dict | None = None):
        return values.py_value(ast.parse(src, mode="eval").body, names or {})
    assert ev("int(128 / n)", {"n": 8}) == 16
    assert ev("10 ** 400") is None and ev("1e400") is None and ev("2.0 ** 2000") is None
    assert ev("1 / 0") is None and ev("int('0x10')") is None and ev("-4") == -4
    assert ev("'{}-{}'.format(1, 2)") == "1-2" and ev("'{0.real}'.format(1)") is None


# ------------------------------------------------------------------------------------------------ notebooks
def test_notebook_shell_line_fields_filled_like_ipython(tmp_path, capsys):
    cells = [{"cell_type": "code", "source": ["n_gpus = 2\n", "bs = 4\n"]},
             {"cell_type": "code", "source": [f"!torchrun --nproc_per_node {{n_gpus}} train.py --model_name_or_path "
                                              f"{MODEL} --per_device_train_batch_size $bs --max_seq_length "
                                              f"{{512 * 2}} --bf16 --gradient_accumulation_steps {{ga}}\n"]}]
    nb = json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    files = formats.notebook_files(nb, str(tmp_path / "nb.ipynb"))
    script = files[str(tmp_path / "nb.ipynb") + "!"]
    # one field ({ga}) is not computed: IPython runs the line as written, so does the reading
    assert "{n_gpus}" in script and "{ga}" in script
    cells[1]["source"] = [cells[1]["source"][0].replace(" --gradient_accumulation_steps {ga}", "")]
    nb = json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    script = formats.notebook_files(nb, str(tmp_path / "nb.ipynb"))[str(tmp_path / "nb.ipynb") + "!"]
    assert "--nproc_per_node 2 " in script and "--per_device_train_batch_size 4 " in script and "1024" in script


# ------------------------------------------------------------------------------------------------ OmegaConf (torchtune)
TORCHTUNE = """output_dir: /tmp/torchtune/llama3_1_8B/lora_single_device
bs: 4
model:
  _component_: torchtune.models.llama3_1.lora_llama3_1_8b
  lora_attn_modules: ['q_proj', 'v_proj', 'output_proj']
  apply_lora_to_mlp: True
  lora_rank: 8
  lora_alpha: 16
tokenizer:
  _component_: torchtune.models.llama3.llama3_tokenizer
  path: /tmp/Meta-Llama-3.1-8B-Instruct/original/tokenizer.model
  max_seq_len: {seq}
checkpointer:
  _component_: torchtune.training.FullModelHFCheckpointer
  checkpoint_dir: /tmp/Meta-Llama-3.1-8B-Instruct/
  checkpoint_files: [model-00001-of-00004.safetensors]
  output_dir: ${{output_dir}}
  model_type: LLAMA3
dataset:
  _component_: torchtune.datasets.alpaca_cleaned_dataset
  packed: False
batch_size: {bs}
gradient_accumulation_steps: {ga}
optimizer:
  _component_: torch.optim.AdamW
  lr: 3e-4
loss:
  _component_: torchtune.modules.loss.CEWithChunkedOutputLoss
enable_activation_checkpointing: True
dtype: bf16
metric_logger:
  _component_: torchtune.training.metric_logging.DiskLogger
  log_dir: ${{output_dir}}/logs
"""


def test_torchtune_interpolations_filled_from_the_same_file(tmp_path):
    p = _write(tmp_path, "tt/8B_lora_single_device.yaml",
               TORCHTUNE.format(seq="${oc.env:MAX_SEQ,2048}", bs="${bs}", ga="8"))
    job = formats.read_job([p])
    assert job.settings["per_device_train_batch_size"].value == 4
    assert job.settings["cutoff_len"].value == 2048
    assert any("${oc.env:MAX_SEQ,2048}: the default 2048 (unless the environment sets MAX_SEQ)" in n
               for n in job.notes)


def test_torchtune_value_no_file_fills_is_said(tmp_path):
    p = _write(tmp_path, "tt2/8B_lora_single_device.yaml",
               TORCHTUNE.format(seq="2048", bs="${oc.env:BS}", ga="${trainer.ga}"))
    job = formats.read_job([p])
    assert "per_device_train_batch_size" not in job.settings
    said = " | ".join(job.notes)
    assert "batch_size ${oc.env:BS}: an OmegaConf/Hydra resolver" in said
    assert "gradient_accumulation_steps ${trainer.ga}: an OmegaConf/Hydra interpolation" in said


# ------------------------------------------------------------------------------------------------ Makefiles
MAKEFILE = f"""MODEL ?= {MODEL}
NGPU := 4
BS = 2
BS += # nothing appended
GA = $(shell echo 8)

train:
\t@torchrun --nproc_per_node $(NGPU) train.py \\
\t\t--model_name_or_path $(MODEL) --per_device_train_batch_size $(BS) \\
--gradient_accumulation_steps $(GA) --max_seq_length $$((1024 * 2)) --bf16
"""


def test_makefile_recipe_read_with_its_variables(tmp_path, capsys):
    p = _write(tmp_path, "mk/Makefile", MAKEFILE)
    script = values.makefile_as_script(MAKEFILE)
    assert script.count("\n") == MAKEFILE.count("\n")
    assert 'MODEL="${MODEL:-Qwen/Qwen2.5-7B-Instruct}"' in script and "--gradient_accumulation_steps ${GA}" in script
    out = _check([p], capsys)
    assert out["world_size"] == 4
    assert out["understood"]["micro_batch"] == 2 and out["understood"]["cutoff_len"] == 2048
    said = [a for a in out["assumptions"] if a.startswith("gradient_accumulation_steps $(shell echo 8)")]
    assert said and "known only when it runs" in said[0]


def test_unrun_substitution_in_a_variable_is_not_word_split():
    sc = launchers.parse_script('GA="$(nproc --all)"\ntorchrun t.py --ga $GA --bs 2\n', "t.sh")
    flags = launchers.flag_values(sc.commands[0].tokens)
    assert flags["ga"][0] == "$(nproc --all)" and flags["bs"][0] == "2"
