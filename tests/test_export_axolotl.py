"""`rocm-tune export --format axolotl`: what it writes beside what, what it refuses (one line, exit 2), and the
launch script as a shell reads it. The round trip over generated plans is tests/test_check_roundtrip.py; the real
Axolotl's loader and one CPU step are tests/realstack/test_axolotl.py."""

from __future__ import annotations

import shutil
import subprocess

import pytest
import yaml

from rocm_tune.train.tiny import make_tiny_dataset
from tests.conftest import run_cli

PLAN = ("--model", "qwen2.5-7b", "--gpu", "mi300x")


@pytest.fixture()
def data(tmp_path):
    return str(make_tiny_dataset(tmp_path / "d.json", n=4))


def test_axolotl_format_is_named_never_part_of_all(tmp_path, data):
    r = run_cli("export", *PLAN, "--gpus", "2", "--method", "full", "--zero", "3", "--format", "axolotl",
                "--dataset", data, "-o", str(tmp_path / "ax"))
    assert r.returncode == 0, r.stderr
    names = sorted(p.name for p in (tmp_path / "ax").iterdir())
    # ZeRO: the bundle's deepspeed.json comes along, named by the YAML; nothing of LLaMA-Factory
    assert names == ["axolotl.sh", "axolotl.yaml", "dataset_info.json", "deepspeed.json", "plan.json"]
    cfg = yaml.safe_load((tmp_path / "ax" / "axolotl.yaml").read_text())
    assert cfg["deepspeed"] == str(tmp_path / "ax" / "deepspeed.json") and "adapter" not in cfg
    assert "start (Axolotl): bash" in r.stdout and "executes:" not in r.stdout
    r = run_cli("export", *PLAN, "--dataset", data, "-o", str(tmp_path / "all"))
    assert r.returncode == 0, r.stderr
    assert not (tmp_path / "all" / "axolotl.yaml").exists() and (tmp_path / "all" / "llamafactory.yaml").exists()


@pytest.mark.parametrize("flags, named", [
    (("--precision", "pure_bf16", "--method", "lora"), "precision pure_bf16"),
    (("--dataset-name", "alpaca_en_demo"), "dataset 'alpaca_en_demo'"),
    ((), "needs a dataset"),
])
def test_what_axolotl_cannot_take_is_one_line_exit_2(tmp_path, data, flags, named):
    extra = ("--dataset", data) if "--dataset-name" not in flags and flags else ()
    r = run_cli("export", *PLAN, *flags, *extra, "--format", "axolotl", "-o", str(tmp_path / "b"))
    assert r.returncode == 2 and named in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "Traceback" not in r.stderr and not (tmp_path / "b").exists()


def test_axolotl_sh_passes_the_shell(tmp_path, data):
    r = run_cli("export", *PLAN, "--gpus", "8", "--nodes", "2", "--format", "axolotl", "--dataset", data,
                "-o", str(tmp_path / "b"))
    assert r.returncode == 0, r.stderr
    script = tmp_path / "b" / "axolotl.sh"
    text = script.read_text()
    assert "--num_processes 16" in text and "--num_machines 2" in text and "-m axolotl.cli.train axolotl.yaml" in text
    assert subprocess.run(["bash", "-n", str(script)], check=False).returncode == 0
    if shutil.which("shellcheck"):
        r = subprocess.run(["shellcheck", str(script)], capture_output=True, text=True, check=False)
        assert r.returncode == 0, r.stdout


def test_reader_takes_axolotl_019_keys(tmp_path):
    """A user's Axolotl 0.19 YAML (attn_implementation, rl, completion data, unfrozen layers, explicit fp32)."""
    (tmp_path / "a.yml").write_text(
        "base_model: Qwen/Qwen2.5-7B\nunfrozen_parameters:\n  - ^model\\.layers\\.(25|26|27)\\.\n"
        "sequence_len: 2048\nmicro_batch_size: 2\nbf16: false\nfp16: false\nattn_implementation: eager\n"
        "gradient_checkpointing: true\ndatasets:\n  - path: t.jsonl\n    type: completion\n")
    r = run_cli("check", str(tmp_path / "a.yml"), "--gpu", "mi300x", "--json")
    import json

    u = json.loads(r.stdout)["understood"]
    assert (u["method"], u["freeze_trainable_layers"], u["precision"], u["attn"], u["stage"], u["cutoff_len"]) == \
        ("freeze", 3, "fp32", "eager", "pt", 2048)


@pytest.mark.parametrize("kwargs, double", [("", True), ("bnb_config_kwargs:\n  bnb_4bit_use_double_quant: false\n", False),
                                            ("bnb_config_kwargs:\n  bnb_4bit_use_double_quant: true\n", True)])
def test_double_quant_is_read_only_where_written(tmp_path, kwargs, double):
    """A QLoRA file that says nothing keeps bitsandbytes' nested quantisation on (Axolotl's and the estimate's
    default); only an explicit false turns it off."""
    import json

    (tmp_path / "q.yml").write_text("base_model: Qwen/Qwen2.5-7B\nadapter: qlora\nload_in_4bit: true\n" + kwargs)
    r = run_cli("check", str(tmp_path / "q.yml"), "--gpu", "mi300x", "--json")
    u = json.loads(r.stdout)["understood"]
    assert (u["method"], u["quant_bits"], u["double_quant"]) == ("qlora", 4, double)
