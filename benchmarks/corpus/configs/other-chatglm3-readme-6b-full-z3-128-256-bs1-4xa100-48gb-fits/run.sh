# README's multi-GPU command, written for the documented 4-card SFT run (reconstructed: README shows nproc 8 + lora.yaml)
cd finetune_demo
OMP_NUM_THREADS=1 torchrun --standalone --nnodes=1 --nproc_per_node=4  finetune_hf.py  data/AdvertiseGen/  THUDM/chatglm3-6b  configs/sft.yaml
