"""Terms check under-counted (helper c-under8a, issue 26).

* torch FSDP reduce-scatters each unit's gradient as its backward ends (torch/distributed/fsdp/_runtime_utils.py
  _post_backward_hook -> _reduce_grad), so the backward's activations and loss sit beside 1/shard of the gradients,
  not beside none of them; and the root unit (embedding, final norm, lm_head) is reduce-scattered only after the
  embedding's backward, the last: lm_head's unsharded gradient is held through the whole backward.
* 01-ai/Yi's finetune/sft/main.py (DeepSpeed-Chat's main with --training_debug_steps) runs on transformers 4.34.0
  (the repository's requirements.txt), before sdpa: eager attention.
The configs below are written here (Axolotl's documented keys, Yi's finetune/scripts/run_sft_lora_Yi_6b.sh shape);
none is a corpus case."""

from __future__ import annotations

import json
from pathlib import Path

from rocm_tune.cli import main
from rocm_tune.core.check.check import resolve_model
from rocm_tune.core.runners import fsdp

AXOLOTL_FSDP = """base_model: meta-llama/Meta-Llama-3-8B
datasets:
  - path: ./my_corpus.jsonl
    type: completion
sequence_len: {seq}
sample_packing: true
pad_to_sequence_len: true
micro_batch_size: {mbs}
gradient_accumulation_steps: 1
num_epochs: 1
optimizer: adamw_torch
learning_rate: 0.00002
bf16: true
gradient_checkpointing: true
flash_attention: true
fsdp:
  - full_shard
  - auto_wrap
fsdp_config:
  fsdp_offload_params: false
  fsdp_state_dict_type: FULL_STATE_DICT
  fsdp_transformer_layer_cls_to_wrap: LlamaDecoderLayer
"""

YI_RUN = """#/usr/bin/env bash
cd ../sft/
deepspeed main.py \\
    --data_path /data/ \\
    --model_name_or_path 01-ai/Yi-6B \\
    --per_device_train_batch_size 1 \\
    --per_device_eval_batch_size 1 \\
    --max_seq_len 4096 \\
    --learning_rate 2e-6 \\
{debug}    --gradient_checkpointing \\
    --zero_stage 2 \\
    --deepspeed \\
    --offload \\
    --lora_dim 128 \\
    --lora_module_name "layers." \\
    --output_dir ./out
"""


def _run(tmp_path: Path, capsys, name: str, text: str, *args: str) -> dict:
    (tmp_path / name).write_text(text)
    rc = main(["check", str(tmp_path / name), *args, "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc in (0, 1), out
    return out


def _states(out: dict) -> float:
    """The sharded weights + gradients + optimizer state the FSDP note states, in bytes."""
    note = next(n for n in out["notes"] if n.startswith("FSDP FULL_SHARD over"))
    parts = note.split(": per GPU ")[1].split(" + ")
    return sum(float(p.split(" GiB")[0]) for p in parts[:3]) * 2**30


def test_fsdp_backward_holds_the_loss_beside_sharded_gradients(tmp_path, capsys):
    # Llama-3-8B full fine-tuning, 2 x 2048 tokens per GPU over 8 GPUs: the loss's fp32 log-softmax and its
    # gradient (8 B per logit) are live in the backward beside the sharded states; the one-GPU figure less ALL
    # unsharded gradients (15 GiB, more than these activations) used to hide them
    out = _run(tmp_path, capsys, "fsdp.yml", AXOLOTL_FSDP.format(seq=2048, mbs=2), "--gpu", "mi300x", "--gpus", "8")
    assert out["execution"]["sharding"].startswith("FSDP FULL_SHARD")
    model = resolve_model("meta-llama/Meta-Llama-3-8B", None)[0]
    logits = 2 * 2048 * int(model.vocab_size)
    step = out["memory"]["step"]["peak_allocated_bytes"]
    assert step >= _states(out) + 8 * logits
    # and it grows with the tokens, as activations do
    small = _run(tmp_path, capsys, "fsdp.yml", AXOLOTL_FSDP.format(seq=1024, mbs=1), "--gpu", "mi300x", "--gpus", "8")
    assert step - small["memory"]["step"]["peak_allocated_bytes"] >= 8 * (logits - 1024 * int(model.vocab_size))


def test_fsdp_root_unit_keeps_lm_head_gradient_unsharded_for_full_training():
    model = resolve_model("meta-llama/Meta-Llama-3-8B", None)[0]

    class _One:
        weights_bytes = gradients_bytes = float(model.params.total * 2)
        optimizer_bytes = float(model.params.total * 4)

    class _Cfg:
        world_size, precision = 8, "bf16"

    full = type("C", (_Cfg,), {"method": "full"})()
    lora = type("C", (_Cfg,), {"method": "lora"})()
    spec = fsdp.spec_from(["full_shard", "auto_wrap"], None, "test")
    assert spec is not None
    head = float((model.params.lm_head or model.params.embed) * 2)
    assert head > 0
    assert fsdp.allocations(model, full, spec, _One(), 8).root_grad == head
    assert fsdp.allocations(model, lora, spec, _One(), 8).root_grad == 0.0
    no_shard = fsdp.spec_from(["no_shard"], None, "test")
    assert no_shard is not None and fsdp.allocations(model, full, no_shard, _One(), 8).root_grad == 0.0
    assert fsdp.shard_group(full, spec, 8) == 8 and fsdp.shard_group(full, no_shard, 8) == 1


def test_yi_deepspeed_chat_main_runs_eager_attention(tmp_path, capsys):
    yi = _run(tmp_path, capsys, "run_sft_lora_Yi_6b.sh", YI_RUN.format(debug="    --training_debug_steps 20 \\\n"),
              "--gpu", "rtx4090", "--gpus", "2")
    assert yi["understood"]["attn"] == "eager"
    assert any("Yi's DeepSpeed-Chat main" in n for n in yi["notes"])
    # DeepSpeed-Chat's own main (no --training_debug_steps) keeps the default attention
    ds = _run(tmp_path, capsys, "run_sft_lora_Yi_6b.sh", YI_RUN.format(debug=""), "--gpu", "rtx4090", "--gpus", "2")
    assert ds["understood"]["attn"] == "sdpa"
    # eager attention's seq x seq scores: 4096 tokens, fp32 softmax, one layer recomputed at a time
    grew = yi["memory"]["step"]["peak_allocated_bytes"] - ds["memory"]["step"]["peak_allocated_bytes"]
    assert grew >= 32 * 4096 * 4096 * 4


# lm-sys/FastChat README's Vicuna-7B command (train_mem.py loads fp32 weights; FSDP with --bf16 gathers bf16 units)
FASTCHAT = """torchrun --nproc_per_node=4 --master_port=20001 fastchat/train/train_mem.py \\
    --model_name_or_path meta-llama/Llama-2-7b-hf \\
    --data_path data/dummy_conversation.json \\
    --bf16 True \\
    --output_dir output_vicuna \\
    --per_device_train_batch_size 2 \\
    --gradient_accumulation_steps 16 \\
    --learning_rate 2e-5 \\
    --fsdp "full_shard auto_wrap" \\
    --fsdp_transformer_layer_cls_to_wrap 'LlamaDecoderLayer' \\
    --model_max_length 2048 \\
    --gradient_checkpointing True \\
    --lazy_preprocess True
"""


def test_fsdp_mixed_precision_makes_no_autocast_weight_copies(tmp_path, capsys):
    # fp32 weights under FSDP's MixedPrecision(param_dtype=bf16): each unit is all-gathered already in bf16, so
    # autocast finds no fp32 weight to cast; what the step holds beyond the sharded states and the unsharded units
    # (activations, loss, the root's gradient) is far below a whole bf16 copy of the model
    out = _run(tmp_path, capsys, "train.sh", FASTCHAT, "--gpu", "a100-40gb")
    assert out["execution"]["trainable_weights"] == "fp32"
    note = next(n for n in out["notes"] if n.startswith("FSDP FULL_SHARD over"))
    gathered = float(note.split(" + ")[3].split(" GiB")[0]) * 2**30
    model = resolve_model("meta-llama/Llama-2-7b-hf", None)[0]
    beyond = out["memory"]["step"]["peak_allocated_bytes"] - _states(out) - gathered
    assert 0 < beyond < 0.25 * model.params.total * 2
    assert out["verdict"] == "fits"          # the README's 4 x A100 40GB
