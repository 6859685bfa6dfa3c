#!/bin/bash
# epochraft-hf-fsdp @ cb17ba5 (PR #7 merged 2023-11-08): 16 x 40GB GPUs (2 nodes x 8 assumed)
torchrun --nnodes 2 --nproc_per_node 8 --rdzv_backend c10d --rdzv_endpoint $MASTER_ADDR:29500 \
    pretrain.py llama2-7b_testrun.yaml
