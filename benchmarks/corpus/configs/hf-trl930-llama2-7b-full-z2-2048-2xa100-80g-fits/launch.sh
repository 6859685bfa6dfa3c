#!/bin/bash
# 2 x A100 80 GB, CUDA 12.2, Ubuntu 20.04
accelerate launch --config_file default_config.yaml train.py
