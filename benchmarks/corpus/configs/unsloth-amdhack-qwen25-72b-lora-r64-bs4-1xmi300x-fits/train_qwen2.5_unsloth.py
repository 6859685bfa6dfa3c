#!/usr/bin/env python3
"""
Qwen2.5-72B-Instruct + Unsloth LoRA, curriculum chunks with a replay buffer.
Target box: one AMD Instinct MI300X (192 GB) on the AMD developer cloud.
(fixture written for the corpus: the settings of scripts/train_qwen2.5_unsloth.py, helpers condensed)
"""
import json
import logging
import os
import random
from pathlib import Path

# torchao import breaks on this ROCm build (torch.int1)
os.environ['TRANSFORMERS_NO_TORCHAO'] = '1'

import torch
from datasets import Dataset
from unsloth import FastLanguageModel
from trl import SFTTrainer
from transformers import TrainingArguments

logging.basicConfig(level=logging.INFO, format='%(asctime)s - %(levelname)s - %(message)s')


class ReplayBuffer:
    """reservoir of earlier examples, mixed back in at 10 %"""
    def __init__(self, buffer_size=500):
        self.buffer_size, self.buffer = buffer_size, []

    def add_batch(self, examples):
        for ex in examples:
            if len(self.buffer) < self.buffer_size:
                self.buffer.append(ex)
            else:
                self.buffer[random.randint(0, len(self.buffer) - 1)] = ex

    def sample(self, n):
        return random.sample(self.buffer, min(n, len(self.buffer))) if self.buffer else []


def format_question(q):
    choices = "\n".join(f"{k}. {v}" for k, v in sorted(q.get('choices', {}).items()))
    return (f"<|im_start|>system\nYou are a helpful assistant that answers multiple choice questions accurately.<|im_end|>\n"
            f"<|im_start|>user\nQuestion: {q['question']}\n\nChoices:\n{choices}\n<|im_end|>\n"
            f"<|im_start|>assistant\nThe correct answer is {q.get('correct_answer', 'A')}.<|im_end|>")


def load_model_and_tokenizer(model_name="Qwen/Qwen2.5-72B-Instruct"):
    logging.info(f"Loading {model_name} with Unsloth...")
    model, tokenizer = FastLanguageModel.from_pretrained(
        model_name=model_name,
        max_seq_length=2048,
        dtype=None,          # auto: bf16 on MI300X
        load_in_4bit=True,   # ignored on AMD (no bitsandbytes for ROCm 6.2): loads in 16-bit
    )
    return model, tokenizer


def setup_lora(model, rank=64, alpha=128):
    return FastLanguageModel.get_peft_model(
        model,
        r=rank,
        target_modules=["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"],
        lora_alpha=alpha,
        lora_dropout=0,
        bias="none",
        use_gradient_checkpointing="unsloth",
        random_state=42,
    )


def curriculum_training(model, tokenizer, train_data, output_dir, chunk_size=5000, lr=2e-4):
    replay = ReplayBuffer(500)
    out = Path(output_dir)
    n_chunks = (len(train_data) + chunk_size - 1) // chunk_size
    for i in range(n_chunks):
        chunk = train_data[i * chunk_size:(i + 1) * chunk_size]
        rows = [{'text': format_question(q)} for q in chunk]
        replay.add_batch(chunk)
        rows += [{'text': format_question(q)} for q in replay.sample(int(len(rows) * 0.1))]
        random.shuffle(rows)
        training_args = TrainingArguments(
            output_dir=str(out / f"checkpoint_chunk{i}"),
            num_train_epochs=1,
            per_device_train_batch_size=4,   # up from 1: VRAM to spare
            gradient_accumulation_steps=4,   # down from 16
            learning_rate=lr,
            warmup_steps=10,
            logging_steps=10,
            save_strategy="no",
            fp16=False,
            bf16=True,
            optim="adamw_torch",             # no bitsandbytes on ROCm
            gradient_checkpointing=True,
            report_to="none",
        )
        trainer = SFTTrainer(
            model=model,
            tokenizer=tokenizer,
            train_dataset=Dataset.from_list(rows),
            dataset_text_field="text",
            max_seq_length=2048,
            packing=False,
            args=training_args,
        )
        trainer.train()
        model.save_pretrained(str(out / f"adapter_chunk{i}"))


def main():
    with open("data/curriculum/train_curriculum.json") as f:
        train_data = json.load(f)
    model, tokenizer = load_model_and_tokenizer()
    model = setup_lora(model, rank=64, alpha=128)
    curriculum_training(model, tokenizer, train_data, "models/qwen2.5_72b_unsloth_curriculum", chunk_size=5000)


if __name__ == "__main__":
    main()
