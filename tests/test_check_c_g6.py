"""`check` on the gaps an independent sample showed (helper c-g6): Megatron's fully sharded data parallel
(`--use-torch-fsdp2`; `--use-megatron-fsdp` / `--use-custom-fsdp` with `--data-parallel-sharding-strategy`), Megatron's
block recomputation of N layers (`--recompute-method block --recompute-num-layers N`), and ms-swift 2.x's model_type
spelling of Qwen1.5 (`qwen1half-7b-chat`). Every config here is written for the test from the tools' source
(NVIDIA/Megatron-LM megatron/training/arguments.py, megatron/core/distributed/torch_fully_sharded_data_parallel.py,
megatron/core/transformer/transformer_block.py; AMD-AGI/Primus experiment files; ROCm/Megatron-LM
examples/llama/train_llama3.sh; modelscope/ms-swift v2.0.4 swift/llm/utils/model.py ModelType), none is a corpus case."""

from __future__ import annotations

import json
from pathlib import Path

from rocm_tune.cli import main
from rocm_tune.core.model import names
from rocm_tune.core.model.architecture import load_model
from rocm_tune.core.runners import megatron

# Llama-3.1-8B (the preset's shape): 32 layers, 8,030,261,248 parameters
PARAMS = 8_030_261_248
MEGATRON = """torchrun --nproc_per_node 8 pretrain_gpt.py \\
  --num-layers 32 --hidden-size 4096 --ffn-hidden-size 14336 --num-attention-heads 32 \\
  --group-query-attention --num-query-groups 8 --swiglu --normalization RMSNorm \\
  --seq-length 4096 --max-position-embeddings 8192 --micro-batch-size 1 --global-batch-size 64 \\
  --tensor-model-parallel-size 1 --pipeline-model-parallel-size 1 --bf16 \\
  --untie-embeddings-and-output-weights --ckpt-format torch_dist \\
  --train-iters 100 --lr 3e-4 --data-path /data/text_document{extra}
"""


def _check(tmp_path: Path, name: str, files: dict[str, str], args: list[str], capsys) -> dict:
    paths = []
    for fname, text in files.items():
        p = tmp_path / name / fname
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
        paths.append(str(p))
    rc = main(["check", *paths, *args, "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc in (0, 1), out
    return out


def _megatron(tmp_path, capsys, extra: str = "", name: str = "a", gpu: str = "mi300x") -> dict:
    return _check(tmp_path, name, {"train.sh": MEGATRON.format(extra=extra)},
                  ["--gpu", gpu, "--model", "llama-3.1-8b"], capsys)


def _save(j: dict) -> int:
    return int(j["memory"]["save"]["peak_allocated_bytes"])


def _step(j: dict) -> int:
    return int(j["memory"]["step"]["peak_allocated_bytes"])


def test_torch_fsdp2_shards_weights_gradients_and_optimizer_over_data_parallel(tmp_path, capsys):
    ddp = _megatron(tmp_path, capsys, name="ddp")
    fsdp = _megatron(tmp_path, capsys, " \\\n  --use-torch-fsdp2", name="fsdp")
    # without FSDP: bf16 weights 2 + fp32 main gradients 4 + fp32 master 4 + Adam 8 = 18 B/param on every GPU
    assert _save(ddp) == 18 * PARAMS
    # --use-torch-fsdp2: every one of those states / 8 (data parallel 8 at TP = PP = 1)
    assert abs(_save(fsdp) - 18 * PARAMS / 8) < 1e6
    assert any("--use-torch-fsdp2: Megatron's FSDP shards the weights, gradients and optimizer state" in n
               for n in fsdp["notes"])
    assert any("weights / 8, gradients / 8, optimizer state / 8" in n for n in fsdp["notes"])
    # the step holds the sharded states, the activations and a layer's gathered 16-bit weights: far below DDP's
    assert _save(fsdp) < _step(fsdp) < _step(ddp) / 3


def test_fsdp2_gather_counts_the_largest_unit(tmp_path, capsys):
    fsdp = _megatron(tmp_path, capsys, " \\\n  --use-torch-fsdp2", name="g")
    note = next(n for n in fsdp["notes"] if "FSDP gathers" in n)
    # Llama-3.1-8B: the embedding (128256 x 4096 = 525M) is the largest fully_shard unit, 16-bit, x (2 + 1)
    gib = 128256 * 4096 * 2 * 3 / 2**30
    assert f"{gib:.2f} GiB" in note


def test_megatron_fsdp_sharding_strategy_levels(tmp_path, capsys):
    flags = {"use_megatron_fsdp": ("true", 3)}
    assert megatron.fsdp_level(flags) == (0, "use_megatron_fsdp", 3)        # default no_shard
    for strat, level in (("optim", 1), ("optim_grads", 2), ("optim_grads_params", 3), ("'optim_grads'", 2)):
        assert megatron.fsdp_level({**flags, "data_parallel_sharding_strategy": (strat, 4)})[0] == level
    assert megatron.fsdp_level({"use_custom_fsdp": ("", 2), "data_parallel_sharding_strategy": ("optim", 3)})[0] == 1
    assert megatron.fsdp_level({"use_torch_fsdp2": ("false", 1)}) is None
    # optim_grads: optimizer and gradients / 8, the 2-byte weights whole on every GPU
    j = _megatron(tmp_path, capsys, " \\\n  --use-megatron-fsdp --data-parallel-sharding-strategy optim_grads", name="z2")
    assert abs(_save(j) - (2 * PARAMS + 16 * PARAMS / 8)) < 1e6
    # no strategy: no_shard, the same states as plain Megatron data parallel
    j0 = _megatron(tmp_path, capsys, " \\\n  --use-megatron-fsdp", name="z0")
    assert _save(j0) == 18 * PARAMS


def test_recompute_block_keeps_the_other_layers_activations(tmp_path, capsys):
    base = " \\\n  --use-torch-fsdp2 --recompute-granularity full --recompute-method block --recompute-num-layers {n}"
    every = _megatron(tmp_path, capsys, base.format(n=32), name="r32")
    half = _megatron(tmp_path, capsys, base.format(n=16), name="r16")
    none = _megatron(tmp_path, capsys, " \\\n  --use-torch-fsdp2", name="r0")
    assert _step(every) < _step(half) < _step(none)
    assert any("16 of 32 layers per stage recomputed" in n for n in half["notes"])
    assert not any("layers per stage recomputed" in n for n in every["notes"])
    # uniform recomputes every layer (in chunks of N): counted as full recomputation
    uni = _megatron(tmp_path, capsys, " \\\n  --use-torch-fsdp2 --recompute-granularity full --recompute-method uniform "
                    "--recompute-num-layers 4", name="ru")
    assert _step(uni) == _step(every)


# a Primus experiment (AMD-AGI/Primus examples/megatron/configs/*/*-pretrain.yaml shape) with torch FSDP2
PRIMUS = """work_group: ${PRIMUS_TEAM:amd}
exp_name: ${PRIMUS_EXP_NAME:llama3_8B-pretrain}
modules:
  pre_trainer:
    framework: megatron
    config: pre_trainer.yaml
    model: llama3.1_8B.yaml
    overrides:
      micro_batch_size: 2
      global_batch_size: 128
      seq_length: 8192
      max_position_embeddings: 8192
      tensor_model_parallel_size: 1
      pipeline_model_parallel_size: 1
      use_torch_fsdp2: FSDP
      use_distributed_optimizer: false
      gradient_accumulation_fusion: false
      ckpt_format: torch_dist
      recompute_granularity: full
      recompute_method: block
      recompute_num_layers: 24
"""


def test_primus_experiment_with_torch_fsdp2(tmp_path, capsys):
    on = _check(tmp_path, "p1", {"exp.yaml": PRIMUS.replace("FSDP", "true")}, ["--gpu", "mi300x", "--gpus", "8"], capsys)
    off = _check(tmp_path, "p0", {"exp.yaml": PRIMUS.replace("FSDP", "false")}, ["--gpu", "mi300x", "--gpus", "8"], capsys)
    assert on["model"]["name"] == off["model"]["name"]
    assert _save(on) * 7 < _save(off)
    assert any("24 of 32 layers per stage recomputed" in n for n in on["notes"])


def test_amd_llama3_launcher_fsdp_is_torch_fsdp2():
    flags, notes, _ = megatron.read_amd_launcher("train_llama3.sh", {"FSDP": "1", "MODEL_SIZE": "8"}, [], 1)
    assert flags["use-torch-fsdp2"][0] == "true"
    assert flags["tensor-model-parallel-size"][0] == "1" and "use-distributed-optimizer" not in flags
    out, _ = megatron.read_flags(flags, "train_llama3.sh")
    assert out["__fsdp__"].value == 3
    flags0, _, _ = megatron.read_amd_launcher("train_llama3.sh", {"MODEL_SIZE": "8"}, [], 1)
    assert "use-torch-fsdp2" not in flags0


def test_ms_swift_qwen1half_model_types_name_qwen15():
    # ms-swift 2.x ModelType: qwen1half_7b_chat = 'qwen1half-7b-chat', qwen1half_moe_a2_7b_chat, *-awq / -int4
    for ref, preset in (("qwen1half-7b-chat", "qwen1.5-7b"), ("qwen1half-14b", "qwen1.5-14b"),
                        ("qwen1half-moe-a2_7b-chat", "qwen1.5-moe-a2.7b"), ("qwen1half-72b-chat-awq", "qwen1.5-72b")):
        assert load_model(ref).name == preset, ref
    assert names.parse_name("codeqwen1half-7b-chat").series == "codeqwen1.5"
    # "half" only after a version's digit: a word of its own is untouched
    assert names.parse_name("llama-half-7b").series != "llama.5"


SWIFT2 = """CUDA_VISIBLE_DEVICES=0 \\
swift sft \\
    --model_type qwen1half-7b-chat \\
    --sft_type full \\
    --dataset blossom-math-zh \\
    --output_dir output
"""


def test_ms_swift_qwen1half_full_sft_is_the_77b_model(tmp_path, capsys):
    j = _check(tmp_path, "s", {"sft.sh": SWIFT2}, ["--gpu", "a100-80gb"], capsys)
    assert j["model"]["name"] == "qwen1.5-7b" and j["model"]["source"] == "preset"
    # Qwen1.5-7B: 7.72B parameters (vocab 151936), not an assumed 6.9B Llama shape: bf16 weights, gradients and
    # AdamW moments at 8 B/param are at least 61 GB in the step
    assert _step(j) > 61e9


def test_selective_recompute_of_core_attention_counts_no_recomputation(tmp_path, capsys):
    none = _megatron(tmp_path, capsys, name="s0")
    full = _megatron(tmp_path, capsys, " \\\n  --recompute-granularity full --recompute-method uniform", name="sf")
    sel = _megatron(tmp_path, capsys, " \\\n  --recompute-granularity selective", name="ss")
    act = _megatron(tmp_path, capsys, " \\\n  --recompute-activations", name="sa")
    core = _megatron(tmp_path, capsys, " \\\n  --recompute-granularity selective --recompute-modules core_attn", name="sc")
    # recompute_modules default ["core_attn"]: fused attention keeps no scores, so nothing of size is dropped
    for j in (sel, act, core):
        assert j["understood"]["gradient_checkpointing"] is False
        assert _step(j) == _step(none)
        assert any("selective recomputation of core attention only" in n for n in j["notes"])
    assert full["understood"]["gradient_checkpointing"] is True and _step(full) < _step(none)
    # every module of an nargs list is read: mlp recomputed too -> counted as recomputation
    mlp = _megatron(tmp_path, capsys, " \\\n  --recompute-granularity selective --recompute-modules core_attn mlp", name="sm")
    assert mlp["understood"]["gradient_checkpointing"] is True and _step(mlp) == _step(full)


def test_selective_modules_from_a_yaml_list():
    flags = {"recompute_granularity": ("selective", 1), "recompute_modules": ("['core_attn', 'moe_act']", 2)}
    out, _ = megatron.read_flags(flags, "exp.yaml")
    assert out["disable_gradient_checkpointing"].value is False
    out2, notes2 = megatron.read_flags({"recompute_granularity": ("selective", 1),
                                        "recompute_modules": ("['core_attn']", 2)}, "exp.yaml")
    assert "disable_gradient_checkpointing" not in out2 and any("core attention only" in n for n in notes2)
