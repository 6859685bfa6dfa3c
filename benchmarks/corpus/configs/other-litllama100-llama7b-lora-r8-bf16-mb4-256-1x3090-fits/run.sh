#!/bin/bash
# lit-llama @ 8a13cbf (PR #100, 2023-04-06), single RTX 3090; PyTorch nightly needed on this GPU (issue #101)
python scripts/prepare_alpaca.py
python finetune_lora.py
