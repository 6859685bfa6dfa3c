# AMD Megatron-LM docker, DeepSeek V2 (Lite), single node 8x MI300X
export TOKENIZER_MODEL=deepseek-ai/DeepSeek-V2-Lite
cd /workspace/Megatron-LM
GEMM_TUNING=1 PR=bf16 MBS=4 AC=none SEQ_LEN=4096 PAD_LEN=4096 TRAIN_ITERS=50 bash examples/deepseek_v2/train_deepseekv2.sh
