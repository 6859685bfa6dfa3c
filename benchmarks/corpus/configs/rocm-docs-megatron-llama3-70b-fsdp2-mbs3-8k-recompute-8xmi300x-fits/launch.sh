# AMD Megatron-LM docker, single node (8x MI300X), FSDP2 enabled
cd /workspace/Megatron-LM
export TOKENIZER_MODEL=meta-llama/Llama-3.1-70B
# It's suggested to use TP=1 when FSDP is enabled for higher throughput.
TEE_OUTPUT=1 MBS=3 BS=24 TP=1 TE_FP8=0 FSDP=1 RECOMPUTE=1 SEQ_LENGTH=8192 MODEL_SIZE=70 TOTAL_ITERS=50 bash examples/llama/train_llama3.sh
