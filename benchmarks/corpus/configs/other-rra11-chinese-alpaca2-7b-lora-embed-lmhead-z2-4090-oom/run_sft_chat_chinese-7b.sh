lr=1e-4
lora_rank=64
lora_alpha=128
lora_trainable="q_proj,v_proj,k_proj,o_proj,gate_proj,down_proj,up_proj"
modules_to_save="embed_tokens,lm_head"
lora_dropout=0.05

pretrained_model=/home/leike/models/chinese-alpaca-2-7b
chinese_tokenizer_path=/home/leike/models/chinese-alpaca-2-7b
dataset_dir=JWQA/train/
per_device_train_batch_size=1
per_device_eval_batch_size=1
gradient_accumulation_steps=8
output_dir=output-JWQA/alpaca-7b
validation_file=JWQA/dev.json

deepspeed_config_file=ds_zero2_no_offload.json

torchrun --master_port 29501 --nnodes 1 --nproc_per_node 1 run_clm_sft_with_peft-chinese-7b.py \
    --deepspeed ${deepspeed_config_file} \
    --model_name_or_path ${pretrained_model} \
    --tokenizer_name_or_path ${chinese_tokenizer_path} \
    --dataset_dir ${dataset_dir} \
    --validation_split_percentage 0.001 \
    --per_device_train_batch_size ${per_device_train_batch_size} \
    --per_device_eval_batch_size ${per_device_eval_batch_size} \
    --do_train \
# [post continues beyond the excerpt we could read; the Chinese-LLaMA-Alpaca-2 run_sft.sh it is based on also passes
#  --lora_rank, --lora_alpha, --trainable, --modules_to_save, --max_seq_length 512, --torch_dtype float16, --fp16]
