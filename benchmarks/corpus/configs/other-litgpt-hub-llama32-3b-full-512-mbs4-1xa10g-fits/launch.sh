#!/bin/bash
# config_hub/finetune/README.md: automated benchmark on Lightning AI Studio (1xA10G)
litgpt download meta-llama/Llama-3.2-3B
litgpt finetune_full --config config_hub/finetune/llama-3.2-3B/full.yaml
