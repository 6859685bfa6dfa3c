OMP_NUM_THREADS=1 torchrun --standalone --nnodes=1 --nproc_per_node=4 finetune.py data/AdvertiseGen/ THUDM/glm-4-9b-chat configs/lora.yaml
