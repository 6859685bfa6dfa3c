#!/usr/bin/env python3
"""
LoRA Fine-tuning Script
Fine-tunes LLM using LoRA on collected interaction data
"""

# Suppress bitsandbytes ROCm version warnings (we don't use quantization)
import warnings
warnings.filterwarnings('ignore', category=RuntimeWarning, module='bitsandbytes')

import argparse
import json
import logging
from pathlib import Path

import torch
from datasets import load_dataset
from peft import LoraConfig, TaskType, get_peft_model
from transformers import AutoModelForCausalLM, AutoTokenizer, Trainer, TrainingArguments

logger = logging.getLogger(__name__)


class LoRATrainer:
    """Manages LoRA fine-tuning"""

    def __init__(self, model_name, dataset_path, output_dir, lora_r=16, lora_alpha=32,
                 lora_dropout=0.05, learning_rate=2e-4, num_epochs=3, batch_size=4,
                 gradient_accumulation_steps=4):
        self.model_name = model_name
        self.dataset_path = Path(dataset_path)
        self.output_dir = Path(output_dir)
        self.output_dir.mkdir(parents=True, exist_ok=True)

        self.lora_config = LoraConfig(
            r=lora_r,
            lora_alpha=lora_alpha,
            target_modules=["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"],
            lora_dropout=lora_dropout,
            bias="none",
            task_type=TaskType.CAUSAL_LM,
        )

        self.training_args = TrainingArguments(
            output_dir=str(self.output_dir),
            num_train_epochs=num_epochs,
            per_device_train_batch_size=batch_size,
            gradient_accumulation_steps=gradient_accumulation_steps,
            learning_rate=learning_rate,
            fp16=False,  # Use bf16 for ROCm
            bf16=True,
            logging_steps=10,
            save_steps=100,
            save_total_limit=3,
            warmup_steps=50,
            lr_scheduler_type="cosine",
            optim="adamw_torch",
            report_to="tensorboard",
            logging_dir=str(self.output_dir / "logs"),
            remove_unused_columns=False,  # Keep 'text' column for on-the-fly tokenization
        )

    def load_model_and_tokenizer(self):
        self.tokenizer = AutoTokenizer.from_pretrained(self.model_name, trust_remote_code=True)
        if self.tokenizer.pad_token is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self.model = AutoModelForCausalLM.from_pretrained(
            self.model_name,
            torch_dtype=torch.bfloat16,
            device_map="auto",
            trust_remote_code=True
        )
        # Enable gradient checkpointing for memory efficiency
        self.model.gradient_checkpointing_enable()
        self.model = get_peft_model(self.model, self.lora_config)
        self.model.print_trainable_parameters()

    def load_dataset_file(self):
        dataset = load_dataset('json', data_files=str(self.dataset_path), split='train')

        def format_instruction(example):
            prompt = (f"### User Request:\n{example['user_request']}\n\n### Tool: {example.get('tool', 'bash')}\n"
                      f"### Command:\n{example.get('command', '')}\n\n### Output:\n")
            return {'text': prompt + example.get('output', '')}

        self.train_dataset = dataset.map(format_instruction, remove_columns=dataset.column_names)

    def train(self):
        def collate_fn(examples):
            texts = [ex['text'] for ex in examples]
            tokenized = self.tokenizer(texts, truncation=True, max_length=256, padding=True, return_tensors='pt')
            tokenized['labels'] = tokenized['input_ids'].clone()
            return tokenized

        trainer = Trainer(model=self.model, args=self.training_args,
                          train_dataset=self.train_dataset, data_collator=collate_fn)
        train_result = trainer.train()
        trainer.save_model()
        with open(self.output_dir / "training_metrics.json", 'w') as f:
            json.dump(train_result.metrics, f, indent=2)
        return train_result.metrics


def main():
    parser = argparse.ArgumentParser(description='LoRA fine-tuning')
    parser.add_argument('--model', type=str, required=True)
    parser.add_argument('--dataset', type=str, required=True)
    parser.add_argument('--output', type=str, required=True)
    parser.add_argument('--lora-r', type=int, default=16)
    parser.add_argument('--lora-alpha', type=int, default=32)
    parser.add_argument('--lora-dropout', type=float, default=0.05)
    parser.add_argument('--lr', type=float, default=2e-4)
    parser.add_argument('--epochs', type=int, default=3)
    parser.add_argument('--batch-size', type=str, default='auto')
    parser.add_argument('--grad-accum', type=int, default=4)
    args = parser.parse_args()
    trainer = LoRATrainer(args.model, args.dataset, args.output, args.lora_r, args.lora_alpha,
                          args.lora_dropout, args.lr, args.epochs, int(args.batch_size), args.grad_accum)
    trainer.load_model_and_tokenizer()
    trainer.load_dataset_file()
    print(json.dumps(trainer.train(), indent=2))


if __name__ == '__main__':
    main()
