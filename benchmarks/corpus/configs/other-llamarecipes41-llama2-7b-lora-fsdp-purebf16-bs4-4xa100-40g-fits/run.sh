#!/bin/bash
# llama-recipes @ e5970e2e (2023-07-25), 4x A100 40GB (AWS), pure bf16 FSDP + LoRA on samsum (default dataset)
torchrun --nnodes 1 --nproc_per_node 4  llama_finetuning.py --enable_fsdp --use_peft --peft_method lora --model_name llama-2-7b-hf/ --pure_bf16 --output_dir output_dir
