CUDA_VISIBLE_DEVICES=0,1,2 FORCE_TORCHRUN=1 llamafactory-cli train examples/train_full/baichuan2_full_sft_ds3.yaml
