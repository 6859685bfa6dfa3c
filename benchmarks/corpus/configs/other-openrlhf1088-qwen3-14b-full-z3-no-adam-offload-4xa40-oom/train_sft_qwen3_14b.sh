export CUDA_VISIBLE_DEVICES=4,5,6,7

set -x

read -r -d '' training_commands <<EOF
openrlhf.cli.train_sft \
   --max_len 1024 \
   --dataset Open-Orca/OpenOrca \
   --input_key question \
   --output_key response \
   --train_batch_size 4 \
   --micro_train_batch_size 1 \
   --max_samples 50000 \
   --pretrain /nas-data/workspace/pretrained_models/Qwen3-14B \
   --save_path /nas-data/workspace/qwen3-14b-sft \
   --save_steps -1 \
   --logging_steps 1 \
   --eval_steps -1 \
   --zero_stage 3 \
   --max_epochs 1 \
   --bf16 \
   --flash_attn \
   --learning_rate 5e-6 \
   --load_checkpoint \
   --packing_samples \
   --gradient_checkpointing
EOF

if [[ ${1} != "slurm" ]]; then
    deepspeed --module $training_commands
fi
