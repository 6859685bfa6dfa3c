#!/bin/bash
# inside rocm/megatron-lm (ROCm/Megatron-LM), from the Megatron-LM folder, single node
TEE_OUTPUT=1 MBS=2 BS=16 TP=1 TE_FP8=0 FSDP=1 RECOMPUTE=1 SEQ_LENGTH=8192 MODEL_SIZE=8 bash examples/llama/train_llama3.sh
