"""Helpers of the journeys (tests/journeys/): the training processes' environment on this CPU-only machine, running
an exported run.sh, the probe's records, the real LLaMA-Factory parser, the field reports' texts."""

from __future__ import annotations

import json
import os
import socket
import subprocess
from pathlib import Path

import pytest

from tests.conftest import REPO, run_cli
from tests.realstack import envsetup

HERE = Path(__file__).resolve().parent
PROBE = HERE / "probe"
SEEDS = REPO.parent / "shared" / "seeds"
REALSTACK_DIR = Path(envsetup.__file__).resolve().parent


def note(record_property, text: str) -> None:
    """Say what a journey ran instead of the GPU it needs: printed (pytest -rP / -s), and carried to the summary
    line "journeys on CPU: ..." (tests/conftest.py) as the test's user property `journey-note`."""
    record_property("journey-note", text)
    print(f"journey note: {text}")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def train_env(realstack, *, probe_out: Path | None = None, bf16_gpu: bool = False,
              extra: dict | None = None) -> dict:
    """Environment of a training process on this CPU-only machine: the venv's launchers first on PATH, no GPU
    visible, DeepSpeed's CPU accelerator, its JIT-built ops cached across runs, the probe on PYTHONPATH (it
    acts only when JOURNEY_PROBE_OUT / JOURNEY_BF16_GPU are set). rocm-tune itself stays importable for the
    `rocm-tune` CLI processes started with the same environment."""
    env = dict(os.environ)
    env.update({
        "PATH": f"{realstack.root / 'bin'}:{os.environ['PATH']}",
        "PYTHONPATH": f"{PROBE}:{REPO}",
        "DS_ACCELERATOR": "cpu", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
        "TOKENIZERS_PARALLELISM": "false", "OMP_NUM_THREADS": "1",
        "CUDA_VISIBLE_DEVICES": "", "HIP_VISIBLE_DEVICES": "",
        "TORCH_EXTENSIONS_DIR": str(envsetup.cache_root() / "torch_extensions"),
        "JOURNEY_CPU_CHECKPOINTS": "1",  # a CPU rank's checkpoint can be resumed (see the probe's docstring)
    })
    for k in ("JOURNEY_PROBE_OUT", "JOURNEY_BF16_GPU"):
        env.pop(k, None)
    if probe_out is not None:
        env["JOURNEY_PROBE_OUT"] = str(probe_out)
    if bf16_gpu:
        env["JOURNEY_BF16_GPU"] = "1"
    env.update(extra or {})
    return env


def run_script(script: Path, *args: str, env: dict, timeout: float = 900) -> tuple[int, str]:
    """`bash SCRIPT ARGS` from another directory, as a user starts an exported bundle; (exit code, output)."""
    p = subprocess.Popen(["bash", str(script), *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         env=env, cwd="/", start_new_session=True)
    try:
        out, _ = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, 9)
        out, _ = p.communicate()
        raise AssertionError(f"{script} did not finish in {timeout} s:\n{out[-4000:]}") from None
    return p.returncode, out


def read_probes(folder: Path) -> list[dict]:
    """The probe's records, one per training process (sorted by rank)."""
    recs = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(Path(folder).glob("probe-*.json"))]
    return sorted(recs, key=lambda r: r["rank"])


def cli_json(*args: str, env: dict | None = None, timeout: float = 180):
    r = run_cli(*args, env=env, timeout=timeout)
    assert r.returncode == 0, f"rocm-tune {' '.join(args)}: exit {r.returncode}\n{r.stderr[-3000:]}"
    return json.loads(r.stdout)


def seed_text(number: str) -> str:
    """The field report's original text (/work/shared/seeds/NNN_*.txt)."""
    files = sorted(SEEDS.glob(f"{number}_*.txt"))
    if not files:
        pytest.skip(f"field report {number} is not in {SEEDS}")
    return files[0].read_text(encoding="utf-8")


def lf_parse(realstack, yamls: dict[str, Path], tmp_path: Path) -> dict:
    """{name: result} of tests/realstack/lf_parse.py (reused, not copied) for each bundle's llamafactory.yaml: the
    real LLaMA-Factory get_train_args, transformers' DeepSpeed integration and DeepSpeedConfig, under a real
    2-process torch.distributed launch on gloo."""
    cases = tmp_path / "lf-cases.json"
    cases.write_text(json.dumps([{"name": n, "yaml": str(y)} for n, y in yamls.items()]), encoding="utf-8")
    out = tmp_path / "lf-parsed.json"
    env = train_env(realstack)
    env.pop("PYTHONPATH")
    r = subprocess.run([realstack.python, "-m", "torch.distributed.run", "--nproc_per_node", "2", "--master_port",
                        str(free_port()), str(REALSTACK_DIR / "lf_parse.py"), str(out), str(cases)],
                       capture_output=True, text=True, env=env, timeout=600, cwd=tmp_path, check=False)
    assert r.returncode == 0 and out.exists(), r.stdout[-3000:] + r.stderr[-5000:]
    return json.loads(out.read_text(encoding="utf-8"))
