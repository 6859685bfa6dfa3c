"""`check` counts the attention PyTorch really runs (helper c-under4, issue 26): SDPA dispatches to its flash or
mem-efficient kernel only for the dtypes those kernels take (pytorch aten/src/ATen/native/transformers/cuda/
sdp_utils.cpp: flash {fp16, bf16}; mem-efficient {fp16, fp32, bf16} from sm80 on, {fp16, fp32} below sm80, all three
under AOTriton on ROCm) and only on the architectures that have them; anything else is the math kernel, which keeps the
[heads, seq, seq] scores and softmax of every layer as eager attention does. The configs below are written from
LLaMA-Factory's documented keys (not corpus cases); every figure is the real estimator's."""

from __future__ import annotations

import pytest

from rocm_tune.core.check import check as C
from rocm_tune.core.hardware import rules
from rocm_tune.profiles.gpu_profiles import get_gpu_profile as load_profile

GiB = 2**30

LF_YAML = """### model
model_name_or_path: Qwen/Qwen2.5-0.5B
### method
stage: sft
do_train: true
finetuning_type: full
disable_gradient_checkpointing: true
### dataset
dataset: my_sft_data
template: qwen
cutoff_len: {cutoff}
### train
per_device_train_batch_size: {bs}
gradient_accumulation_steps: 8
learning_rate: 1.0e-5
{precision}: true
"""


def _check(tmp_path, precision: str, gpu: str | None = None, vram: float | None = None, cutoff: int = 4096,
           bs: int = 1):
    p = tmp_path / f"qwen_{precision}_{gpu or vram}.yaml"
    p.write_text(LF_YAML.format(precision=precision, cutoff=cutoff, bs=bs))
    return C.check([str(p)], gpu_id=gpu, vram_gib=vram, gpus=1)


@pytest.mark.parametrize("gpu,dtype,backend", [
    ("t4", "bf16", "math"),             # sm_75: mem-efficient takes fp16/fp32 only, no flash
    ("t4", "fp16", "mem_efficient"),
    ("t4", "fp32", "mem_efficient"),
    ("v100-32gb", "bf16", "math"),      # sm_70
    ("a100-80gb", "bf16", "flash"),
    ("a100-80gb", "fp32", "mem_efficient"),   # no fp32 flash kernel
    ("mi300x", "fp32", "mem_efficient"),      # AOTriton's mem-efficient takes fp32
    ("mi300x", "bf16", "flash"),
    ("mi50-32gb", "fp16", "math"),      # gfx906: no AOTriton kernels at all
    ("rx6900xt", "fp32", "math"),       # gfx1030
])
def test_sdpa_backend_by_dtype_and_arch(gpu, dtype, backend):
    assert rules.sdpa_backend(load_profile(gpu), dtype) == backend


def test_memory_attn_without_dtype_is_unchanged_for_the_planner():
    # no dtype: any kernel the architecture has (the planner's reading)
    assert rules.memory_attn(load_profile("t4"), "sdpa") == "sdpa"
    assert rules.memory_attn(load_profile("mi50-32gb"), "sdpa") == "eager"
    assert rules.memory_attn(load_profile("t4"), "sdpa", "bf16") == "eager"
    assert rules.memory_attn(load_profile("t4"), "fa2", "bf16") == "fa2"


def test_bf16_sdpa_below_sm80_counts_the_math_kernels_scores(tmp_path):
    bf16 = _check(tmp_path, "bf16", gpu="v100-32gb")
    fp16 = _check(tmp_path, "fp16", gpu="v100-32gb")
    note = [n for n in bf16.est_notes if n.startswith("SDPA attention in bf16 on v100-32gb")]
    assert note and "math kernel" in note[0] and "counted as eager" in note[0]
    assert not [n for n in fp16.est_notes if n.startswith("SDPA attention")]
    # Qwen2.5-0.5B: 14 heads, 24 layers; 4096 tokens without checkpointing: every layer keeps its fp32 softmax and
    # its 16-bit copy, 14 heads x 4096 x 6 B per token = 0.33 MiB per token per layer, ~31 GiB in all
    heads, layers, seq, tokens = 14, 24, 4096, 4096
    scores = heads * seq * 6 * tokens * layers
    grown = bf16.memory["step"]["peak_allocated_bytes"] - fp16.memory["step"]["peak_allocated_bytes"]
    assert grown > 0.9 * scores
    assert bf16.verdict == "oom" and fp16.verdict == "fits"


def test_a_card_with_the_kernel_is_not_changed(tmp_path):
    a100 = _check(tmp_path, "bf16", gpu="a100-80gb", cutoff=2048)
    assert not [n for n in a100.est_notes if n.startswith("SDPA attention")]
    assert a100.cfg.attn == "sdpa"


def test_a_card_given_by_its_memory_only_keeps_sdpa(tmp_path):
    # --vram-gib: the architecture is not known, nor its kernels: SDPA stays as assumed
    rep = _check(tmp_path, "bf16", vram=32.0, cutoff=2048)
    assert rep.cfg.attn == "sdpa"
    assert not [n for n in rep.est_notes if n.startswith("SDPA attention")]


def test_an_arch_without_aotriton_kernels_runs_math_in_any_dtype(tmp_path):
    rep = _check(tmp_path, "fp16", gpu="mi50-32gb", cutoff=1024)
    note = [n for n in rep.est_notes if n.startswith("SDPA attention in fp16 on mi50-32gb")]
    assert note and "no flash or mem-efficient kernel for its architecture" in note[0]
    assert rep.cfg.attn == "eager"


# PEFT's prepare_model_for_kbit_training (peft src/peft/utils/other.py, v0.4.0 on): "cast all non INT8 parameters to
# fp32". A program written from PEFT's QLoRA recipe (not a corpus case): 8-bit Llama-2-7B, LoRA on q/v, fp32 training.
KBIT_PY = """import torch
from transformers import AutoModelForCausalLM, BitsAndBytesConfig, Trainer, TrainingArguments
from peft import LoraConfig, get_peft_model, prepare_model_for_kbit_training

model = AutoModelForCausalLM.from_pretrained(
    "meta-llama/Llama-2-7b-hf",
    quantization_config=BitsAndBytesConfig(load_in_{bits}bit=True),
    torch_dtype=torch.float16,
    device_map={{"": 0}},
)
{prepare}model = get_peft_model(model, LoraConfig(r=8, lora_alpha=16, target_modules=["q_proj", "v_proj"],
                                         task_type="CAUSAL_LM"))
args = TrainingArguments(output_dir="out", per_device_train_batch_size=8, gradient_checkpointing=True{bf16})
trainer = Trainer(model=model, args=args, train_dataset=None)
trainer.train()
"""

TRL_PY = """import torch
from transformers import AutoModelForCausalLM, BitsAndBytesConfig
from peft import LoraConfig, prepare_model_for_kbit_training
from trl import SFTConfig, SFTTrainer

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf", torch_dtype=torch.bfloat16,
                                             quantization_config=BitsAndBytesConfig(load_in_4bit=True))
model = prepare_model_for_kbit_training(model)
peft_config = LoraConfig(r=8, lora_alpha=16, target_modules=["q_proj", "v_proj"], task_type="CAUSAL_LM")
args = SFTConfig(output_dir="out", per_device_train_batch_size=4, max_seq_length=1024, bf16=True)
trainer = SFTTrainer(
    model=model,
    args=args,
    train_dataset=None,
    peft_config=peft_config,
)
trainer.train()
"""


def _kbit(tmp_path, prepare: bool, bits: int = 8, bf16: bool = False, name: str = "train.py"):
    p = tmp_path / name
    p.write_text(KBIT_PY.format(bits=bits, prepare="model = prepare_model_for_kbit_training(model)\n" if prepare
                                else "", bf16=", bf16=True" if bf16 else ""))
    return C.check([str(p)], gpu_id="rtx3090", gpus=1)


def test_kbit_preparation_upcasts_the_unquantised_weights_and_hidden_states(tmp_path):
    plain = _kbit(tmp_path, prepare=False, name="plain.py")
    prepared = _kbit(tmp_path, prepare=True, name="prepared.py")
    assert plain.model.torch_dtype == "float16" and prepared.model.torch_dtype == "float32"
    assert any("prepare_model_for_kbit_training casts every weight" in n for n in prepared.job.notes)
    # Llama-2-7B's unquantised weights: embed_tokens + lm_head (2 x 32000 x 4096) + norms, 2 -> 4 bytes each
    unquantised = 2 * 32000 * 4096 + (2 * 32 + 1) * 4096
    load_growth = prepared.memory["load"]["peak_allocated_bytes"] - plain.memory["load"]["peak_allocated_bytes"]
    assert abs(load_growth - 2 * unquantised) < 0.05 * 2 * unquantised
    # fp32 hidden states: the step grows by more than the weights alone
    step_growth = prepared.memory["step"]["peak_allocated_bytes"] - plain.memory["step"]["peak_allocated_bytes"]
    assert step_growth > load_growth + 1 * GiB


def test_kbit_preparation_under_autocast_keeps_16bit_compute(tmp_path):
    rep = _kbit(tmp_path, prepare=True, bf16=True, name="bf16.py")
    assert rep.model.torch_dtype == "float32"
    assert rep.cfg.precision == "bf16"


def test_trl_trainer_with_peft_config_casts_4bit_embeddings_back_when_pinned(tmp_path):
    # trl trainer/utils.py peft_module_casting_to_bf16: SFTTrainer(peft_config=...) with bf16 and a 4-bit model, in the
    # TRL releases that still call it (SFTTrainer before v0.22.0)
    p = tmp_path / "sft.py"
    p.write_text(TRL_PY)
    req = tmp_path / "requirements.txt"
    req.write_text("trl==0.13.0\npeft==0.14.0\n")
    rep = C.check([str(p), str(req)], gpu_id="rtx3090", gpus=1)
    assert rep.model.torch_dtype == "bfloat16"
    assert not any("prepare_model_for_kbit_training casts" in n for n in rep.job.notes)
    # TRL 0.22 on no longer casts back; without a pin the newest TRL is assumed
    req.write_text("trl==0.22.0\n")
    assert C.check([str(p), str(req)], gpu_id="rtx3090", gpus=1).model.torch_dtype == "float32"
    assert C.check([str(p)], gpu_id="rtx3090", gpus=1).model.torch_dtype == "float32"
    # without peft_config (the program applies the LoRA itself) TRL casts nothing back in any release
    p2 = tmp_path / "sft_own_peft.py"
    p2.write_text(TRL_PY.replace("    peft_config=peft_config,\n", ""))
    req.write_text("trl==0.13.0\n")
    assert C.check([str(p2), str(req)], gpu_id="rtx3090", gpus=1).model.torch_dtype == "float32"


def test_the_old_int8_name_says_no_release_and_changes_nothing(tmp_path):
    # prepare_model_for_int8_training cast nothing before peft 0.3.0 (layer norms named "layer_norm" only)
    p = tmp_path / "int8.py"
    p.write_text(KBIT_PY.format(bits=8, prepare="model = prepare_model_for_int8_training(model)\n", bf16="")
                 .replace("prepare_model_for_kbit_training", "prepare_model_for_int8_training"))
    rep = C.check([str(p)], gpu_id="rtx3090", gpus=1)
    assert rep.model.torch_dtype == "float16"


def test_deepspeed_in_16bit_casts_the_upcast_back(tmp_path):
    # deepspeed runtime/engine.py _configure_distributed_model: self.module.half() under "fp16": {"enabled": true}
    p = tmp_path / "ds.py"
    p.write_text(KBIT_PY.format(bits=4, prepare="model = prepare_model_for_kbit_training(model)\n",
                                bf16=', fp16=True, deepspeed="ds_z2.json"'))
    ds = tmp_path / "ds_z2.json"
    ds.write_text('{"fp16": {"enabled": "auto"}, "zero_optimization": {"stage": 2}, '
                  '"train_micro_batch_size_per_gpu": "auto"}')
    rep = C.check([str(p), str(ds)], gpu_id="rtx3090", gpus=1)
    assert rep.cfg.zero_stage == 2 and rep.job.get("kbit_fp32")
    assert rep.model.torch_dtype == "float16"
    assert not any("prepare_model_for_kbit_training casts" in n for n in rep.job.notes)


def test_a_pinned_trl_trainer_prepares_a_quantised_model_itself(tmp_path):
    # trl 0.8-0.21 SFTTrainer: `if is_loaded_in_8bit or is_loaded_in_4bit: prepare_model_for_kbit_training(...)`
    # when given peft_config; an 8-bit model under fp16 is not cast back
    code = (TRL_PY.replace("model = prepare_model_for_kbit_training(model)\n", "")
            .replace("load_in_4bit=True", "load_in_8bit=True").replace("bf16=True", "fp16=True"))
    p = tmp_path / "sft8.py"
    p.write_text(code)
    req = tmp_path / "requirements.txt"
    req.write_text("trl==0.13.0\n")
    rep = C.check([str(p), str(req)], gpu_id="rtx3090", gpus=1)
    assert rep.model.torch_dtype == "float32"
    assert any("TRL 0.13's SFTTrainer (given peft_config and a quantised model) calls PEFT's "
               "prepare_model_for_kbit_training" in n for n in rep.job.notes)
    # TRL 0.22 on (and an unpinned program: the newest TRL) prepares nothing itself
    req.write_text("trl==0.22.0\n")
    assert C.check([str(p), str(req)], gpu_id="rtx3090", gpus=1).model.torch_dtype == "bfloat16"
    assert C.check([str(p)], gpu_id="rtx3090", gpus=1).model.torch_dtype == "bfloat16"
