"""Qwen3-4B GRPO LoRA training script for AMD (MI350X / MI355X)."""
import os
import shlex
from dataclasses import dataclass
from typing import Literal

import typer

import miles.utils.external_utils.command_utils as U

app = typer.Typer()
_HF_REPO = "Qwen/Qwen3-4B"


@dataclass
class ScriptArgs(U.ExecuteTrainConfig):
    run_id: str = U.create_run_id()
    model_name: str = "Qwen3-4B"
    megatron_model_type: str = "qwen3-4B"
    hardware: Literal["auto", "MI350X", "MI355X"] = "auto"
    num_gpus_per_node: int | None = None
    model_dir: str = "/root/models"
    data_dir: str = "/root/datasets"
    megatron_path: str = "/root/Megatron-LM"
    save_interval: int = 50
    # LoRA: inherited from the validated Qwen3-4B Megatron LoRA recipe.
    lora_rank: int = 64
    lora_alpha: int = 32
    lora_dropout: float = 0.0
    target_modules: str = "all-linear"
    lora_base_cpu_backup: bool = True
    # Rollout and optimizer shape: 8 prompts x 8 samples = one 64-sample update.
    num_rollout: int = 100
    rollout_batch_size: int = 8
    n_samples_per_prompt: int = 8
    rollout_max_response_len: int = 8192
    global_batch_size: int = 64
    lr: float = 2e-5
    # One 4B rollout engine per GPU.
    rollout_num_gpus_per_engine: int = 1
    sglang_mem_fraction_static: float = 0.4
    enable_eval: bool = True


def _execute(args: ScriptArgs) -> None:
    hardware = U.resolve_hardware(args)
    num_gpus = args.num_gpus_per_node or U.NUM_GPUS_OF_HARDWARE[hardware]
    train_args = (
        f"--hf-checkpoint {args.model_dir}/{args.model_name} --megatron-to-hf-mode bridge "
        f"--lora-rank {args.lora_rank} --lora-alpha {args.lora_alpha} --lora-dropout {args.lora_dropout} "
        f'--target-modules "{args.target_modules}" --lora-base-cpu-backup '
        f"--prompt-data {args.data_dir}/dapo-math-17k/dapo-math-17k.jsonl --input-key prompt --label-key label "
        "--apply-chat-template --rollout-shuffle --balance-data --rm-type deepscaler "
        f"--num-rollout {args.num_rollout} --rollout-batch-size {args.rollout_batch_size} "
        f"--n-samples-per-prompt {args.n_samples_per_prompt} --rollout-max-response-len {args.rollout_max_response_len} "
        f"--rollout-temperature 1 --global-batch-size {args.global_batch_size} "
        f"--optimizer adam --lr {args.lr} --lr-decay-style constant --weight-decay 0.1 --adam-beta1 0.9 --adam-beta2 0.98 "
        "--advantage-estimator grpo --kl-loss-coef 0.00 --kl-loss-type low_var_kl --kl-coef 0.00 --entropy-coef 0.00 "
        "--eps-clip 0.2 --eps-clip-high 0.28 "
        f"--rollout-num-gpus-per-engine {args.rollout_num_gpus_per_engine} "
        f"--sglang-mem-fraction-static {args.sglang_mem_fraction_static} "
        "--sglang-chunked-prefill-size 4096 --sglang-lora-backend triton --sglang-attention-backend triton "
        "--train-backend megatron --attention-dropout 0.0 --hidden-dropout 0.0 "
        "--accumulate-allreduce-grads-in-fp32 --attention-softmax-in-fp32 --calculate-per-token-loss "
        f"--actor-num-nodes {args.num_nodes} --actor-num-gpus-per-node {num_gpus} --num-gpus-per-node {num_gpus} --colocate "
    )
    U.execute_train(train_args=train_args, config=args, num_gpus_per_node=num_gpus,
                    megatron_model_type=args.megatron_model_type, megatron_path=args.megatron_path)


@app.command()
@U.dataclass_cli
def full_train(args: ScriptArgs) -> None:
    _execute(args)


if __name__ == "__main__":
    app()
