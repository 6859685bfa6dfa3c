"""Which SDPA kernel runs on an AMD card, by the torch release the user's files state (helper c-sdpa8, issue 26):
PyTorch's ROCm SDPA has flash / mem-efficient kernels only from the release whose AOTriton build lists the arch, and
for Navi31 (gfx1100) in 2.5-2.6 only behind TORCH_ROCM_AOTRITON_ENABLE_EXPERIMENTAL=1 (profiles/rocm_sdpa.py, from
pytorch sdp_utils.cpp and ROCm/aotriton's target lists). Without a kernel SDPA runs math, counted as eager attention.
Files that state no release keep today's default (the GPU profile). Every file is written here; none is a corpus case."""

from __future__ import annotations

import json
from pathlib import Path

from rocm_tune.cli import main
from rocm_tune.core.hardware import sdpa_release
from rocm_tune.profiles import rocm_sdpa

LF = """model_name_or_path: meta-llama/Llama-3.1-8B
stage: sft
do_train: true
finetuning_type: lora
lora_target: all
dataset: alpaca_en_demo
template: llama3
cutoff_len: 1024
per_device_train_batch_size: 2
bf16: true
flash_attn: sdpa
disable_gradient_checkpointing: true
output_dir: out
"""


def _check(tmp_path: Path, capsys, setup: str, gpu: str = "w7900") -> dict:
    (tmp_path / "cfg.yaml").write_text(LF)
    (tmp_path / "run.sh").write_text(f"#!/bin/bash\n{setup}\nllamafactory-cli train cfg.yaml\n")
    rc = main(["check", str(tmp_path / "run.sh"), str(tmp_path / "cfg.yaml"), "--gpu", gpu, "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc in (0, 1), out
    return out


def _step(out: dict) -> int:
    return out["memory"]["step"]["peak_allocated_bytes"]


def _sdpa_notes(out: dict) -> list[str]:
    return [n for n in out["notes"] if n.startswith("SDPA attention")]


def test_pinned_old_release_runs_math_on_navi31(tmp_path, capsys):
    old = _check(tmp_path, capsys, "pip install torch==2.4.0")
    new = _check(tmp_path, capsys, "pip install torch==2.7.0")
    unstated = _check(tmp_path, capsys, "pip install llamafactory")
    notes = _sdpa_notes(old)
    assert notes and "torch 2.4" in notes[0] and "AOTriton 0.6b" in notes[0]
    assert not _sdpa_notes(new) and not _sdpa_notes(unstated)
    # 32 layers keep the [2, 32, 1024, 1024] scores and the fp32 softmax: gigabytes, not a rounding
    assert _step(old) - _step(new) > 8 * 2**30
    assert _step(unstated) == _step(new)


def test_experimental_gate_of_25_26(tmp_path, capsys):
    gated = _check(tmp_path, capsys, "pip install torch==2.5.1")
    opted = _check(tmp_path, capsys, "export TORCH_ROCM_AOTRITON_ENABLE_EXPERIMENTAL=1\npip install torch==2.5.1")
    assert "TORCH_ROCM_AOTRITON_ENABLE_EXPERIMENTAL=unset" in _sdpa_notes(gated)[0]
    assert not _sdpa_notes(opted)
    assert _step(gated) > _step(opted)


def test_wheel_index_decides_only_where_its_releases_agree(tmp_path, capsys):
    # whl/rocm6.1 holds 2.4, 2.5, 2.6: none runs a kernel on gfx1100 without the opt-in
    r61 = _check(tmp_path, capsys, "pip install torch --index-url https://download.pytorch.org/whl/rocm6.1")
    assert _sdpa_notes(r61) and "ROCm 6.1 wheels" in _sdpa_notes(r61)[0]
    # whl/rocm6.2.4 holds 2.6 (gated) and 2.7 (not): the release is not known, today's default stays
    r624 = _check(tmp_path, capsys, "pip install torch --index-url https://download.pytorch.org/whl/rocm6.2.4")
    assert not _sdpa_notes(r624)


def test_mi300x_keeps_its_kernels_from_23(tmp_path, capsys):
    out = _check(tmp_path, capsys, "pip install torch==2.3.0", gpu="mi300x")
    assert not _sdpa_notes(out)          # bf16: 2.3's AOTriton flash has gfx942


def test_kernels_table_reads():
    # fp32 attention needs mem-efficient: 2.3 built flash only
    k = sdpa_release.kernels("gfx942", ["FROM rocm/pytorch:rocm6.2.3_ubuntu22.04_py3.10_pytorch_release_2.3.0"], {})
    assert k is not None and (k.flash, k.mem_efficient) == (True, False)
    assert sdpa_release.kernels("gfx906", ["torch 2.9.0+rocm6.4"], {}).flash is False
    # gfx1201 is experimental in AOTriton 0.9-0.12: the env given on the job opens it
    assert sdpa_release.kernels("gfx1201", ["torch==2.8.0"], {}).flash is False
    assert sdpa_release.kernels("gfx1201", ["torch==2.8.0"], {rocm_sdpa.EXPERIMENTAL_ENV: "1"}).flash is True
    # a vLLM / bitsandbytes local version is not torch's; a release past the table and an unstated one: None
    assert sdpa_release.kernels("gfx1100", ["vllm==0.6.5+rocm6.2 and 0.6.5+rocm6.2"], {}) is None
    assert sdpa_release.kernels("gfx1100", ["torch==2.12.0"], {}) is None
    assert sdpa_release.kernels("gfx1100", ["pip install torch"], {}) is None
    # two releases stated: not one release
    assert sdpa_release.kernels("gfx1100", ["torch==2.4.0", "torch==2.7.1"], {}) is None
