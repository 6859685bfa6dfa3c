#!/bin/bash
# torchtune README (April 2024): fine-tuning resource requirements, config copied locally
tune run --nnodes 1 --nproc_per_node 4 full_finetune_distributed --config ./7B_full.yaml
