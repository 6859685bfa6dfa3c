"""`rocm-tune check` on calibration cases (../shared/calibration/real-configs/): FSDP / FSDP2 read and estimated,
and the ZeRO-1/2 step temporaries of DeepSpeed's stage_1_and_2.py. The CLI is driven as a user would, with the
model given as its published config.json (a local directory, as `--model PATH`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
GIB = 2**30

# huggingface.co/meta-llama/Llama-2-70b-hf config.json (the memory-relevant keys)
LLAMA2_70B = {"model_type": "llama", "hidden_size": 8192, "intermediate_size": 28672, "num_hidden_layers": 80,
              "num_attention_heads": 64, "num_key_value_heads": 8, "vocab_size": 32000,
              "tie_word_embeddings": False, "torch_dtype": "float16", "rms_norm_eps": 1e-5,
              "max_position_embeddings": 4096}
# huggingface.co/Qwen/Qwen1.5-7B config.json
QWEN15_7B = {"model_type": "qwen2", "hidden_act": "silu", "rms_norm_eps": 1e-6, "tie_word_embeddings": False,
             "torch_dtype": "bfloat16", "max_position_embeddings": 32768, "hidden_size": 4096,
             "intermediate_size": 11008, "num_hidden_layers": 32, "num_attention_heads": 32,
             "num_key_value_heads": 32, "vocab_size": 151936}

# axolotl-ai-cloud/axolotl#1428 (calibration ax-pr1428-llama2-70b-qlora-fsdp-2x24gb/qlora-fsdp.yml), the keys
# that drive memory, as posted: Llama-2-70B QLoRA, FSDP full_shard + parameter offload, 2 x 24 GB -> ran at
# ~14 GB per GPU.
AX_1428 = """base_model: NousResearch/Llama-2-70b-hf
load_in_4bit: true
adapter: qlora
sequence_len: 512
pad_to_sequence_len: true
lora_r: 32
lora_alpha: 16
lora_target_linear: true
gradient_accumulation_steps: 4
micro_batch_size: 4
optimizer: adamw_torch
bf16: auto
gradient_checkpointing: true
flash_attention: true
fsdp:
  - full_shard
fsdp_config:
  fsdp_limit_all_gathers: true
  fsdp_sync_module_states: true
  fsdp_offload_params: true
  fsdp_use_orig_params: false
  fsdp_cpu_ram_efficient_loading: true
  fsdp_transformer_layer_cls_to_wrap: LlamaDecoderLayer
  fsdp_state_dict_type: SHARDED_STATE_DICT
"""

# hiyouga/LlamaFactory#4133 (calibration lf-4133-qwen15-7b-full-z2-8xa100-40g): launch.sh, the YAML's memory keys
# and LLaMA-Factory's ds_z2_config.json as posted: Qwen1.5-7B full, fp16, ZeRO-2 on 8 x A100-40GB -> OOM.
LF_4133_SH = """CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7,8 torchrun \\
    --nproc_per_node 8 \\
    --nnodes 1 \\
    src/train.py examples/qwen2_full_sft_ds_tool.yaml
"""
LF_4133_YAML = """model_name_or_path: "/home/dataset/code/LLM/model/qwen-1.5-7B/"
stage: sft
do_train: true
finetuning_type: full
deepspeed: examples/deepspeed/ds_z2_config.json
template: qwen
cutoff_len: 512
per_device_train_batch_size: 1
gradient_accumulation_steps: 1
fp16: true
"""
LF_DS_Z2 = {"train_batch_size": "auto", "train_micro_batch_size_per_gpu": "auto",
            "gradient_accumulation_steps": "auto", "gradient_clipping": "auto", "zero_allow_untested_optimizer": True,
            "fp16": {"enabled": "auto", "loss_scale": 0, "loss_scale_window": 1000, "initial_scale_power": 16,
                     "hysteresis": 2, "min_loss_scale": 1},
            "bf16": {"enabled": "auto"},
            "zero_optimization": {"stage": 2, "allgather_partitions": True, "allgather_bucket_size": 5e8,
                                  "overlap_comm": False, "reduce_scatter": True, "reduce_bucket_size": 5e8,
                                  "contiguous_gradients": True, "round_robin_gradients": True}}


def _model(tmp_path: Path, name: str, cfg: dict) -> str:
    d = tmp_path / name
    d.mkdir()
    (d / "config.json").write_text(json.dumps(cfg))
    return str(d)


def _check(*args: str) -> tuple[int, dict]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    r = subprocess.run([sys.executable, "-m", "rocm_tune", "check", *args, "--json"], capture_output=True,
                       text=True, env=env, timeout=120, check=False)
    assert r.returncode in (0, 1), r.stderr
    return r.returncode, json.loads(r.stdout)


def test_axolotl_fsdp_offload_qlora_70b_fits_two_24gb_cards(tmp_path):
    yml = tmp_path / "qlora-fsdp.yml"
    yml.write_text(AX_1428)
    model = _model(tmp_path, "Llama-2-70b-hf", LLAMA2_70B)
    _rc, out = _check(str(yml), "--gpus", "2", "--model", model, "--gpu", "GPU 24GB", "--vram-gib", "24")
    assert out["execution"]["sharding"] == "FSDP FULL_SHARD + CPU offload of parameters"
    assert out["verdict"] == "fits"                      # the case ran
    step = out["memory"]["step"]["reserved_bytes"]
    assert 2 * GIB < step < 24 * GIB
    # the 4-bit 70B base (~35 GB) and its optimizer live in host memory, sharded over the two ranks
    assert out["cpu_ram_bytes"] > 15 * GIB

    # the same job without parameter offload: the sharded base comes back to each GPU (~17 GB more)
    yml.write_text(AX_1428.replace("fsdp_offload_params: true", "fsdp_offload_params: false"))
    _rc, on_gpu = _check(str(yml), "--gpus", "2", "--model", model, "--gpu", "GPU 24GB", "--vram-gib", "24")
    assert on_gpu["execution"]["sharding"] == "FSDP FULL_SHARD"
    assert on_gpu["memory"]["step"]["peak_allocated_bytes"] - out["memory"]["step"]["peak_allocated_bytes"] > 14 * GIB
    assert on_gpu["cpu_ram_bytes"] == 0


def _accel(strategy_lines: str) -> str:
    return ("compute_environment: LOCAL_MACHINE\ndistributed_type: FSDP\nmixed_precision: bf16\n"
            "num_machines: 1\nnum_processes: 4\nfsdp_config:\n" + strategy_lines)


@pytest.mark.parametrize("lines,label", [
    ("  fsdp_sharding_strategy: FULL_SHARD\n  fsdp_offload_params: false\n", "FSDP FULL_SHARD"),
    ("  fsdp_sharding_strategy: SHARD_GRAD_OP\n", "FSDP SHARD_GRAD_OP"),
    ("  fsdp_sharding_strategy: NO_SHARD\n", "FSDP NO_SHARD"),
    ("  fsdp_version: 2\n  fsdp_reshard_after_forward: true\n", "FSDP2 FULL_SHARD"),
])
def test_accelerate_fsdp_strategies_order_memory(tmp_path, lines, label):
    """A full fine-tune of Qwen1.5-7B through `accelerate launch` with each sharding strategy: FULL_SHARD holds
    a quarter of the states, SHARD_GRAD_OP adds the whole unsharded model, NO_SHARD is DDP (all states)."""
    model = _model(tmp_path, "Qwen1.5-7B", QWEN15_7B)
    (tmp_path / "fsdp.yaml").write_text(_accel(lines))
    (tmp_path / "run.sh").write_text(
        "accelerate launch --config_file fsdp.yaml src/train.py --model_name_or_path Qwen1.5-7B --stage sft "
        "--finetuning_type full --bf16 --cutoff_len 1024 --per_device_train_batch_size 1\n")
    _rc, out = _check(str(tmp_path / "run.sh"), str(tmp_path / "fsdp.yaml"), "--model", model)
    assert out["execution"]["sharding"] == label
    step = out["memory"]["step"]["peak_allocated_bytes"]
    n = 7.72e9                                       # Qwen1.5-7B parameters
    if label in ("FSDP FULL_SHARD", "FSDP2 FULL_SHARD"):
        # bf16 weights + grads + fp32 Adam (LLaMA-Factory's full fine-tune: fp32 trainable) over 4, plus units
        assert n * 4 / 4 < step < n * 16 / 4 + 12 * GIB
    elif label == "FSDP SHARD_GRAD_OP":
        assert step > n * 2                          # the whole unsharded model between forward and backward
    else:
        assert step > n * 12                         # nothing sharded


def test_fsdp_spec_reads_axolotl_and_accelerate_spellings():
    from rocm_tune.core.runners.fsdp import spec_from

    assert spec_from(["full_shard", "auto_wrap", "offload"], None, "x").offload_params
    assert spec_from(None, {"fsdp_sharding_strategy": 2}, "x").strategy == "SHARD_GRAD_OP"
    assert spec_from(None, {"fsdp_version": 2, "reshard_after_forward": False}, "x").strategy == "SHARD_GRAD_OP"
    assert spec_from(None, {"fsdp_reshard_after_forward": "HYBRID_SHARD"}, "x").strategy == "HYBRID_SHARD"
    assert spec_from(None, None, "x") is None
    assert spec_from(None, {"fsdp_activation_checkpointing": True}, "x").activation_checkpointing


def test_fsdp_activation_checkpointing_turns_checkpointing_on(tmp_path):
    model = _model(tmp_path, "Qwen1.5-7B", QWEN15_7B)
    (tmp_path / "fsdp.yaml").write_text(_accel("  fsdp_sharding_strategy: FULL_SHARD\n"
                                               "  fsdp_activation_checkpointing: true\n"))
    (tmp_path / "run.sh").write_text("accelerate launch --config_file fsdp.yaml train.py --model_name_or_path "
                                     "Qwen1.5-7B --bf16 True --max_length 2048 --per_device_train_batch_size 2\n")
    _rc, on = _check(str(tmp_path / "run.sh"), str(tmp_path / "fsdp.yaml"), "--model", model)
    assert on["understood"]["gradient_checkpointing"] is True
    assert any("fsdp_activation_checkpointing" in a for a in on["assumptions"])
    (tmp_path / "fsdp.yaml").write_text(_accel("  fsdp_sharding_strategy: FULL_SHARD\n"))
    _rc, off = _check(str(tmp_path / "run.sh"), str(tmp_path / "fsdp.yaml"), "--model", model)
    assert off["understood"]["gradient_checkpointing"] is False      # the HF Trainer's default
    assert off["memory"]["step"]["peak_allocated_bytes"] > on["memory"]["step"]["peak_allocated_bytes"]


def test_lf4133_zero2_fp16_step_counts_overflow_norm_and_foreach_temporaries(tmp_path):
    """DeepSpeed stage_1_and_2.py step(): beyond the flattened partition + fp32 copy, the fp32 gradient and
    torch AdamW's foreach sqrt temporary (partition x 8 B) and the fp16 overflow check (11 B x the 622 M-element
    embedding piece) are live on top of the resident states."""
    (tmp_path / "launch.sh").write_text(LF_4133_SH)
    (tmp_path / "qwen2_full_sft_ds_tool.yaml").write_text(LF_4133_YAML)
    (tmp_path / "ds_z2_config.json").write_text(json.dumps(LF_DS_Z2))
    model = _model(tmp_path, "qwen-1.5-7B", QWEN15_7B)
    files = [str(tmp_path / n) for n in ("launch.sh", "qwen2_full_sft_ds_tool.yaml", "ds_z2_config.json")]
    _rc, out = _check(*files, "--model", model, "--gpu", "a100-40gb")
    assert out["world_size"] == 8
    from rocm_tune.core.memory.estimate import TrainConfig
    from rocm_tune.core.model.architecture import load_model
    from rocm_tune.core.runners import deepspeed as ds

    spec = load_model(model)
    u = out["understood"]
    assert (u["method"], u["precision"], u["zero_stage"], u["gpus"]) == ("full", "fp16", 2, 8)
    cfg = TrainConfig(method="full", precision="fp16", gpus=8, zero_stage=2, cutoff_len=512, micro_batch=1,
                      runner="llamafactory")
    z = ds.zero12_step(spec, cfg, ds_optimizer_block=False)
    part = spec.params.total / 8
    assert z.optimizer_step == pytest.approx(part * 8)
    assert z.overflow_check == pytest.approx(11 * spec.params.embed)
    assert z.extra == pytest.approx(part * 2)          # counted: partition x (2 + 4)
    # with DeepSpeed's own FusedAdam (a JSON "optimizer" block) only the fp16 overflow check is above what is counted
    assert ds.zero12_step(spec, cfg, ds_optimizer_block=True).extra == pytest.approx(11 * spec.params.embed - 6 * part)
    step = out["memory"]["step"]["peak_allocated_bytes"]
    # fp16 weights 15.4 GB + fp32 master/Adam 12 B x 7.72 B / 8 + grads + IPG 1 GB + partition x 8
    assert step > 0.99 * (2 * spec.params.total + 12 * part + 2 * part + 5e8 * 2 + 8 * part)
    assert out["memory"]["step"]["reserved_bytes"] > 0.9 * 40 * GIB   # thin: margin-thin at least
    assert any(f["code"] == "margin-thin" for f in out["findings"]) or out["verdict"] == "oom"


def test_communicator_memory_by_interconnect():
    """nvidia-smi shows NCCL/RCCL buffers the allocator does not: DeepSpeed opens two communicators, DDP/FSDP one;
    NVLS on NVSwitch H100/H200 adds 2.25 GiB each; nothing on one GPU."""
    from rocm_tune.core.check.check import COMM_LINK, COMM_NVLS, COMM_PCIE, communicator_bytes
    from rocm_tune.core.memory.estimate import TrainConfig
    from rocm_tune.profiles.gpu_profiles import get_gpu_profile

    z3 = TrainConfig(method="full", zero_stage=3, gpus=8)
    assert communicator_bytes(z3, get_gpu_profile("h200"))[0] == 2 * COMM_NVLS
    assert communicator_bytes(z3, get_gpu_profile("a100-40gb"))[0] == 2 * COMM_LINK
    assert communicator_bytes(z3, get_gpu_profile("mi300x"))[0] == 2 * COMM_LINK
    assert communicator_bytes(z3, get_gpu_profile("rtx3090"))[0] == 2 * COMM_PCIE     # a bridge is not a fabric
    assert communicator_bytes(TrainConfig(gpus=4), get_gpu_profile("rtx4090"))[0] == COMM_PCIE
    assert communicator_bytes(TrainConfig(gpus=1), get_gpu_profile("h200")) == (0, None)


# ROCm blog "Fine-tune Llama 2 with LoRA" on MI300X (calibration rocmblog-llama2-7b-lora-fp32-mi300x/
# train_snippets.py), the code blocks that set memory, as posted: no torch_dtype (fp32 weights), no fp16/bf16,
# LoraConfig without target_modules, SFTTrainer without max_seq_length. rocm-smi showed 43 % of 192 GB.
ROCM_BLOG = '''import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, TrainingArguments
from peft import LoraConfig
from trl import SFTTrainer
base_model_name = "NousResearch/Llama-2-7b-chat-hf"
llama_tokenizer = AutoTokenizer.from_pretrained(base_model_name, trust_remote_code=True, torch_dtype=torch.float16)
base_model = AutoModelForCausalLM.from_pretrained(
    base_model_name,
    device_map="auto"
)
train_params = TrainingArguments(
    output_dir="./results_modified",
    per_device_train_batch_size=4,
    gradient_accumulation_steps=1,
    fp16=False,
    bf16=False,
    group_by_length=True,
)
peft_parameters = LoraConfig(lora_alpha=8, lora_dropout=0.1, r=8, bias="none", task_type="CAUSAL_LM")
fine_tuning = SFTTrainer(model=base_model, train_dataset=None, peft_config=peft_parameters,
                         dataset_text_field="text", tokenizer=llama_tokenizer, args=train_params)
fine_tuning.train()
'''
LLAMA2_7B = {"model_type": "llama", "hidden_size": 4096, "intermediate_size": 11008, "num_hidden_layers": 32,
             "num_attention_heads": 32, "num_key_value_heads": 32, "vocab_size": 32000,
             "tie_word_embeddings": False, "torch_dtype": "float16", "rms_norm_eps": 1e-5,
             "max_position_embeddings": 4096}


def test_python_program_arguments_are_read_and_stated(tmp_path):
    f = tmp_path / "train.py"
    f.write_text(ROCM_BLOG)
    model = _model(tmp_path, "Llama-2-7b-chat-hf", LLAMA2_7B)
    rc, out = _check(str(f), "--gpu", "mi300x", "--model", model)
    u = out["understood"]
    assert out["runner"] == "hf" and out["world_size"] == 1
    assert (u["method"], u["lora_rank"], u["micro_batch"], u["cutoff_len"], u["precision"]) == \
        ("lora", 8, 4, 1024, "fp32")
    assert u["lora_targets"] == ["q_proj", "v_proj"] and u["gradient_checkpointing"] is False
    # the model's from_pretrained (line 7, no torch_dtype) decides: fp32 weights, 4 B x 6.74 B params
    assert out["execution"]["frozen_weights"] == "fp32"
    assert out["memory"]["load"]["peak_allocated_bytes"] > 4 * 6.7e9
    assert out["verdict"] == "fits" and rc == 0
    assert any("PEFT's default" in a for a in out["assumptions"])


def test_unsloth_program_is_a_named_unknown(tmp_path):
    # unslothai/unsloth#2366 (calibration unsloth-2366-.../code_as_posted_partial.py), as posted: cut mid-call
    f = tmp_path / "u.py"
    f.write_text("from unsloth import FastModel\nimport torch\nmax_seq_length = 16000\n"
                 "model, tokenizer = FastModel.from_pretrained(\n    model_name = \"google/gemma-3-12b-it\",\n"
                 "    load_in_8\n")
    rc, out = _check(str(f), "--gpu", "h100-sxm")
    assert rc == 1 and out["verdict"] == "unknown"
    assert [x["code"] for x in out["findings"]] == ["format-not-modelled"]
    assert "unsloth" in out["findings"][0]["message"]


def test_moe_config_of_an_unknown_architecture_is_no_verdict(tmp_path):
    """An architecture the loader does not know is counted as a dense Llama-style decoder; with experts in its
    config that would be several times too low: model-not-modelled, verdict unknown (never silently wrong)."""
    cfg = {"model_type": "hypothetical_moe", "hidden_size": 2048, "intermediate_size": 1024, "num_hidden_layers": 16,
           "num_attention_heads": 16, "num_key_value_heads": 4, "num_local_experts": 64, "num_experts_per_tok": 8,
           "vocab_size": 50000, "torch_dtype": "bfloat16"}
    model = _model(tmp_path, "moe", cfg)
    y = tmp_path / "t.yaml"
    y.write_text("model_name_or_path: moe\nstage: sft\nfinetuning_type: lora\nbf16: true\ncutoff_len: 1024\n")
    rc, out = _check(str(y), "--model", model, "--gpu", "h100-sxm")
    assert rc == 1 and out["verdict"] == "unknown" and out["memory"] is None
    assert [f["code"] for f in out["findings"] if f["severity"] == "error"] == ["model-not-modelled"]
    # the same config without experts: a dense fallback, estimated, and said
    cfg.pop("num_local_experts"), cfg.pop("num_experts_per_tok")
    (tmp_path / "moe" / "config.json").write_text(json.dumps(cfg))
    rc, out = _check(str(y), "--model", model, "--gpu", "h100-sxm")
    assert out["verdict"] == "fits" and "model-fallback" in [f["code"] for f in out["findings"]]


# ZeRO-3 + offload, LLaMA-Factory YAMLs as posted (their examples/deepspeed/ds_z3_offload_config.json is read as
# LLaMA-Factory's own file of that name). hiyouga/LlamaFactory#7282: R1-Distill-Llama-70B full, 8 x H200, ran at
# 27 GB per GPU; #5977: Meta-Llama-3-8B full fp16, 8 x RTX 3090, ran at ~13 G per card.
LF_7282 = """model_name_or_path: /disk2/liweichao/DeepSeek-R1-Distill-Llama-70B
stage: sft
do_train: true
finetuning_type: full
deepspeed: examples/deepspeed/ds_z3_offload_config.json
dataset: identity
template: llama3
cutoff_len: 1024
per_device_train_batch_size: 1
gradient_accumulation_steps: 1
"""
LF_5977 = """model_name_or_path: /data/llm/Meta-Llama-3-8B-Instruct
stage: sft
do_train: true
finetuning_type: full
deepspeed: examples/deepspeed/ds_z3_offload_config.json
dataset: identity,alpaca_en_demo
template: llama3
cutoff_len: 1024
max_samples: 1000
per_device_train_batch_size: 1
gradient_accumulation_steps: 2
fp16: true
"""
LLAMA3_70B = {"model_type": "llama", "hidden_size": 8192, "intermediate_size": 28672, "num_hidden_layers": 80,
              "num_attention_heads": 64, "num_key_value_heads": 8, "vocab_size": 128256,
              "tie_word_embeddings": False, "torch_dtype": "bfloat16", "rms_norm_eps": 1e-5,
              "max_position_embeddings": 131072}
LLAMA3_8B = {**LLAMA3_70B, "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
             "num_attention_heads": 32, "max_position_embeddings": 8192}


@pytest.mark.parametrize("yaml_text,cfg,gpu,measured_gib,band", [
    (LF_7282, LLAMA3_70B, "h200", 27e9 / GIB, (0.9, 1.1)),        # within 10 %
    (LF_5977, LLAMA3_8B, "rtx3090", 13e9 / GIB, (0.5, 1.0)),      # still ~40 % under (zero3-memory.md section 4)
])
def test_zero3_offload_reports_verdict_and_memory_band(tmp_path, yaml_text, cfg, gpu, measured_gib, band):
    y = tmp_path / "sft.yaml"
    y.write_text(yaml_text)
    model = _model(tmp_path, "m", cfg)
    _rc, out = _check(str(y), "--model", model, "--gpu", gpu, "--gpus", "8")
    assert out["verdict"] == "fits" and out["understood"]["zero_stage"] == 3 and out["understood"]["offload"] == "all"
    worst = max(p["reserved_bytes"] for p in out["memory"].values() if p) / GIB
    assert band[0] * measured_gib <= worst <= band[1] * measured_gib
    # the parts that make nvidia-smi's figure: DeepSpeed's two communicators are in it
    assert any("communicator" in n for n in out["notes"])


def test_axolotl_memory_savers_we_do_not_model_are_said(tmp_path):
    # keys of axolotl's examples/gpt-oss/gpt-oss-20b-fft-fsdp2.yaml (calibration ax-ex-gptoss20b-fft-fsdp2-4x80gb)
    y = tmp_path / "a.yaml"
    y.write_text("base_model: NousResearch/Llama-2-7b-hf\nplugins:\n  - axolotl.integrations.cut_cross_entropy."
                 "CutCrossEntropyPlugin\nsequence_len: 4096\nmicro_batch_size: 1\nbf16: true\n"
                 "optimizer: adamw_torch_8bit\ngradient_checkpointing: true\nactivation_offloading: true\n")
    model = _model(tmp_path, "Llama-2-7b-hf", LLAMA2_7B)
    _rc, out = _check(str(y), "--model", model, "--gpu", "h100-sxm")
    info = [(f["code"], f["line"]) for f in out["findings"] if f["code"] == "kernels-not-modelled"]
    assert info == [("kernels-not-modelled", 2)]
    # activation offloading with checkpointing is counted (issue 26): the layers' saved inputs leave the GPU
    assert any("offloaded to host memory" in n for n in out["notes"])
    assert out["understood"]["optim"] == "adamw_8bit"


def test_fsdp_allocations_shard_over_the_right_group():
    """HYBRID_SHARD shards inside a node (replicates across nodes); FULL_SHARD over every rank; offload leaves
    only the unsharded units on the GPU."""
    from rocm_tune.core.memory.estimate import TrainConfig, estimate
    from rocm_tune.core.model.architecture import load_model
    from rocm_tune.core.runners.fsdp import FsdpSpec, allocations

    m = load_model("qwen2.5-7b")
    cfg = TrainConfig(method="full", precision="bf16", gpus=4, nodes=2, runner="hf")
    one = estimate(m, TrainConfig(method="full", precision="bf16", runner="hf")).per_gpu
    full = allocations(m, cfg, FsdpSpec("FULL_SHARD", 1, False, "x"), one, 4)
    hybrid = allocations(m, cfg, FsdpSpec("HYBRID_SHARD", 1, False, "x"), one, 4)
    assert full.weights == pytest.approx(one.weights_bytes / 8)
    assert hybrid.weights == pytest.approx(one.weights_bytes / 4)
    assert hybrid.optimizer == pytest.approx(one.optimizer_bytes / 4)
    # two decoder layers + the root unit (embedding, lm_head, norms) in bf16, plus one layer's bf16 gradient
    p = m.params
    assert full.gathered == pytest.approx(2 * max(p.per_layer) * 2 + (p.embed + p.lm_head + p.norms) * 2
                                          + max(p.per_layer) * 2)
    off = allocations(m, cfg, FsdpSpec("FULL_SHARD", 1, True, "x"), one, 4)
    assert off.resident == 0 and off.host == pytest.approx(full.resident) and off.gathered == full.gathered


def test_llamafactory_under_fsdp_shards_an_fp32_model(tmp_path):
    """LLaMA-Factory's patch_config passes no torch_dtype under FSDP ("keep zero3 or fsdp in float32"): a LoRA
    run shards fp32 frozen weights; QLoRA loads in the compute dtype (4-bit)."""
    model = _model(tmp_path, "Qwen1.5-7B", QWEN15_7B)
    (tmp_path / "fsdp_config.yaml").write_text(_accel("  fsdp_sharding_strategy: FULL_SHARD\n").replace(
        "num_processes: 4", "num_processes: 2"))
    (tmp_path / "train.sh").write_text("accelerate launch --config_file fsdp_config.yaml src/train.py lora.yaml\n")
    base = "model_name_or_path: Qwen1.5-7B\nstage: sft\nfinetuning_type: lora\nlora_target: all\nbf16: true\n" \
           "cutoff_len: 1024\nper_device_train_batch_size: 1\n"
    (tmp_path / "lora.yaml").write_text(base)
    files = [str(tmp_path / n) for n in ("train.sh", "fsdp_config.yaml", "lora.yaml")]
    _rc, lora = _check(*files, "--model", model, "--gpu", "rtx4090")
    n = 7_721_324_544
    assert lora["world_size"] == 2 and lora["execution"]["sharding"] == "FSDP FULL_SHARD"
    assert any("keep zero3 or fsdp in float32" in x for x in lora["notes"])
    assert lora["memory"]["load"]["peak_allocated_bytes"] > 4 * n / 2
    (tmp_path / "lora.yaml").write_text(base + "quantization_bit: 4\n")
    _rc, qlora = _check(*files, "--model", model, "--gpu", "rtx4090")
    assert not any("float32" in x for x in qlora["notes"])
    assert qlora["memory"]["load"]["peak_allocated_bytes"] < lora["memory"]["load"]["peak_allocated_bytes"] / 2
