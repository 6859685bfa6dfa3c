# launch line and training script not posted (filled in); the config above is from the issue up to 'activation_chec...'
deepspeed --num_gpus 4 finetune_lora.py --model_name_or_path THUDM/chatglm-6b --deepspeed ds_config.json
