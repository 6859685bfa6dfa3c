"""Qwen3-30B-A3B GRPO LoRA training on MI350X/MI355X, colocated."""
from dataclasses import dataclass
from typing import Literal

import typer

import miles.utils.external_utils.command_utils as U

_TARGET_MODULES = "q_proj,k_proj,v_proj,o_proj,gate_proj,up_proj,down_proj"


@dataclass
class ScriptArgs(U.ExecuteTrainConfig):
    run_id: str = U.create_run_id()
    model_name: str = "Qwen3-30B-A3B"
    megatron_model_type: str = "qwen3-30B-A3B"
    hardware: Literal["auto", "MI350X", "MI355X"] = "auto"
    num_gpus_per_node: int | None = None
    data_dir: str = "/root/datasets"
    model_dir: str = "/root/models"
    megatron_path: str = "/root/Megatron-LM"
    # LoRA
    lora_rank: int = 32
    lora_alpha: int = 32
    lora_dropout: float = 0.0
    target_modules: str = _TARGET_MODULES
    lora_base_cpu_backup: bool = True
    experts_shared_outer_loras: bool = False
    # rollout
    num_rollout: int = 30
    rollout_batch_size: int = 32
    n_samples_per_prompt: int = 8
    global_batch_size: int = 128
    over_sampling_batch_size: int = 64
    rollout_max_response_len: int = 8192
    # rollout engine
    sglang_lora_backend: str = "triton"
    sglang_mem_fraction_static: float = 0.7
    sglang_max_running_requests: int = 512
    rollout_num_gpus_per_engine: int = 1
    save_interval: int = 10


def _get_parallel_config(args: ScriptArgs) -> str:
    """Megatron parallel layout, for the topologies this recipe has been run on."""
    return (
        "--tensor-model-parallel-size 1 "
        "--sequence-parallel "
        "--pipeline-model-parallel-size 1 "
        "--context-parallel-size 1 "
        "--expert-model-parallel-size 4 "
        "--expert-tensor-parallel-size 1 "
        "--recompute-granularity full "
        "--recompute-method uniform "
        "--recompute-num-layers 1 "
        "--use-dynamic-batch-size "
        "--max-tokens-per-gpu 16384 "
        "--micro-batch-size 1 "
    )


def execute(args: ScriptArgs):
    train_args = (
        f"--hf-checkpoint {args.model_dir}/{args.model_name} --megatron-to-hf-mode bridge "
        f"--lora-rank {args.lora_rank} --lora-alpha {args.lora_alpha} --lora-dropout {args.lora_dropout} "
        f'--target-modules "{args.target_modules}" --lora-base-cpu-backup --no-sglang-lora-use-virtual-experts '
        f"--prompt-data {args.data_dir}/dapo-math-17k/dapo-math-17k.jsonl --input-key prompt --label-key label "
        "--rm-type deepscaler --apply-chat-template --rollout-shuffle --balance-data "
        f"--num-rollout {args.num_rollout} --rollout-batch-size {args.rollout_batch_size} "
        f"--n-samples-per-prompt {args.n_samples_per_prompt} --rollout-max-response-len {args.rollout_max_response_len} "
        f"--rollout-temperature 1 --global-batch-size {args.global_batch_size} "
        f"--over-sampling-batch-size {args.over_sampling_batch_size} "
        + _get_parallel_config(args) +
        "--advantage-estimator grpo --entropy-coef 0.00 --eps-clip 0.2 --eps-clip-high 0.28 "
        "--optimizer adam --lr 2e-4 --lr-decay-style constant --weight-decay 0.1 --adam-beta1 0.9 --adam-beta2 0.98 "
        f"--rollout-num-gpus-per-engine {args.rollout_num_gpus_per_engine} "
        f"--sglang-mem-fraction-static {args.sglang_mem_fraction_static} "
        f"--sglang-max-running-requests {args.sglang_max_running_requests} --sglang-max-lora-rank {args.lora_rank} "
        f"--sglang-lora-backend {args.sglang_lora_backend} --sglang-moe-runner-backend triton "
        "--attention-dropout 0.0 --hidden-dropout 0.0 --accumulate-allreduce-grads-in-fp32 "
        "--attention-softmax-in-fp32 --attention-backend flash --calculate-per-token-loss "
        f"--actor-num-nodes {args.num_nodes} --actor-num-gpus-per-node {args.num_gpus_per_node} "
        f"--num-gpus-per-node {args.num_gpus_per_node} --colocate "
    )
    U.execute_train(train_args=train_args, config=args, num_gpus_per_node=args.num_gpus_per_node,
                    megatron_model_type=args.megatron_model_type, megatron_path=args.megatron_path)


@U.dataclass_cli
def main(args: ScriptArgs):
    execute(args)


if __name__ == "__main__":
    typer.run(main)
