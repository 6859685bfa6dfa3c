#!/bin/bash
# 8-GPU DDP benchmark as run in the write-up (13B config of the script; 8 ranks spawned by the script itself)
docker run --rm --device /dev/kfd --device /dev/dri --ipc=host \
  -v /home/asrr/amd_test:/workspace \
  rocm/vllm:rocm7.0.0_vllm_0.11.2_20251210 \
  python3 /workspace/multigpu_benchmark.py --model 13b --gpus 8 --batch-size 8
