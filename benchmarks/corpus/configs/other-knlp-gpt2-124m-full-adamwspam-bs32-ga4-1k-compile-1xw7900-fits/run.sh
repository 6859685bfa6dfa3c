#!/bin/bash
# The test-matrix runner's launch of this run (the "Command:" line of its output.log), one process on the W7900.
/home/mcgrof/.local/share/mamba/envs/w7900-ml/bin/python3 /data/AdamWPrune/gpt2/train.py \
  --optimizer adamwspam --dataset finewebedu --batch-size 32 --block-size 1024 \
  --gradient-accumulation 4 --compile --flash-attention --warmup-steps 2000 \
  --eval-interval 500 --eval-samples 200 --decay-lr --min-lr 6e-5 --learning-rate 6e-4 \
  --weight-decay 0.1 --pruning-method magnitude --target-sparsity 0.5 --pruning-warmup 100 \
  --spam-theta 50.0 --spam-interval 1000 --spam-warmup-steps 1000 --spam-enable-clip \
  --json-output /data/AdamWPrune/test_matrix_results_20250923_010926/gpt2_adamwspam_magnitude_50/training_metrics.json \
  --tracker wandb,trackio --tracker-project tracking-e97b5
