"""03_ocr: Qwen2-VL-2B OCR fine-tune with DeepSpeed.

Usage:
    deepspeed --num_gpus=2 train_ds.py --use-4bit --use-lora
"""
import argparse

import logging

import torch
import deepspeed
from transformers import AutoProcessor, Qwen2VLForConditionalGeneration
from peft import LoraConfig, get_peft_model

logger = logging.getLogger(__name__)
MODEL_ID = "Qwen/Qwen2-VL-2B-Instruct"


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--use-4bit", action="store_true")
    p.add_argument("--use-lora", action="store_true")
    p.add_argument("--max-steps", type=int, default=200)
    p.add_argument("--max-pixels", type=int, default=512 * 28 * 28)   # filled in: cap not posted
    p.add_argument("--local_rank", type=int, default=-1)
    p = deepspeed.add_config_arguments(p)
    return p.parse_args()


def main():
    args = parse_args()
    model = Qwen2VLForConditionalGeneration.from_pretrained(MODEL_ID, torch_dtype=torch.float16)
    if args.use_lora:
        logger.info("Applying LoRA configuration")
        model = get_peft_model(model, LoraConfig(r=16, lora_alpha=32, lora_dropout=0.05,
                                                 target_modules=["q_proj", "k_proj", "v_proj", "o_proj"]))
    processor = AutoProcessor.from_pretrained(MODEL_ID, max_pixels=args.max_pixels)
    engine, _, _, _ = deepspeed.initialize(args=args, model=model, model_parameters=[p for p in model.parameters() if p.requires_grad],
                                           config="ds_config.json")
    ...


if __name__ == "__main__":
    main()
