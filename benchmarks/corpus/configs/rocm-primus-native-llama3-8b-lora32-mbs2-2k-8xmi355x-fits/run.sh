#!/bin/bash
# Primus native SFT LoRA (docs/04-technical-guides/native-sft-lora.md, section 3.1)
export EXP_NAME="native_$(date +%Y%m%d_%H%M%S)"
bash ./runner/primus-cli container --image rocm/primus:v26.1 \
  -e HF_HOME=/data/mlperf_llama2/.cache/huggingface \
  -e EXP=examples/megatron/configs/MI355X/llama3_8B-BF16-lora-sft.yaml \
  -- train posttrain --config examples/megatron/configs/MI355X/llama3_8B-BF16-lora-sft.yaml \
  2>&1 | tee ./logs/${EXP_NAME}.log
