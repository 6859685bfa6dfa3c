"""Fixtures of the real-stack tests: the LLaMA-Factory/DeepSpeed/accelerate venv (tests/realstack/envsetup.py)
and the real `sbatch`/`shellcheck`. Whatever cannot be had is a skip whose reason is printed in the
summary ("real stack: ..."), never a silent pass."""

from __future__ import annotations

import os
import shutil
import time

import pytest

_NOTES: list[str] = []


def note(text: str) -> None:
    if text not in _NOTES:
        _NOTES.append(text)


@pytest.fixture(scope="session")
def realstack():
    from tests.realstack.envsetup import ensure_env

    t0 = time.monotonic()
    env, why = ensure_env()
    if env is None:
        note(f"skipped: {why}")
        pytest.skip(f"real stack not available: {why}")
    note(f"venv {why}" + (f" (setup check {time.monotonic() - t0:.0f} s)" if not env.created else ""))
    return env


@pytest.fixture(scope="session")
def sbatch_conf(tmp_path_factory):
    """(sbatch path, SLURM_CONF) for Debian's slurm-client: it needs a slurm.conf even to parse options."""
    sbatch = shutil.which("sbatch")
    if not sbatch:
        note("skipped: sbatch not installed (Debian: apt-get install slurm-client)")
        pytest.skip("sbatch not installed (Debian: apt-get install slurm-client)")
    d = tmp_path_factory.mktemp("slurm")
    conf = d / "slurm.conf"
    conf.write_text("ClusterName=rocmtune\nSlurmctldHost=localhost\nNodeName=node[0-3] CPUs=16 Gres=gpu:8\n"
                    "PartitionName=main Nodes=node[0-3] Default=YES\nGresTypes=gpu\n", encoding="utf-8")
    return sbatch, str(conf)


@pytest.fixture(scope="session")
def data_file(tmp_path_factory):
    """48 tiny alpaca records (rocm_tune.train.tiny)."""
    from rocm_tune.train.tiny import make_tiny_dataset

    return make_tiny_dataset(tmp_path_factory.mktemp("data") / "tiny.json", n=48)


@pytest.fixture(scope="session")
def tiny(tmp_path_factory, data_file):
    """A tiny random Qwen2 with a tokenizer fitted to data_file (ChatML special tokens)."""
    from rocm_tune.train.tiny import make_tiny_model

    return make_tiny_model(tmp_path_factory.mktemp("tinymodel") / "model", data_file)


def pytest_terminal_summary(terminalreporter):
    if _NOTES:
        terminalreporter.write_line("real stack (tests/realstack): " + "; ".join(_NOTES))


def pytest_collection_modifyitems(config, items):
    if os.environ.get("ROCM_TUNE_REALSTACK") == "0":
        note("skipped: ROCM_TUNE_REALSTACK=0")
