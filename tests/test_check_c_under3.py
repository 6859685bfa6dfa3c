"""Underestimates (issue 26, helper c-under3).

1. The activation model against a real transformers decoder layer on CPU: the bytes autograd saves per token for one
   layer (torch.autograd.graph.saved_tensors_hooks, parameters excluded, storages counted once), from the difference
   between a 2-layer and a 1-layer model, against core/memory/estimate.py _LayerActivations.kept.
2. GRPO in R1-V's / VLM-R1's open-r1-multimodal trainer (Qwen2VLGRPOTrainer, TRL 0.14's way: generate with
   num_return_sequences=num_generations, pixel_values repeated, one forward/backward over all the completions): the
   per-device micro-batch is per_device_train_batch_size x num_generations (Deep-Agent/R1-V
   src/r1-v/src/open_r1/trainer/grpo_trainer.py compute_loss; om-ai-lab/VLM-R1 before 2025-03).
3. yafo-ai/y-trainer's own CLI: --max_seq_len (default 20520, longer samples dropped, none cut) and its misspelt
   --enable_gradit_checkpoing (src/train/config_manager.py, trainer_sft.py, train_engine.py at 654b832).
"""

from __future__ import annotations

import pytest

from rocm_tune.core import formats
from rocm_tune.core.check.check import check
from rocm_tune.core.memory.estimate import TrainConfig, _activations, _training
from rocm_tune.core.model.architecture import model_from_config
from rocm_tune.core import runners

# ------------------------------------------------------------------------------------- 1. measured layer on CPU

LLAMA = dict(model_type="llama", hidden_size=256, intermediate_size=768, num_attention_heads=8, num_key_value_heads=2,
             vocab_size=1000, tie_word_embeddings=False)
QWEN2 = dict(model_type="qwen2", hidden_size=256, intermediate_size=640, num_attention_heads=8, num_key_value_heads=2,
             vocab_size=1000)
QWEN3 = dict(model_type="qwen3", hidden_size=256, intermediate_size=768, num_attention_heads=4, num_key_value_heads=2,
             head_dim=64, vocab_size=1000)
GRANITE = dict(model_type="granite", hidden_size=256, intermediate_size=768, num_attention_heads=8,
               num_key_value_heads=8, vocab_size=1000)


def _saved_per_token(conf: dict, layers: int, dtype, attn: str, lora: bool, amp: bool, seq: int) -> int:
    """Bytes of non-parameter storage autograd saves in one forward of a `layers`-layer model."""
    import contextlib

    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    torch.manual_seed(0)
    cfg = AutoConfig.for_model(**dict(conf, num_hidden_layers=layers))
    model = AutoModelForCausalLM.from_config(cfg, dtype=dtype, attn_implementation=attn)
    if lora:
        from peft import LoraConfig, get_peft_model

        # autocast_adapter_dtype: PEFT's default makes 16-bit adapters fp32 (the amp regime); off = pure 16-bit
        model = get_peft_model(model, LoraConfig(r=8, target_modules="all-linear", lora_dropout=0.0),
                               autocast_adapter_dtype=amp)
    else:
        model.requires_grad_(True)
    params = {p.untyped_storage().data_ptr() for p in model.parameters()}
    seen: dict = {}

    def pack(t):
        s = t.untyped_storage()
        if s.data_ptr() not in params:
            seen[(s.data_ptr(), s.nbytes())] = s.nbytes()
        return t

    ids = torch.randint(0, conf["vocab_size"], (1, seq))
    ctx = torch.autocast("cpu", dtype=torch.bfloat16) if amp else contextlib.nullcontext()
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t), ctx:
        model(input_ids=ids)
    return sum(seen.values())


def _estimated_per_token(conf: dict, precision: str, runner: str, attn: str, lora: bool, seq: int) -> float:
    cfg = TrainConfig(method="lora" if lora else "full", precision=precision, runner=runner, cutoff_len=seq,
                      gradient_checkpointing=False, attn=attn, lora_rank=8)
    model = model_from_config(dict(conf, num_hidden_layers=2))
    regime = runners.regime(model, cfg)
    return _activations(model, cfg, regime, _training(model, cfg), []).layers.kept(not lora)


# (config, torch dtype name, attention, LoRA, amp): pure 16-bit / fp32 without autocast (runner builtin), and bf16
# LoRA under autocast with PEFT's fp32 adapters (runner hf). Full fine-tuning under autocast is left out: there the
# saved 16-bit weight copies are autocast's cache, counted apart (_autocast_copies).
LAYER_CASES = [
    (LLAMA, "bfloat16", "sdpa", False, False), (LLAMA, "bfloat16", "sdpa", True, False),
    (LLAMA, "bfloat16", "eager", False, False), (LLAMA, "bfloat16", "eager", True, False),
    (LLAMA, "float32", "sdpa", False, False), (LLAMA, "float32", "eager", True, False),
    (LLAMA, "bfloat16", "sdpa", True, True), (LLAMA, "bfloat16", "eager", True, True),
    (QWEN2, "bfloat16", "sdpa", False, False), (QWEN2, "bfloat16", "eager", True, True),
    (QWEN3, "bfloat16", "sdpa", False, False), (QWEN3, "bfloat16", "eager", True, False),
    (QWEN3, "bfloat16", "sdpa", True, True),
    (GRANITE, "bfloat16", "sdpa", False, False), (GRANITE, "bfloat16", "eager", True, False),
]


@pytest.mark.parametrize("conf, dtype_name, attn, lora, amp", LAYER_CASES)
def test_layer_activations_match_a_real_transformers_layer(conf, dtype_name, attn, lora, amp):
    torch = pytest.importorskip("torch")
    pytest.importorskip("transformers")
    pytest.importorskip("peft")
    dtype = getattr(torch, dtype_name)
    seq = 192
    one = _saved_per_token(conf, 1, dtype, attn, lora, amp, seq)
    two = _saved_per_token(conf, 2, dtype, attn, lora, amp, seq)
    measured = (two - one) / seq
    precision = "bf16" if amp else ("pure_bf16" if dtype_name == "bfloat16" else "fp32")
    runner = "hf" if amp else "builtin"
    est = _estimated_per_token(conf, precision, runner, attn, lora, seq)
    # measured on transformers 5.x / torch 2.x CPU: 0.97-1.04 of the measurement. Below 1: under autocast the bf16
    # copies of the fp32 adapters are saved too (a fixed ~400 B per token at this tiny size and seq, nothing at a real
    # one); above 1: eager attention's repeated k/v of grouped-query attention, which the CPU path does not save
    assert 0.96 <= est / measured <= 1.06, f"estimated {est:.0f} B/token/layer, measured {measured:.0f}"
    assert measured > 0


def test_measurement_sees_sequence_and_attention():
    """The probe is a measurement: eager attention saves the seq x seq scores, so its bytes per token grow with seq."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("transformers")
    a = _saved_per_token(LLAMA, 1, torch.bfloat16, "eager", False, False, 64) / 64
    b = _saved_per_token(LLAMA, 1, torch.bfloat16, "eager", False, False, 256) / 256
    c = _saved_per_token(LLAMA, 1, torch.bfloat16, "sdpa", False, False, 256) / 256
    assert b > a > c


# ------------------------------------------------------------------------------ 2. open-r1-multimodal GRPO rows

R1V = """cd src/r1-v
torchrun --nproc_per_node=4 --nnodes=1 --node_rank=0 --master_port=12345 \\
    src/open_r1/grpo.py \\
    --output_dir out \\
    --model_name_or_path Qwen/Qwen2.5-VL-7B-Instruct \\
    --dataset_name leonardPKU/clevr_cogen_a_train \\
    --deepspeed local_scripts/zero3.json \\
    --max_prompt_length 512 \\
    --max_completion_length 512 \\
    --per_device_train_batch_size {bs} \\
    --gradient_accumulation_steps 2 \\
    --bf16 \\
    --gradient_checkpointing true \\
    --attn_implementation flash_attention_2 \\
    --max_pixels 401408 \\
    --num_generations {ng}{extra}
"""


def _job(tmp_path, text: str):
    p = tmp_path / "train.sh"
    p.write_text(text)
    return formats.read_job([str(p)]), str(p)


def test_r1v_grpo_trains_every_generation_of_a_prompt_in_one_micro_batch(tmp_path):
    job, _ = _job(tmp_path, R1V.format(bs=2, ng=4, extra=""))
    assert int(job.get("per_device_train_batch_size")) == 8
    assert any("num_generations 4" in n and "open-r1-multimodal" in n for n in job.notes)


def test_r1v_grpo_with_vllm_uses_the_repeat_sampler_trainer(tmp_path):
    # grpo.py: Qwen2VLGRPOTrainer if not use_vllm else Qwen2VLGRPOVLLMTrainerModified (RepeatRandomSampler: the
    # per-device batch counts completions)
    job, _ = _job(tmp_path, R1V.format(bs=2, ng=4, extra=" \\\n    --use_vllm true"))
    assert int(job.get("per_device_train_batch_size")) == 2


def test_text_open_r1_grpo_is_not_the_multimodal_trainer(tmp_path):
    # huggingface/open-r1's own src/open_r1/grpo.py runs TRL's GRPOTrainer (counts completions from TRL 0.15)
    text = ("accelerate launch --num_processes 7 src/open_r1/grpo.py --model_name_or_path Qwen/Qwen2.5-1.5B-Instruct "
            "--per_device_train_batch_size 2 --num_generations 14 --max_prompt_length 512 --bf16 true "
            "--output_dir out\n")
    job, _ = _job(tmp_path, text)
    assert int(job.get("per_device_train_batch_size")) == 2


def test_r1v_grpo_generations_decide_the_verdict(tmp_path):
    one = R1V.replace("--deepspeed local_scripts/zero3.json \\\n    ", "").replace("true", "false") \
        .replace("Qwen2.5-VL-7B", "Qwen2-VL-2B")
    _, p = _job(tmp_path, one.format(bs=1, ng=8, extra=""))
    rep = check([p], gpu_id="a100-80gb").to_dict()
    assert rep["understood"]["micro_batch"] == 8
    assert rep["verdict"] == "oom"
    _, p = _job(tmp_path, one.format(bs=1, ng=1, extra=""))
    rep = check([p], gpu_id="a100-80gb").to_dict()
    assert rep["understood"]["micro_batch"] == 1
    assert rep["verdict"] == "fits"


# ------------------------------------------------------------------------------------------- 3. y-trainer's CLI

YT = """torchrun --nproc_per_node 2 -m training_code.start_training \\
    --model_path_to_load /models/Qwen2.5-7B-Instruct \\
    --training_type sft \\
    --data_path data/sft_example.json \\
    --output_dir out \\
    --batch_size 2 \\
    --token_batch 20 \\
    --use_lora true \\
    --use_NLIRG false{extra}
"""


def _yt(tmp_path, extra: str = "") -> dict:
    p = tmp_path / "yt.sh"
    p.write_text(YT.format(extra=extra))
    return check([str(p)], gpu_id="mi300x").to_dict()


def test_y_trainer_keeps_samples_up_to_its_max_seq_len_default(tmp_path):
    rep = _yt(tmp_path)
    assert rep["understood"]["cutoff_len"] == 20520        # config_manager.py --max_seq_len default
    assert rep["understood"]["gradient_checkpointing"] is False   # --enable_gradit_checkpoing default "false"
    assert any("y-trainer" in n and "20520" in n for n in rep["notes"])


def test_y_trainer_flags_are_read(tmp_path):
    rep = _yt(tmp_path, " \\\n    --max_seq_len 4096 \\\n    --enable_gradit_checkpoing 'true'")
    u = rep["understood"]
    assert (u["cutoff_len"], u["micro_batch"], u["gradient_checkpointing"]) == (4096, 2, True)


def test_one_shared_flag_name_is_not_y_trainer(tmp_path):
    p = tmp_path / "other.sh"
    p.write_text("python train.py --model_name_or_path Qwen/Qwen2.5-7B-Instruct --token_batch 10 --bf16 true "
                 "--output_dir out\n")
    rep = check([str(p)], gpu_id="mi300x").to_dict()
    assert rep["understood"]["cutoff_len"] != 20520


def test_r1v_grpo_known_by_a_vl_model_and_its_pixel_flags(tmp_path):
    # no `cd src/r1-v` / open-r1-multimodal path: a VL model with R1-V's --max_pixels still names the fork
    job, _ = _job(tmp_path, R1V.replace("cd src/r1-v\n", "").format(bs=1, ng=6, extra=""))
    assert int(job.get("per_device_train_batch_size")) == 6
    # a VL model without the fork's pixel flags: huggingface/open-r1's grpo.py, TRL's GRPOTrainer
    text = R1V.replace("cd src/r1-v\n", "").replace("    --max_pixels 401408 \\\n", "")
    job, _ = _job(tmp_path, text.format(bs=1, ng=6, extra=""))
    assert int(job.get("per_device_train_batch_size")) == 1


def test_r1v_grpo_fix_does_not_shrink_the_prompt_batch(tmp_path):
    # the micro-batch is one prompt's 8 completions: --per_device_train_batch_size (prompts) cannot go below 1, so the
    # fix is gradient checkpointing (what R1-V's users did), never a new per-device batch
    one = R1V.replace("--deepspeed local_scripts/zero3.json \\\n    ", "").replace("true", "false") \
        .replace("Qwen2.5-VL-7B", "Qwen2-VL-2B")
    _, p = _job(tmp_path, one.format(bs=1, ng=8, extra=""))
    rep = check([p], gpu_id="a100-80gb").to_dict()
    diff = str(rep["fix"]["diff"])
    changed = [ln for ln in diff.splitlines() if ln[:1] in "+-" and not ln.startswith(("+++", "---"))]
    assert rep["verdict"] == "oom" and any("--gradient_checkpointing True" in ln for ln in changed)
    assert not any("per_device_train_batch_size" in ln for ln in changed)
