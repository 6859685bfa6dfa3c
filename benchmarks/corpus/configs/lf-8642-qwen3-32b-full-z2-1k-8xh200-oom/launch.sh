CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7  llamafactory-cli train examples/train_full/llama3_full_sft.yaml
