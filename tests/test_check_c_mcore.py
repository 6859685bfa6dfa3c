"""Megatron-core's layers as its kernels keep them (helper c-mcore): the unfused core attention's FusedScaleMaskSoftmax
(NVIDIA/Megatron-LM megatron/core/fusions/fused_softmax.py is_kernel_available; NVIDIA/TransformerEngine
transformer_engine/pytorch/attention/dot_product_attention/softmax.py) and its dropout, Transformer Engine's FP8
linears (--fp8-format: 1-byte saved inputs; the legacy GroupedMLP's bf16 gmm excepted) and the routing probabilities
applied inside the experts' activation (megatron/core/transformer/moe/experts.py). The scripts are written from
Megatron-LM's and ms-swift's examples; none is a corpus case."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from rocm_tune.cli import main
from rocm_tune.core.errors import UserError
from rocm_tune.core.memory import megatron_attention as ma
from rocm_tune.core.memory.estimate import TrainConfig, estimate
from rocm_tune.core.model.architecture import model_from_config

# Megatron-LM examples/gpt3 style (a Llama-shaped 1.3B model from its own flags), 8 GPUs, TP 1
GPT = """torchrun --nproc_per_node 8 pretrain_gpt.py \\
  --num-layers 24 --hidden-size 2048 --ffn-hidden-size 5632 --num-attention-heads 16 \\
  --swiglu --normalization RMSNorm --position-embedding-type rope --untie-embeddings-and-output-weights \\
  --seq-length {seq} --max-position-embeddings 16384 --micro-batch-size 2 --global-batch-size 64 \\
  --tensor-model-parallel-size 1 --use-distributed-optimizer --bf16 --vocab-size 32000 \\
  --train-iters 100 --lr 1e-4 --data-path /data/text_document{extra}
"""
# ms-swift's Megatron examples (examples/megatron/lora): Qwen2.5-7B LoRA, TP 2, unfused attention
SWIFT = """NPROC_PER_NODE=2 megatron sft \\
    --model Qwen/Qwen2.5-7B-Instruct \\
    --dataset 'AI-ModelScope/alpaca-gpt4-data-zh#500' \\
    --tuner_type lora --lora_rank 8 --lora_alpha 32 --target_modules all-linear \\
    --tensor_model_parallel_size 2 --sequence_parallel true --micro_batch_size 2 --global_batch_size 16 \\
    --max_length 2048 --finetune true --attention_backend unfused{extra}
"""
# Megatron-LM examples/mixtral with FP8 (Mixtral 8x7B shape), 16 GPUs, EP 8
MOE = """torchrun --nproc_per_node 8 --nnodes 2 pretrain_gpt.py \\
  --num-layers 32 --hidden-size 4096 --ffn-hidden-size 14336 --num-attention-heads 32 \\
  --group-query-attention --num-query-groups 8 --swiglu --normalization RMSNorm \\
  --num-experts 8 --moe-router-topk 2 --moe-grouped-gemm \\
  --seq-length 4096 --max-position-embeddings 32768 --micro-batch-size 1 --global-batch-size 256 \\
  --tensor-model-parallel-size 1 --expert-model-parallel-size 8 --use-flash-attn \\
  --use-distributed-optimizer --bf16 --untie-embeddings-and-output-weights \\
  --vocab-size 32000 --train-iters 100 --lr 1e-4 --data-path /data/text_document{extra}
"""
MIXTRAL = ("--gpu", "h100-sxm", "--gpus", "8", "--nodes", "2", "--model", "mistralai/Mixtral-8x7B-v0.1")


def _check(tmp_path: Path, capsys, text: str, *args: str) -> dict:
    (tmp_path / "run.sh").write_text(text)
    rc = main(["check", str(tmp_path / "run.sh"), *args, "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc in (0, 1), out
    return out


def _step(out: dict) -> int:
    return int(out["memory"]["step"]["peak_allocated_bytes"])


def _note(out: dict, start: str) -> str:
    return next(n for n in out["notes"] if start in n)


# ------------------------------------------------------------------ the kernels' own conditions


def test_batch_per_block_follows_the_kernel_launch():
    assert ma.batch_per_block(2048) == 4        # 32-thread warps, one row each, 4 warps
    assert ma.batch_per_block(128) == 8         # up to 128 keys: two rows per warp
    assert ma.batch_per_block(64) == 8
    assert ma.batch_per_block(16) == 16         # a 16-thread warp: 8 warps of 2 rows


@pytest.mark.parametrize("te, b, heads, seq, fused", [
    (False, 1, 16, 4096, True),     # the local kernel's longest key length
    (False, 1, 16, 8192, False),    # past it: torch's fp32 softmax
    (True, 1, 16, 8192, True),      # Transformer Engine's kernel takes up to 16383 keys
    (True, 1, 16, 16384, False),
    (True, 1, 16, 2052, False),     # TE: keys a multiple of 8
    (False, 1, 16, 2052, True),     # local: a multiple of 4 is enough
    (False, 1, 6, 2048, False),     # batch x heads not a multiple of 4
    (False, 2, 6, 2048, True),
    (True, 4, 8, 16, False),        # 16 keys or fewer: never fused
])
def test_fused_kernel_availability(te, b, heads, seq, fused):
    assert ma.fused_available(te, b, heads, seq) is fused


def test_bytes_per_score():
    assert ma.scores_bytes(True, 0.0) == (2.0, 2.0)
    assert ma.scores_bytes(True, 0.1) == (5.0, 4.0)        # + bool mask + dropped copy; + the dropout's gradient
    assert ma.scores_bytes(False, 0.0) is None             # transformers' eager fp32 softmax, as before
    assert ma.scores_bytes(False, 0.1) == (9.0, 8.0)


# ------------------------------------------------------------------ the estimator's terms


QWEN_MOE = dict(model_type="qwen3_moe", hidden_size=512, intermediate_size=1024, moe_intermediate_size=256,
                num_hidden_layers=4, num_attention_heads=8, num_key_value_heads=2, head_dim=64, vocab_size=1000,
                num_experts=16, num_experts_per_tok=4, decoder_sparse_step=1, mlp_only_layers=[],
                tie_word_embeddings=False, max_position_embeddings=4096)


def test_moe_probs_in_the_activation_drop_the_weighted_copies():
    m = model_from_config(QWEN_MOE, name="tiny-moe")
    cfg = TrainConfig(method="full", precision="pure_bf16", cutoff_len=512, micro_batch=2, gradient_checkpointing=False)
    a = estimate(m, cfg).per_gpu.activations_bytes
    b = estimate(m, replace(cfg, moe_probs_in_act=True)).per_gpu.activations_bytes
    # top_k routed copies of the hidden state, 2 bytes each, per token of each layer
    assert a - b == pytest.approx(4 * 2 * 512 * 4 * 1024, rel=0.01)


def test_fp8_linears_keep_one_byte_inputs_where_weights_train():
    m = model_from_config(QWEN_MOE, name="tiny-moe")
    cfg = TrainConfig(method="full", precision="pure_bf16", cutoff_len=512, micro_batch=2, gradient_checkpointing=False)
    base = estimate(m, cfg).per_gpu.activations_bytes
    dense = estimate(m, replace(cfg, fp8_linears=("dense",))).per_gpu.activations_bytes
    both = estimate(m, replace(cfg, fp8_linears=("dense", "experts"))).per_gpu.activations_bytes
    # the experts' gathered input and the product feeding fc2: 1 byte instead of 2 per routed copy
    assert dense - both == pytest.approx(4 * (512 + 256) * 4 * 1024, rel=0.01)
    assert both < base
    with pytest.raises(UserError):
        TrainConfig(fp8_linears=("lm_head",)).validate()
    with pytest.raises(UserError):
        TrainConfig(scores_bytes=(2.0,)).validate()   # type: ignore[arg-type]


# ------------------------------------------------------------------ whole checks


def test_local_attention_fused_softmax_up_to_4096_keys(tmp_path, capsys):
    local = " --transformer-impl local"
    short = _check(tmp_path, capsys, GPT.format(seq=4096, extra=local), "--gpu", "h100-sxm", "--gpus", "8")
    note = _note(short, "Megatron's local core attention")
    assert "fused softmax kernel keeps only its 16-bit output" in note
    assert "attention_dropout 0.1" in note                  # Megatron-LM's TransformerConfig default
    long = _check(tmp_path, capsys, GPT.format(seq=8192, extra=local), "--gpu", "h100-sxm", "--gpus", "8")
    assert "does not take this shape" in _note(long, "Megatron's local core attention")
    off = _check(tmp_path, capsys, GPT.format(seq=4096, extra=local + " --no-masked-softmax-fusion"),
                 "--gpu", "h100-sxm", "--gpus", "8")
    assert "--no-masked-softmax-fusion" in _note(off, "Megatron's local core attention")
    assert _step(off) > _step(short)
    nodrop = _check(tmp_path, capsys, GPT.format(seq=4096, extra=local + " --attention-dropout 0.0"),
                    "--gpu", "h100-sxm", "--gpus", "8")
    # 3 bytes per score of every layer's b x heads x s x s scores
    assert _step(short) - _step(nodrop) == pytest.approx(3 * 2 * 16 * 4096 ** 2 * 24, rel=0.02)


def test_swift_unfused_backend_counts_the_fused_softmax(tmp_path, capsys):
    out = _check(tmp_path, capsys, SWIFT.format(extra=""), "--gpu", "a100-80gb", "--gpus", "2")
    note = _note(out, "Transformer Engine's unfused attention")
    assert "fused softmax kernel keeps only its 16-bit output" in note and "attention_dropout" not in note
    drop = _check(tmp_path, capsys, SWIFT.format(extra=" --attention_dropout 0.1"), "--gpu", "a100-80gb",
                  "--gpus", "2")
    assert "attention_dropout 0.1" in _note(drop, "Transformer Engine's unfused attention")
    assert _step(drop) > _step(out)
    flash = _check(tmp_path, capsys, SWIFT.format(extra="").replace("unfused", "flash"), "--gpu", "a100-80gb",
                   "--gpus", "2")
    assert not [n for n in flash["notes"] if "unfused attention" in n]
    assert _step(flash) < _step(out)


def test_fp8_format_keeps_one_byte_linear_inputs(tmp_path, capsys):
    bf16 = _check(tmp_path, capsys, GPT.format(seq=4096, extra=" --use-flash-attn"), "--gpu", "mi300x", "--gpus", "8")
    fp8 = _check(tmp_path, capsys, GPT.format(seq=4096, extra=" --use-flash-attn --fp8-format hybrid"),
                 "--gpu", "mi300x", "--gpus", "8")
    assert "FP8 training (hybrid)" in _note(fp8, "FP8 training")
    assert not [n for n in bf16["notes"] if "FP8 training" in n]
    assert _step(fp8) < _step(bf16)


def test_fp8_legacy_grouped_gemm_experts_stay_16_bit(tmp_path, capsys):
    te = _check(tmp_path, capsys, MOE.format(extra=" --fp8-format e4m3"), *MIXTRAL)
    legacy = _check(tmp_path, capsys, MOE.format(extra=" --fp8-format e4m3 --moe-use-legacy-grouped-gemm"), *MIXTRAL)
    assert "legacy GroupedMLP" in _note(legacy, "FP8 training (e4m3)")
    assert "legacy GroupedMLP" not in _note(te, "FP8 training (e4m3)")
    assert _step(legacy) > _step(te)
    assert "weighted output" in _note(te, "Megatron-core MoE")
