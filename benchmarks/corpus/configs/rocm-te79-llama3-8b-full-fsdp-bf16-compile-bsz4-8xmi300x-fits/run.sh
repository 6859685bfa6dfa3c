#!/bin/bash
# 8x MI300X, ROCm 6.2.0, torch nightly
python ./train_fsdp_llama_8b.py --bsz=4 --use_fp8=False
