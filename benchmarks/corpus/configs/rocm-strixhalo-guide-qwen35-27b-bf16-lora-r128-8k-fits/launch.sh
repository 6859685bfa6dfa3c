#!/bin/bash
# segment launched by scripts/train_orchestrator.sh (save_steps=50 boundaries)
nohup ./scripts/train_orchestrator.sh \
    --total-steps 448 \
    --output-dir /srv/ft/qwen35-27b \
    --eval-data /srv/ft/eval.jsonl \
    --history /srv/ft/eval_history.jsonl \
    --lora-r 128 --lora-alpha 256 \
    > orchestrator.log 2>&1 &
