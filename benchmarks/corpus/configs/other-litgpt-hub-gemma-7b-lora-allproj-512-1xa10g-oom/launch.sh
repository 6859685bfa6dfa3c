#!/bin/bash
# config_hub/finetune/README.md: automated benchmark on Lightning AI Studio (1xA10G)
litgpt download google/gemma-7b
litgpt finetune_lora --config config_hub/finetune/gemma-7b/lora.yaml
