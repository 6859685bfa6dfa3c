#!/bin/bash
#SBATCH --account=project_462000131
#SBATCH --partition=standard-g
#SBATCH --nodes=2
#SBATCH --gpus-per-node=8
#SBATCH --ntasks-per-node=1
#SBATCH --cpus-per-task=56
#SBATCH --mem=480G
#SBATCH --time=00:30:00

export NCCL_SOCKET_IFNAME=hsn0,hsn1,hsn2,hsn3
export NCCL_NET_GDR_LEVEL=PHB
export NCCL_DEBUG=INFO

srun --ntasks-per-node=1 singularity exec lumi-multitorch-u24r70f21m50t210.sif \
    torchrun --nnodes=$SLURM_JOB_NUM_NODES --nproc_per_node=8 \
    --rdzv_backend=c10d --rdzv_endpoint=$(hostname):29500 ddp_visualtransformer.py
