#!/bin/bash
export HIP_VISIBLE_DEVICES=0
deepspeed --num_gpus 1 finetune_deepseek_ds.py --config dp.yaml --deepspeed ds_config2_zero3.json 2>&1 | tee train_1gpu.log
