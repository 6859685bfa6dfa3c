# AMD Megatron-LM docker (rocm/megatron-lm), single node, 8x MI300X
cd /workspace/Megatron-LM
export TOKENIZER_MODEL=meta-llama/Llama-3.1-8B
# For Llama 3.1 8B BF16:
TEE_OUTPUT=1 MBS=2 BS=128 TP=1 TE_FP8=0 SEQ_LENGTH=8192 MODEL_SIZE=8 TOTAL_ITERS=50 bash examples/llama/train_llama3.sh
