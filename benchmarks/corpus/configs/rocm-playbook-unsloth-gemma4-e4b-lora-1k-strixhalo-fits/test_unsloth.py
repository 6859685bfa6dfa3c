#!/usr/bin/env python
# coding: utf-8

"""
Minimal Unsloth training script (Gemma-4)
- Clean (<200 lines)
- With progress logs
- Suitable for quickstart
"""

import time
import unsloth
import torch
from datasets import load_dataset
from transformers import TextStreamer
from unsloth import FastModel
from unsloth.chat_templates import (
    get_chat_template,
    standardize_data_formats,
    train_on_responses_only,
)
from trl import SFTTrainer, SFTConfig


# =========================
# Config
# =========================
MODEL_NAME = "unsloth/gemma-4-E4B-it"
MAX_SEQ_LEN = 1024
DATASET_NAME = "mlabonne/FineTome-100k"
DATASET_SPLIT = "train[:2000]"   # keep small for demo
OUTPUT_DIR = "gemma_4_lora"
MERGED_DIR = "gemma_4_merged"


def log(msg: str):
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


def load_model():
    log("Loading model...")
    model, tokenizer = FastModel.from_pretrained(
        model_name=MODEL_NAME,
        max_seq_length=MAX_SEQ_LEN,
        load_in_4bit=False,
    )

    tokenizer = get_chat_template(tokenizer, chat_template="gemma-4")
    return model, tokenizer


def prepare_dataset(tokenizer):
    log("Loading dataset...")
    dataset = load_dataset(DATASET_NAME, split=DATASET_SPLIT)

    log("Standardizing format...")
    dataset = standardize_data_formats(dataset)

    def format_fn(examples):
        texts = [
            tokenizer.apply_chat_template(
                convo,
                tokenize=False,
                add_generation_prompt=False,
            ).removeprefix("<bos>")
            for convo in examples["conversations"]
        ]
        return {"text": texts}

    log("Applying chat template...")
    dataset = dataset.map(format_fn, batched=True)

    return dataset


def apply_lora(model):
    log("Applying LoRA adapters...")
    model = FastModel.get_peft_model(
        model,
        finetune_language_layers=True,
        finetune_attention_modules=True,
        finetune_mlp_modules=True,
        r=8,
        lora_alpha=8,
        lora_dropout=0,
        bias="none",
    )
    return model


def train(model, tokenizer, dataset):
    log("Setting up trainer...")

    trainer = SFTTrainer(
        model=model,
        tokenizer=tokenizer,
        train_dataset=dataset,
        args=SFTConfig(
            dataset_text_field="text",
            per_device_train_batch_size=1,
            gradient_accumulation_steps=4,
            max_steps=50,  # quick demo
            learning_rate=2e-4,
            logging_steps=5,
            report_to="none",
            optim="adamw_torch",
        ),
    )

    trainer = train_on_responses_only(
        trainer,
        instruction_part="<|turn>user\n",
        response_part="<|turn>model\n",
    )

    log("Start training...")
    start = time.time()

    stats = trainer.train()

    log(f"Training finished in {round(time.time() - start, 2)} sec")
    return stats


def save_model(model, tokenizer):
    log("Saving LoRA adapters...")
    model.save_pretrained(OUTPUT_DIR)
    tokenizer.save_pretrained(OUTPUT_DIR)


def main():
    log("===== Unsloth Training Pipeline =====")

    model, tokenizer = load_model()
    dataset = prepare_dataset(tokenizer)
    model = apply_lora(model)

    train(model, tokenizer, dataset)
    save_model(model, tokenizer)

    log("===== Done =====")


if __name__ == "__main__":
    main()
