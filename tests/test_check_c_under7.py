"""Terms check under-counted (helper c-under7, issue 26). Programs that resize the model's vocabulary to their own
tokenizer before training: ymcui/Chinese-LLaMA-Alpaca(-2)'s run_clm_sft_with_peft.py / run_clm_pt_with_peft.py require
a 49953/49954-token (LLaMA) or 55296-token (Llama-2) tokenizer and call model.resize_token_embeddings(len(tokenizer)),
so embed_tokens and lm_head (trained whole under their --modules_to_save) are tokenizer-sized. The scripts are the
repositories' own scripts/training/run_sft.sh / run_pt.sh with their placeholders filled in; none is a corpus case."""

from __future__ import annotations

import json
from pathlib import Path

from rocm_tune.cli import main

# ymcui/Chinese-LLaMA-Alpaca-2 scripts/training/ds_zero2_no_offload.json (the file run_sft.sh names)
DS_ZERO2 = """{
    "fp16": {"enabled": "auto", "loss_scale": 0, "loss_scale_window": 100, "initial_scale_power": 16,
             "hysteresis": 2, "min_loss_scale": 1e-10},
    "zero_optimization": {"stage": 2, "allgather_partitions": true, "allgather_bucket_size": 1e8,
                          "overlap_comm": true, "reduce_scatter": true, "reduce_bucket_size": 1e8,
                          "contiguous_gradients": true},
    "gradient_accumulation_steps": "auto", "gradient_clipping": "auto", "steps_per_print": 2000,
    "train_batch_size": "auto", "train_micro_batch_size_per_gpu": "auto", "wall_clock_breakdown": false
}
"""

# ymcui/Chinese-LLaMA-Alpaca-2 scripts/training/run_sft.sh
SFT2 = """lr=1e-4
lora_rank=64
lora_alpha=128
lora_trainable="q_proj,v_proj,k_proj,o_proj,gate_proj,down_proj,up_proj"
modules_to_save="embed_tokens,lm_head"
lora_dropout=0.05

pretrained_model={model}
chinese_tokenizer_path=path/to/chinese-llama-2/tokenizer/dir
dataset_dir=path/to/sft/data/dir
per_device_train_batch_size=1
per_device_eval_batch_size=1
gradient_accumulation_steps=8
max_seq_length=512
output_dir=output_dir
validation_file=validation_file_name

deepspeed_config_file=ds_zero2_no_offload.json

torchrun --nnodes 1 --nproc_per_node 1 {program} \\
    --deepspeed ${{deepspeed_config_file}} \\
    --model_name_or_path ${{pretrained_model}} \\
{tokenizer}    --dataset_dir ${{dataset_dir}} \\
    --per_device_train_batch_size ${{per_device_train_batch_size}} \\
    --per_device_eval_batch_size ${{per_device_eval_batch_size}} \\
    --do_train \\
    --do_eval \\
    --seed $RANDOM \\
    --fp16 \\
    --num_train_epochs 1 \\
    --lr_scheduler_type cosine \\
    --learning_rate ${{lr}} \\
    --warmup_ratio 0.03 \\
    --weight_decay 0 \\
    --logging_strategy steps \\
    --logging_steps 10 \\
    --save_strategy steps \\
    --save_total_limit 3 \\
    --evaluation_strategy steps \\
    --eval_steps 100 \\
    --save_steps 200 \\
    --gradient_accumulation_steps ${{gradient_accumulation_steps}} \\
    --preprocessing_num_workers 8 \\
    --max_seq_length ${{max_seq_length}} \\
    --output_dir ${{output_dir}} \\
    --overwrite_output_dir \\
    --ddp_timeout 30000 \\
    --logging_first_step True \\
    --lora_rank ${{lora_rank}} \\
    --lora_alpha ${{lora_alpha}} \\
    --trainable ${{lora_trainable}} \\
    --lora_dropout ${{lora_dropout}} \\
    --modules_to_save ${{modules_to_save}} \\
    --torch_dtype float16 \\
    --validation_file ${{validation_file}} \\
    --load_in_kbits 16 \\
    --save_safetensors False \\
    --gradient_checkpointing \\
    --ddp_find_unused_parameters False
"""
TOKENIZER = "    --tokenizer_name_or_path ${chinese_tokenizer_path} \\\n"

# ymcui/Chinese-LLaMA-Alpaca scripts/training/run_pt.sh (LLaMA-1 base, block_size 512)
PT1 = """lr=2e-4
lora_rank=8
lora_alpha=32
lora_trainable="q_proj,v_proj,k_proj,o_proj,gate_proj,down_proj,up_proj"
modules_to_save="embed_tokens,lm_head"
lora_dropout=0.05

pretrained_model=huggyllama/llama-7b
chinese_tokenizer_path=path/to/chinese/llama/tokenizer/dir
dataset_dir=path/to/pt/data/dir
data_cache=temp_data_cache_dir
per_device_train_batch_size=1
per_device_eval_batch_size=1
gradient_accumulation_steps=8
output_dir=output_dir

deepspeed_config_file=ds_zero2_no_offload.json

torchrun --nnodes 1 --nproc_per_node 1 run_clm_pt_with_peft.py \\
    --deepspeed ${deepspeed_config_file} \\
    --model_name_or_path ${pretrained_model} \\
    --tokenizer_name_or_path ${chinese_tokenizer_path} \\
    --dataset_dir ${dataset_dir} \\
    --data_cache_dir ${data_cache} \\
    --validation_split_percentage 0.001 \\
    --per_device_train_batch_size ${per_device_train_batch_size} \\
    --per_device_eval_batch_size ${per_device_eval_batch_size} \\
    --do_train \\
    --seed $RANDOM \\
    --fp16 \\
    --num_train_epochs 1 \\
    --lr_scheduler_type cosine \\
    --learning_rate ${lr} \\
    --warmup_ratio 0.05 \\
    --weight_decay 0.01 \\
    --logging_strategy steps \\
    --logging_steps 10 \\
    --save_strategy steps \\
    --save_total_limit 3 \\
    --save_steps 200 \\
    --gradient_accumulation_steps ${gradient_accumulation_steps} \\
    --preprocessing_num_workers 8 \\
    --block_size 512 \\
    --output_dir ${output_dir} \\
    --overwrite_output_dir \\
    --ddp_timeout 30000 \\
    --logging_first_step True \\
    --lora_rank ${lora_rank} \\
    --lora_alpha ${lora_alpha} \\
    --trainable ${lora_trainable} \\
    --modules_to_save ${modules_to_save} \\
    --lora_dropout ${lora_dropout} \\
    --torch_dtype float16 \\
    --gradient_checkpointing \\
    --ddp_find_unused_parameters False
"""


def _check(tmp_path: Path, capsys, text: str, *args: str) -> dict:
    (tmp_path / "run.sh").write_text(text)
    (tmp_path / "ds_zero2_no_offload.json").write_text(DS_ZERO2)
    rc = main(["check", str(tmp_path / "run.sh"), str(tmp_path / "ds_zero2_no_offload.json"), *args, "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc in (0, 1), out
    return out


def _resized(out: dict) -> str | None:
    return next((n for n in out["notes"] if "the vocabulary is resized from" in n), None)


def _sft2(model: str, tokenizer: bool = True, program: str = "run_clm_sft_with_peft.py") -> str:
    return SFT2.format(model=model, program=program, tokenizer=TOKENIZER if tokenizer else "")


def test_chinese_llama2_sft_resizes_llama2_to_55296_and_no_longer_fits(tmp_path, capsys):
    out = _check(tmp_path, capsys, _sft2("meta-llama/Llama-2-7b-hf"), "--vram-gib", "27")
    note = _resized(out)
    assert note is not None and "from 32000 to its tokenizer's 55296" in note
    # modules_to_save trains the resized embed_tokens and lm_head whole: 2 x 55296 x 4096 = 453M parameters
    assert any("PEFT trains a full copy beside the frozen original (453M" in n for n in out["notes"])
    assert out["verdict"] == "oom"
    # the same script without the Chinese tokenizer (the program's own check would refuse it): 32000 x 4096, fits
    base = _check(tmp_path, capsys, _sft2("meta-llama/Llama-2-7b-hf", tokenizer=False), "--vram-gib", "27")
    assert _resized(base) is None and base["verdict"] == "fits"
    grown = out["memory"]["step"]["peak_allocated_bytes"] - base["memory"]["step"]["peak_allocated_bytes"]
    # 2 x 23296 x 4096 more trainable elements (16-bit weight + gradient, fp32 master + two moments) and their frozen
    # originals: well over 3 GiB
    assert grown > 3 * 2**30


def test_chinese_llama_sft_on_llama1_resizes_to_49954(tmp_path, capsys):
    out = _check(tmp_path, capsys, _sft2("huggyllama/llama-7b"), "--vram-gib", "24")
    assert "from 32000 to its tokenizer's 49954" in (_resized(out) or "")


def test_chinese_llama_pt_on_llama1_resizes_to_49953(tmp_path, capsys):
    out = _check(tmp_path, capsys, PT1, "--vram-gib", "24")
    assert "run_clm_pt_with_peft.py" in (_resized(out) or "") and "49953" in (_resized(out) or "")
    assert out["understood"]["cutoff_len"] == 512


def test_a_base_with_its_own_vocabulary_is_left_as_it_is(tmp_path, capsys):
    """Llama-3 (Chinese-LLaMA-Alpaca-3 keeps its 128256 tokens): only LLaMA's 32000 is resized."""
    out = _check(tmp_path, capsys, _sft2("meta-llama/Meta-Llama-3-8B"), "--vram-gib", "48")
    assert _resized(out) is None


def test_another_program_with_a_tokenizer_flag_is_not_resized(tmp_path, capsys):
    out = _check(tmp_path, capsys, _sft2("meta-llama/Llama-2-7b-hf", program="run_clm.py"), "--vram-gib", "27")
    assert _resized(out) is None


# yangjianxin1/LongQLoRA train_args/llama2-7b-pretrain.yaml and deepspeed_config_s2.json, launched as its README says
# (`deepspeed train.py --train_args_file ./train_args/llama2-7b-pretrain.yaml`); README: "On a single 32GB V100 GPU,
# LongQLoRA can extend the context length of LLaMA2 7B and 13B from 4096 to 8192 and even to 12k."
LONGQLORA = """output_dir: ./output/LongQLoRA-Llama2-7b-8k
model_name_or_path: {model}
train_file: ./data/pretrain/pretrain_dummy_data.jsonl
deepspeed: ./train_args/deepspeed/deepspeed_config_s2.json
sft: false

num_train_epochs: 1
max_steps: 1000
per_device_train_batch_size: 1
gradient_accumulation_steps: 16

max_seq_length: {seq}
model_max_length: {seq}

learning_rate: 0.0002
logging_steps: 50
save_steps: 100
save_total_limit: 3
lr_scheduler_type: constant_with_warmup
warmup_steps: 20

lora_rank: 64
lora_alpha: 16
lora_dropout: 0.05

gradient_checkpointing: true
disable_tqdm: false
optim: paged_adamw_32bit
seed: 42
fp16: true
report_to: tensorboard
dataloader_num_workers: 0
save_strategy: steps
weight_decay: 0
max_grad_norm: 0.3
remove_unused_columns: false{extra}
"""
LONGQLORA_DS = """{
  "zero_optimization": {"stage": 2, "offload_optimizer": {"device": "cpu"}, "contiguous_gradients": true,
                        "overlap_comm": true},
  "fp16": {"enabled": "auto"},
  "train_micro_batch_size_per_gpu": "auto",
  "gradient_accumulation_steps": "auto"
}
"""


def _longqlora(tmp_path: Path, capsys, seq: int, model: str = "NousResearch/Llama-2-7b-hf", extra: str = "") -> dict:
    (tmp_path / "train_args" / "deepspeed").mkdir(parents=True, exist_ok=True)
    recipe = tmp_path / "train_args" / "llama2-7b-pretrain.yaml"
    recipe.write_text(LONGQLORA.format(model=model, seq=seq, extra=extra))
    ds = tmp_path / "train_args" / "deepspeed" / "deepspeed_config_s2.json"
    ds.write_text(LONGQLORA_DS)
    launch = tmp_path / "launch.sh"
    launch.write_text("deepspeed train.py --train_args_file ./train_args/llama2-7b-pretrain.yaml\n")
    rc = main(["check", str(recipe), str(ds), str(launch), "--gpu", "v100-32gb", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc in (0, 1), out
    return out


def test_longqlora_recipe_is_qlora_with_eager_shifted_short_attention(tmp_path, capsys):
    out = _longqlora(tmp_path, capsys, 8192)
    u = out["understood"]
    assert (u["method"], u["quant_bits"], u["lora_rank"], u["attn"]) == ("qlora", 4, 64, "eager")
    assert any("LongQLoRA's train.py recipe" in n and "S2-Attn" in n for n in out["notes"])
    assert out["verdict"] == "fits"                 # the README's 8k (and 12k) on one V100 32GB
    assert _longqlora(tmp_path, capsys, 12288)["verdict"] == "fits"
    # 16k: each group's [32 heads, 4096, 4096] fp32 softmax and its fp16 copy, and the [16k, 16k] mask
    assert _longqlora(tmp_path, capsys, 16384)["verdict"] == "oom"


def test_longqlora_13b_at_8k_fits_one_v100(tmp_path, capsys):
    out = _longqlora(tmp_path, capsys, 8192, model="lmsys/vicuna-13b-v1.5")
    assert out["understood"]["method"] == "qlora" and out["verdict"] == "fits"


def test_longqlora_with_flash_attention_counts_no_scores(tmp_path, capsys):
    eager = _longqlora(tmp_path, capsys, 8192)
    flash = _longqlora(tmp_path, capsys, 8192, extra="\nuse_flash_attn: true")
    assert flash["understood"]["attn"] != "eager"
    assert flash["memory"]["step"]["peak_allocated_bytes"] < eager["memory"]["step"]["peak_allocated_bytes"]


def test_a_recipe_with_keys_of_another_program_is_not_longqlora(tmp_path, capsys):
    out = _longqlora(tmp_path, capsys, 8192, extra="\ntrain_mode: qlora\ntemplate_name: llama2")
    assert not any("LongQLoRA" in n for n in out["notes"])


# deepspeedai/DeepSpeedExamples applications/DeepSpeed-Chat/training/step1_supervised_finetuning/training_scripts/
# llama2/run_llama2_7b_lora.sh with its ZERO_STAGE argument written in (2) and --offload added
DS_CHAT = """deepspeed main.py \\
   --data_path Dahoas/rm-static Dahoas/full-hh-rlhf Dahoas/synthetic-instruct-gptj-pairwise yitingxie/rlhf-reward-datasets \\
   --data_split 2,4,4 \\
   --model_name_or_path meta-llama/Llama-2-7b-hf \\
   --per_device_train_batch_size 4 \\
   --per_device_eval_batch_size 4 \\
   --max_seq_len 512 \\
   --learning_rate 9.65e-6 \\
   --weight_decay 0. \\
   --num_train_epochs 4  \\
   --gradient_accumulation_steps 1 \\
   --lr_scheduler_type cosine \\
   --num_warmup_steps 0 \\
   --seed 1234 \\
   --gradient_checkpointing \\
   --zero_stage 2 \\
   --deepspeed \\
   --offload \\
{lora}   --output_dir ./output_step1_llama2_7b_lora
"""
DS_CHAT_LORA = "   --lora_dim 128 \\\n   --lora_module_name \"layers.\" \\\n"


def _ds_chat(tmp_path: Path, capsys, lora: str) -> dict:
    (tmp_path / "run.sh").write_text(DS_CHAT.format(lora=lora))
    rc = main(["check", str(tmp_path / "run.sh"), "--gpu", "a100-80gb", "--gpus", "2", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc in (0, 1), out
    return out


def test_deepspeed_chat_builds_its_zero_config_with_overlap_comm(tmp_path, capsys):
    out = _ds_chat(tmp_path, capsys, DS_CHAT_LORA)
    assert any("DeepSpeed-Chat's get_train_ds_config: overlap_comm on" in n for n in out["notes"])
    assert any("reduce_bucket_size 500,000,000 elements x2 (overlap_comm)" in n for n in out["notes"])


def test_a_bare_deepspeed_switch_without_deepspeed_chat_flags_keeps_deepspeed_s_default(tmp_path, capsys):
    """Not a DeepSpeed-Chat launch (none of its flags): DeepSpeed's own default, overlap_comm off below ZeRO-3."""
    out = _ds_chat(tmp_path, capsys, "")
    assert not any("overlap_comm on" in n for n in out["notes"])
    assert not any("x2 (overlap_comm)" in n for n in out["notes"])


def test_chinese_llama2_load_in_kbits_quantizes_the_base(tmp_path, capsys):
    """run_clm_sft_with_peft.py (Chinese-LLaMA-Alpaca-2) --load_in_kbits 4: BitsAndBytesConfig(load_in_4bit=True) base;
    16 (run_sft.sh's value) loads it whole."""
    four = _check(tmp_path, capsys, _sft2("meta-llama/Llama-2-7b-hf").replace("--load_in_kbits 16", "--load_in_kbits 4"),
                  "--vram-gib", "24")
    assert (four["understood"]["method"], four["understood"]["quant_bits"]) == ("qlora", 4)
    assert four["verdict"] == "fits" and _resized(four) is not None
    whole = _check(tmp_path, capsys, _sft2("meta-llama/Llama-2-7b-hf"), "--vram-gib", "24")
    assert whole["understood"]["method"] == "lora" and whole["verdict"] == "oom"


# hiyouga/LLaMA-Factory examples/train_full/qwen3_full_sft.yaml without its deepspeed line (one GPU, no ZeRO)
LF_FULL = """### model
model_name_or_path: Qwen/Qwen3-4B-Instruct-2507
trust_remote_code: true

### method
stage: sft
do_train: true
finetuning_type: full

### dataset
dataset: identity,alpaca_en_demo
template: qwen3_nothink
cutoff_len: 2048
max_samples: 1000
preprocessing_num_workers: 16
dataloader_num_workers: 4

### output
output_dir: saves/qwen3-4b/full/sft
logging_steps: 10
save_steps: 500
plot_loss: true
overwrite_output_dir: true
save_only_model: false
report_to: none

### train
per_device_train_batch_size: 1
gradient_accumulation_steps: 2
learning_rate: 1.0e-5
num_train_epochs: 3.0
lr_scheduler_type: cosine
warmup_ratio: 0.1
bf16: true
ddp_timeout: 180000000
resume_from_checkpoint: null
"""


def _lf(tmp_path: Path, capsys, extra: str, *args: str) -> dict:
    (tmp_path / "full.yaml").write_text(LF_FULL + extra)
    rc = main(["check", str(tmp_path / "full.yaml"), *args, "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc in (0, 1), out
    return out


def _foreach_note(out: dict) -> str | None:
    return next((n for n in out["notes"] if n.startswith("torch AdamW (foreach")), None)


def test_trainer_default_adamw_counts_its_foreach_temporary_at_the_step(tmp_path, capsys):
    """The Trainer's adamw_torch (torch.optim.AdamW, foreach on GPU tensors): one second-moment-sized temporary in the
    step beside the fp32 weights, gradients and moments of a full fine-tuning: over an 80 GB card for Qwen3-4B."""
    default = _lf(tmp_path, capsys, "", "--gpu", "h100")
    named = _lf(tmp_path, capsys, "optim: adamw_torch\n", "--gpu", "h100")
    fused = _lf(tmp_path, capsys, "optim: adamw_torch_fused\n", "--gpu", "h100")
    assert _foreach_note(default) is not None and _foreach_note(named) is not None and _foreach_note(fused) is None
    assert default["verdict"] == named["verdict"] == "oom" and fused["verdict"] == "fits"
    assert default["memory"]["step"]["peak_allocated_bytes"] > fused["memory"]["step"]["peak_allocated_bytes"]


def test_foreach_temporary_is_not_added_under_zero(tmp_path, capsys):
    """ZeRO-1/2 count their own optimizer-step temporaries (runners/deepspeed.py zero12_step): not twice."""
    (tmp_path / "ds_z2_config.json").write_text(
        '{"train_batch_size": "auto", "train_micro_batch_size_per_gpu": "auto", "gradient_accumulation_steps": "auto",'
        ' "zero_optimization": {"stage": 2, "overlap_comm": false, "contiguous_gradients": true}, '
        '"bf16": {"enabled": "auto"}}')
    out = _lf(tmp_path, capsys, f"deepspeed: {tmp_path / 'ds_z2_config.json'}\n", "--gpu", "h100", "--gpus", "2")
    assert out["understood"]["zero_stage"] == 2 and _foreach_note(out) is None


def test_transformers_own_adamw_makes_one_parameter_s_temporary(tmp_path, capsys):
    """optim adamw_hf (transformers/optimization.py AdamW.step: denom = exp_avg_sq.sqrt().add_(eps), parameter by
    parameter): the largest parameter's temporary (Qwen3-4B's tied embedding, 151936 x 2560), not the whole group's."""
    hf = _lf(tmp_path, capsys, "optim: adamw_hf\n", "--gpu", "h100")
    torch_foreach = _lf(tmp_path, capsys, "optim: adamw_torch\n", "--gpu", "h100")
    note = next(n for n in hf["notes"] if n.startswith("transformers' AdamW (adamw_hf)"))
    gib = float(note.split("exp_avg_sq.sqrt(), ")[1].split(" GiB")[0])
    assert abs(gib - 151936 * 2560 * 4 / 2**30) < 0.02        # fp32 moments of the trainable fp32 weights
    assert hf["memory"]["step"]["peak_allocated_bytes"] < torch_foreach["memory"]["step"]["peak_allocated_bytes"]
