"""c-ds8: DeepSpeed at ZeRO stage 0 as its source allocates it (runners/deepspeed.stage0): no torch DDP reducer, the
engine's own bucketed allreduce; bf16 -> BF16_Optimizer (fp32 gradient accumulators of all trainable elements, fp32
master and optimizer state of a 1/W partition), fp16 -> FP16_(Unfused)Optimizer (full fp32 master and state, the
step's fp32 gradients); DeepSpeed opens two communicators at stage 0 too."""

from __future__ import annotations

import json

from rocm_tune.core.memory.estimate import TrainConfig, communicator_bytes, estimate
from rocm_tune.core.model.architecture import load_model
from tests.conftest import run_cli


def _cfg(**kw) -> TrainConfig:
    base = dict(method="full", precision="bf16", gpus=8, zero_stage=0, cutoff_len=1024, micro_batch=1)
    base.update(kw)
    return TrainConfig(**base)


def test_bf16_zero0_partitions_master_and_state_and_has_no_ddp_reducer():
    model = load_model("qwen2.5-7b")
    est = estimate(model, _cfg(deepspeed=True))
    t = est.params_trainable
    # fp32 accumulators of every element + fp32 master (4 B) and AdamW's two fp32 moments (8 B) of 1/8 of them
    assert abs(est.per_gpu.optimizer_bytes - (4 * t + (4 + 8) * t / 8)) < 1e6
    assert est.per_gpu.comm_buffers_bytes == 0
    assert not any(n.startswith("DDP: the reducer") for n in est.notes)
    assert any("BF16_Optimizer" in n for n in est.notes)
    ddp = estimate(model, _cfg(deepspeed=False))
    assert ddp.per_gpu.comm_buffers_bytes == ddp.per_gpu.gradients_bytes > 0


def test_fp16_zero0_keeps_full_fp32_master_and_state_and_the_step_fp32_grads():
    model = load_model("qwen2.5-7b")
    fp16 = estimate(model, _cfg(deepspeed=True, precision="fp16"))
    bf16 = estimate(model, _cfg(deepspeed=True))
    t = fp16.params_trainable
    assert abs(fp16.per_gpu.optimizer_bytes - (4 + 8) * t) < 1e6
    # the step's fp32 gradients of every element (8 B x trainable) on top of the 16-bit gradients
    assert fp16.per_gpu.peak_allocated_bytes - fp16.per_gpu.optimizer_bytes - fp16.per_gpu.weights_bytes >= 8 * t
    assert fp16.per_gpu.peak_allocated_bytes > bf16.per_gpu.peak_allocated_bytes


def test_zero0_opens_two_communicators_like_zero():
    one, _ = communicator_bytes(_cfg(deepspeed=False))
    two, note = communicator_bytes(_cfg(deepspeed=True))
    assert two == 2 * one > 0 and note and note.startswith("2 ")


def test_cli_reads_a_stage0_json_as_deepspeed_not_ddp(tmp_path):
    (tmp_path / "ds_z0.json").write_text(json.dumps({
        "bf16": {"enabled": "auto"}, "train_micro_batch_size_per_gpu": "auto",
        "zero_optimization": {"stage": 0}}))
    (tmp_path / "train.sh").write_text(
        "torchrun --nproc_per_node 8 train.py --deepspeed ds_z0.json --model_name_or_path Qwen/Qwen2.5-7B "
        "--bf16 True --per_device_train_batch_size 1 --model_max_length 1024 --gradient_checkpointing True "
        "--output_dir out\n")
    res = run_cli("check", str(tmp_path / "train.sh"), str(tmp_path / "ds_z0.json"), "--vram-gib", "80", "--json",
                  cwd=tmp_path)
    out = json.loads(res.stdout)
    assert out["understood"]["zero_stage"] == 0 and out["understood"]["deepspeed"] is True
    assert any("BF16_Optimizer" in n for n in out["notes"])
    assert not any(n.startswith("DDP: the reducer") for n in out["notes"])


def test_zero0_runs_the_module_in_the_json_16bit_dtype():
    # LLaMA-Factory keeps full fine-tuning's trainable weights in fp32; DeepSpeed's engine casts the module to bf16
    # (engine.py _configure_distributed_model) at stage 0 as at ZeRO-1..3: weights and gradients 2 B, no autocast copies
    model = load_model("qwen2.5-7b")
    plain = estimate(model, _cfg(gpus=1, runner="llamafactory"))
    ds0 = estimate(model, _cfg(gpus=1, runner="llamafactory", deepspeed=True))
    z1 = estimate(model, _cfg(gpus=1, runner="llamafactory", zero_stage=1))
    t = ds0.params_trainable
    assert plain.per_gpu.trainable_weights_bytes == 4 * t
    assert ds0.per_gpu.trainable_weights_bytes == z1.per_gpu.trainable_weights_bytes == 2 * t
    assert ds0.per_gpu.gradients_bytes == 2 * t
    assert ds0.per_gpu.autocast_copies_bytes == 0 < plain.per_gpu.autocast_copies_bytes


def test_zero1_step_keeps_only_the_rank_partition_of_the_gradients():
    # stage_1_and_2.py step(): free_grad_in_param_list(params_not_in_partition) before the partition is flattened and
    # cast to fp32: at a short sequence the peak is the end of backward (every 16-bit gradient), not full gradients
    # plus the step's partition temporaries
    model = load_model("qwen2.5-7b")
    est = estimate(model, _cfg(zero_stage=1, cutoff_len=128))
    t, world = est.params_trainable, 8
    g = est.per_gpu
    beyond = g.peak_allocated_bytes - g.weights_bytes - g.optimizer_bytes - g.comm_buffers_bytes
    partition = t / world
    assert abs(beyond - 2 * t) < 0.01 * t < partition * (2 + 4)
