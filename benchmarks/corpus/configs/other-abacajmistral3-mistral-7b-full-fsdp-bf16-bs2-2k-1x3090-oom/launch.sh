export HF_TOKEN="[insert token here]"
torchrun --nnodes=1 --nproc-per-node=1 train.py
