# rocm/primus:v26.6, 8x MI350X (gfx950), single node
export EXP=examples/megatron/configs/MI355X/llama3.1_8B-BF16-lora-sft.yaml
bash ./examples/run_local_pretrain.sh
