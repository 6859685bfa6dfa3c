#!/bin/bash
# torchtune README (April 2024): fine-tuning resource requirements, config copied locally
tune run full_finetune_single_device --config ./7B_full_low_memory.yaml
