"""ms-swift GRPO's vLLM placement by release (core/runners/rl.py _swift_layout), through the real CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SCRIPT = """{env}swift rlhf \\
    --rlhf_type grpo \\
    --model Qwen/Qwen2.5-7B-Instruct \\
    --train_type lora \\
    --use_vllm true \\
{extra}    --vllm_gpu_memory_utilization 0.6 \\
    --max_completion_length 1024 \\
    --per_device_train_batch_size 2 \\
    --deepspeed zero3
"""


def _check(tmp_path: Path, env: str, extra: str = "") -> dict:
    f = tmp_path / "grpo.sh"
    f.write_text(SCRIPT.format(env=env, extra=extra))
    out = subprocess.run([sys.executable, "-m", "rocm_tune", "check", str(f), "--gpu", "a100-80gb", "--json"],
                         capture_output=True, text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                         timeout=300)
    return json.loads(out.stdout)


def _engine_note(d: dict) -> str:
    return next(n for n in d["notes"] if n.startswith(("GRPO with vLLM", "GRPO with a vLLM")))


def test_spare_visible_gpu_takes_the_engine(tmp_path):
    """3 processes on 4 visible GPUs: the engine on the 4th (ms-swift 3.1 vllm_device auto), not in the step."""
    d = _check(tmp_path, "CUDA_VISIBLE_DEVICES=0,1,2,3 \\\nNPROC_PER_NODE=3 \\\n")
    assert "a GPU of its own" in _engine_note(d) and "ms-swift < 3.5" in _engine_note(d)
    assert d["memory"]["generate"]["peak_allocated_bytes"] > 0.6 * 79 * 2**30
    assert d["memory"]["step"]["peak_allocated_bytes"] < 0.6 * 79 * 2**30
    assert any("gathers the whole model" in n for n in d["notes"])


def test_one_process_per_visible_gpu_colocates(tmp_path):
    """every visible GPU trains: the engine lives in each process (3.5's colocate), 60 % of each GPU in the step."""
    d = _check(tmp_path, "CUDA_VISIBLE_DEVICES=0,1,2,3 \\\nNPROC_PER_NODE=4 \\\n")
    assert "colocated" in _engine_note(d)
    assert "generate" not in d["memory"]
    assert d["memory"]["step"]["peak_allocated_bytes"] > 0.6 * 79 * 2**30


def test_single_visible_gpu_shares_it(tmp_path):
    """one GPU visible: ms-swift 3.0-3.1 share it with the engine (get_device_count() == 1), counted in the step."""
    d = _check(tmp_path, "CUDA_VISIBLE_DEVICES=0 \\\nNPROC_PER_NODE=1 \\\n")
    assert "colocated" in _engine_note(d)


VERL = """python3 -m verl.trainer.main_ppo \\
    algorithm.adv_estimator={est} \\
    data.max_prompt_length=512 \\
    data.max_response_length=512 \\
    actor_rollout_ref.model.path=Qwen/Qwen2.5-7B \\
    actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2 \\
    actor_rollout_ref.rollout.name=vllm \\
    actor_rollout_ref.rollout.gpu_memory_utilization=0.4 \\
    critic.model.path=Qwen/Qwen2.5-7B \\
{extra}    trainer.n_gpus_per_node=8 \\
    trainer.nnodes=1
"""


def _verl(tmp_path: Path, est: str, extra: str = "") -> dict:
    f = tmp_path / "ppo.sh"
    f.write_text(VERL.format(est=est, extra=extra))
    out = subprocess.run([sys.executable, "-m", "rocm_tune", "check", str(f), "--gpu", "mi300x", "--json"],
                         capture_output=True, text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                         timeout=300)
    return json.loads(out.stdout)


def test_verl_gae_counts_the_critic_fsdp_state(tmp_path):
    """verl's critic (adv_estimator gae): fp32 shards + gradients + Adam moments, 16 B per parameter / 8 GPUs;
    GRPO has none; optimizer_offload takes the 8 B of moments off."""
    grpo, gae = _verl(tmp_path, "grpo"), _verl(tmp_path, "gae")
    off = _verl(tmp_path, "gae", "    critic.model.fsdp_config.optimizer_offload=True \\\n")
    step = lambda d: d["memory"]["step"]["peak_allocated_bytes"]           # noqa: E731
    critic = step(gae) - step(grpo)
    # Qwen2.5-7B without its lm_head: about 6.5e9 parameters
    assert 6.0e9 * 16 / 8 < critic < 7.2e9 * 16 / 8
    assert abs((step(gae) - step(off)) - critic / 2) < 0.02 * critic
    assert any("critic" in n and "FSDP, verl" in n for n in gae["notes"])
    assert not any(n.startswith("PPO critic") for n in grpo["notes"])


OPENRLHF = """ray job submit -- python3 -m openrlhf.cli.train_ppo_ray \\
    --pretrain Qwen/Qwen2.5-7B \\
    --reward_pretrain Qwen/Qwen2.5-7B \\
    --actor_num_nodes 1 --actor_num_gpus_per_node 8 \\
    --vllm_num_engines 8 --vllm_tensor_parallel_size 1 \\
    --zero_stage 3 --bf16 --flash_attn --gradient_checkpointing \\
    --micro_train_batch_size 1 --prompt_max_len 512 --generate_max_len 512 \\
{extra}    --advantage_estimator {est}
"""


def _openrlhf(tmp_path: Path, est: str, extra: str) -> dict:
    f = tmp_path / "ppo_ray.sh"
    f.write_text(OPENRLHF.format(est=est, extra=extra))
    out = subprocess.run([sys.executable, "-m", "rocm_tune", "check", str(f), "--gpu", "mi300x", "--json"],
                         capture_output=True, text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                         timeout=300)
    return json.loads(out.stdout)


def test_openrlhf_colocate_all_models_brings_critic_and_reward(tmp_path):
    """--colocate_all_models: critic (gae) and reward model share the actor's GPUs (ZeRO-3: 16 B + 2 B per parameter
    over 8 GPUs); on their own GPUs (no flag) nothing is added; --deepspeed_enable_sleep leaves the critic's 16-bit
    weights only."""
    apart = _openrlhf(tmp_path, "gae", "")
    together = _openrlhf(tmp_path, "gae", "    --colocate_all_models --vllm_enable_sleep \\\n")
    sleeping = _openrlhf(tmp_path, "gae", "    --colocate_all_models --vllm_enable_sleep --deepspeed_enable_sleep \\\n")
    grpo = _openrlhf(tmp_path, "group_norm", "    --colocate_all_models --vllm_enable_sleep \\\n")
    note = lambda d: next((n for n in d["notes"] if n.startswith("PPO ")), "")     # noqa: E731
    gib = lambda d: float(note(d).split(": ")[1].split(" GiB")[0]) * 2**30        # noqa: E731
    assert note(apart) == ""
    assert "critic and reward" in note(together) and "reward" == note(grpo).split()[1]
    n = 6.0e9   # Qwen2.5-7B without its lm_head, at least
    assert n * 18 / 8 < gib(together) < 7.2e9 * 18 / 8
    assert abs(gib(sleeping) - gib(together) * 4 / 18) < 0.05 * gib(together)


def test_vllm_server_host_is_a_server(tmp_path):
    """--vllm_server_host: the engine is an external `swift rollout`, on none of these GPUs."""
    d = _check(tmp_path, "CUDA_VISIBLE_DEVICES=0,1,2,3 \\\nNPROC_PER_NODE=3 \\\n", "    --vllm_server_host 127.0.0.1 \\\n")
    assert "vLLM server" in _engine_note(d)
    assert "generate" not in d["memory"]
