# ms-swift 3.6.0.dev0, A800-80GB, 32K context (the 3.7.0.dev0 script differs only by packing_cache)
NNODES=$NNODES \
NPROC_PER_NODE=8 \
NODE_RANK=$NODE_RANK \
megatron sft \
    --load Qwen2.5-32B-Base-mcore \
    --dataset '/hpc_stor01/home/lei/workspace/swift/data/Thinker4.3.7.jsonl' \
    --loss_scale ignore_empty_think \
    --tensor_model_parallel_size 8 \
    --sequence_parallel true \
    --micro_batch_size 1 \
    --global_batch_size 128 \
    --packing true \
    --recompute_granularity full \
    --recompute_method uniform \
    --recompute_num_layers 1 \
    --max_epochs 3 \
    --max_length 32768 \
    --packing_cache /hpc_stor01/home/lei/workspace/swift/packing_cache \
    --finetune true \
    --cross_entropy_loss_fusion true \
    --lr 1e-5 \
    --lr_warmup_fraction 0.05 \
    --min_lr 1e-6 \
    --save megatron_output/Qwen2.5-32B-Base \
    --save_interval 500 \
    --attention_backend flash
# the posted script ends in the excerpt after --max_epochs 3; the flags below it are filled in
# (max_length from the table: 32K; packing_cache is named in the prose)
