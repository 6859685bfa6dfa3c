# README's multi-GPU command with the SFT config (reconstructed: the README prints it with configs/lora.yaml)
OMP_NUM_THREADS=1 torchrun --standalone --nnodes=1 --nproc_per_node=8  finetune.py  data/AdvertiseGen/  THUDM/glm-4-9b-chat  configs/sft.yaml
