#!/usr/bin/env bash
# Training launcher, written by rocm-tune export from plan.json
# model Qwen2.5-7B-Instruct: full (sft), fp16, cutoff_len 512, micro-batch 1 x accumulation 4 on 8 x z100-16gb x 2 nodes
# executes: LLaMA-Factory through lf_launch.py, precision fp16
# warning [offload-needs-cpu-ram]: ZeRO-3 offload takes 112 GiB of CPU RAM Fix: make sure each node has it
# dataset: alpaca_en_demo, resolved by LLaMA-Factory in /data/llama factory/dataset_info.json on the machine that runs this script
# Usage: bash run.sh [extra trainer arguments]  (on every node, with NODE_RANK and MASTER_ADDR set)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

# environment from the plan
export NCCL_IB_DISABLE=0
export NCCL_SOCKET_IFNAME=ib0
export PYTORCH_HIP_ALLOC_CONF=expandable_segments:True

# a hung collective ends the job: ddp_timeout (7200 s) covers preprocessing and model load, then ROCM_TUNE_HANG_TIMEOUT once the Trainer is built
# (3 x a planned 99.30 GiB checkpoint save at 200 MB/s (533 s) + one step (340 s))
export ROCM_TUNE_HANG_TIMEOUT=1940

# deepspeed --no_ssh: run this on every node with its NODE_RANK (0-1); each node starts its 8 local process(es). hostfile only tells DeepSpeed the node and slot counts
# LLaMA-Factory runs through lf_launch.py (beside this script): LLaMA-Factory's own training, plus
# measured memory and parameter dtypes per rank in $ROCM_TUNE_RUN_DIR/ranks (else OUTPUT_DIR/ranks)
# LLAMAFACTORY_PYTHON: the Python that has LLaMA-Factory (default python3 of the active environment)
exec deepspeed --hostfile hostfile --no_ssh --node_rank "${NODE_RANK:-0}" --num_nodes 2 --num_gpus 8 \
  --master_addr "${MASTER_ADDR:?set MASTER_ADDR to the address of node 0}" --master_port 29500 \
  --no_local_rank lf_launch.py llamafactory.yaml "$@"
