"""Issue 18 item 3 with the real LLaMA-Factory: a bundle exported with `--dataset-name a,b` (DIR the default
`data`, not readable where the export ran) trains once the training machine has `data/dataset_info.json` in
the bundle directory — LLaMA-Factory resolves the names there, as run.sh's comment says.

The export runs in a directory of its own with no data/ (so nothing can be checked: a note, exit 0); then the
"training machine" puts a data/ folder into the bundle; `bash run.sh max_steps=1` runs the real
llamafactory-cli (LLaMA-Factory 0.9.5 in the real-stack venv) on CPU.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.conftest import run_cli
from tests.realstack.test_realstack import _run_sh

pytestmark = [pytest.mark.slow, pytest.mark.timeout(3000)]


def _flags(tiny) -> list[str]:
    return ["--model", str(tiny), "--gpu", "mi250x", "--gpus", "1", "--allow-unfit", "--precision", "fp32",
            "--cutoff-len", "64", "--micro-batch", "4", "--effective-batch", "4", "--epochs", "1",
            "--no-gradient-checkpointing", "--attn", "sdpa", "--logging-steps", "1", "--template", "qwen"]


def test_llamafactory_resolves_the_exported_names_in_the_bundles_data_dir(realstack, tiny, data_file, tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    bundle = tmp_path / "bundle"
    r = run_cli("export", *_flags(tiny), "--dataset-name", "tiny_a,tiny_b", "-o", str(bundle), cwd=work)
    assert r.returncode == 0, r.stderr
    assert "note: dataset tiny_a,tiny_b" in r.stderr and "training machine" in r.stderr
    lf = yaml.safe_load((bundle / "llamafactory.yaml").read_text(encoding="utf-8"))
    assert (lf["dataset"], lf["dataset_dir"]) == ("tiny_a,tiny_b", str(bundle / "data"))
    assert (f"# dataset: tiny_a,tiny_b, resolved by LLaMA-Factory in {bundle}/data/dataset_info.json on the "
            "machine that runs this script") in (bundle / "run.sh").read_text(encoding="utf-8")

    # the training machine: a data/ folder in the bundle directory, two datasets of 48 and 20 samples
    data = bundle / "data"
    data.mkdir()
    rows = json.loads(Path(data_file).read_text(encoding="utf-8"))
    (data / "a.json").write_text(json.dumps(rows), encoding="utf-8")
    (data / "b.json").write_text(json.dumps(rows[:20]), encoding="utf-8")
    (data / "dataset_info.json").write_text(json.dumps({
        "tiny_a": {"file_name": "a.json"},
        "tiny_b": {"file_name": "b.json", "columns": {"prompt": "instruction", "query": "input",
                                                      "response": "output"}},
    }), encoding="utf-8")
    p = _run_sh(realstack, bundle, "max_steps=1", env={"CUDA_VISIBLE_DEVICES": "", "HIP_VISIBLE_DEVICES": ""})
    out, _ = p.communicate(timeout=900)
    assert p.returncode == 0, out[-6000:]
    # LLaMA-Factory's loader (data/loader.py) names each file it loads; the trainer counts both datasets
    assert "Loading dataset a.json..." in out and "Loading dataset b.json..." in out, out[-4000:]
    assert "Num examples = 68" in out, out[-4000:]
    state = json.loads((bundle / "output" / "trainer_state.json").read_text(encoding="utf-8"))
    assert state["global_step"] == 1

    # and a name the training machine's dataset_info.json does not list stops LLaMA-Factory there
    r = run_cli("export", *_flags(tiny), "--dataset-name", "tiny_c", "-o", str(tmp_path / "other"), cwd=work)
    assert r.returncode == 0, r.stderr
    (tmp_path / "other" / "data").symlink_to(data)
    p = _run_sh(realstack, tmp_path / "other", "max_steps=1", env={"CUDA_VISIBLE_DEVICES": "", "HIP_VISIBLE_DEVICES": ""})
    out, _ = p.communicate(timeout=900)
    assert p.returncode != 0 and "Undefined dataset tiny_c in dataset_info.json" in out, out[-4000:]
