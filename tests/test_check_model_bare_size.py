"""A folder named after the hub id without its "B" (`/data/qwen1.5-14`, `Qwen2.5-7-Instruct`, `llama3-8`) names the
size where the number is a released size of that family (a preset of exactly that size); `check` says the size was
read from the name. Other numbers are not sizes (issue 26 item 1)."""

from __future__ import annotations

import json

import pytest

from rocm_tune.cli import main
from rocm_tune.core.model.architecture import identify_model

from tests.test_check_model_id import LF_YAML, home  # noqa: F401 - the fixture: an empty HOME, no cache variable

pytestmark = pytest.mark.usefixtures("home")


@pytest.mark.parametrize("ref,preset", [("/data/qwen1.5-14/", "qwen1.5-14b"), ("/models/Qwen2.5-7-Instruct", "qwen2.5-7b"),
                                        ("/llm/llama3-8", "llama-3-8b")])
def test_bare_number_that_is_a_released_size_names_the_preset(ref, preset):
    got = identify_model(ref, network=False)
    assert got.how == "name" and got.spec.name == preset
    assert "read from the bare number in its name" in got.detail


@pytest.mark.parametrize("ref", ["/data/qwen1.5-13", "/data/llama3-2", "/data/qwen-7-14"])
def test_bare_number_that_is_no_released_size_is_no_size(ref):
    got = identify_model(ref, network=False)
    assert got.how == "unknown" and got.spec is None and "the name says no size" in got.detail


def test_check_reads_the_size_from_the_folder_name_and_says_so(tmp_path, capsys):
    y = tmp_path / "train.yaml"
    y.write_text(LF_YAML.format(model="/data/qwen1.5-14/"))
    main(["check", str(y), "--gpu", "rtx4090", "--json", "--no-app"])
    d = json.loads(capsys.readouterr().out)
    assert d["verdict"] in ("fits", "oom") and d["model"]["name"] == "qwen1.5-14b"
    assert d["model"]["identified_by"] == "name"
    assert "size 14B read from the bare number in its name" in d["model"]["identified"]
