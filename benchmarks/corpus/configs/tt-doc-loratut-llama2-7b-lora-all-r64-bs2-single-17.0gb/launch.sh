#!/bin/bash
# torchtune @ ff594c231 (April 2024), LoRA tutorial peak-memory experiment
tune run lora_finetune_single_device --config ./7B_lora_single_device.yaml
