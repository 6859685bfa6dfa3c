"""c-env: settings kept in `.env` files and read from the environment by the training program (check; issue 26).

The .env texts follow python-dotenv's README ("File format", "Variable expansion", "Multiline values") and its
parser (src/dotenv/parser.py, main.py resolve_variables at bca6644); the launch lines follow bash's `set -a; .`,
`export $(grep -v '^#' .env | xargs)`, `uv run --env-file` and docker's `--env-file`; the Python program is the TRL
docs' SFTTrainer quickstart with its settings taken from os.getenv after load_dotenv(). None is a corpus case; no
mocks of core.
"""

from __future__ import annotations

import json

import pytest

from rocm_tune.cli import main
from rocm_tune.core.formats import detect, dotenv, env_reads, read_texts

# python-dotenv README, "Variable expansion" / "Multiline values", plus the forms its parser takes
README_ENV = """# Development settings
DOMAIN=example.org
ADMIN_EMAIL=admin@${DOMAIN}
ROOT_URL=${DOMAIN}/app
export EXPORTED = "yes"   # the export prefix and spaces around =
SINGLE='a \\'quoted\\' value'
MULTI="first line
second line"
ESCAPED="one\\ntwo"
UNQUOTED=plain words   # a comment
FALLBACK=${MISSING:-dflt}
BARE
"""

TRAIN_ENV = """# SFT settings for train.py (read with python-dotenv)
TRAIN_MODEL_NAME=Qwen/Qwen2.5-7B-Instruct
TRAIN_METHOD=qlora
TRAIN_BATCH_SIZE=2
TRAIN_GRAD_ACCUM=8
TRAIN_MAX_SEQ_LEN=2048
TRAIN_BF16=true
TRAIN_GRAD_CKPT=true
LORA_R=16
LORA_ALPHA=32
WANDB_PROJECT=sft-runs
HF_HOME=/data/hf
"""


def test_dotenv_parser_follows_python_dotenv():
    v = {k: val for k, (val, _line) in dotenv.values(README_ENV).items()}
    assert v["ADMIN_EMAIL"] == "admin@example.org" and v["ROOT_URL"] == "example.org/app"
    assert v["EXPORTED"] == "yes"
    assert v["SINGLE"] == "a 'quoted' value"
    assert v["MULTI"] == "first line\nsecond line"
    assert v["ESCAPED"] == "one\ntwo"
    assert v["UNQUOTED"] == "plain words"
    assert v["FALLBACK"] == "dflt"
    assert "BARE" not in v                                   # no value: the caller's, not known here
    assert dotenv.values(README_ENV)["ROOT_URL"][1] == 4      # the line it is written on
    # load_dotenv(override=False): the environment wins; override=True: the file wins, and feeds ${} after it
    assert dotenv.values(README_ENV, {"DOMAIN": "prod.org"})["ROOT_URL"][0] == "prod.org/app"
    assert dotenv.values(README_ENV, {"DOMAIN": "prod.org"}, override=True)["ROOT_URL"][0] == "example.org/app"
    bindings, bad = dotenv.parse("GOOD=1\n=no key\nALSO=2\n")
    assert [b.key for b in bindings] == ["GOOD", "ALSO"] and bad == [2]


def test_detected_by_name_and_syntax():
    assert detect(TRAIN_ENV, "configs/train.env") == "dotenv"
    assert detect(TRAIN_ENV, ".env") == "dotenv"
    assert detect(TRAIN_ENV, ".env.production") == "dotenv"
    assert detect(TRAIN_ENV, "vars.sh") != "dotenv"           # a list of assignments named as a script stays one
    assert detect("python train.py --bf16\n", "run.env") != "dotenv"     # a command is not a binding


def _settings(job):
    return {k: s.value for k, s in job.settings.items()}


def test_program_named_with_its_env_file_reads_it_as_its_arguments():
    launch = ("#!/bin/bash\nTRAIN_MODEL_NAME=meta-llama/Llama-3.1-8B-Instruct TRAIN_BATCH_SIZE=4 \\\n"
              "  python scripts/train.py --config configs/train.env\n")
    job = read_texts({"launch.sh": launch, "configs/train.env": TRAIN_ENV})
    st = _settings(job)
    assert st["model_name_or_path"] == "meta-llama/Llama-3.1-8B-Instruct"     # the launch line wins (override=False)
    assert job.settings["model_name_or_path"].file == "launch.sh"
    assert str(st["per_device_train_batch_size"]) == "4"
    assert str(st["gradient_accumulation_steps"]) == "8"
    assert (st["finetuning_type"], st["quantization_bit"]) == ("lora", 4)       # TRAIN_METHOD=qlora
    assert str(st["cutoff_len"]) == "2048" and str(st["lora_rank"]) == "16"
    assert job.settings["cutoff_len"].file == "configs/train.env" and job.settings["cutoff_len"].line == 6
    assert str(st["bf16"]) == "true" and st["disable_gradient_checkpointing"] is False
    assert "format-unknown" not in {f.code for f in job.findings}
    alone = read_texts({"launch.sh": launch})                  # the file not given: nothing read from it
    assert "cutoff_len" not in alone.settings


def test_command_line_flags_win_over_the_env_file():
    launch = "python train.py --env-file=prod.env --per_device_train_batch_size 1 --max_seq_length 512\n"
    st = _settings(read_texts({"launch.sh": launch, "prod.env": TRAIN_ENV}))
    assert str(st["per_device_train_batch_size"]) == "1" and str(st["cutoff_len"]) == "512"
    assert st["model_name_or_path"] == "Qwen/Qwen2.5-7B-Instruct"


@pytest.mark.parametrize("source", ["set -a; source ./.env; set +a", ". ./.env", "set -a\n. .env\nset +a",
                                    "export $(grep -v '^#' .env | xargs)", "export $(cat .env | xargs)",
                                    "if [ -f .env ]; then\n  set -o allexport\n  source .env\n  set +o allexport\nfi",
                                    "[ -f .env ] && . .env"])
def test_script_that_sources_the_env_file_expands_its_variables(source):
    env = "MODEL=Qwen/Qwen2.5-1.5B-Instruct\nBS=16\nSEQ=4096\nOUT=out/${MODEL}\n"
    launch = (f"#!/usr/bin/env bash\n{source}\n"
              "torchrun --nproc_per_node 2 train.py --model_name_or_path \"$MODEL\" \\\n"
              "  --per_device_train_batch_size ${BS} --max_seq_length $SEQ --bf16 --output_dir $OUT\n")
    job = read_texts({"run.sh": launch, ".env": env})
    st = _settings(job)
    assert st["model_name_or_path"] == "Qwen/Qwen2.5-1.5B-Instruct"
    assert str(st["per_device_train_batch_size"]) == "16" and str(st["cutoff_len"]) == "4096"
    assert st["output_dir"] == "out/Qwen/Qwen2.5-1.5B-Instruct"      # ${MODEL} expanded inside the file
    assert job.gpus.value == 2
    assert any(".env: sourced by line" in n for n in job.notes)


def test_uv_env_file_reaches_the_program():
    launch = "uv run --env-file train.env python train.py\n"
    st = _settings(read_texts({"run.sh": launch, "train.env": TRAIN_ENV}))
    assert st["model_name_or_path"] == "Qwen/Qwen2.5-7B-Instruct" and str(st["cutoff_len"]) == "2048"


# TRL docs, "SFT Trainer" quickstart, with its values taken from the environment after python-dotenv's load_dotenv()
TRL_PROGRAM = '''import os

from datasets import load_dataset
from dotenv import load_dotenv
from trl import SFTConfig, SFTTrainer

load_dotenv()

model_id = os.getenv("MODEL_ID", "Qwen/Qwen2.5-0.5B")
dataset = load_dataset("trl-lib/Capybara", split="train")
training_args = SFTConfig(
    output_dir=os.environ.get("OUTPUT_DIR", "Qwen2.5-0.5B-SFT"),
    per_device_train_batch_size=int(os.getenv("BATCH_SIZE", "8")),
    gradient_accumulation_steps=int(os.environ["GRAD_ACCUM"]),
    max_length=int(os.getenv("MAX_LENGTH", "1024")),
    bf16=True,
    gradient_checkpointing=True,
)
trainer = SFTTrainer(model=model_id, args=training_args, train_dataset=dataset)
trainer.train()
'''
TRL_ENV = "MODEL_ID=Qwen/Qwen2.5-7B\nBATCH_SIZE=4\nGRAD_ACCUM=4\nMAX_LENGTH=4096\n"


def test_program_given_resolves_its_getenv_reads_against_the_env_file():
    st = _settings(read_texts({"sft.py": TRL_PROGRAM, ".env": TRL_ENV}))
    assert st["model_name_or_path"] == "Qwen/Qwen2.5-7B"
    assert (str(st["per_device_train_batch_size"]), str(st["gradient_accumulation_steps"])) == ("4", "4")
    assert str(st["cutoff_len"]) == "4096"
    st = _settings(read_texts({"sft.py": TRL_PROGRAM}))         # no .env: the getenv defaults
    assert st["model_name_or_path"] == "Qwen/Qwen2.5-0.5B" and str(st["per_device_train_batch_size"]) == "8"
    assert str(st["cutoff_len"]) == "1024" and "gradient_accumulation_steps" not in st   # os.environ["X"]: unset


def test_launch_line_variable_wins_over_the_env_file_the_program_loads():
    launch = "BATCH_SIZE=1 python sft.py\n"
    job = read_texts({"run.sh": launch, "sft.py": TRL_PROGRAM, ".env": TRL_ENV})
    st = _settings(job)
    assert (str(st["per_device_train_batch_size"]), str(st["cutoff_len"])) == ("1", "4096")


def test_env_names_read_as_arguments():
    env = {k: (v, i, "x.env") for i, (k, v) in enumerate([("TRAIN_METHOD", "full"), ("TRAIN_EPOCHS", "3"),
                                                           ("WANDB_PROJECT", "p"), ("TRAIN_OUTPUT_DIR", "o"),
                                                           ("SOMETHING_ELSE", "x")], 1)}
    flags, notes = env_reads.as_flags(env)
    assert flags == {"x.env": {"use_lora": ("false", 1), "num_train_epochs": ("3", 2), "output_dir": ("o", 4)}}
    assert notes and "TRAIN_METHOD=full" in notes[0]


def _check(tmp_path, monkeypatch, capsys, files: dict[str, str], *args: str) -> dict:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    paths = []
    for name, text in files.items():
        (tmp_path / name).write_text(text)
        paths.append(str(tmp_path / name))
    main(["check", *paths, *args, "--json", "--no-app"])
    return json.loads(capsys.readouterr().out)


def test_verdicts_follow_the_env_file(tmp_path, monkeypatch, capsys):
    launch = "python train.py --config train.env\n"
    d = _check(tmp_path, monkeypatch, capsys, {"launch.sh": launch, "train.env": TRAIN_ENV}, "--vram-gib", "24")
    assert (d["understood"]["method"], d["understood"]["quant_bits"]) == ("qlora", 4)
    assert (d["understood"]["micro_batch"], d["understood"]["cutoff_len"]) == (2, 2048)
    assert d["verdict"] == "fits"                              # a 7B QLoRA at 2 x 2048 on 24 GiB
    full = TRAIN_ENV.replace("TRAIN_METHOD=qlora", "TRAIN_METHOD=full")
    d = _check(tmp_path, monkeypatch, capsys, {"launch.sh": launch, "train.env": full}, "--vram-gib", "24")
    assert d["understood"]["method"] == "full"
    assert d["verdict"] == "oom"                               # the whole 7B with AdamW does not


# docker compose (compose-spec 05-services.md; Docker docs "Environment variables precedence": environment > env_file,
# a later env_file wins over an earlier one)
COMPOSE = """services:
  tensorboard:
    image: tensorflow/tensorflow
    command: tensorboard --logdir /runs
  trainer:
    image: rocm/pytorch:latest
    devices: [/dev/kfd, /dev/dri]
    env_file:
      - ./train.env
      - path: ./override.env
        required: false
    environment:
      TRAIN_BATCH_SIZE: 3
      HIP_VISIBLE_DEVICES: "0"
    command: ["python", "train.py"]
"""


def test_compose_env_file_and_environment_reach_the_program():
    job = read_texts({"compose.yaml": COMPOSE, "train.env": TRAIN_ENV, "override.env": "TRAIN_MAX_SEQ_LEN=1024\n"})
    st = _settings(job)
    assert st["model_name_or_path"] == "Qwen/Qwen2.5-7B-Instruct"
    assert job.settings["model_name_or_path"].file == "train.env"
    assert str(st["per_device_train_batch_size"]) == "3"                  # environment: wins over env_file
    assert str(st["cutoff_len"]) == "1024" and job.settings["cutoff_len"].file == "override.env"
    assert (job.gpus.value, job.gpus.native) == (1, "HIP_VISIBLE_DEVICES")
    assert job.entry_line == 15                                          # the `command:` line


# pydantic-settings docs ("Usage", "Dotenv (.env) support"): a BaseSettings class with env_prefix, reading .env
SETTINGS_PROGRAM = '''from pydantic_settings import BaseSettings, SettingsConfigDict
from transformers import AutoModelForCausalLM
from trl import SFTConfig, SFTTrainer


class TrainSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="sft_", env_file=".env")

    model_name: str = "Qwen/Qwen2.5-0.5B"
    batch_size: int = 8
    max_length: int = 1024
    bf16: bool = False


s = TrainSettings()
model = AutoModelForCausalLM.from_pretrained(s.model_name)
args = SFTConfig(output_dir="out", per_device_train_batch_size=s.batch_size, max_length=s.max_length, bf16=s.bf16)
trainer = SFTTrainer(model=model, args=args, train_dataset=None)
trainer.train()
'''


def test_pydantic_settings_fields_read_from_the_env_file_with_their_prefix():
    env = "SFT_MODEL_NAME=meta-llama/Llama-3.1-8B\nSFT_BATCH_SIZE=2\nsft_bf16=on\nBATCH_SIZE=99\n"
    st = _settings(read_texts({"train.py": SETTINGS_PROGRAM, ".env": env}))
    assert st["model_name_or_path"] == "meta-llama/Llama-3.1-8B"
    assert str(st["per_device_train_batch_size"]) == "2"                # SFT_ prefix: BATCH_SIZE=99 is not it
    assert str(st["cutoff_len"]) == "1024"                              # not in the file: the field's default
    assert str(st["bf16"]).lower() == "true"                             # pydantic reads "on" as True
    st = _settings(read_texts({"train.py": SETTINGS_PROGRAM}))
    assert st["model_name_or_path"] == "Qwen/Qwen2.5-0.5B" and str(st["per_device_train_batch_size"]) == "8"


ARGPARSE_PROGRAM = '''import argparse
import os

from transformers import AutoModelForCausalLM, Trainer, TrainingArguments

p = argparse.ArgumentParser()
p.add_argument("--model", default=os.getenv("MODEL", "gpt2"))
p.add_argument("--batch-size", type=int, default=int(os.getenv("BATCH_SIZE", "4")))
args = p.parse_args()
model = AutoModelForCausalLM.from_pretrained(args.model)
targs = TrainingArguments(output_dir="out", per_device_train_batch_size=args.batch_size)
Trainer(model=model, args=targs).train()
'''


def test_argparse_defaults_from_the_environment_a_sourced_env_file_sets():
    run = "#!/bin/bash\nset -a\nsource config.env\nset +a\npython train.py\n"
    env = "MODEL=Qwen/Qwen2.5-3B\nBATCH_SIZE=16\n"
    st = _settings(read_texts({"run.sh": run, "train.py": ARGPARSE_PROGRAM, "config.env": env}))
    assert st["model_name_or_path"] == "Qwen/Qwen2.5-3B" and str(st["per_device_train_batch_size"]) == "16"
    run2 = "#!/bin/bash\nset -a\nsource config.env\nset +a\npython train.py --batch-size 2\n"
    st = _settings(read_texts({"run.sh": run2, "train.py": ARGPARSE_PROGRAM, "config.env": env}))
    assert str(st["per_device_train_batch_size"]) == "2"                 # the flag wins over the default


# GitHub Actions "Workflow syntax": env at the workflow, job and step levels; `run: |` is a bash script
WORKFLOW = """name: nightly-finetune
on:
  workflow_dispatch:
env:
  HF_HOME: /data/hf
jobs:
  lint:
    runs-on: ubuntu-latest
    steps:
      - run: ruff check .
  sft:
    runs-on: [self-hosted, mi300x]
    env:
      MODEL: Qwen/Qwen2.5-7B-Instruct
    steps:
      - uses: actions/checkout@v4
      - name: train
        env:
          BS: 4
        run: |
          set -a; source train.env; set +a
          torchrun --nproc_per_node 8 train.py \\\\
            --model_name_or_path $MODEL --per_device_train_batch_size $BS --max_seq_length $SEQ --bf16
"""


def test_github_actions_env_levels_reach_the_run_step():
    job = read_texts({".github/workflows/train.yml": WORKFLOW, "train.env": "SEQ=4096\n"})
    st = _settings(job)
    assert st["model_name_or_path"] == "Qwen/Qwen2.5-7B-Instruct"         # the job's env
    assert str(st["per_device_train_batch_size"]) == "4"                  # the step's env
    assert str(st["cutoff_len"]) == "4096"                                # the env file the step sources
    assert job.gpus.value == 8 and job.entry_line == 22                   # the torchrun line in the file


def test_slurm_script_sourcing_a_config_of_assignments_whatever_its_name():
    sbatch = ("#!/bin/bash\n#SBATCH --nodes=1\n#SBATCH --gres=gpu:4\nsource ./configs/exp1.sh\n"
              "srun torchrun --nproc_per_node 4 train.py --model_name_or_path ${MODEL_PATH} "
              "--per_device_train_batch_size ${MBS} --bf16\n")
    cfg = "# experiment 1\nexport MODEL_PATH=meta-llama/Llama-3.1-8B\nMBS=2\n"
    st = _settings(read_texts({"job.sbatch": sbatch, "configs/exp1.sh": cfg}))
    assert st["model_name_or_path"] == "meta-llama/Llama-3.1-8B" and str(st["per_device_train_batch_size"]) == "2"
    st = _settings(read_texts({"job.sbatch": sbatch.replace("source ./configs/exp1.sh\n", ""),
                               "configs/exp1.sh": cfg}))
    assert st["model_name_or_path"] != "meta-llama/Llama-3.1-8B"         # not sourced: not read


def test_only_exported_variables_of_a_sourced_file_reach_the_program():
    env = "MODEL=Qwen/Qwen2.5-3B\nBATCH_SIZE=16\n"
    plain = "#!/bin/bash\nsource config.env\npython train.py\n"      # shell variables: train.py does not see them
    st = _settings(read_texts({"run.sh": plain, "train.py": ARGPARSE_PROGRAM, "config.env": env}))
    assert st.get("model_name_or_path") != "Qwen/Qwen2.5-3B" and str(st["per_device_train_batch_size"]) == "4"
    marked = "export MODEL=Qwen/Qwen2.5-3B\nBATCH_SIZE=16\n"          # `export` written in the file: that one does
    st = _settings(read_texts({"run.sh": plain, "train.py": ARGPARSE_PROGRAM, "config.env": marked}))
    assert st["model_name_or_path"] == "Qwen/Qwen2.5-3B" and str(st["per_device_train_batch_size"]) == "4"
