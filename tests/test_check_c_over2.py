"""`check` over-estimates (issue 26, c-over2): Megatron-LM at TP = PP = CP = 1 is Megatron's own 16-bit module with
fp32 main gradients (not a transformers model under torch DDP), Megatron-core's layer kernels keep what their
source saves (TE RMSNorm: 16-bit input + fp32 rsigma; the fused SwiGLU: linear_fc1's output only), and a Primus
Megatron-Bridge model file whose recipe builds its own LoRA is read with that LoRA. The configs are written here
(none is a corpus case); the expected bytes are the sources' formulas."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rocm_tune.cli import main
from rocm_tune.profiles import primus_recipes

# Llama-3.1-8B (the preset's shape): 32 layers, hidden 4096, MLP 14336, 8,030,261,248 parameters
LAYERS, HIDDEN, MLP, PARAMS = 32, 4096, 14336, 8_030_261_248
SEQ = 4096
MEGATRON = """torchrun --nproc_per_node 8 pretrain_gpt.py \\
  --num-layers 32 --hidden-size 4096 --ffn-hidden-size 14336 --num-attention-heads 32 \\
  --group-query-attention --num-query-groups 8 --swiglu --normalization RMSNorm \\
  --seq-length 4096 --max-position-embeddings 8192 --micro-batch-size 1 --global-batch-size 64 \\
  --tensor-model-parallel-size 1 --pipeline-model-parallel-size 1 --bf16 \\
  --train-iters 100 --lr 3e-4 --data-path /data/text_document{extra}
"""


def _check(tmp_path: Path, name: str, files: dict[str, str], args: list[str], capsys) -> dict:
    paths = []
    for fname, text in files.items():
        p = tmp_path / name / fname
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
        paths.append(str(p))
    rc = main(["check", *paths, *args, "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc in (0, 1), out
    return out


def _megatron(tmp_path, capsys, extra: str = "", name: str = "a") -> dict:
    return _check(tmp_path, name, {"train.sh": MEGATRON.format(extra=extra)},
                  ["--gpu", "mi300x", "--model", "llama-3.1-8b"], capsys)


def _step(j: dict) -> int:
    return int(j["memory"]["step"]["peak_allocated_bytes"])


def test_megatron_data_parallel_keeps_megatrons_own_states(tmp_path, capsys):
    j = _megatron(tmp_path, capsys)
    assert j["runner"] == "megatron" and j["understood"]["method"] == "full"
    # bf16 weights 2 + fp32 main gradients 4 (param_and_grad_buffer) + fp32 master 4 + Adam moments 8 = 18 B/param,
    # not a DDP reducer's buckets next to fp32 weights
    assert j["memory"]["save"]["peak_allocated_bytes"] == 18 * PARAMS
    assert any(n.startswith("Megatron TP 1, PP 1, CP 1 over 8 GPU(s)") for n in j["notes"])
    assert not any("DDP: the reducer" in n for n in j["notes"])


def test_unfused_swiglu_keeps_one_more_intermediate_per_layer(tmp_path, capsys):
    fused = _megatron(tmp_path, capsys, name="fused")
    plain = _megatron(tmp_path, capsys, " --no-bias-swiglu-fusion", name="plain")
    # SwiGLUFunction saves only its input (gate and up); unfused, silu's output is kept too: 2 bytes x MLP width
    assert _step(plain) - _step(fused) == LAYERS * SEQ * 2 * MLP
    assert any("fused SwiGLU" in n for n in fused["notes"])
    assert not any("fused SwiGLU" in n for n in plain["notes"])


# the local implementation with --use-flash-attn: the same attention as TE's, only the norms differ (without it the
# local CoreAttention keeps the scores: test_check_integrator14.py)
@pytest.mark.parametrize("extra", [" --transformer-impl local --use-flash-attn", " --normalization LayerNorm"])
def test_te_rmsnorm_keeps_its_16bit_input_and_one_rsigma(tmp_path, capsys, extra):
    te = _megatron(tmp_path, capsys, name="te")
    other = _megatron(tmp_path, capsys, extra, name="other")
    # two norms a layer: an fp32 input (4 h) and, the weight training, the 16-bit normalised input (2 h) each,
    # against TE's 16-bit input (2 h) and one fp32 rsigma (4 bytes) each
    per_token_layer = 2 * (4 * HIDDEN + 2 * HIDDEN) - 2 * (2 * HIDDEN + 4)
    assert _step(other) - _step(te) == LAYERS * SEQ * per_token_layer
    assert not any("RMSNorm keeps" in n for n in other["notes"])


# a Primus experiment (Megatron-Bridge) on the MLPerf recipe's model file, written here
PRIMUS = """modules:
  post_trainer:
    framework: megatron_bridge
    config: sft_trainer.yaml
    model: {model}
    overrides:
      tensor_model_parallel_size: 1
      pipeline_model_parallel_size: 1
      peft: lora
      seq_length: 4096
      micro_batch_size: 1
      global_batch_size: 16
"""


def test_primus_recipe_lora_is_the_recipes_own(tmp_path, capsys):
    j = _check(tmp_path, "mlperf", {"exp.yaml": PRIMUS.format(model="llama2_70b_lora_mxfp4.yaml"),
                                    "config_MI300X_1x8x1.sh": "export GPUS_PER_NODE=8\nexport NNODES=1\n"},
               ["--gpu", "mi300x"], capsys)
    u = j["understood"]
    assert u["method"] == "lora" and u["lora_rank"] == 16
    assert u["lora_targets"] == ["q_proj", "k_proj", "v_proj", "o_proj"]
    assert any("its recipe builds its own LoRA" in n for n in j["notes"])


def test_primus_model_file_without_a_recipe_lora_keeps_the_default(tmp_path, capsys):
    j = _check(tmp_path, "other", {"exp.yaml": PRIMUS.format(model="llama3_8b_lora.yaml")}, ["--gpu", "mi300x"],
               capsys)
    assert j["understood"]["method"] == "lora"
    assert not any("its recipe builds its own LoRA" in n for n in j["notes"])


@pytest.mark.parametrize("name", ["llama2_70b_lora_mxfp4.yaml", "LLAMA2_70B_LORA_MXFP4.yml",
                                  "primus/configs/models/megatron_bridge/llama2_70b_lora_mxfp4.yaml"])
def test_recipe_lora_spellings(name):
    assert primus_recipes.recipe_lora(name) == (16, ("q_proj", "k_proj", "v_proj", "o_proj"),
                                                primus_recipes.RECIPE_LORA["llama2_70b_lora_mxfp4"][2])


def test_recipe_lora_unknown_file():
    assert primus_recipes.recipe_lora("llama2_70b_lora.yaml") is None


# QwenLM qwen-vl-finetune (qwenvl/train/train_qwen.py), written here after its README's example command
QWEN_VL = """torchrun --nproc_per_node 4 qwen-vl-finetune/qwenvl/train/train_qwen.py \\
  --model_name_or_path Qwen/Qwen2.5-VL-7B-Instruct --dataset_use my_data \\
  --tune_mm_llm True{extra} --bf16 --per_device_train_batch_size 1 \\
  --model_max_length 4096 --gradient_checkpointing True --output_dir out
"""


def _qwen_vl(tmp_path, capsys, extra: str, name: str) -> dict:
    return _check(tmp_path, name, {"train.sh": QWEN_VL.format(extra=extra)}, ["--gpu", "mi300x"], capsys)


def test_qwen_vl_finetune_defaults_freeze_the_tower_and_cap_images_at_576_tokens(tmp_path, capsys):
    j = _qwen_vl(tmp_path, capsys, "", "default")
    # DataArguments.max_pixels = 28 * 28 * 576: 576 tokens of 28 x 28 pixels (Qwen2.5-VL's 14-pixel patches, 2x2
    # merge); ModelArguments.tune_mm_vision = False: the tower's parameters do not train
    assert j["understood"]["image_tokens"] == 576
    assert any("vision tower frozen (tune_mm_vision not set" in a for a in j["assumptions"])


def test_qwen_vl_finetune_reads_its_own_flags(tmp_path, capsys):
    j = _qwen_vl(tmp_path, capsys, " --tune_mm_vision True --max_pixels 1003520", "own")
    assert j["understood"]["image_tokens"] == 1003520 // (28 * 28)
    assert any("vision tower trained (tune_mm_vision True" in a for a in j["assumptions"])


def test_qwen_vl_finetune_lora_enable_is_rank_64_on_attention(tmp_path, capsys):
    j = _qwen_vl(tmp_path, capsys, " --lora_enable True", "lora")
    u = j["understood"]
    assert u["method"] == "lora" and u["lora_rank"] == 64
    assert u["lora_targets"] == ["q_proj", "k_proj", "v_proj", "o_proj"]
    r = _qwen_vl(tmp_path, capsys, " --lora_enable True --lora_r 16", "lora16")
    assert r["understood"]["lora_rank"] == 16


def test_a_train_qwen_py_elsewhere_is_not_qwen_vl_finetune():
    from rocm_tune.core.runners import hf

    assert hf.is_qwen_vl_finetune("torchrun qwen-vl-finetune/qwenvl/train/train_qwen.py", {})
    assert hf.is_qwen_vl_finetune("python train.py", {"tune-mm-llm": ("True", 3)})
    assert not hf.is_qwen_vl_finetune("torchrun scripts/train_qwen.py", {"model_max_length": ("4096", 2)})


# a Primus Megatron-LM (framework: megatron) experiment written here: no bf16/fp16 key in the overrides
PRIMUS_LM = """modules:
  pre_trainer:
    framework: megatron
    config: pre_trainer.yaml
    model: llama3.1_8B.yaml
    overrides:
      train_iters: 10
      micro_batch_size: 2
      global_batch_size: 16
      seq_length: 4096
      tensor_model_parallel_size: 1
      pipeline_model_parallel_size: 1
{extra}"""


def test_primus_megatron_defaults_to_trainer_base_bf16(tmp_path, capsys):
    j = _check(tmp_path, "lm", {"exp.yaml": PRIMUS_LM.format(extra="")}, ["--gpu", "mi300x", "--gpus", "8"], capsys)
    assert j["understood"]["precision"] == "bf16"
    assert any("trainer_base.yaml's default bf16: true" in n for n in j["notes"])
    f = _check(tmp_path, "lm16", {"exp.yaml": PRIMUS_LM.format(extra="      fp16: true\n")},
               ["--gpu", "mi300x", "--gpus", "8"], capsys)
    assert f["understood"]["precision"] == "fp16"
    assert not any("trainer_base.yaml's default" in n for n in f["notes"])


def test_gpt_oss_is_not_counted_with_the_fused_swiglu(tmp_path, capsys):
    j = _check(tmp_path, "oss", {"train.sh": MEGATRON.format(extra="")}, ["--gpu", "mi300x", "--model", "gpt-oss-20b"],
               capsys)
    kernels = [n for n in j["notes"] if n.startswith("Megatron-core kernels")]
    assert kernels and "SwiGLU" not in kernels[0]


# ms-swift commands written here: whether an eval phase is counted (a validation set exists)
SWIFT = """NPROC_PER_NODE=2 swift sft --model Qwen/Qwen2.5-7B-Instruct --{tt} full --dataset my/data \\
  --max_length 4096 --per_device_train_batch_size 1 --deepspeed zero3{extra}
"""


@pytest.mark.parametrize(("tt", "extra", "evaluates"), [
    ("train_type", "", True),                                   # 3.0-3.5: split_dataset_ratio 0.01
    ("train_type", " --streaming true", False),                 # streaming: the ratio set to 0
    ("tuner_type", "", False),                                  # 4.x: the ratio's default 0
    ("tuner_type", " --split_dataset_ratio 0.01", True),
    ("tuner_type", " --val_dataset my/val", True),
    ("train_type", " --split_dataset_ratio 0.01 --eval_strategy no", False),
])
def test_ms_swift_eval_needs_a_validation_set(tmp_path, capsys, tt, extra, evaluates):
    j = _check(tmp_path, "sw", {"train.sh": SWIFT.format(tt=tt, extra=extra)}, ["--gpu", "mi300x"], capsys)
    assert (j["memory"]["eval"] is not None) is evaluates


# OpenRLHF SFT written here; --optimizer is a fork's flag (upstream has --optim adam|muon)
OPENRLHF = """deepspeed --num_gpus 1 --module openrlhf.cli.train_sft \\
  --pretrain Qwen/Qwen2.5-7B-Instruct --dataset my.jsonl --input_key messages --apply_chat_template \\
  --bf16 --gradient_checkpointing --flash_attn --micro_train_batch_size 1 --train_batch_size 32 \\
  --max_len 4096 --zero_stage 2{extra}
"""


def test_openrlhf_fork_optimizer_flag_names_a_bitsandbytes_state(tmp_path, capsys):
    base = _check(tmp_path, "plain", {"t.sh": OPENRLHF.format(extra="")}, ["--gpu", "mi300x"], capsys)
    bnb = _check(tmp_path, "bnb", {"t.sh": OPENRLHF.format(extra=" --optimizer paged_adamw_8bit")}, ["--gpu", "mi300x"],
                 capsys)
    other = _check(tmp_path, "other", {"t.sh": OPENRLHF.format(extra=" --optimizer lion")}, ["--gpu", "mi300x"], capsys)
    assert base["understood"]["optim"] == "adamw" and other["understood"]["optim"] == "adamw"
    assert bnb["understood"]["optim"] == "paged_adamw_8bit"
    assert any("not an upstream OpenRLHF flag" in n for n in bnb["notes"])
    # Adam's two fp32 moments (8 B) against bitsandbytes' two 8-bit ones (2 B) per trained parameter: the optimizer
    # step's peak drops by at least the state's difference
    params = 7_615_616_512      # Qwen2.5-7B
    assert _step(base) - _step(bnb) >= 6 * params


# a LLaMA-Factory full SFT written here after its examples/train_full YAMLs, with a validation split; DeepSpeed
# (ZeRO-2, its examples/deepspeed/ds_z2_config.json written inline) or none
LF_FULL = """model_name_or_path: Qwen/Qwen2.5-1.5B-Instruct
stage: sft
do_train: true
finetuning_type: full
dataset: my_data
template: qwen
cutoff_len: 2048
per_device_train_batch_size: 2
per_device_eval_batch_size: 2
val_size: 0.05
eval_strategy: steps
eval_steps: 100
bf16: true
output_dir: out
{extra}"""
DS_Z2 = ('{"train_batch_size": "auto", "train_micro_batch_size_per_gpu": "auto", "gradient_accumulation_steps": '
         '"auto", "bf16": {"enabled": "auto"}, "zero_optimization": {"stage": 2}}')


def test_trainer_evaluates_after_zero_grad_frees_the_gradients(tmp_path, capsys):
    # transformers' Trainer: optimizer.step(), model.zero_grad() (set_to_none), then _maybe_log_save_evaluate: the
    # eval phase holds the weights, optimizer state and the eval batch's logits, not the gradients that the save
    # phase (after the step of a full fine-tune) still counts
    plain = _check(tmp_path, "plain", {"t.yaml": LF_FULL.format(extra="")}, ["--gpu", "mi300x"], capsys)
    ev, save = plain["memory"]["eval"]["peak_allocated_bytes"], plain["memory"]["save"]["peak_allocated_bytes"]
    params = 1_543_714_304                   # Qwen2.5-1.5B
    logits = 2 * 2048 * 151_936 * 10         # eval batch 2 x cutoff_len x vocabulary, 10 B each (bf16, fp32, log-softmax)
    assert ev - save < logits - params       # the 16-bit gradients (2 B per parameter) are not in the eval phase
    assert any("zero_grad" in n for n in plain["notes"])


def test_deepspeed_keeps_its_gradient_buffers_through_eval(tmp_path, capsys):
    files = {"t.yaml": LF_FULL.format(extra="deepspeed: ds_z2.json\n"), "ds_z2.json": DS_Z2}
    z2 = _check(tmp_path, "z2", files, ["--gpu", "mi300x", "--gpus", "2"], capsys)
    ev, save = z2["memory"]["eval"]["peak_allocated_bytes"], z2["memory"]["save"]["peak_allocated_bytes"]
    assert ev - save > 2 * 2048 * 151_936 * 8
    assert not any("zero_grad" in n for n in z2["notes"])


# LLaMA-Factory under FSDP, launched as its examples/accelerate/fsdp_config.yaml says (written here)
FSDP_ACC = """compute_environment: LOCAL_MACHINE
distributed_type: FSDP
fsdp_config:
  fsdp_auto_wrap_policy: TRANSFORMER_BASED_WRAP
  fsdp_sharding_strategy: FULL_SHARD
  fsdp_state_dict_type: FULL_STATE_DICT
  fsdp_use_orig_params: true
mixed_precision: bf16
num_machines: 1
num_processes: 2
"""
FSDP_SH = "accelerate launch --config_file fsdp_config.yaml src/train.py t.yaml\n"


def test_fsdp_trainer_evaluates_without_the_sharded_gradients(tmp_path, capsys):
    files = {"t.yaml": LF_FULL.format(extra=""), "fsdp_config.yaml": FSDP_ACC, "run.sh": FSDP_SH}
    j = _check(tmp_path, "fsdp", files, ["--gpu", "mi300x"], capsys)
    assert j["world_size"] == 2
    ev, save = j["memory"]["eval"]["peak_allocated_bytes"], j["memory"]["save"]["peak_allocated_bytes"]
    logits = 2 * 2048 * 151_936 * 10
    # the save phase still holds each rank's half of the gradients (2 B or 4 B per parameter / 2 ranks)
    assert ev - save < logits - 1_543_714_304 // 2 * 2
