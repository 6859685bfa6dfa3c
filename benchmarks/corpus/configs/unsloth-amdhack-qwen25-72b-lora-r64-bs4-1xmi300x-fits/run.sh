#!/bin/bash
# on the MI300X droplet, inside rocm/pytorch container
cd ~/AMD_Hackathon
nohup python3 scripts/train_qwen2.5_unsloth.py > training.log 2>&1 &
