"""check's "Understood" line names the split the memory was counted with: a torchtitan file's FSDP2 and a Megatron
launch's TP/PP are not "DDP" (memory_phases counts them as Megatron's layout, and the words say the same)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _check(tmp_path, name: str, text: str, json_out: bool = False):
    (tmp_path / name).write_text(text)
    env = {**os.environ, "PYTHONPATH": ROOT, "HF_HUB_OFFLINE": "1"}
    argv = [sys.executable, "-m", "rocm_tune", "check", name, "--gpu", "mi300x", "--gpus", "8"] + (["--json"] if json_out else [])
    p = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert p.returncode in (0, 1), p.stderr
    return json.loads(p.stdout) if json_out else p.stdout


TOML = '[model]\nname = "llama3"\nflavor = "8B"\n[training]\nlocal_batch_size = 2\nseq_len = 8192\n' \
       '[parallelism]\ndata_parallel_shard_degree = -1\n'


def test_torchtitan_fsdp2_is_said_as_fsdp(tmp_path):
    out = _check(tmp_path, "llama3_8b.toml", TOML)
    line = next(ln for ln in out.splitlines() if ln.startswith("Understood"))
    assert "FSDP (weights, gradients and optimizer state sharded over data parallel)" in line
    assert "DDP" not in line
    d = _check(tmp_path, "llama3_8b.toml", TOML, json_out=True)
    assert "FSDP" in d["execution"]["sharding"]


def test_megatron_tensor_parallel_is_said(tmp_path):
    script = ("torchrun --nproc_per_node 8 pretrain_gpt.py --tensor-model-parallel-size 2 "
              "--pipeline-model-parallel-size 2 --num-layers 32 --hidden-size 4096 --num-attention-heads 32 "
              "--seq-length 4096 --max-position-embeddings 4096 --micro-batch-size 1 --global-batch-size 64 "
              "--bf16 --tokenizer-type GPT2BPETokenizer\n")
    out = _check(tmp_path, "train.sh", script)
    line = next(ln for ln in out.splitlines() if ln.startswith("Understood"))
    assert "Megatron TP 2, PP 2" in line and "DDP" not in line
