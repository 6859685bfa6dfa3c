#!/bin/bash
# Qwen3-8B full fine-tune BF16, torchtune via ROCm/MAD, 8x MI350X
# benchmark_results.md (alfredyu24/amd-mi350-benchmarks, tested 2026-01-08), 'Benchmark 5: MAD Framework Training (Qwen3-8B)':
#   cd MAD && madengine run --tags pyt_train_qwen3-8b --live-output --timeout 3600
#   Model Qwen3-8B, Batch Size 14, Sequence Length 8192, 8x MI350X, torchtune (PyTorch 2.10.0), Compile Enabled,
#   Activation Checkpointing Enabled.
# ROCm/MAD scripts/pytorch_train/Torchtune_Tester_Qwen.sh then runs (its fixed overrides; PACKED and CPU_OFFLOAD are
# the values pytorch_benchmark_report.sh passes for every torchtune family: PACKED=True, CPU_OFFLOAD=False):
tune run --nproc_per_node 8 \
    full_finetune_distributed --config qwen3/8B_full.yaml \
    log_peak_memory_stats=True \
    output_dir=./logs \
    tokenizer.max_seq_len=8192 \
    gradient_accumulation_steps=1 \
    max_steps_per_epoch=20 \
    epochs=1 \
    dataset.packed=True \
    fsdp_cpu_offload=False \
    batch_size=14 \
    enable_activation_checkpointing=True \
    compile=True \
    seed=42
