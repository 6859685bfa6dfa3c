"""The wizard's questions (declared once) and `rocm-tune wizard --answers/--plain`."""

from __future__ import annotations

import pytest

from rocm_tune.core.errors import UserError
from rocm_tune.core.plan.questions import BY_NAME, GROUPS, QUESTIONS, parse_answers, questions_for


def test_every_question_belongs_to_a_step_and_has_help():
    assert {q.group for q in QUESTIONS} == set(GROUPS)
    for q in QUESTIONS:
        assert q.help and q.label and q.flag.startswith("--")
    assert [q.name for q in questions_for("model")] == ["model"]


@pytest.mark.parametrize("name,raw,expected", [
    ("effective_batch", "64", 64), ("effective_batch", 1_000, 1000), ("epochs", "2.5", 2.5),
    ("method", "qlora", "qlora"), ("hours", "", None), ("nodes", "", 1), ("gpus", "4", 4),
])
def test_parse_good_values(name, raw, expected):
    assert BY_NAME[name].parse(raw) == expected


@pytest.mark.parametrize("name,raw,words", [
    ("effective_batch", "0", "between 1 and 1000000"), ("effective_batch", "ten", "integer"),
    ("effective_batch", "1.5", "integer"), ("epochs", "nan", "finite"), ("method", "dora", "one of lora"),
    ("model", "", "model is required"), ("gpus", True, "number"), ("hours", "-1", "between"),
])
def test_parse_bad_values_name_the_question(name, raw, words):
    with pytest.raises(UserError) as err:
        BY_NAME[name].parse(raw)
    assert name in str(err.value) and words in str(err.value)


def test_parse_answers_rejects_unknown_keys_and_inapplicable():
    with pytest.raises(UserError, match="unknown answer 'batch'"):
        parse_answers({"model": "x", "batch": 3})
    with pytest.raises(UserError, match="lora_rank only applies to method lora or qlora"):  # it would be ignored
        parse_answers({"model": "qwen2.5-7b", "method": "full", "lora_rank": 16})
    out = parse_answers({"model": "qwen2.5-7b", "method": "full"})
    assert "lora_rank" not in out and out["method"] == "full" and out["effective_batch"] == 64
    out = parse_answers({"model": "qwen2.5-7b", "method": "lora", "lora_rank": 16})
    assert out["lora_rank"] == 16


def test_gpu_choices_come_from_the_profiles():
    from rocm_tune.core.plan.questions import dynamic_choices
    from rocm_tune.profiles.gpu_profiles import load_gpu_profiles

    choices = dynamic_choices(BY_NAME["gpu"])
    assert choices[0] == "auto" and set(load_gpu_profiles()) <= set(choices)
    with pytest.raises(UserError, match="gpu must be one of"):
        parse_answers({"model": "qwen2.5-7b", "gpu": "gtx-9999"})


def test_wizard_answers_bad_files_exit_2(tmp_path, cli):
    bad = tmp_path / "a.yaml"
    bad.write_text("model: [unclosed\n")
    r = cli("wizard", "--answers", str(bad))
    assert r.returncode == 2 and "not valid YAML" in r.stderr and "Traceback" not in r.stderr
    bad.write_text("model: qwen2.5-7b\neffective_batch: -3\n")
    r = cli("wizard", "--answers", str(bad))
    assert r.returncode == 2 and "effective_batch must be between 1 and 1000000, got -3" in r.stderr
    r = cli("wizard", "--answers", str(tmp_path / "missing.yaml"))
    assert r.returncode == 2 and "no such file" in r.stderr
    r = cli("wizard", "--plain", input="")  # no terminal, no answers: the model is required
    assert r.returncode == 2 and "model is required" in r.stderr


def test_wizard_list_shows_every_question(cli):
    r = cli("wizard", "--list")
    assert r.returncode == 0
    for q in QUESTIONS:
        assert q.name in r.stdout


def test_wizard_answers_file_plans_and_writes_plan_json(tmp_path, cli):
    answers = tmp_path / "answers.yaml"
    answers.write_text("model: qwen2.5-7b\ngpu: mi50-32gb\ngpus: 2\neffective-batch: 64\n")
    out = tmp_path / "plan.json"
    r = cli("wizard", "--answers", str(answers), "--json", "-o", str(out))
    assert r.returncode == 0, r.stderr
    import json

    d = json.loads(r.stdout)
    assert d == json.loads(out.read_text())
    assert d["hardware"] == {**d["hardware"], "gpu": "mi50-32gb", "gpus": 2}
    assert d["goal"]["effective_batch"] == 64
    assert d["recommended"]["precision"] != "bf16"   # MI50 emulates bf16
    r = cli("wizard", "--answers", str(answers), "-o", str(out))
    assert r.returncode == 2 and "--force" in r.stderr
    r = cli("wizard", "--answers", str(answers), "-o", str(out), "--force")
    assert r.returncode == 0 and "FITS" in r.stdout and "plan written to" in r.stdout
