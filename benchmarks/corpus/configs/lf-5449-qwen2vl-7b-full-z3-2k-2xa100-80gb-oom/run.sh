CUDA_VISIBLE_DEVICES=0,1 \
    llamafactory-cli train qwen2vl_full_sft.yaml \
