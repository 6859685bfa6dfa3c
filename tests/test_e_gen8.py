"""`explain` on version skew and configuration refusals read from the libraries' own sources (helper e-gen8, issue 26).

- profiles/release_refusals.py (tools/build_release_refusals.py): the argument refusals of the runners' OLDER releases
  (LLaMA-Factory's llmtuner, Axolotl's validate_config before its pydantic schema, TRL 0.7-0.24, accelerate 0.21-1.2)
  that their current code no longer raises: the run's settings (config_error), cited at the tag they were read at.
- profiles/removed_names.py: TRL's trainer keywords moved into the configs (DPOTrainer(beta=) gone in 0.13.0, ...) and
  huggingface_hub's exports removed between 0.23 and 1.0: version_check naming the two releases.
- pydantic 2's BaseModel API (model_dump, model_validate, ...) called while pydantic 1 is installed: version_check.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from rocm_tune.core.runs.diagnose.refusals import refusal_of
from rocm_tune.profiles.release_refusals import RELEASE_REFUSALS
from rocm_tune.profiles.removed_names import REMOVED_NAMES
from rocm_tune.profiles.runner_refusals import REFUSALS


def _explain(tmp_path, text: str) -> dict:
    log = tmp_path / "train.log"
    log.write_text(text)
    out = subprocess.run([sys.executable, "-m", "rocm_tune", "explain", str(log), "--json"], capture_output=True,
                         text=True, check=False)
    assert out.returncode in (0, 1), out.stderr
    return json.loads(out.stdout)


def _tb(src: str, exc_line: str) -> str:
    return ("[INFO|trainer.py:2048] >> ***** Running training *****\n"
            "Traceback (most recent call last):\n"
            '  File "/home/u/run/train.py", line 77, in <module>\n    main()\n'
            f'  File "/home/u/run/train.py", line 60, in main\n    {src}\n{exc_line}\n')


def test_release_rows_are_cited_and_new():
    have = {(r[0], " ".join(r[4].split())) for r in REFUSALS}
    assert len(RELEASE_REFUSALS) >= 100
    for runner, path, _fn, exc, msg, tag in RELEASE_REFUSALS:
        assert path.endswith(".py")
        assert re.fullmatch(r"[\w.]+@[0-9a-f]{12}", tag), tag
        assert exc in ("ValueError", "AssertionError", "NotImplementedError", "TypeError")
        assert (runner, " ".join(msg.split())) not in have
    assert {r[0] for r in RELEASE_REFUSALS} >= {"llamafactory", "axolotl", "trl", "accelerate"}


@pytest.mark.parametrize("line, runner, tag", [
    ("ValueError: Cannot use LoRA with GaLore together.", "llamafactory", "@v0.7.1"),
    ("ValueError: sample_packing not compatible with sdp_attention. Use flash_attention", "axolotl", "@v0.4.0"),
    ("ValueError: push_to_hub_model_id is deprecated. Please use hub_model_id instead.", "axolotl", "@v0.4.0"),
])
def test_older_release_refusal_is_found(line, runner, tag):
    got = refusal_of(line)
    assert got is not None and got[0] == runner and got[1].endswith(tag)


def test_older_llamafactory_refusal_reads_as_configuration(tmp_path):
    d = _explain(tmp_path, _tb("model_args, data_args, training_args, finetuning_args = get_train_args(args)",
                               "ValueError: Cannot use LoRA with GaLore together."))
    assert d["answer"] == "config_error"
    assert "src/llmtuner/hparams/finetuning_args.py@v0.7.1" in d["root"]["fix"]


@pytest.mark.parametrize("callee, kw, lib, last, first", [
    ("DPOTrainer", "beta", "trl", "0.12.2", "0.13.0"),
    ("DPOTrainer", "max_prompt_length", "trl", "0.12.2", "0.13.0"),
    ("SFTTrainer", "neftune_noise_alpha", "trl", "0.12.2", "0.13.0"),
    ("RewardTrainer", "max_length", "trl", "0.13.0", "0.14.0"),
    ("PPOTrainer", "dataset", "trl", "0.11.4", "0.12.0"),
    ("Accelerator", "logging_dir", "accelerate", "0.19.0", "0.20.0"),
])
def test_trainer_keyword_moved_names_the_releases(tmp_path, callee, kw, lib, last, first):
    d = _explain(tmp_path, _tb(f"trainer = {callee}(model, args=cfg, {kw}=x)",
                               f"TypeError: {callee}.__init__() got an unexpected keyword argument '{kw}'"))
    assert d["answer"] == "version_check"
    title = d["root"]["title"]
    assert f"{lib} removed the keyword {kw}=" in title and f"{last} has it, {first} does not" in title


def test_unrelated_callee_keyword_is_not_named_as_trl(tmp_path):
    d = _explain(tmp_path, _tb("out = my_helper(beta=0.1)", "TypeError: my_helper() got an unexpected keyword argument "
                               "'beta'"))
    assert "trl removed" not in (d["root"] or {}).get("title", "")


@pytest.mark.parametrize("name, last, first", [
    ("cached_download", "0.25.2", "0.26.0"), ("HfFolder", "0.36.2", "1.0.0"), ("ModelFilter", "0.23.5", "0.24.0")])
def test_huggingface_hub_removed_export(tmp_path, name, last, first):
    d = _explain(tmp_path, _tb(f"from huggingface_hub import {name}", f"ImportError: cannot import name '{name}' from "
                               "'huggingface_hub' (/venv/lib/python3.10/site-packages/huggingface_hub/__init__.py)"))
    assert d["answer"] == "version_check"
    assert f"huggingface_hub removed {name} ({last} has it, {first} does not)" in d["root"]["title"]


def test_removed_rows_cite_their_source():
    for row in REMOVED_NAMES:
        assert len(row) == 8 and row[7].strip() and row[4] != row[5]


@pytest.mark.parametrize("exc, answer", [
    ("AttributeError: 'TrainCfg' object has no attribute 'model_dump'", "version_check"),
    ("AttributeError: type object 'RunSpec' has no attribute 'model_validate'", "version_check"),
])
def test_pydantic2_api_on_pydantic1(tmp_path, exc, answer):
    d = _explain(tmp_path, _tb("cfg.model_dump()", exc))
    assert d["answer"] == answer


def test_other_missing_attribute_is_not_pydantic(tmp_path):
    d = _explain(tmp_path, _tb("cfg.model_dump()", "AttributeError: 'TrainCfg' object has no attribute 'model_dumps'"))
    assert d["root"] is None or d["root"]["code"] != "import-name-mismatch"


_TUNE = ("Running FullFinetuneRecipeDistributed with resolved config:\nTraceback (most recent call last):\n"
         '  File "/venv/bin/tune", line 8, in <module>\n    sys.exit(main())\n'
         '  File "/venv/lib/python3.10/site-packages/torchtune/config/_instantiate.py", line 112, in instantiate\n'
         "    return _instantiate_node(config, *args)\n")


@pytest.mark.parametrize("exc, answer, words", [
    # 0.1-0.6 spelling: the checkpointer moved from torchtune.utils to torchtune.training in 0.3.0
    ("torchtune.config._errors.InstantiationError: Error loading 'torchtune.training.FullModelHFCheckpointer':\n"
     "ModuleNotFoundError(\"No module named 'torchtune.training'\")\nAre you sure that 'training' is importable from "
     "module 'torchtune'?", "version_check", "torchtune.training.FullModelHFCheckpointer is in torchtune v0.3.0 and later"),
    ("torchtune.config._errors.InstantiationError: Error loading 'torchtune.utils.FullModelHFCheckpointer':\n"
     "AttributeError(\"module 'torchtune.utils' has no attribute 'FullModelHFCheckpointer'\")\nAre you sure that "
     "'FullModelHFCheckpointer' is an attribute of 'torchtune.utils'?", "version_check", "v0.1.0 to v0.2.1"),
    # the later spelling; a name no release has is the config's spelling
    ("torchtune.config._errors.InstantiationError: Module 'torchtune.datasets' has no attribute 'alpaca_cleaned_datset'.",
     "config_error", "no torchtune release has torchtune.datasets.alpaca_cleaned_datset"),
])
def test_torchtune_component_path(tmp_path, exc, answer, words):
    d = _explain(tmp_path, _TUNE + exc + "\n")
    assert d["answer"] == answer
    assert words in d["root"]["title"]


def test_component_table_has_releases():
    from rocm_tune.profiles.component_names import COMPONENT_NAMES, RELEASES
    assert [t for t, _ in RELEASES][:3] == ["v0.1.0", "v0.1.1", "v0.2.0"] and RELEASES[-1][0] == "main"
    assert all(re.fullmatch(r"[0-9a-f]{12}", c) for _, c in RELEASES)
    assert "qwen2_5" in " ".join(COMPONENT_NAMES["torchtune.models"].values())


@pytest.mark.parametrize("exc, answer", [
    # a runner's own check naming a key it retired (Megatron arguments.py, Axolotl 0.4 config.py, verl, TRL)
    ("AssertionError: --batch-size argument is no longer valid, use --micro-batch-size instead", "version_check"),
    ("ValueError: push_to_hub_model_id is deprecated. Please use hub_model_id instead.", "version_check"),
    ("ValueError: Support for kto_pair has been removed in DPOTrainer. Please use KTOTrainer.", "version_check"),
    # the old and the new key set together: the settings
    ("ValueError: noisy_embedding_alpha is deprecated, use neftune_noise_alpha; both are set, please remove the "
     "deprecated noisy_embedding_alpha setting", "config_error"),
    ("ValueError: Cannot use LoRA with GaLore together.", "config_error"),
])
def test_retired_key_refusal(tmp_path, exc, answer):
    d = _explain(tmp_path, _tb("main()", exc))
    assert d["answer"] == answer


@pytest.mark.parametrize("fn, kw, first", [
    ("flash_attn_func", "window_size", "2.3.0"), ("flash_attn_varlen_func", "softcap", "2.6.0"),
    ("flash_attn_with_kvcache", "cache_leftpad", "2.6.1")])
def test_flash_attn_keyword_added_later(tmp_path, fn, kw, first):
    d = _explain(tmp_path, _tb(f"out = {fn}(q, k, v, {kw}=x)", f"TypeError: {fn}() got an unexpected keyword argument "
                               f"'{kw}'"))
    assert d["answer"] == "version_check"
    assert f"{fn}() takes {kw}= from flash-attn {first} on" in d["root"]["title"]


def test_flash_attn_keyword_of_no_release_is_not_named(tmp_path):
    d = _explain(tmp_path, _tb("out = flash_attn_func(q, k, v, windowsize=x)", "TypeError: flash_attn_func() got an "
                               "unexpected keyword argument 'windowsize'"))
    assert "takes windowsize=" not in d["root"]["title"]


def test_trl_release_refusal_outside_ms_swift(tmp_path):
    # TRL 0.24's GRPOTrainer check; ms-swift carries the same words (its own raise wins in an ms-swift log:
    # test_explain_e_swift3.test_config_fix_names_the_file)
    d = _explain(tmp_path, _tb("trainer = GRPOTrainer(model=m, reward_funcs=r, args=cfg, train_dataset=ds)",
                               "ValueError: vllm_tensor_parallel_size (3) must divide world size (8) evenly."))
    assert d["answer"] == "config_error"
    assert "trl/trainer/grpo_trainer.py@v0.24.0" in d["root"]["fix"]
