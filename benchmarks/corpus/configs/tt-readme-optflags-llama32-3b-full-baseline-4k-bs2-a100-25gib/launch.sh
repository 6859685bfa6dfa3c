#!/bin/bash
# torchtune @ 1814feb1 (Nov 2024), README 'Optimization flags' row, 1x A100
tune run full_finetune_single_device --config ./3B_full_single_device.yaml \
dataset.packed=False \
compile=False \
loss=torch.nn.CrossEntropyLoss \
enable_activation_checkpointing=False \
optimizer_in_bwd=False \
enable_activation_offloading=False \
optimizer._component_=torch.optim.AdamW \
tokenizer.max_seq_len=4096 \
batch_size=2 \
gradient_accumulation_steps=1 \
epochs=1
