"""`rocm-tune models`: preset search and one model's shape, as a real subprocess."""

import json

from tests.conftest import run_cli


def test_models_search_json_lists_matching_presets_with_real_counts():
    out = run_cli("models", "qwen2.5", "7b", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    names = [m["name"] for m in data["models"]]
    assert names == ["qwen2.5-7b", "qwen2.5-vl-7b"]  # the Qwen2.5-VL-7B preset is its language model
    assert data["models"][0]["params_total"] == 7_615_616_512


def test_models_show_moe_reports_active_params():
    out = run_cli("models", "--show", "qwen3-30b-a3b")
    assert out.returncode == 0, out.stderr
    assert "30,532,122,624" in out.stdout
    assert "top-8" in out.stdout


def test_models_no_match_is_one_line_exit_2():
    out = run_cli("models", "no-such-model-family")
    assert out.returncode == 2
    assert out.stderr.strip().count("\n") == 0 and "'no-such-model-family'" in out.stderr


def test_models_show_unknown_is_exit_2():
    # "qwen2.5-8" is no released Qwen2.5 size ("qwen2.5-7" is: a bare released size names qwen2.5-7b)
    out = run_cli("models", "--show", "qwen2.5-8")
    assert out.returncode == 2
    assert "qwen2.5-8" in out.stderr and "Traceback" not in out.stderr
