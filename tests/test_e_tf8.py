"""`explain` on names transformers (4.3x -> 5.x) and vLLM (0.6 -> 0.12) removed (helper e-tf8, issue 26).

profiles/removed_names.py _TF_ROWS / _VLLM_ROWS, read from the transformers wheels and MIGRATION_GUIDE_V5.md and from
vLLM's removal PRs; name_skew.removed_name reads three new spellings: an attribute (`'DynamicCache' object has no
attribute 'get_max_length'`), msgspec's `Unexpected keyword argument 'x'` (vLLM's SamplingParams) and a module below
a removed package (`No module named 'vllm.worker.worker_base'`). A line naming one is version_check naming both releases,
also where the engine's rules had read it as the run's configuration.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from rocm_tune.core.runs.diagnose.name_skew import removed_name
from rocm_tune.profiles.removed_names import REMOVED_NAMES


def _explain(tmp_path, text: str) -> dict:
    log = tmp_path / "train.log"
    log.write_text(text)
    out = subprocess.run([sys.executable, "-m", "rocm_tune", "explain", str(log), "--json"], capture_output=True,
                         text=True, check=False)
    assert out.returncode in (0, 1), out.stderr
    return json.loads(out.stdout)["root"]


def _tb(src: str, exc_line: str) -> str:
    return ("Traceback (most recent call last):\n"
            '  File "/home/u/grpo/train.py", line 60, in main\n'
            f"    {src}\n{exc_line}\n")


CASES = [
    ("from vllm.worker.worker_base import WorkerWrapperBase",
     "ModuleNotFoundError: No module named 'vllm.worker'", ("vllm removed vllm.worker", "0.11.0", "0.11.1")),
    ("from vllm.sampling_params import GuidedDecodingParams",
     "ImportError: cannot import name 'GuidedDecodingParams' from 'vllm.sampling_params' (/x/vllm/sampling_params.py)",
     ("GuidedDecodingParams", "0.11.2", "0.12.0")),
    ("sp = SamplingParams(n=4, use_beam_search=True)", "TypeError: Unexpected keyword argument 'use_beam_search'",
     ("use_beam_search=", "0.6.2", "0.6.3")),
    ("engine_args = EngineArgs(", "TypeError: EngineArgs.__init__() got an unexpected keyword argument 'worker_use_ray'",
     ("worker_use_ray=", "0.6.6.post1", "0.7.0")),
    ("outs = llm.generate(prompt_token_ids=ids, sampling_params=sp)",
     "TypeError: LLM.generate() got an unexpected keyword argument 'prompt_token_ids'",
     ("prompt_token_ids=", "0.10.1.1", "0.10.2")),
    ("from transformers.models.llama.modeling_llama import LlamaFlashAttention2",
     "ImportError: cannot import name 'LlamaFlashAttention2' from 'transformers.models.llama.modeling_llama' (/x.py)",
     ("LlamaFlashAttention2", "4.47.1", "4.48.0")),
    ("max_len = past_key_values.get_max_length()",
     "AttributeError: 'DynamicCache' object has no attribute 'get_max_length'", ("get_max_length", "4.48.0", "4.49.0")),
    ("cache = DynamicCache.from_legacy_cache(past)",
     "AttributeError: type object 'DynamicCache' has no attribute 'from_legacy_cache'",
     ("from_legacy_cache", "4.57.6", "5.24.0")),
    ("from transformers import AutoModelForVision2Seq",
     "ImportError: cannot import name 'AutoModelForVision2Seq' from 'transformers' (/x/transformers/__init__.py)",
     ("AutoModelForVision2Seq", "4.57.6", "5.0.0")),
    ("model = LlamaForCausalLM(config, **kwargs)",
     "TypeError: LlamaForCausalLM.__init__() got an unexpected keyword argument 'load_in_8bit'",
     ("load_in_8bit=", "4.57.6", "5.0.0")),
]


@pytest.mark.parametrize(("src", "exc", "want"), CASES, ids=[c[2][0] for c in CASES])
def test_removed_name_is_version_check_naming_the_releases(tmp_path, src: str, exc: str, want: tuple[str, ...]) -> None:
    root = _explain(tmp_path, _tb(src, exc))
    assert root["family"] == "version_check"
    title = root["title"]
    assert "removed" in title and all(w in title for w in want), title
    assert "replacement:" in root["fix"]


def test_msgspec_keyword_of_no_release_stays_configuration(tmp_path) -> None:
    root = _explain(tmp_path, _tb("sp = SamplingParams(n=4, temprature=0.7)",
                                  "TypeError: Unexpected keyword argument 'temprature'"))
    assert root["family"] != "version_check"
    assert "removed" not in root["title"]


@pytest.mark.parametrize("line", [
    "AttributeError: 'MyRollout' object has no attribute 'get_max_length'",     # not a cache class
    "AttributeError: 'DynamicCache' object has no attribute 'get_seq_length'",  # a name no release removed
    "ModuleNotFoundError: No module named 'float'",                              # numpy's row is an attribute
    "ModuleNotFoundError: No module named 'vllm.workers'",                       # not below vllm.worker
    "TypeError: Unexpected keyword argument 'worker_use_ray'",                   # EngineArgs' row needs its callee
])
def test_lines_no_row_reads(line: str) -> None:
    assert removed_name(line) is None


def test_submodule_of_a_removed_module() -> None:
    got = removed_name("ModuleNotFoundError: No module named 'vllm.worker.worker_base'")
    assert got is not None and "vllm.worker" in got[0] and "vllm.v1.worker" in got[1]


def test_rows_are_well_formed() -> None:
    new = [r for r in REMOVED_NAMES if r[0] in ("transformers", "vllm")]
    assert len([r for r in new if r[0] == "vllm"]) >= 5 and len([r for r in new if r[0] == "transformers"]) >= 50
    for lib, shape, name, callee, last, first_without, instead, src in REMOVED_NAMES:
        assert shape in ("import", "kwarg", "attr"), name
        assert (callee == "") == (shape == "import"), name
        re.compile(callee)
        assert last != first_without and instead and src, name
        key = tuple(int(x) for x in re.findall(r"\d+", last)[:3]), tuple(int(x) for x in re.findall(r"\d+", first_without)[:3])
        assert key[0] < key[1], (lib, name, last, first_without)
