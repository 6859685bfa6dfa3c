#!/bin/bash
# ROCm/MAD pyt_train_qwen3-8b, task finetune_lora, BF16, on 8x MI350X (madengine run --tags pyt_train_qwen3-8b).
# pytorch_benchmark_report.sh sets for qwen3 8B on MI350X/MI355X: COMPILE=True PACKED=True SEQ_LEN=8192 MBS=14
# and calls Torchtune_Tester_Qwen.sh with CPU_OFFLOAD=False ACTIVATION_CHECKPOINTING=True GAS=1 EPOCHS=1 SEED=42 MAX_STEPS=20,
# which launches (written out):
tune run --nproc_per_node 8 \
    lora_finetune_distributed --config /workspace/torchtune/recipes/configs/qwen3/8B_lora.yaml \
    log_peak_memory_stats=True \
    output_dir=./logs \
    checkpointer.output_dir=./checkpoints \
    tokenizer.path=./models/QWEN3-8B-Instruct/vocab.json \
    tokenizer.max_seq_len=8192 \
    tokenizer.merges_file=./models/QWEN3-8B-Instruct/merges.txt \
    checkpointer.checkpoint_dir=./models/QWEN3-8B-Instruct \
    gradient_accumulation_steps=1 \
    max_steps_per_epoch=20 \
    epochs=1 \
    dataset.packed=True \
    fsdp_cpu_offload=False \
    batch_size=14 \
    enable_activation_checkpointing=True \
    compile=True \
    seed=42 \
        2>&1 | tee stdout.log
