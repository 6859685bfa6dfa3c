# platform： Ubuntu18.04 A100 (40GB) with 2 cards
# memory： 256G
# python：3.10 / cuda：11.6 / torch：2.0.1+cu117 / flash-attn：1.0.5 / fschat：0.2.10
# (torch/distributed/fsdp/_state_dict_utils.py line 309 patched: state_dict[fqn].cpu().clone().detach())
export NCCL_IB_DISABLE=1;
export NCCL_P2P_DISABLE=1;
export NCCL_DEBUG=INFO;
export NCCL_SOCKET_IFNAME=en,eth,em,bond;
export CXX=g++;
torchrun --nproc_per_node=2 --master_port=20001 \
    ...../fastchat/train/train_mem.py \
    --model_name_or_path llama-7b \
    --data_path datasets/dummy.json \
    --bf16 True \
    --output_dir finetune_output \
    --num_train_epochs 3 \
    --per_device_train_batch_size 2 \
    --per_device_eval_batch_size 2 \
    --gradient_accumulation_steps 16 \
    --evaluation_strategy "no" \
    --save_strategy "steps" \
    --save_steps 1200 \
    --save_total_limit 10 \
    --learning_rate 2e-5 \
    --weight_decay 0. \
    --warmup_ratio 0.03 \
    --lr_scheduler_type "cosine" \
    --logging_steps 1 \
    --fsdp "full_shard auto_wrap" \
    --fsdp_transformer_layer_cls_to_wrap 'LlamaDecoderLayer' \
    --tf32 True \
    --model_max_length 2048 \
    --gradient_checkpointing True \
    --lazy_preprocess True
