#! GQA limit： tensor_model_parallel_size=4
#sft command
PYTORCH_CUDA_ALLOC_CONF='expandable_segments:True' \
OMP_NUM_THREADS=14 \
CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7 \
NNODES=8 \
NPROC_PER_NODE=8\
NODE_RANK=$NODE_RANK \
MASTER_ADDR=$MASTER_ADDR \
MASTER_PORT=$MASTER_PORT \
IMAGE_MAX_TOKEN_NUM=256 \
megatron sft \
    --load $MODEL_PATH \
    --dataset $DATA_PATH \
    --save $OUTPUT_DIR \
    --save_interval 300 \
    --max_epochs 10 \
    --tensor_model_parallel_size 4 \
    --pipeline_model_parallel_size 2 \
    --expert_model_parallel_size 8 \
    --expert_tensor_parallel_size 1 \
    --micro_batch_size 1 \
    --global_batch_size 16 \
    --sequence_parallel true \
    --moe_expert_capacity_factor 1 \
    --moe_permute_fusion true \
    --moe_grouped_gemm true \
    --moe_shared_expert_overlap true \
    --recompute_granularity full \
    --recompute_method uniform \
    --recompute_num_layers 1 \
    --finetune true
# (the rest of the command is cut off in the stored copy of the issue)
