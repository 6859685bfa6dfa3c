#!/bin/bash
# torchtune @ 1814feb1 (Nov 2024), README 'Optimization flags' row, 1x A100
tune run lora_finetune_single_device --config ./3B_qlora_single_device.yaml \
dataset.packed=True \
compile=True \
loss=torchtune.modules.loss.CEWithChunkedOutputLoss \
enable_activation_checkpointing=True \
optimizer_in_bwd=False \
enable_activation_offloading=True \
optimizer._component_=torch.optim.AdamW \
tokenizer.max_seq_len=4096 \
gradient_accumulation_steps=1 \
epochs=1 \
batch_size=2
