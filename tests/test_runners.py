"""Runner-faithful regimes and DeepSpeed ZeRO allocations, with real models and real numbers."""

from __future__ import annotations

import json

import pytest

from rocm_tune.core.errors import UserError
from rocm_tune.core.memory.estimate import TrainConfig, estimate, trainable_params
from rocm_tune.core.model.architecture import load_model, model_from_config
from rocm_tune.core.runners import deepspeed as ds
from rocm_tune.core.runners import execution, regime
from rocm_tune.profiles.gpu_profiles import get_gpu_profile

GIB = 2**30
# Llama-2-7B / Llama-7B as released (config.json says float16): 6,738,415,616 parameters
LLAMA7B = {"model_type": "llama", "hidden_size": 4096, "intermediate_size": 11008, "num_hidden_layers": 32,
           "num_attention_heads": 32, "num_key_value_heads": 32, "vocab_size": 32000,
           "tie_word_embeddings": False, "max_position_embeddings": 4096, "torch_dtype": "float16"}


@pytest.fixture(scope="module")
def qwen7b():
    return load_model("qwen2.5-7b")


def _blk(n):
    return -(-int(n) // 512) * 512


def test_llamafactory_fp32_on_mi50_runs_bf16_frozen_weights(qwen7b):
    """MI50 + Qwen2.5-7B "fp32" (report 000): LLaMA-Factory loads the bf16 checkpoint as stored."""
    assert qwen7b.torch_dtype == "bfloat16"
    lf = TrainConfig(method="lora", precision="fp32", runner="llamafactory")
    r = regime(qwen7b, lf)
    assert (r.frozen_dtype, r.trainable_dtype, r.compute_dtype, r.autocast) == ("bf16", "fp32", "bf16", None)
    assert r.ignores_request
    total = qwen7b.params.total
    assert estimate(qwen7b, lf).per_gpu.frozen_weights_bytes == _blk(2 * total)
    builtin = TrainConfig(method="lora", precision="fp32", runner="builtin")
    assert estimate(qwen7b, builtin).per_gpu.frozen_weights_bytes == _blk(4 * total)
    assert not regime(qwen7b, builtin).ignores_request
    # the built-in trainer's estimate is today's (runner defaults to builtin)
    assert estimate(qwen7b, builtin).per_gpu == estimate(qwen7b, TrainConfig(method="lora", precision="fp32")).per_gpu


def test_execution_states_what_runs_and_warns_with_the_fix(qwen7b):
    mi50 = get_gpu_profile("mi50-32gb")
    ex = execution(qwen7b, TrainConfig(method="lora", precision="fp32", runner="llamafactory"), mi50)
    assert ex.warning is not None and ex.warning[0] == "runner-ignores-precision"
    assert "--runner builtin" in ex.warning[2] and "rocm_tune.train.lf_launch" in ex.warning[2]
    assert any("emulated bf16" in line for line in ex.lines)
    assert ex.to_dict()["frozen_weights"] == "bf16"
    ok = execution(qwen7b, TrainConfig(method="lora", precision="fp32", runner="builtin"), mi50)
    assert ok.warning is None and ok.regime.compute_dtype == "fp32"
    # bf16 requested: LLaMA-Factory honours it (autocast, fp32 trainable weights)
    bf = execution(qwen7b, TrainConfig(method="lora", precision="bf16", runner="llamafactory"))
    assert bf.warning is None and bf.regime.autocast == "bf16" and bf.regime.trainable_dtype == "fp32"


def test_lf_launch_pins_fp32_so_fp32_weights_are_counted(qwen7b):
    """Report 000: stock LLaMA-Factory keeps the bf16 checkpoint in bf16 (14 GiB of frozen weights); through the
    bundle's lf_launch --compute-dtype fp32 the weights load in fp32 (28 GiB) and no request is ignored."""
    stock = TrainConfig(method="lora", precision="fp32", runner="llamafactory")
    pinned = TrainConfig(method="lora", precision="fp32", runner="llamafactory", lf_launch=True)
    assert regime(qwen7b, stock).frozen_dtype == "bf16" and regime(qwen7b, stock).ignores_request
    r = regime(qwen7b, pinned)
    assert (r.frozen_dtype, r.trainable_dtype, r.compute_dtype, r.autocast, r.ignores_request) == (
        "fp32", "fp32", "fp32", None, False)
    assert estimate(qwen7b, pinned).per_gpu.frozen_weights_bytes == _blk(4 * qwen7b.params.total)
    assert estimate(qwen7b, stock).per_gpu.frozen_weights_bytes < 0.51 * estimate(qwen7b, pinned).per_gpu.frozen_weights_bytes
    ex = execution(qwen7b, pinned)
    assert ex.compute_pin == "fp32" and ex.warning is None and "lf_launch.py --compute-dtype fp32" in ex.launch
    # bf16 needs no pin: the YAML's bf16 switch sets LLaMA-Factory's compute dtype
    assert execution(qwen7b, TrainConfig(precision="bf16", runner="llamafactory", lf_launch=True)).compute_pin is None


def test_llamafactory_full_fp32_upcasts_everything(qwen7b):
    r = regime(qwen7b, TrainConfig(method="full", precision="fp32", runner="llamafactory"))
    assert (r.trainable_dtype, r.compute_dtype, r.ignores_request) == ("fp32", "fp32", False)


def test_pure_bf16_adapters_stay_bf16(qwen7b):
    cfg = TrainConfig(method="lora", precision="pure_bf16", runner="llamafactory")
    e = estimate(qwen7b, cfg)
    assert regime(qwen7b, cfg).trainable_dtype == "bf16"
    assert e.per_gpu.trainable_weights_bytes == _blk(2 * e.params_trainable)
    assert e.per_gpu.optimizer_bytes == _blk(4 * e.params_trainable)   # two bf16 moments


def test_zero3_keeps_fp32_partitions_under_llamafactory(qwen7b):
    """adapter.py: no upcast under ZeRO-3 (DeepSpeed keeps fp32 partitions itself)."""
    cfg = TrainConfig(method="full", precision="bf16", zero_stage=3, gpus=8, runner="llamafactory")
    assert regime(qwen7b, cfg).trainable_dtype == "bf16"
    e = estimate(qwen7b, cfg)
    p = qwen7b.params.total
    assert e.per_gpu.optimizer_bytes == _blk((8 + 4) * p / 8)       # Adam moments + fp32 master, sharded
    assert e.per_gpu.weights_bytes == _blk(2 * p / 8)
    with_upcast = regime(qwen7b, TrainConfig(method="full", precision="bf16", zero_stage=2, gpus=8,
                                             runner="llamafactory"))
    assert with_upcast.trainable_dtype == "fp32"


def test_hf_runner_trains_checkpoint_dtype_and_refuses_pure_bf16(qwen7b):
    r = regime(qwen7b, TrainConfig(method="full", precision="bf16", runner="hf"))
    assert (r.trainable_dtype, r.autocast, r.ignores_request) == ("bf16", "bf16", True)
    assert regime(qwen7b, TrainConfig(method="lora", precision="bf16", runner="hf")).trainable_dtype == "fp32"
    with pytest.raises(UserError, match="runner 'hf' has no pure_bf16"):
        estimate(qwen7b, TrainConfig(method="lora", precision="pure_bf16", runner="hf"))
    with pytest.raises(UserError, match="runner 'axolotl' is not known"):
        TrainConfig(runner="axolotl").validate()


def test_llama7b_fp16_zero2_on_8_v100_does_not_fit():
    """The published Llama-7B full fine-tune (fp16, ZeRO-2, 8 x V100-32GB) died in the AdamW step allocating
    the fp32 copy of its gradient partition (3.14 GiB) on top of ~28 GiB: the estimate must include it."""
    m = model_from_config(LLAMA7B, name="llama-7b")
    assert m.params.total == 6_738_415_616
    cfg = TrainConfig(method="full", precision="fp16", zero_stage=2, gpus=8, micro_batch=1, cutoff_len=512,
                      runner="llamafactory")
    g = estimate(m, cfg).per_gpu
    partition = m.params.total / 8
    assert partition * 4 / GIB == pytest.approx(3.14, abs=0.01)
    # static per rank: fp16 weights, fp32 master + Adam moments / 8, fp16 gradient partition, IPG buffers
    static = 2 * m.params.total + 12 * partition + 2 * partition + g.comm_buffers_bytes
    # on top in the AdamW step: the fp32 gradient partition and torch AdamW's foreach sqrt temporary, both fp32
    # (above the flattened fp16 + fp32 copy before it; deepspeed.runtime.zero.stage_1_and_2 step())
    assert g.peak_allocated_bytes == pytest.approx(static + partition * (4 + 4), abs=4096)
    v100 = get_gpu_profile("v100-32gb")
    assert g.reserved_bytes > 0.85 * v100.vram_bytes                # the planner's headroom: does not fit
    assert g.peak_allocated_bytes / GIB > 28


def test_zero_settings_are_concrete_and_the_estimate_uses_them(qwen7b):
    lora = TrainConfig(method="lora", lora_rank=4, precision="bf16", zero_stage=2, gpus=2)
    z = ds.zero_settings(qwen7b, lora)
    assert "auto" not in json.dumps(z)
    trainable = trainable_params(qwen7b, lora)
    # a LoRA run no longer gets 2 x 5e8-element buffers: the bucket is the adapter size (< hidden^2)
    assert trainable < qwen7b.hidden_size ** 2
    assert z["reduce_bucket_size"] == z["allgather_bucket_size"] == -(-trainable // 4096) * 4096
    assert z["overlap_comm"] is True and z["contiguous_gradients"] is True
    e = estimate(qwen7b, lora)
    assert e.per_gpu.comm_buffers_bytes == _blk(z["reduce_bucket_size"] * 2 * 2)   # 2 buffers x bf16
    assert e.per_gpu.comm_buffers_bytes < 0.1 * GIB
    full3 = TrainConfig(method="full", precision="bf16", zero_stage=3, gpus=8, offload="optimizer")
    z3 = ds.zero_settings(qwen7b, full3)
    h = qwen7b.hidden_size
    assert z3["reduce_bucket_size"] == h * h
    assert z3["stage3_prefetch_bucket_size"] == int(0.9 * h * h)
    assert z3["stage3_param_persistence_threshold"] == 10 * h
    assert z3["offload_optimizer"] == {"device": "cpu", "pin_memory": True} and z3["overlap_comm"] is False
    assert ds.zero_settings(qwen7b, TrainConfig()) == {}


def test_estimate_cli_runner_flag(tmp_path):
    import subprocess
    import sys

    def run(*args):
        return subprocess.run([sys.executable, "-m", "rocm_tune", "estimate", "-m", "qwen2.5-7b", "--precision",
                               "fp32", *args], capture_output=True, text=True)

    lf = run("--runner", "llamafactory", "--json")
    assert lf.returncode == 0, lf.stderr
    d = json.loads(lf.stdout)
    assert d["config"]["runner"] == "llamafactory"
    assert d["execution"]["frozen_weights"] == "bf16" and d["execution"]["warning"]["code"] == "runner-ignores-precision"
    builtin = json.loads(run("--json").stdout)
    assert builtin["config"]["runner"] == "builtin" and builtin["execution"]["warning"] is None
    assert builtin["per_gpu"]["frozen_weights_bytes"] == 2 * d["per_gpu"]["frozen_weights_bytes"]
    text = run("--runner", "llamafactory").stdout
    assert "Runs as    runner llamafactory: frozen weights bf16" in text and "--runner builtin" in text
    bad = run("--runner", "axolotl")
    assert bad.returncode == 2 and "--runner 'axolotl' is not known; expected one of: llamafactory, hf, builtin" in bad.stderr and "Traceback" not in bad.stderr


def test_stock_llamafactory_under_zero3_trains_fp32_weights(qwen7b):
    """DeepSpeed ZeRO-3 casts the parameters to its JSON's dtype when it partitions them: with fp16 and bf16 off
    that is fp32, so stock LLaMA-Factory + ZeRO-3 "fp32" is real fp32 (measured in journey 000's ZeRO-3 run: the
    ranks recorded float32 frozen and trainable weights); without ZeRO-3 it keeps the bf16 checkpoint in bf16."""
    z3 = regime(qwen7b, TrainConfig(method="lora", precision="fp32", runner="llamafactory", zero_stage=3, gpus=2))
    assert (z3.frozen_dtype, z3.trainable_dtype, z3.compute_dtype, z3.ignores_request) == ("fp32", "fp32", "fp32", False)
    ddp = regime(qwen7b, TrainConfig(method="lora", precision="fp32", runner="llamafactory", gpus=2))
    assert (ddp.frozen_dtype, ddp.ignores_request) == ("bf16", True)
