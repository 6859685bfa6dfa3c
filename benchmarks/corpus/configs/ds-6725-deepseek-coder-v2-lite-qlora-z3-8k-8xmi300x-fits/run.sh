#!/bin/bash
export HIP_VISIBLE_DEVICES=0,1,2,3,4,5,6,7
export NCCL_DEBUG=WARN
deepspeed --num_gpus 8 finetune_deepseek_ds.py --config dp.yaml --deepspeed ds_config2_zero3.json 2>&1 | tee train_8gpu.log
