#!/bin/bash
# SageMaker notebook instance ml.p3.2xlarge (1x Tesla V100-SXM2-16GB)
# flan-alpaca style training.py (PyTorch Lightning), LoRA on the sharded fp16 Flan-T5-XXL
python training.py --output_dir outputs/model/xxl \
--use_compile \
--data_path data/train.json \
--model_name_or_path "philschmid/flan-t5-xxl-sharded-fp16" \
--train_batch_size 1 \
--gradient_accumulation_steps 64 \
--use_gradient_checkpointing \
--use_lora
