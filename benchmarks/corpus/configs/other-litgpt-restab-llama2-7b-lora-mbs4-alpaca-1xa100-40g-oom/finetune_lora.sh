#!/bin/bash
# tutorials/resource-tables.md: 'Finetuning with LoRA on 1 GPU' (1x A100-SXM4-40GB, minibatch size 128, bf16-true, Alpaca)
litgpt finetune_lora checkpoints/meta-llama/Llama-2-7b-hf \
  --data Alpaca \
  --precision bf16-true \
  --train.global_batch_size 128 \
  --train.micro_batch_size 4
