"""Megatron's routed experts split over EP x expert TP x PP, their optimizer state over the expert data-parallel group
(helper c-under5; NVIDIA/Megatron-LM megatron/training/arguments.py: expert_tensor_parallel_size None -> the TP;
megatron/core/parallel_state.py expert grid; ms-swift's megatron: expert_tensor_parallel_size 1). Files written from
Megatron-LM's and ms-swift's examples; none is a corpus case."""

from __future__ import annotations

import json
from pathlib import Path

from rocm_tune.cli import main

# Megatron-LM examples/mixtral (Mixtral 8x7B shape; the model given with --model: the flags' own model has no experts
# here), 16 processes: TP 2, EP 8
MEGATRON = """torchrun --nproc_per_node 8 --nnodes 2 pretrain_gpt.py \\
  --num-layers 32 --hidden-size 4096 --ffn-hidden-size 14336 --num-attention-heads 32 \\
  --group-query-attention --num-query-groups 8 --swiglu --normalization RMSNorm \\
  --num-experts 8 --moe-router-topk 2 --moe-grouped-gemm \\
  --seq-length 4096 --max-position-embeddings 32768 --micro-batch-size 1 --global-batch-size 256 \\
  --tensor-model-parallel-size 2 --pipeline-model-parallel-size 1 --expert-model-parallel-size 8 \\
  --sequence-parallel --use-distributed-optimizer --bf16 --untie-embeddings-and-output-weights \\
  --vocab-size 32000 --recompute-granularity full --recompute-method uniform --recompute-num-layers 1 \\
  --train-iters 100 --lr 1e-4 --data-path /data/text_document{extra}
"""
# ms-swift's Qwen3-MoE Megatron example (examples/megatron), 8 processes: TP 2, EP 4
SWIFT = """NPROC_PER_NODE=8 megatron sft \\
    --model Qwen/Qwen3-30B-A3B \\
    --dataset 'AI-ModelScope/alpaca-gpt4-data-zh#500' \\
    --tensor_model_parallel_size 2 --expert_model_parallel_size 4 --sequence_parallel true \\
    --micro_batch_size 1 --global_batch_size 16 --recompute_granularity full --recompute_method uniform \\
    --recompute_num_layers 1 --max_length 2048 --finetune true --cross_entropy_loss_fusion true{extra}
"""


MIXTRAL = ("--gpu", "h100-sxm", "--gpus", "8", "--nodes", "2", "--model", "mistralai/Mixtral-8x7B-v0.1")


def _check(tmp_path: Path, capsys, text: str, *args: str) -> dict:
    (tmp_path / "run.sh").write_text(text)
    rc = main(["check", str(tmp_path / "run.sh"), *args, "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc in (0, 1), out
    return out


def _layout_note(out: dict) -> str:
    return next(n for n in out["notes"] if n.startswith("Megatron TP"))


def test_megatron_lm_expert_tp_defaults_to_the_tp(tmp_path, capsys):
    out = _check(tmp_path, capsys, MEGATRON.format(extra=""), *MIXTRAL)
    # ETP 2 x EP 8 = 16 GPUs per expert set: no expert data parallel left to shard the experts' optimizer over
    assert "routed experts: weights and gradients / 16, optimizer state / 16, expert TP 2" in _layout_note(out)
    one = _check(tmp_path, capsys, MEGATRON.format(extra=" --expert-tensor-parallel-size 1"), "--gpu", "h100-sxm",
                 *MIXTRAL[2:])
    assert "routed experts: weights and gradients / 8, optimizer state / 16, expert TP 1" in _layout_note(one)
    # each GPU holds twice the expert weights and gradients with ETP 1 (the optimizer share is the same)
    assert int(one["memory"]["save"]["peak_allocated_bytes"]) > int(out["memory"]["save"]["peak_allocated_bytes"])


def test_swift_megatron_expert_tp_is_one(tmp_path, capsys):
    out = _check(tmp_path, capsys, SWIFT.format(extra=""), "--gpu", "h100-sxm", "--gpus", "8")
    assert "routed experts: weights and gradients / 4, optimizer state / 8, expert TP 1" in _layout_note(out)
    two = _check(tmp_path, capsys, SWIFT.format(extra=" \\\n    --expert_tensor_parallel_size 2"), "--gpu", "h100-sxm",
                 "--gpus", "8")
    assert "routed experts: weights and gradients / 8, optimizer state / 8, expert TP 2" in _layout_note(two)
