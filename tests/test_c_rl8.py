"""GRPO terms (c-rl8): the evaluation's completion-only logits, the colocated vLLM engine's share counted without
allocator fragmentation, ms-swift multi-turn logits over every turn."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

BASE = """NPROC_PER_NODE=8 \\
swift rlhf \\
    --rlhf_type grpo \\
    --model Qwen/Qwen3-1.7B \\
    --train_type lora \\
    --torch_dtype bfloat16 \\
    --max_length 2048 \\
    --max_completion_length 1024 \\
    --per_device_train_batch_size 8 \\
    --per_device_eval_batch_size 8 \\
    --split_dataset_ratio 0.05 \\
    --num_generations 8 \\
"""


def _check(tmp_path: Path, text: str, gpu: str = "a100-40gb") -> dict:
    f = tmp_path / "grpo.sh"
    f.write_text(text)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-m", "rocm_tune", "check", str(f), "--gpu", gpu, "--json"],
                         capture_output=True, text=True, env=env, check=False)
    assert out.returncode in (0, 1), out.stderr      # 1: the verdict is an OOM
    return json.loads(out.stdout)


def test_grpo_eval_keeps_completion_logits_only(tmp_path):
    o = _check(tmp_path, BASE + "    --deepspeed zero3_offload\n")
    share = o["understood"]["logit_share"]
    assert 0.3 < share < 0.34                      # 1025 of 3072 positions
    ev = o["memory"]["eval"]["peak_allocated_bytes"]
    full = 8 * 3072 * 151936 * 10                  # every position's logits, upcast and log-softmax
    assert ev < full * 0.6
    assert ev > full * share * 0.9


def test_colocated_engine_not_fragmented(tmp_path):
    o = _check(tmp_path, BASE + "    --use_vllm true --vllm_mode colocate --vllm_gpu_memory_utilization 0.5\n",
               gpu="a100-80gb")
    step = o["memory"]["step"]
    engine = 0.5 * o["vram_bytes"]
    # the step's reserved exceeds its allocation by the training state's fragmentation only, not the engine's
    assert step["peak_allocated_bytes"] > engine
    assert step["reserved_bytes"] - step["peak_allocated_bytes"] < 0.15 * (step["peak_allocated_bytes"] - engine) \
        + 3 * 2**30


def test_swift_multi_turn_logits_whole_sequence(tmp_path):
    single = _check(tmp_path, BASE)
    multi = _check(tmp_path, BASE + "    --multi_turn_scheduler tool_call --max_turns 4\n")
    assert "logit_share" in single["understood"]
    assert "logit_share" not in multi["understood"]
    assert multi["memory"]["step"]["peak_allocated_bytes"] > single["memory"]["step"]["peak_allocated_bytes"]
    assert any("multi-turn" in n for n in multi["notes"])


def test_zero3_lora_vllm_sync_gathers_whole_model(tmp_path):
    run = BASE.replace("Qwen/Qwen3-1.7B", "Qwen/Qwen2.5-7B-Instruct") \
        + "    --use_vllm true --vllm_mode colocate --vllm_gpu_memory_utilization 0.3 --sleep_level 1 \\\n" \
        + "    --deepspeed zero3\n"
    whole = _check(tmp_path, run, gpu="a100-80gb")
    split = _check(tmp_path, run.replace("--deepspeed zero3\n", "--deepspeed zero3 --move_model_batches 8\n"),
                   gpu="a100-80gb")
    assert any("gathers every parameter at once" in n for n in whole["notes"])
    assert not any("gathers every parameter at once" in n for n in split["notes"])
    gathered = 7.6e9 * 2 * (1 - 1 / 8)
    diff = whole["memory"]["step"]["peak_allocated_bytes"] - split["memory"]["step"]["peak_allocated_bytes"]
    assert 0.8 * gathered < diff < 1.2 * gathered
