# 4 x RTX 4090 24GB (README's multi-GPU VQA line, nproc 4)
OMP_NUM_THREADS=1 torchrun --standalone --nnodes=1 --nproc_per_node=4 finetune_vision.py data/my_vqa/ THUDM/glm-4v-9b configs/lora.yaml
