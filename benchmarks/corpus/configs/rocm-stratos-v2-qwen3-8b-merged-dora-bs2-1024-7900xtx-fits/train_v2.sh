#!/bin/bash
cd "$(dirname "$0")"
export HSA_OVERRIDE_GFX_VERSION=11.0.0
export PYTORCH_HIP_ALLOC_CONF=expandable_segments:True
# DO NOT SET: TORCH_ROCM_AOTRITON_ENABLE_EXPERIMENTAL=1
# bs 4 ran out of VRAM -> fall back to 2
python3 data/v2_pipeline/train_v2.py --batch-size 2 2>&1 | tee data/v2_pipeline/training_output/train_v2.log
