"""`check` on the shapes real runs take that the corpus showed it misreading (issue 26, helper check-held): a program a
launcher file starts (dstack), Unsloth programs as an upper bound, QLoRA of mixture-of-experts checkpoints, Megatron's
own mixed precision, GRPO's generation and reference model, HfArgumentParser recipe YAMLs, the flags custom
training scripts use, and a thin OOM said as such. Every figure is computed by the real estimator; the expectations
are the runners' documented behaviour (sources in core/runners/rl.py, megatron.py, memory.py)."""

from __future__ import annotations

import json

import pytest

from rocm_tune.cli import main
from rocm_tune.core.check import check as C
from rocm_tune.core.memory.estimate import TrainConfig, estimate
from rocm_tune.core.model.architecture import load_model
from rocm_tune.core.model.names import parse_name

GiB = 2**30

TRAIN_PY = """from transformers import AutoModelForCausalLM, TrainingArguments
from peft import LoraConfig
from trl import SFTTrainer

base_model_name = "meta-llama/Meta-Llama-3.1-8B"
model = AutoModelForCausalLM.from_pretrained(base_model_name, torch_dtype="bfloat16")
args = TrainingArguments(output_dir="out", per_device_train_batch_size={bs}, bf16=True)
peft = LoraConfig(r=16, lora_alpha=32, target_modules="all-linear", task_type="CAUSAL_LM")
SFTTrainer(model=model, args=args, peft_config=peft, max_seq_length=2048).train()
"""
DSTACK = """type: task
name: llama-lora
files:
  - train.py
commands:
  - pip install trl peft
  - python train.py
resources:
  gpu: {gpu}
"""


def _check(capsys, tmp_path, *args) -> dict:
    rc = main(["check", *map(str, args), "--json", "--no-app"])
    out = capsys.readouterr().out
    assert rc in (0, 1), out
    return json.loads(out)


@pytest.fixture
def offline(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    for var in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_HOME", "MODELSCOPE_CACHE", "HF_ENDPOINT"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.chdir(tmp_path)


def test_a_program_a_dstack_task_starts_is_read_with_the_card_it_asks_for(offline, tmp_path, capsys):
    (tmp_path / "train.py").write_text(TRAIN_PY.format(bs=4))
    (tmp_path / ".dstack.yml").write_text(DSTACK.format(gpu="MI300X"))
    d = _check(capsys, tmp_path, ".dstack.yml", "train.py")
    assert d["gpu"]["id"] == "mi300x" and d["verdict"] == "fits"          # no --gpu: the task's resources.gpu
    assert d["understood"]["method"] == "lora" and d["understood"]["micro_batch"] == 4
    assert d["understood"]["cutoff_len"] == 2048 and d["model"]["name"] == "llama-3.1-8b"
    # a card given by memory only in the task, and the command line still wins
    (tmp_path / ".dstack.yml").write_text(DSTACK.format(gpu="24GB"))
    d2 = _check(capsys, tmp_path, ".dstack.yml", "train.py", "--gpu", "mi210")
    assert d2["gpu"]["id"] == "mi210"
    d3 = _check(capsys, tmp_path, ".dstack.yml", "train.py")
    assert d3["gpu"]["vram_gib"] == 24


UNSLOTH = """from unsloth import FastLanguageModel
from trl import SFTTrainer, SFTConfig
model, tok = FastLanguageModel.from_pretrained(model_name="unsloth/Llama-3.2-3B-Instruct", max_seq_length=2048,
                                               load_in_4bit=False)
model = FastLanguageModel.get_peft_model(model, r=16, lora_alpha=16)
SFTTrainer(model=model, tokenizer=tok, args=SFTConfig(per_device_train_batch_size={bs}, bf16=True,
           output_dir="o")).train()
"""


def test_an_unsloth_fastmodel_program_is_estimated_with_its_compiler_terms(offline, tmp_path, capsys):
    # c-unsloth2: FastModel runs transformers' modules under unsloth_zoo's compiler - its fused cross-entropy and
    # offloaded checkpoints are pinned by the source (loader.py -> unsloth_compile_transformers(fuse_lm_head=True)),
    # so a FastModel run is an estimate, no longer an upper bound; what the compiler fuses inside a layer is not counted
    (tmp_path / "u.py").write_text(UNSLOTH.format(bs=1).replace("FastLanguageModel", "FastModel"))
    small = _check(capsys, tmp_path, "u.py", "--gpu", "mi300x")
    assert small["verdict"] == "fits" and small["understood"]["method"] == "lora"
    assert small["understood"]["lora_rank"] == 16 and small["understood"]["cutoff_len"] == 2048
    assert any("unsloth_zoo's compiler" in n and "fused cross-entropy" in n for n in small["notes"])
    # 512 rows of 2048 tokens: over a 24 GiB card whatever the compiler fuses - an answer, also for FastLanguageModel
    (tmp_path / "u.py").write_text(UNSLOTH.format(bs=512).replace("FastLanguageModel", "FastModel"))
    assert _check(capsys, tmp_path, "u.py", "--gpu", "rtx4090")["verdict"] == "oom"
    (tmp_path / "u.py").write_text(UNSLOTH.format(bs=512))
    assert _check(capsys, tmp_path, "u.py", "--gpu", "rtx4090")["verdict"] == "oom"


HELPERS_ONLY = """from unsloth import is_bfloat16_supported
from unsloth.chat_templates import get_chat_template
from transformers import AutoModelForCausalLM, TrainingArguments
from trl import SFTTrainer
model = AutoModelForCausalLM.from_pretrained("{name}")
SFTTrainer(model=model, args=TrainingArguments(per_device_train_batch_size=1, output_dir="o")).train()
"""


def test_an_unsloth_program_over_the_card_while_loading_is_an_oom(offline, tmp_path, capsys):
    # Unsloth imported for its chat templates; transformers < 5 loads a 14B model in fp32 (56 GiB) onto a 24 GiB
    # card: the kernels act in the step, the load phase alone is over the card - an answer, not "unknown"
    (tmp_path / "p.py").write_text(HELPERS_ONLY.format(name="microsoft/phi-4"))
    d = _check(capsys, tmp_path, "p.py", "--gpu", "rx7900xtx")
    assert d["verdict"] == "oom" and d["oom_phase"] == "load"
    assert any(f["code"] == "kernels-not-modelled" for f in d["findings"])
    (tmp_path / "p.py").write_text(HELPERS_ONLY.format(name="Qwen/Qwen2.5-0.5B"))
    assert _check(capsys, tmp_path, "p.py", "--gpu", "rx7900xtx")["verdict"] in ("fits", "unknown")


def _qlora(model, **kw) -> int:
    cfg = TrainConfig(method="qlora", quant_bits=4, precision="bf16", cutoff_len=1024, micro_batch=1, runner="hf", **kw)
    return estimate(model, cfg).per_gpu.frozen_weights_bytes


def test_qlora_quantizes_experts_held_as_linears_not_fused_ones():
    moe = load_model("qwen3-30b-a3b")                  # one nn.Linear per expert (transformers 4.x)
    assert moe.experts_as_linears
    frozen = _qlora(moe)
    # 4-bit experts: about 0.53 bytes per parameter of the whole 30.5B model, far under its 16-bit 61 GB
    assert frozen < 0.6 * moe.params.total and frozen > 0.45 * moe.params.total
    scout = load_model("llama-4-scout")                # Llama4TextExperts: fused 3-D parameters, left 16-bit
    assert not scout.experts_as_linears
    assert _qlora(scout) > 1.5 * scout.params.experts
    from dataclasses import replace
    linear = replace(scout, experts_as_linears=True)   # an axolotl-quants "Linearized" checkpoint
    assert _qlora(linear) < 0.6 * scout.params.total


def test_a_linearized_checkpoint_name_quantizes_llama4_experts(offline, tmp_path, capsys):
    (tmp_path / "q.yaml").write_text(
        "base_model: axolotl-quants/Llama-4-Scout-17B-16E-Linearized-bnb-nf4-bf16\nload_in_4bit: true\n"
        "adapter: qlora\nlora_r: 32\nsequence_len: 4096\nmicro_batch_size: 1\ngradient_checkpointing: true\n"
        "bf16: true\noptimizer: adamw_torch_4bit\ndatasets:\n  - path: x\n    type: chat_template\n")
    d = _check(capsys, tmp_path, "q.yaml", "--gpu", "h100-sxm")
    assert d["verdict"] == "fits", d["reason"]
    assert any("linearized" in n for n in d["notes"])
    assert d["memory"]["load"]["reserved_bytes"] < 70 * GiB


def test_megatron_counts_its_own_mixed_precision(offline, tmp_path, capsys):
    (tmp_path / "m.sh").write_text(
        "NPROC_PER_NODE=2 CUDA_VISIBLE_DEVICES=0,1 megatron sft --model Qwen/Qwen2.5-7B-Instruct "
        "--tensor_model_parallel_size 2 --sequence_parallel true --micro_batch_size 1 --global_batch_size 16 "
        "--recompute_granularity full --recompute_method uniform --recompute_num_layers 1 --max_length 2048 "
        "--train_type full\n")
    d = _check(capsys, tmp_path, "m.sh", "--vram-gib", "80")
    p = load_model("qwen2.5-7b").params.total
    # bf16 weights + fp32 main gradients per TP shard, fp32 master + Adam moments (12 B) over TP x DP (= 2 x 1)
    states = (2 + 4 + 12) * p / 2
    save = d["memory"]["save"]["peak_allocated_bytes"]
    assert abs(save - states) < 0.03 * states, (save / GiB, states / GiB)
    assert d["memory"]["load"]["peak_allocated_bytes"] == pytest.approx(2 * p / 2, rel=0.03)


GRPO_YAML = """model_name_or_path: Qwen/Qwen2.5-7B-Instruct
torch_dtype: bfloat16
bf16: true
use_vllm: true
vllm_mode: {mode}
vllm_gpu_memory_utilization: 0.3
{sleep}gradient_checkpointing: true
per_device_train_batch_size: 4
num_generations: 8
max_prompt_length: 512
max_completion_length: 1024
beta: {beta}
learning_rate: 1.0e-06
output_dir: out
{peft}"""
ACC_Z3 = ("compute_environment: LOCAL_MACHINE\ndeepspeed_config:\n  zero3_init_flag: true\n  zero_stage: 3\n"
          "distributed_type: DEEPSPEED\nmixed_precision: bf16\nnum_machines: 1\nnum_processes: 8\n")


def _grpo(capsys, tmp_path, mode="colocate", sleep="", beta=0.04, peft="") -> dict:
    (tmp_path / "grpo.yaml").write_text(GRPO_YAML.format(mode=mode, sleep=sleep, beta=beta, peft=peft))
    (tmp_path / "zero3.yaml").write_text(ACC_Z3)
    (tmp_path / "launch.sh").write_text("accelerate launch --config_file zero3.yaml src/open_r1/grpo.py "
                                        "--config grpo.yaml\n")
    return _check(capsys, tmp_path, "launch.sh", "zero3.yaml", "grpo.yaml", "--gpu", "h100-sxm")


def test_grpo_counts_the_colocated_engine_the_reference_and_the_sequences(offline, tmp_path, capsys):
    vram = 80 * GiB
    server = _grpo(capsys, tmp_path, mode="server")
    colo = _grpo(capsys, tmp_path, mode="colocate")
    asleep = _grpo(capsys, tmp_path, mode="colocate", sleep="vllm_enable_sleep_mode: true\n")
    assert server["understood"]["cutoff_len"] == 512 + 1024 and server["understood"]["micro_batch"] == 4
    step = {n: d["memory"]["step"]["peak_allocated_bytes"] for n, d in
            (("server", server), ("colo", colo), ("asleep", asleep))}
    # colocated without sleep: 30 % of the card next to the training step
    assert step["colo"] - step["server"] == pytest.approx(0.3 * vram, rel=0.02)
    # asleep the engine only adds to the generation (training state + engine), not to the step
    assert step["server"] <= step["asleep"] < step["colo"]
    # the reference copy (beta 0.04) of a full fine-tune: 7.6B bf16 over 8 ZeRO-3 ranks, in every phase
    ref = load_model("qwen2.5-7b").params.total * 2 / 8
    nobeta = _grpo(capsys, tmp_path, mode="server", beta=0.0)
    assert server["memory"]["save"]["peak_allocated_bytes"] - nobeta["memory"]["save"]["peak_allocated_bytes"] \
        == pytest.approx(ref, rel=0.02)
    lora = _grpo(capsys, tmp_path, mode="server", peft="use_peft: true\nlora_r: 16\n")
    assert lora["understood"]["method"] == "lora" and not any("reference copy" in n for n in lora["notes"])


def test_custom_script_flags_are_read(offline, tmp_path, capsys):
    (tmp_path / "ds.sh").write_text(
        "deepspeed --num_gpus 4 main.py --model_name_or_path meta-llama/Llama-2-7b-hf --per_device_train_batch_size 2 "
        "--max_seq_len 512 --zero_stage 2 --lora_dim 64 --only_optimize_lora --deepspeed --output_dir o\n")
    d = _check(capsys, tmp_path, "ds.sh", "--gpu", "a100-80gb")
    assert d["understood"]["method"] == "lora" and d["understood"]["lora_rank"] == 64
    assert d["understood"]["zero_stage"] == 2 and d["understood"]["cutoff_len"] == 512
    (tmp_path / "sft.sh").write_text(
        "torchrun --nproc_per_node 2 supervised_finetuning.py --model_name_or_path meta-llama/Llama-2-7b-hf "
        "--use_peft True --max_source_length 256 --max_target_length 512 --per_device_train_batch_size 4 "
        "--fp16 --output_dir o\n")
    d = _check(capsys, tmp_path, "sft.sh", "--gpu", "a100-80gb")
    assert d["understood"]["method"] == "lora" and d["understood"]["cutoff_len"] == 768


def test_bloom_sizes_are_read():
    assert parse_name("bigscience/bloom-7b1").size_b == pytest.approx(7.1)
    assert parse_name("bigscience/bloomz-1b7").size_b == pytest.approx(1.7)
    assert parse_name("Qwen/Qwen2.5-7B").size_b == 7.0


def test_a_thin_oom_is_said_to_be_inside_the_estimates_error(offline, tmp_path, capsys):
    yaml_text = ("model_name_or_path: Qwen/Qwen2.5-7B-Instruct\nstage: sft\nfinetuning_type: lora\nlora_target: all\n"
                 "template: qwen\ncutoff_len: {n}\nper_device_train_batch_size: 1\nbf16: true\noutput_dir: o\n")

    def run(n: int) -> dict:
        (tmp_path / "t.yaml").write_text(yaml_text.format(n=n))
        return _check(capsys, tmp_path, "t.yaml", "--gpu", "rtx4090")

    # the cutoff where the verdict turns, found by bisection (by construction, whatever the estimator's figures)
    lo, hi = 64, 65536
    assert run(lo)["verdict"] == "fits" and run(hi)["verdict"] == "oom"
    while hi - lo > 8:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if run(mid)["verdict"] == "fits" else (lo, mid)
    just_over = run(hi)
    codes = [f["code"] for f in just_over["findings"]]
    assert just_over["verdict"] == "oom" and "oom-margin-thin" in codes
    assert -just_over["margin_bytes"] <= C.THIN_OOM_SHARE * 24 * GiB
    far = run(65536)
    assert -far["margin_bytes"] > C.THIN_OOM_SHARE * 24 * GiB
    assert "oom-margin-thin" not in [f["code"] for f in far["findings"]]


def test_grpo_before_trl_018_puts_vllm_on_a_gpu_of_its_own_that_must_also_take_the_weights(offline, tmp_path,
                                                                                            capsys):
    def run(model: str) -> dict:
        (tmp_path / "g.yaml").write_text(
            f"model_name_or_path: {model}\nbf16: true\nuse_vllm: true\nvllm_gpu_memory_utilization: 0.8\n"
            "use_peft: true\nlora_r: 16\nper_device_train_batch_size: 8\nnum_generations: 8\n"
            "gradient_checkpointing: true\nlearning_rate: 1.0e-05\noutput_dir: o\n")
        (tmp_path / "l.sh").write_text("accelerate launch --num_processes 1 train_grpo.py --config g.yaml\n")
        return _check(capsys, tmp_path, "l.sh", "g.yaml", "--vram-gib", "32")

    small, big = run("Qwen/Qwen2.5-1.5B-Instruct"), run("Qwen/Qwen2.5-7B-Instruct")
    gib32 = 32 * GiB
    # the engine's 80 % of the card plus the 16-bit weights it loads at every sync
    assert small["memory"]["generate"]["peak_allocated_bytes"] == pytest.approx(
        0.8 * gib32 + 2 * load_model("qwen2.5-1.5b").params.total, rel=0.01)
    assert small["verdict"] == "fits"
    assert big["verdict"] == "oom" and big["oom_phase"] == "generate"


def test_a_script_named_like_the_deepspeed_config_is_not_taken_for_it(offline, tmp_path, capsys):
    (tmp_path / "zero3.sh").write_text(
        "NPROC_PER_NODE=2 CUDA_VISIBLE_DEVICES=0,1 swift sft --model Qwen/Qwen2.5-7B-Instruct --tuner_type lora "
        "--max_length 2048 --per_device_train_batch_size 1 --deepspeed zero3\n")
    d = _check(capsys, tmp_path, "zero3.sh", "--vram-gib", "80")
    assert d["understood"]["zero_stage"] == 3
    assert any("ms-swift's built-in ZeRO-3" in n for n in d["notes"])


def test_a_programs_argparse_and_environment_defaults_are_read(offline, tmp_path, capsys):
    (tmp_path / "p.py").write_text(
        "import argparse, os\nfrom transformers import AutoModelForCausalLM, TrainingArguments, Trainer\n"
        "p = argparse.ArgumentParser()\np.add_argument('--batch', dest='per_device_train_batch_size', type=int, "
        "default=6)\np.add_argument('--max-len', type=int, default=3072)\nargs = p.parse_args()\n"
        "model_id = os.getenv('MODEL_ID', 'Qwen/Qwen2.5-1.5B-Instruct')\n"
        "model = AutoModelForCausalLM.from_pretrained(model_id, torch_dtype='bfloat16')\n"
        "ta = TrainingArguments(output_dir='o', per_device_train_batch_size=args.per_device_train_batch_size, "
        "bf16=True, max_length=args.max_len)\nTrainer(model=model, args=ta).train()\n")
    d = _check(capsys, tmp_path, "p.py", "--gpu", "mi300x")
    assert d["model"]["name"] == "qwen2.5-1.5b"
    assert d["understood"]["micro_batch"] == 6 and d["understood"]["cutoff_len"] == 3072


def test_cut_cross_entropy_holds_no_logits_in_evaluation_either_liger_does(offline, tmp_path, capsys):
    base = ("base_model: Qwen/Qwen2.5-7B-Instruct\nadapter: lora\nlora_r: 16\nlora_target_linear: true\n"
            "sequence_len: 4096\nmicro_batch_size: 1\neval_batch_size: 4\nval_set_size: 0.05\n"
            "gradient_checkpointing: true\nbf16: true\ndatasets:\n  - path: x\n    type: alpaca\n")
    evals = {}
    for name, extra in (("plain", ""), ("cce", "plugins:\n  - axolotl.integrations.cut_cross_entropy."
                                              "CutCrossEntropyPlugin\ncut_cross_entropy: true\n"),
                        ("liger", "plugins:\n  - axolotl.integrations.liger.LigerPlugin\nliger_fused_linear_cross_"
                                  "entropy: true\n")):
        (tmp_path / "a.yaml").write_text(base + extra)
        d = _check(capsys, tmp_path, "a.yaml", "--gpu", "h100-sxm")
        assert d["memory"]["eval"], name
        evals[name] = d["memory"]["eval"]["peak_allocated_bytes"]
    logits = 4 * 4096 * load_model("qwen2.5-7b").vocab_size * 10          # eval batch x tokens x vocab x 10 B
    assert evals["plain"] - evals["cce"] == pytest.approx(logits - 4 * 4096 * 3584 * 8, rel=0.02)
    assert evals["liger"] == evals["plain"]


def test_a_notebook_that_writes_its_config_and_starts_it_is_read(offline, tmp_path, capsys):
    cells = [{"cell_type": "code", "source": ["!pip install llamafactory\n"]},
             {"cell_type": "code", "source": ["%%writefile train_qwen.yaml\n", "model_name_or_path: Qwen/Qwen2.5-7B-Instruct\n",
                                              "stage: sft\n", "finetuning_type: lora\n", "lora_target: all\n",
                                              "template: qwen\n", "cutoff_len: 1024\n",
                                              "per_device_train_batch_size: 3\n", "bf16: true\n", "output_dir: o\n"]},
             {"cell_type": "code", "source": ["!llamafactory-cli train train_qwen.yaml\n"]}]
    (tmp_path / "colab.ipynb").write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4,
                                                      "nbformat_minor": 5}))
    d = _check(capsys, tmp_path, "colab.ipynb", "--gpu", "mi300x")
    assert d["runner"] == "llamafactory" and d["verdict"] == "fits"
    assert d["understood"]["micro_batch"] == 3 and d["understood"]["cutoff_len"] == 1024


def test_galore_and_apollo_keep_low_rank_moments_and_layerwise_holds_no_gradients(offline, tmp_path, capsys):
    yaml_text = ("model_name_or_path: meta-llama/Meta-Llama-3-8B-Instruct\nstage: sft\nfinetuning_type: full\n"
                 "template: llama3\ncutoff_len: 1024\nper_device_train_batch_size: 1\npure_bf16: true\n"
                 "output_dir: o\n{extra}")
    res = {}
    for name, extra in (("adamw", ""), ("galore", "use_galore: true\ngalore_target: all\n"),
                        ("layerwise", "use_galore: true\ngalore_layerwise: true\n"),
                        ("hf_apollo", "optim: apollo_adamw\n")):
        (tmp_path / "g.yaml").write_text(yaml_text.format(extra=extra))
        res[name] = _check(capsys, tmp_path, "g.yaml", "--gpu", "mi300x")
    assert res["adamw"]["understood"]["optim"] == "adamw"
    assert res["galore"]["understood"]["optim"] == res["hf_apollo"]["understood"]["optim"] == "adafactor"
    save = {k: d["memory"]["save"]["peak_allocated_bytes"] for k, d in res.items()}
    p = load_model("llama-3-8b").params.total
    assert save["adamw"] - save["galore"] > 3 * p            # bf16 Adam moments (4 B/param) -> a factored state
    step = {k: d["memory"]["step"]["peak_allocated_bytes"] for k, d in res.items()}
    assert step["galore"] - step["layerwise"] > 1.5 * p       # the bf16 gradients (2 B/param) never all held
