#!/bin/bash
# 8x MI300X, ROCm 6.2.0, rocm/pytorch:rocm6.2_ubuntu22.04_py3.10_pytorch_release_2.3.0 + torch nightly rocm6.2, ROCm/TransformerEngine (NVTE_USE_HIPBLASLT=1)
python ./train_fsdp_llama_70_reprod.py --bsz=2
