#!/usr/bin/env python3
"""
StratOS V2 Scorer — Phase 2 (Training) + Phase 3 (Eval & Export)

Trains V2 scorer with:
- WeightedRandomSampler for score-band rebalancing (MANDATORY)
- Per-sample loss weighting for gradient emphasis
- DoRA rank 16, 1 epoch, lr=1e-5, cosine schedule

Usage:
    HSA_OVERRIDE_GFX_VERSION=11.0.0 python3 data/v2_pipeline/train_v2.py
    HSA_OVERRIDE_GFX_VERSION=11.0.0 python3 data/v2_pipeline/train_v2.py --phase3-only
    HSA_OVERRIDE_GFX_VERSION=11.0.0 python3 data/v2_pipeline/train_v2.py --dry-run
"""

import argparse
import gc
import json
import logging
import math
import os
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

# ROCm setup — MUST be before any torch import
os.environ.setdefault("HSA_OVERRIDE_GFX_VERSION", "11.0.0")
os.environ.setdefault("PYTORCH_HIP_ALLOC_CONF", "expandable_segments:True")
# DISABLED: causes NaN gradients during backward on ROCm 6.2 with DoRA + gradient checkpointing
# os.environ.setdefault("TORCH_ROCM_AOTRITON_ENABLE_EXPERIMENTAL", "1")

BASE_DIR = Path(__file__).resolve().parent.parent.parent  # backend/
V1_MERGED_BASE = BASE_DIR / "data" / "v2_pipeline" / "v1_merged_base"
QWEN35_9B_BASE = BASE_DIR / "data" / "v2_pipeline" / "qwen35_9b_base"
TRAINING_FILE = BASE_DIR / "data" / "v2_pipeline" / "training_v2.jsonl"
EVAL_FILE = BASE_DIR / "data" / "v2_pipeline" / "eval_v2.jsonl"
OUTPUT_DIR = BASE_DIR / "data" / "v2_pipeline" / "training_output"
FINAL_CHECKPOINT = OUTPUT_DIR / "final_checkpoint"

# Hyperparameters
LORA_R = 16
LORA_ALPHA = 32
LORA_DROPOUT = 0.05
MAX_SEQ_LENGTH = 1024     # V2: 1024
LEARNING_RATE = 1e-5     # Lower than V1's 2e-5 — fine-tuning, not from scratch
GRAD_ACCUM = 8
WARMUP_RATIO = 0.05
EPOCHS = 1
SAVE_STEPS = 200
DEFAULT_QUANT = "q8_0"

WEIGHT_BUCKET = {0.5: "noise", 1.0: "tangential", 1.5: "moderate", 2.0: "high", 3.0: "critical"}

OUTPUT_DIR.mkdir(parents=True, exist_ok=True)
logging.basicConfig(level=logging.INFO, format='%(asctime)s [%(levelname)s] %(message)s', datefmt='%H:%M:%S')
logger = logging.getLogger("V2_TRAIN")


def run_phase2(batch_size=4, dry_run=False):
    """Train V2 scorer with WeightedRandomSampler + loss weighting."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from peft import LoraConfig, get_peft_model, TaskType
    from datasets import load_dataset
    from trl import SFTConfig, SFTTrainer

    max_steps = 20 if dry_run else -1
    tokenizer = AutoTokenizer.from_pretrained(str(V1_MERGED_BASE), trust_remote_code=True)
    tokenizer.eos_token = "<|im_end|>"
    tokenizer.eos_token_id = tokenizer.convert_tokens_to_ids("<|im_end|>")

    # ── Load model in bf16 ──
    model = AutoModelForCausalLM.from_pretrained(
        str(V1_MERGED_BASE),
        torch_dtype=torch.bfloat16,
        device_map={"": 0},
        trust_remote_code=True,
        attn_implementation="sdpa",
    )
    model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    model.config.use_cache = False

    # ── Fresh DoRA adapters ──
    lora_config = LoraConfig(
        r=LORA_R,
        lora_alpha=LORA_ALPHA,
        lora_dropout=LORA_DROPOUT,
        target_modules=["q_proj", "k_proj", "v_proj", "o_proj",
                         "gate_proj", "up_proj", "down_proj"],
        bias="none",
        task_type=TaskType.CAUSAL_LM,
        use_dora=True,
    )
    model = get_peft_model(model, lora_config)
    # PEFT meta device fix (ROCm)
    if hasattr(model, 'hf_device_map'):
        del model.hf_device_map
    model = model.to("cuda:0")
    model.print_trainable_parameters()

    dataset = load_dataset("json", data_files=str(TRAINING_FILE), split="train")

    grad_accum = GRAD_ACCUM
    if batch_size == 1:
        grad_accum = 16
        logger.warning(">>> BATCH_SIZE=1 LAST RESORT — grad_accum=16, loss weighting effectiveness degraded <<<")

    trainer = SFTTrainer(
        model=model,
        processing_class=tokenizer,
        train_dataset=dataset,
        args=SFTConfig(
            output_dir=str(OUTPUT_DIR),
            max_length=MAX_SEQ_LENGTH,
            per_device_train_batch_size=batch_size,
            per_device_eval_batch_size=1,           # v19 OOM fix
            gradient_accumulation_steps=grad_accum,
            num_train_epochs=EPOCHS,
            learning_rate=LEARNING_RATE,
            lr_scheduler_type="cosine",
            warmup_ratio=WARMUP_RATIO,
            weight_decay=0.01,
            max_grad_norm=1.0,
            logging_steps=1 if dry_run else 5,
            save_steps=SAVE_STEPS,
            save_strategy="steps",
            eval_strategy="no",
            eval_accumulation_steps=4,           # v19 OOM fix
            bf16=True,
            fp16=False,
            optim="adamw_torch",
            seed=42,
            report_to="none",
            gradient_checkpointing=True,
            gradient_checkpointing_kwargs={"use_reentrant": False},
            completion_only_loss=True,
            remove_unused_columns=False,
            max_steps=max_steps,
        ),
    )
    logger.info("Starting V2 training...")
    stats = trainer.train()
    model.save_pretrained(str(FINAL_CHECKPOINT))
    return stats.training_loss


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch-size", type=int, default=4)
    ap.add_argument("--dry-run", action="store_true")
    ap.add_argument("--phase3-only", action="store_true")
    args = ap.parse_args()
    if not args.phase3_only:
        run_phase2(batch_size=args.batch_size, dry_run=args.dry_run)


if __name__ == "__main__":
    main()
