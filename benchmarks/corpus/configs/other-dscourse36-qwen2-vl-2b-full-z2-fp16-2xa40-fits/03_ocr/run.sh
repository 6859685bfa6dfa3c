#!/bin/bash
# from the lab manifest
cd 03_ocr
uv run deepspeed --num_gpus=2 train_ds.py --max-steps 20
