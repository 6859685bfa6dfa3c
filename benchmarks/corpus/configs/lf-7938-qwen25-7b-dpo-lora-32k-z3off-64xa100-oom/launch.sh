#!/bin/bash
# 8 nodes x 8 A100 80G
FORCE_TORCHRUN=1 NNODES=8 NODE_RANK=$RANK MASTER_ADDR=$MASTER_ADDR MASTER_PORT=29500 \
  llamafactory-cli train qwen25_7b_dpo_32k.yaml
