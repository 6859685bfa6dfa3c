# README's Slurm launcher pattern for this recipe (reconstructed: task sft, config v00.00, accelerate fsdp.yaml, 16 nodes)
sbatch --job-name=open_r1 --nodes=16 slurm/train.slurm --model OlympicCoder-32B --task sft --config v00.00 --accelerator fsdp
