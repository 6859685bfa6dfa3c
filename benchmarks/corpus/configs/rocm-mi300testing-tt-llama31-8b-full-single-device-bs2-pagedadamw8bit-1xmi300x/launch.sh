#!/bin/bash
# notebook cell (train-torchtune-llama3-8b.ipynb), one MI300X
time tune run full_finetune_single_device --config tt-llama3_1/8B_full_single_device.yaml
