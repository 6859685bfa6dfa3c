#!/bin/bash
# RX 6900 XT (gfx1030), ROCm 5.6, bitsandbytes from arlo-phoenix/bitsandbytes-rocm-5.6 (rocm branch)
export HSA_OVERRIDE_GFX_VERSION=10.3.0
python server.py --model ehartford_WizardLM-1.0-Uncensored-Llama2-13b --loader transformers --load-in-4bit --listen
