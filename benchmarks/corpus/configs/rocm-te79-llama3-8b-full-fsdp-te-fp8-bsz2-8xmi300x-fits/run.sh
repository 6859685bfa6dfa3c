#!/bin/bash
# 8x MI300X, ROCm 6.2.0
python ./train_fsdp_llama_8b.py --bsz=2
