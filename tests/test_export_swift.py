"""Issue 24 item 2: `rocm-tune export --format swift` as a user runs it (the round trip is in
tests/test_check_roundtrip.py, the real ms-swift in tests/swiftstack/)."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from tests.conftest import run_cli

SHELLCHECK = shutil.which("shellcheck")


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    p = tmp_path_factory.mktemp("d") / "my data.jsonl"          # a space: the path is quoted
    p.write_text('{"instruction": "q", "input": "", "output": "a"}\n', encoding="utf-8")
    return p


def _plan(tmp_path, *flags: str) -> str:
    r = run_cli("plan", "--model", "qwen2.5-7b", "--gpu", "mi300x", *flags, "--json")
    assert r.returncode == 0, r.stderr
    f = tmp_path / "plan.json"
    f.write_text(r.stdout)
    return str(f)


@pytest.mark.parametrize("flags", [("--gpus", "8", "--nodes", "2", "--method", "full", "--zero", "3",
                                    "--offload", "optimizer"), ("--method", "qlora")])
def test_swift_script_is_valid_shell_and_names_what_it_needs(tmp_path, data, flags):
    plan = _plan(tmp_path, *flags)
    out = tmp_path / "b"
    r = run_cli("export", "--plan", plan, "--format", "ms-swift", "--dataset", str(data), "-o", str(out))
    assert r.returncode == 0, r.stderr
    p = json.loads((out / "plan.json").read_text())
    ds = p["recommended"]["zero_stage"] == 3 and p["recommended"]["offload"] == "optimizer"
    # no named ms-swift config for ZeRO-3 + optimizer offload: the bundle's deepspeed.json comes along
    assert sorted(x.name for x in out.iterdir()) == sorted(["swift_sft.sh", "plan.json"] + (["deepspeed.json"] if ds
                                                                                            else []))
    text = (out / "swift_sft.sh").read_text()
    assert f"--dataset '{data}'" in text and text.rstrip().endswith('"$@"')
    assert (out / "swift_sft.sh").stat().st_mode & 0o111
    assert f"start (ms-swift): bash {out}/swift_sft.sh" in r.stdout and "executes:" not in r.stdout
    assert subprocess.run(["bash", "-n", str(out / "swift_sft.sh")]).returncode == 0
    if SHELLCHECK:
        sc = subprocess.run([SHELLCHECK, str(out / "swift_sft.sh")], capture_output=True, text=True)
        assert sc.returncode == 0, sc.stdout


def test_swift_is_not_part_of_all_and_what_ms_swift_cannot_express_is_refused(tmp_path, data):
    plan = _plan(tmp_path, "--method", "lora")
    r = run_cli("export", "--plan", plan, "--dataset", str(data), "-o", str(tmp_path / "all"))
    assert r.returncode == 0 and not (tmp_path / "all" / "swift_sft.sh").exists()
    r = run_cli("export", "--plan", plan, "--format", "all,swift", "--dataset", str(data), "-o", str(tmp_path / "both"))
    assert r.returncode == 0 and (tmp_path / "both" / "swift_sft.sh").exists() and (tmp_path / "both" / "run.sh").exists()
    for flags, word in ((("--method", "freeze"), "method freeze"), (("--precision", "pure_bf16"), "pure_bf16")):
        r = run_cli("export", "--plan", _plan(tmp_path, *flags), "--format", "swift", "--dataset", str(data),
                    "-o", str(tmp_path / "no"))
        assert r.returncode == 2 and word in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
        assert not (tmp_path / "no").exists()
    r = run_cli("export", "--plan", plan, "--format", "swift", "-o", str(tmp_path / "nodata"))
    assert r.returncode == 2 and "needs a dataset" in r.stderr and not (tmp_path / "nodata").exists()


@pytest.mark.parametrize("line, want", [
    # ms-swift's ModelArguments._init_mixed_precision: float16 and float32 autocast fp16, bfloat16 bf16; an
    # explicit --bf16/--fp16 wins
    ("swift sft --torch_dtype float32", {"precision": "fp16"}),
    ("swift sft --torch_dtype float32 --fp16 false --bf16 false", {"precision": "fp32"}),
    ("swift sft --torch_dtype float32 --bf16 true", {"precision": "bf16"}),
    ("swift sft --torch_dtype bfloat16", {"precision": "bf16"}),
    # QuantizeArguments.get_quantization_config: nothing is quantised without --quant_method
    ("swift sft --torch_dtype bfloat16 --quant_bits 4", {"method": "lora"}),
    ("swift sft --torch_dtype bfloat16 --quant_method bnb --quant_bits 4 --bnb_4bit_use_double_quant false",
     {"method": "qlora", "quant_bits": 4, "double_quant": False}),
    # TunerArguments.target_modules is a List[str]: every value counts
    ("swift sft --torch_dtype bfloat16 --target_modules q_proj v_proj --use_dora true",
     {"lora_targets": ["q_proj", "v_proj"], "dora": True}),
    ("swift pt --torch_dtype bfloat16", {"stage": "pt"}),
    ("NNODES=2 NPROC_PER_NODE=8 swift sft --torch_dtype bfloat16", {"gpus": 8, "nodes": 2}),
])
def test_check_reads_an_ms_swift_command_as_ms_swift_runs_it(tmp_path, line, want):
    from rocm_tune.core.check.check import check

    script = tmp_path / "train.sh"
    script.write_text(f"{line} --model Qwen/Qwen2.5-7B-Instruct --dataset d.jsonl --max_length 1024\n")
    u = check([str(script)], gpu_id="mi300x").to_dict()["understood"]
    assert {k: u[k] for k in want} == want
