"""Programs whose own loading the launch line does not show (helper c-under6, issue 26): FastChat's train*.py and
stanford_alpaca's train.py call from_pretrained without torch_dtype (fp32 weights under transformers 4.x, whatever
--bf16 says), and instructlab's main_ds packs --max_batch_len tokens per GPU with checkpointing always on. The
commands are written from the programs' READMEs and shipped profiles; none is a corpus case."""

from __future__ import annotations

import json
from pathlib import Path

from rocm_tune.cli import main

# lm-sys/FastChat README "Fine-tuning Vicuna-7B with Local GPUs" (4 x A100 40GB), train_mem.py with FSDP
FASTCHAT = """torchrun --nproc_per_node={gpus} --master_port=20001 fastchat/train/train_mem.py \\
    --model_name_or_path meta-llama/Llama-2-7b-hf \\
    --data_path data/dummy_conversation.json \\
    --bf16 True \\
    --output_dir output_vicuna \\
    --num_train_epochs 3 \\
    --per_device_train_batch_size 2 \\
    --per_device_eval_batch_size 2 \\
    --gradient_accumulation_steps 16 \\
    --evaluation_strategy "no" \\
    --save_strategy "steps" \\
    --save_steps 1200 \\
    --save_total_limit 10 \\
    --learning_rate 2e-5 \\
    --weight_decay 0. \\
    --warmup_ratio 0.03 \\
    --lr_scheduler_type "cosine" \\
    --logging_steps 1 \\
    --fsdp "full_shard auto_wrap" \\
    --fsdp_transformer_layer_cls_to_wrap 'LlamaDecoderLayer' \\
    --tf32 True \\
    --model_max_length 2048 \\
    --gradient_checkpointing True \\
    --lazy_preprocess True
"""

# tatsu-lab/stanford_alpaca README "Fine-tuning" (4 x A100 80G, FSDP full_shard), the program copied as my_train.py
ALPACA = """torchrun --nproc_per_node=4 --master_port=29501 {program} \\
    --model_name_or_path huggyllama/llama-7b \\
    --data_path ./alpaca_data.json \\
    --bf16 True \\
    --output_dir ./out \\
    --num_train_epochs 3 \\
    --per_device_train_batch_size 4 \\
    --per_device_eval_batch_size 4 \\
    --gradient_accumulation_steps 8 \\
    --evaluation_strategy "no" \\
    --save_strategy "steps" \\
    --save_steps 2000 \\
    --save_total_limit 1 \\
    --learning_rate 2e-5 \\
    --weight_decay 0. \\
    --warmup_ratio 0.03 \\
    --lr_scheduler_type "cosine" \\
    --logging_steps 1 \\
    --fsdp "full_shard auto_wrap" \\
    --fsdp_transformer_layer_cls_to_wrap 'LlamaDecoderLayer' \\
    --tf32 True{extra}
"""

# instructlab/instructlab src/instructlab/profiles/nvidia/a100/a100_x4.yaml: granite-7b-lab, 4 GPUs, DeepSpeed (the
# main_ds default backend), max_batch_len 54000, effective_batch_size 128; the torchrun line full_train.py writes
INSTRUCTLAB = """torchrun --nnodes 1 --nproc_per_node {gpus} --node_rank 0 --rdzv_endpoint 127.0.0.1:12222 \\
    -m instructlab.training.main_ds \\
    --model_name_or_path=instructlab/granite-7b-lab \\
    --data_path=/data/processed/data.jsonl \\
    --output_dir=/data/checkpoints \\
    --num_epochs=7 \\
    --effective_batch_size=128 \\
    --learning_rate=2e-05 \\
    --num_warmup_steps=25 \\
    --save_samples=0 \\
    --max_batch_len={tokens}{extra}
"""


def _check(tmp_path: Path, capsys, text: str, *args: str, name: str = "run.sh", more: dict | None = None) -> dict:
    (tmp_path / name).write_text(text)
    paths = [str(tmp_path / name)]
    for fname, body in (more or {}).items():
        (tmp_path / fname).write_text(body)
        paths.append(str(tmp_path / fname))
    rc = main(["check", *paths, *args, "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc in (0, 1), out
    return out


def _fp32_said(out: dict) -> bool:
    return any("load in fp32 whatever --bf16/--fp16 say" in n for n in out["notes"])


def test_fastchat_train_mem_loads_fp32_and_needs_the_readme_s_four_cards(tmp_path, capsys):
    four = _check(tmp_path, capsys, FASTCHAT.format(gpus=4), "--gpu", "a100-40gb")
    assert four["execution"]["trainable_weights"] == "fp32" and four["execution"]["optimizer_state"] == "fp32"
    assert _fp32_said(four) and four["verdict"] == "fits"
    # over two cards the fp32 weights, gradients and AdamW moments alone are 16 B x 6.74B / 2 = 54 GB a card
    two = _check(tmp_path, capsys, FASTCHAT.format(gpus=2), "--gpu", "a100-40gb")
    assert two["verdict"] == "oom"
    assert int(two["memory"]["step"]["peak_allocated_bytes"]) > 50 * 10**9


def test_fastchat_train_lora_is_not_read_as_fp32(tmp_path, capsys):
    """train_lora.py passes torch_dtype=compute_dtype: not in the table."""
    text = FASTCHAT.format(gpus=4).replace("train_mem.py", "train_lora.py").replace(
        "--lazy_preprocess True", "--lazy_preprocess True --lora_r 8 --lora_alpha 16")
    out = _check(tmp_path, capsys, text, "--gpu", "a100-40gb")
    assert not _fp32_said(out)


def test_stanford_alpaca_copy_loads_fp32_by_its_flags(tmp_path, capsys):
    out = _check(tmp_path, capsys, ALPACA.format(program="my_train.py", extra=""), "--gpu", "a100-80gb")
    assert _fp32_said(out) and out["execution"]["gradients"] == "fp32"
    assert out["verdict"] == "fits"          # the README's 4 x A100 80G
    one = _check(tmp_path, capsys, ALPACA.format(program="my_train.py", extra="").replace(
        "--nproc_per_node=4", "--nproc_per_node=1"), "--gpu", "a100-80gb")
    assert one["verdict"] == "oom"           # 16 B x 6.74B = 108 GB of state on one 80 GB card


def test_a_program_with_flags_of_its_own_is_not_taken_for_alpaca(tmp_path, capsys):
    out = _check(tmp_path, capsys, ALPACA.format(program="train.py", extra=" \\\n    --vision_tower openai/clip"),
                 "--gpu", "a100-80gb")
    assert not _fp32_said(out)


def test_the_program_given_decides_its_own_dtype(tmp_path, capsys):
    """With train.py itself among the files its from_pretrained(torch_dtype=...) is read, not the table's fp32."""
    program = ("import torch, transformers\n"
               "model = transformers.AutoModelForCausalLM.from_pretrained('huggyllama/llama-7b', "
               "torch_dtype=torch.bfloat16)\n")
    out = _check(tmp_path, capsys, ALPACA.format(program="train.py", extra=""), "--gpu", "a100-80gb",
                 more={"train.py": program})
    assert not _fp32_said(out)


def test_instructlab_main_ds_reads_its_token_budget_and_zero2(tmp_path, capsys):
    out = _check(tmp_path, capsys, INSTRUCTLAB.format(gpus=4, tokens=54000, extra=""), "--gpu", "a100-80gb")
    u = out["understood"]
    assert (u["cutoff_len"], u["micro_batch"], u["gradient_checkpointing"], u["attn"]) == (54000, 1, True, "fa2")
    assert u["zero_stage"] == 2 and out["model"]["name"] == "llama-2-7b"
    assert any(n.startswith("instructlab main_ds: samples packed padding-free into one row of up to 54000") for n in
               out["notes"])
    assert out["verdict"] == "fits"          # the profile instructlab ships for 4 x A100/H100 80GB
    over = _check(tmp_path, capsys, INSTRUCTLAB.format(gpus=4, tokens=200000, extra=""), "--gpu", "a100-80gb")
    assert over["verdict"] == "oom"


def test_instructlab_main_ds_default_budget_and_fsdp(tmp_path, capsys):
    text = INSTRUCTLAB.format(gpus=8, tokens=1, extra=" \\\n    --distributed_training_framework=fsdp").replace(
        " \\\n    --max_batch_len=1", "")
    out = _check(tmp_path, capsys, text, "--gpu", "mi300x")
    assert out["understood"]["cutoff_len"] == 60000          # main_ds.py --max_batch_len default
    assert out["execution"]["sharding"].startswith("FSDP HYBRID_SHARD")
    assert out["understood"]["zero_stage"] == 0
