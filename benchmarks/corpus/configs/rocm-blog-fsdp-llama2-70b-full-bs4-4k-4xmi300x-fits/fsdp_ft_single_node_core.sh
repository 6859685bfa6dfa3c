#!/bin/bash

#SBATCH --job-name=FSDP
#SBATCH --gres=gpu:mi300:8
#SBATCH --output=fsdp_training_temp.txt
#SBATCH --partition=amd-aiss
#SBATCH --exclusive
#SBATCH --time=01-01:20:00

echo "SLURM_NODEID:  $SLURM_NODEID"
echo "SLURM_JOB_NODELIST:  $SLURM_JOB_NODELIST"
echo "SLURM_JOB_NUM_NODES: $SLURM_JOB_NUM_NODES"

# This is the path in the docker container
fine_tune_script="./recipes/quickstart/finetuning/finetuning.py"
fine_tune_dataset="alpaca_dataset"

current_date_time=`date +%Y%m%d-%H%M%S`

## env setup
srun -l bash ./docker_setup.sh $(pwd)

## fine-tuning (sbatch --nodes=1 fsdp_ft_single_node_core.sh 4 1 4 ./meta-llama/Llama-2-70b-hf 2-70B False)
n_nodes=$SLURM_JOB_NUM_NODES
work_space_path="/root/"
srun -l docker exec -w $work_space_path fsdp rm -rf ./finetune_checkpoints

srun -l docker exec -w $work_space_path fsdp torchrun --nnodes 1 --nproc_per_node 4 \
    $fine_tune_script  --model_name ./meta-llama/Llama-2-70b-hf \
    --output_dir ./fsdp_fine_tune_results/output_model_${n_nodes}_4_2-70B \
    --dist_checkpoint_root_folder ./fsdp_fine_tune_results/fsdp_model_finetuned_${n_nodes}_4_2-70B \
    --enable_fsdp \
    --num_epochs 1 --batch_size_training 4 \
    --dataset $fine_tune_dataset \
    --save_model False \
    --context_length 4096 \

# save the blog output
mv fsdp_training_temp.txt fsdp_training_${current_date_time}_2-70B_${n_nodes}_4_1_4.txt
