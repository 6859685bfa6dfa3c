"""e-cli9 (issue 26): command-line flags of torch's launchers and of `vllm serve` refused by argparse.

The tables are profiles/cli_flags.py (torchrun from torch/distributed/run.py, torch.distributed.launch's extra
`--use-env`, vLLM's EngineArgs at a 0.7 and a 0.11 snapshot of vllm/engine/arg_utils.py). Each log is argparse's own
refusal as those parsers print it (`<prog>: error: unrecognized arguments: ...` after the usage line); none is a
corpus case.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rocm_tune.core.runs.diagnose import arg_skew
from rocm_tune.core.runs.diagnose.diagnose import explain_text
from rocm_tune.profiles.cli_flags import CLI_FLAGS, CLI_RENAMES

TORCHRUN_USAGE = ("usage: torchrun [-h] [--nnodes NNODES] [--nproc-per-node NPROC_PER_NODE]\n"
                  "                [--rdzv-backend RDZV_BACKEND] [--rdzv-endpoint RDZV_ENDPOINT]\n"
                  "                training_script ...\n")
VLLM_BANNER = "INFO 05-01 12:00:00 [__init__.py:239] Automatically detected platform rocm.\n"


def _root(log: str):
    exp = explain_text(log)
    assert exp.root is not None, exp.answer
    return exp.diagnoses[exp.root]


def _names(runner: str) -> set[str]:
    return {n for names in CLI_FLAGS[runner][2].values() for n in names.split()}


def test_torchrun_table_folds_both_spellings_and_launch_adds_use_env():
    assert {"nproc_per_node", "rdzv_endpoint", "local_ranks_filter", "master_port"} <= _names("torchrun")
    assert _names("torch-launch") - _names("torchrun") == {"use_env"}


@pytest.mark.parametrize("flag", ["--nproc-per-node=8", "--nproc_per_node=8"])
def test_torchrun_flag_in_both_spellings_is_not_called_a_typo(flag):
    ref = arg_skew.find_refusal(f"torchrun: error: unrecognized arguments: {flag}")
    assert ref is not None and ref.names == ("nproc_per_node",)
    rd = arg_skew.read_refusal(ref, arg_skew.runners_for(ref, TORCHRUN_USAGE))
    assert rd is not None and rd.runner == "" and rd.close == ()


def test_torchrun_typo_names_the_nearest_flag():
    r = _root(f"$ torchrun --nprocs_per_node=8 train.py\n{TORCHRUN_USAGE}"
              "torchrun: error: unrecognized arguments: --nprocs_per_node=8\n")
    assert r.family == "config_error"
    assert "nproc_per_node" in r.title and "nproc_per_node" in r.fix


def test_torchrun_refusing_launch_use_env_is_the_command():
    r = _root(f"$ torchrun --nproc_per_node=4 --use_env train.py\n{TORCHRUN_USAGE}"
              "torchrun: error: unrecognized arguments: --use_env\n")
    assert r.family == "config_error"
    assert "torch.distributed.launch" in r.title and "LOCAL_RANK" in r.fix


def test_launch_py_prog_needs_torch_in_view():
    ref = arg_skew.find_refusal("launch.py: error: unrecognized arguments: --foo")
    assert ref is not None
    assert arg_skew.runners_for(ref, "usage: launch.py [-h] [--foo]\n") == ()
    shown = "$ python -m torch.distributed.launch --nproc_per_node 2 train.py\n"
    assert arg_skew.runners_for(ref, shown) == ("torch-launch",)


def test_vllm_serve_removed_v0_flag_is_version_check():
    r = _root(f"$ vllm serve Qwen/Qwen2.5-7B --num-scheduler-steps 8\n{VLLM_BANNER}"
              "usage: vllm serve [model_tag] [options]\n"
              "vllm serve: error: unrecognized arguments: --num-scheduler-steps 8\n")
    assert r.family == "version_check"
    assert "num_scheduler_steps: 0.7 to 0.7" in r.title


def test_vllm_speculative_flags_name_speculative_config():
    r = _root("vllm serve: error: unrecognized arguments: --speculative-model ngram --num-speculative-tokens 5\n")
    assert r.family == "version_check"
    assert "speculative_model -> speculative_config" in r.fix
    assert set(CLI_RENAMES["vllm"]) <= _names("vllm")


def test_vllm_api_server_newer_flag_on_old_release_says_upgrade():
    r = _root("$ python -m vllm.entrypoints.openai.api_server --model m --max-cudagraph-capture-size 256\n"
              "INFO 05-01 12:00:00 api_server.py:712] vLLM API server version 0.6.3\n"
              "usage: api_server.py [-h] [--host HOST] [--port PORT]\n"
              "api_server.py: error: unrecognized arguments: --max-cudagraph-capture-size 256\n")
    assert r.family == "version_check"
    assert "upgrade" in r.fix and "0.11" in r.fix


def test_vllm_typo_stays_config_error_with_nearest_flag(tmp_path: Path):
    log = tmp_path / "serve.log"
    log.write_text("usage: vllm serve [model_tag] [options]\n"
                   "vllm serve: error: unrecognized arguments: --gpu-memory-utilisation 0.9\n")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    out = subprocess.run([sys.executable, "-m", "rocm_tune", "explain", str(log), "--json"], capture_output=True,
                         text=True, env=env, check=False)
    root = json.loads(out.stdout)["root"]
    assert root["family"] == "config_error"
    assert "gpu_memory_utilization" in root["title"]


def test_subcommand_prog_is_read_as_argparse_refusal():
    # before e-cli9 `vllm serve: error:` (a two-word prog) matched no catalogue entry and the log was unknown
    r = _root("usage: trl dpo [-h]\ntrl dpo: error: unrecognized arguments: --not-a-flag-anywhere 1\n")
    assert r.family == "config_error" and r.code == "config-rejected"


SWIFT3_FRAMES = ("Traceback (most recent call last):\n"
                 '  File "/opt/conda/lib/python3.10/site-packages/swift/cli/sft.py", line 5, in <module>\n'
                 "    sft_main()\n"
                 '  File "/opt/conda/lib/python3.10/site-packages/swift/llm/argument/base_args/base_args.py", line 30, '
                 "in parse_args\n"
                 "    args, remaining_args = parser.parse_args_into_dataclasses(argv, return_remaining_strings=True)\n")


def test_swift2_flags_listed_by_hfargparser_under_swift3_frames_is_version_check():
    r = _root(SWIFT3_FRAMES + "ValueError: Some specified arguments are not used by the HfArgumentParser: "
              "['--model_id_or_path', 'Qwen/Qwen2-7B', '--sft_type', 'lora']\n")
    assert r.family == "version_check"
    assert "model_id_or_path, sft_type" in r.title and "--train_type" in r.fix


def test_swift_flag_no_release_has_stays_config_error():
    r = _root(SWIFT3_FRAMES + "ValueError: Some specified arguments are not used by the HfArgumentParser: "
              "['--sft_typo', 'lora']\n")
    assert r.family == "config_error"


def test_vllm_flag_its_source_announces_removed_reads_as_the_newer_release():
    # arg_utils.py@99d7eb5d still parses --disable-log-requests but says "This will be removed in v0.12.0"
    r = _root("usage: vllm serve [model_tag] [options]\n"
              "vllm serve: error: unrecognized arguments: --disable-log-requests\n")
    assert r.family == "version_check"
    assert "0.11 or earlier" in r.fix and "enable_log_requests" in r.fix and "0.12" in r.fix


def test_trl_cli_argparse_refusal_reads_trl_releases():
    r = _root("usage: trl sft [-h]\ntrl sft: error: unrecognized arguments: --max_seq_length 1024\n")
    assert r.family == "version_check"
    assert "TRL" in r.title and "max_seq_length" in r.title
