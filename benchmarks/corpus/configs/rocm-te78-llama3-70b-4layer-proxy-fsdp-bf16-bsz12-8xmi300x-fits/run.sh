#!/bin/bash
# 8x MI300X, ROCm 6.2.0, torch nightly rocm6.2; BF16 FSDP baseline (no TE FP8)
python ./train_fsdp_llama_70_reprod.py --bsz=12 --use_fp8=False
