#!/bin/bash
#SBATCH --job-name=poro34b
#SBATCH --nodes=128
#SBATCH --ntasks-per-node=8
#SBATCH --gpus-per-node=mi250:8
#SBATCH --partition=standard-g
# LUMI: 4x MI250X per node = 8 GCDs; world size 1024
# TurkuNLP/Megatron-DeepSpeed fork

TP=2
PP=4
MICRO_BATCH_SIZE=1
GLOBAL_BATCH_SIZE=2048      # 1 * 16 (grad. accumulation) * 128 (DP)

NLAYERS=54
NHIDDEN=7168
NHEADS=56
SEQ_LEN=2048

cat > ds_config.json <<EOF
{
  "train_micro_batch_size_per_gpu": $MICRO_BATCH_SIZE,
  "train_batch_size": $GLOBAL_BATCH_SIZE,
  "gradient_clipping": 1.0,
  "zero_optimization": { "stage": 1 },
  "bf16": { "enabled": true },
  "steps_per_print": 10,
  "wall_clock_breakdown": false
}
EOF

srun python pretrain_gpt.py \
    --tensor-model-parallel-size $TP \
    --pipeline-model-parallel-size $PP \
    --num-layers $NLAYERS \
    --hidden-size $NHIDDEN \
    --num-attention-heads $NHEADS \
    --seq-length $SEQ_LEN \
    --max-position-embeddings $SEQ_LEN \
    --position-embedding-type alibi \
    --embed-layernorm \
    --micro-batch-size $MICRO_BATCH_SIZE \
    --global-batch-size $GLOBAL_BATCH_SIZE \
    --tokenizer-type PretrainedFromHF \
    --tokenizer-name-or-path tokenizer/ \
    --make-vocab-size-divisible-by 128 \
    --bf16 \
    --optimizer adam --adam-beta1 0.9 --adam-beta2 0.95 --adam-eps 1e-8 \
    --lr 1.5e-4 --min-lr 2e-5 --lr-decay-style cosine --clip-grad 1.0 --weight-decay 1e-1 \
    --checkpoint-activations \
    --deepspeed --deepspeed_config ds_config.json \
    --zero-stage 1 \
    --data-path $DATA_PATH \
    --save $CHECKPOINT_PATH --load $CHECKPOINT_PATH \
    --log-interval 10 --save-interval 1000 --eval-interval 1000 --eval-iters 10
