#!/bin/bash
# 4 x 49GB cards; micro-batch-size lowered from 4 to 1 after the first run ran out of memory
bash finetune/finetune_lora_ds.sh --save-name SeeClick_test --max-length 704 --micro-batch-size 1 --save-interval 500 \
    --train-epochs 10 --nproc-per-node 4 --data-path data/data_sft.json --learning-rate 3e-5 \
    --gradient-accumulation-steps 8 --pretrain_ckpt /models/Qwen-VL-Chat \
    --save_path checkpoints/checkpoint_qwen
