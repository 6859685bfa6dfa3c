#!/bin/bash
# Primus native SFT LoRA (docs/04-technical-guides/native-sft-lora.md, section 3.1)
export EXP_NAME="native_$(date +%Y%m%d_%H%M%S)"
docker exec \
  -e HF_TOKEN="$HF_TOKEN" \
  -e HF_HOME=/data/mlperf_llama2/.cache/huggingface \
  -e PRIMUS_EXP_NAME="$EXP_NAME" \
  sft_primus_0507_native bash -c "cd /workspace/Primus && \
    EXP=examples/megatron/configs/MI355X/llama3_8B-BF16-sft-packed.yaml \
    bash ./runner/primus-cli direct -- train posttrain --config examples/megatron/configs/MI355X/llama3_8B-BF16-sft-packed.yaml" \
  2>&1 | tee ./logs/${EXP_NAME}.log
