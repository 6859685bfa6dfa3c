#!/bin/bash
# DCU: K100-AI x8, DTK 25.04, torch 2.4.1+das.opt2.dtk2504 (from the tutorial)
conda activate dcu_llm_fine
cd ~/AI-BOX/code/dcu/llama-factory
llamafactory-cli train examples/train_lora/llama3_lora_sft.yaml
