#!/bin/bash
# config_hub/finetune/README.md: automated benchmark on Lightning AI Studio (1xA10G)
litgpt download google/gemma-2-9b
litgpt finetune_lora --config config_hub/finetune/gemma2-9b/qlora.yaml
