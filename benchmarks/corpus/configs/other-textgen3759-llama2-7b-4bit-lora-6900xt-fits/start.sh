#!/bin/bash
# RX 6900 XT (gfx1030), ROCm 5.6, bitsandbytes from arlo-phoenix/bitsandbytes-rocm-5.6 (rocm branch)
export HSA_OVERRIDE_GFX_VERSION=10.3.0
python server.py --model llama-2-7b-chat-hf --loader transformers --load-in-4bit --listen
