#!/bin/bash
# config_hub/finetune/README.md: automated benchmark on Lightning AI Studio (4xA10G)
litgpt download meta-llama/Meta-Llama-3-8B
litgpt finetune_full --config config_hub/finetune/llama-3-8b/full.yaml
