#!/bin/bash
# LLaMA2-Accessory full fine-tune, llama2 13B, 2 x A800
pretrained_path=/data/llama2/llama-2-13b
pretrained_type=meta_ori
llama_config=/data/llama2/llama-2-13b/params.json
tokenizer_path=/data/llama2/tokenizer.model
data_config=configs/data/finetune/sg/alpaca.yaml

data_parallel=sdp
model_parallel=2

exp_name=finetune/sg/alpaca_llama2_13b
echo "exp name: $exp_name"
mkdir -p output/"$exp_name"

torchrun --master_port=1112 --nproc_per_node=2 main_finetune.py \
--output_dir output/"$exp_name" --epochs 5 --warmup_epochs 1 \
--batch_size 1 --accum_iter 2 --num_workers 2 \
--max_words 512 \
--lr 3e-5 --min_lr 3e-6 --clip_grad 2 --weight_decay 0.02 \
--data_parallel "$data_parallel" --model_parallel_size 2 --checkpointing \
--llama_type llama --llama_config "$llama_config" --tokenizer_path "$tokenizer_path" \
--no_visual \
--pretrained_path "$pretrained_path" --pretrained_type="$pretrained_type" \
--data_config $data_config \
--precision bf16 \
2>&1 | tee -a output/"$exp_name"/output.log
