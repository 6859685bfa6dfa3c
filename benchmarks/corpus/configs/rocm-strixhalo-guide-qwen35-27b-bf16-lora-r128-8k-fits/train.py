#!/usr/bin/env python3
"""Training script used by train_orchestrator.sh (Strix Halo, Radeon 8060S gfx1151, 128 GB unified).
Invoked by the orchestrator as:
    python3 train.py --output-dir /srv/ft/qwen35-27b --bf16-lora --no-eval \
        --lora-r 128 --lora-alpha 256 --epochs 2 --grad-accum 4 --max-steps 100 --resume
"""
import argparse
import os

# CRITICAL - set before importing torch
os.environ["TORCH_ROCM_AOTRITON_ENABLE_EXPERIMENTAL"] = "1"
os.environ.pop("HSA_OVERRIDE_GFX_VERSION", None)
os.environ["PYTORCH_ALLOC_CONF"] = "expandable_segments:True,garbage_collection_threshold:0.6"

import json
import torch
from datasets import Dataset
from peft import LoraConfig
from transformers import AutoModelForCausalLM, AutoTokenizer
from trl import SFTConfig, SFTTrainer


def load_jsonl_dataset(path, tokenizer, max_seq_length):
    records = []
    with open(path) as f:
        for line in f:
            rec = json.loads(line)
            msgs = rec.get("messages", [])
            if not msgs:
                continue
            text = tokenizer.apply_chat_template(msgs, tokenize=False, add_generation_prompt=False)
            ids = tokenizer.encode(text, add_special_tokens=False)[:max_seq_length]
            if ids:
                records.append({"input_ids": ids})
    return Dataset.from_list(records)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--base-model", default="Qwen/Qwen3.5-27B")
    parser.add_argument("--train-data", default=os.environ.get("TRAIN_DATA", "data/train.jsonl"))
    parser.add_argument("--output-dir", required=True)
    parser.add_argument("--max-seq-length", type=int, default=8192)
    parser.add_argument("--bf16-lora", action="store_true")
    parser.add_argument("--no-eval", action="store_true")
    parser.add_argument("--lora-r", type=int, default=128)
    parser.add_argument("--lora-alpha", type=int, default=256)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--grad-accum", type=int, default=4)
    parser.add_argument("--max-steps", type=int, default=0)
    parser.add_argument("--resume", action="store_true")
    parser.add_argument("--save-steps", type=int, default=50)
    args = parser.parse_args()

    torch.cuda.set_per_process_memory_fraction(0.80)   # cap GPU at ~102 GB, leave room for the OS
    print(f"GPU: {torch.cuda.get_device_name(0)}")

    tokenizer = AutoTokenizer.from_pretrained(args.base_model, trust_remote_code=True, padding_side="right")
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    train_dataset = load_jsonl_dataset(args.train_data, tokenizer, args.max_seq_length)

    # eager attention is required for Qwen3.5 hybrid GatedDeltaNet (SDPA crashes)
    model = AutoModelForCausalLM.from_pretrained(
        args.base_model, torch_dtype=torch.bfloat16, device_map={"": 0},
        attn_implementation="eager", low_cpu_mem_usage=True, trust_remote_code=True,
    )
    peft_config = LoraConfig(
        r=args.lora_r, lora_alpha=args.lora_alpha, lora_dropout=0.05, bias="none", task_type="CAUSAL_LM",
        target_modules=["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"],
    )
    config = SFTConfig(
        output_dir=args.output_dir,
        push_to_hub=False,
        num_train_epochs=args.epochs,
        max_steps=args.max_steps if args.max_steps > 0 else -1,
        per_device_train_batch_size=1,
        gradient_accumulation_steps=args.grad_accum,
        learning_rate=5e-5,
        warmup_steps=30,
        lr_scheduler_type="cosine",
        weight_decay=0.01,
        max_length=args.max_seq_length,
        bf16=True,
        gradient_checkpointing=True,
        gradient_checkpointing_kwargs={"use_reentrant": False},
        optim="paged_adamw_8bit",  # requires bnb-from-source build
        logging_steps=1,
        save_strategy="steps",
        save_steps=args.save_steps,
        save_total_limit=5,
        eval_strategy="no",  # orchestrator handles eval out-of-process
        dataloader_num_workers=0,
        dataloader_pin_memory=False,
        report_to="none",
    )
    trainer = SFTTrainer(model=model, train_dataset=train_dataset, args=config, peft_config=peft_config)
    trainer.train(resume_from_checkpoint=True) if args.resume else trainer.train()
    trainer.save_model(f"{args.output_dir}/final")


if __name__ == "__main__":
    main()
