#!/bin/bash
# 4x A100, 360 GB host RAM
deepspeed --num_gpus=4 train.py
