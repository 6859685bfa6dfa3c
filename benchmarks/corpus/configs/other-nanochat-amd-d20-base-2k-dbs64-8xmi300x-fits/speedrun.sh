#!/bin/bash
# nanochat reproduction on 8x AMD Instinct MI300X VF (PyTorch 2.10.0.dev20251028+rocm7.0)
export OMP_NUM_THREADS=1
export NANOCHAT_BASE_DIR="$HOME/.cache/nanochat"
mkdir -p $NANOCHAT_BASE_DIR

# tokenizer
python -m nanochat.dataset -n 8
python -m scripts.tok_train --max_chars=2000000000
python -m scripts.tok_eval

# base model (pretraining): depth 20, seq 2048, 64 sequences per device, 1M tokens per step
torchrun --standalone --nproc_per_node=8 -m scripts.base_train -- \
    --depth=20 \
    --max_seq_len=2048 \
    --device_batch_size=64 \
    --total_batch_size=1048576 \
    --target_param_data_ratio=20 \
    --run=my-llm-training-run-003
torchrun --standalone --nproc_per_node=8 -m scripts.base_loss
torchrun --standalone --nproc_per_node=8 -m scripts.base_eval
