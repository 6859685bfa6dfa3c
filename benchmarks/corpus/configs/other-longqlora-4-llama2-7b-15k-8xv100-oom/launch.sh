deepspeed --num_gpus 8 train.py --train_args_file ./train_args/llama2-7b-pretrain.yaml
