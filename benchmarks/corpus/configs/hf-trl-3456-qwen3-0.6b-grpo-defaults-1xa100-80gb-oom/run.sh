CUDA_VISIBLE_DEVICES=0 python grpotrainer.py --data data/train.jsonl
