# single A6000 48G, no deepspeed (the yaml's deepspeed line stays commented)
python finetune_vision.py data/my_vqa/ /root/models/modelscope0731-glm-4v-9b configs/lora.yaml
