"""`python -m pkg.train --model_path ...` starts a training program exactly as `python pkg/train.py` does (Python's -m
option runs the module as __main__); `check` reads it as a transformers program, with the program's own names for
the model (--model_path_to_load, --base_model, --model_path) and per-device batch (--micro_batch_size, else
--batch_size), each reading said (issue 26 item 2)."""

from __future__ import annotations

import json

from rocm_tune.cli import main
from rocm_tune.core.formats import read_texts

MODULE_SH = """python -m trainer_pkg.start_training \\
    --model_path_to_load /home/work/models/Qwen2.5-0.5B-Instruct \\
    --training_type 'sft' \\
    --data_path data.json \\
    --output_dir out \\
    --batch_size 2 \\
    --use_lora 'true' \\
    --lora_target_modules "q_proj,v_proj"
"""

ALPACA_LORA = """python -m finetune_pkg.finetune --base_model 'meta-llama/Llama-2-7b-hf' --data_path data.json \\
    --batch_size 128 --micro_batch_size 4 --use_lora true
"""


def test_module_run_is_the_training_program_with_its_own_flag_names():
    job = read_texts({"train.sh": MODULE_SH})
    assert job.runner == "hf" and job.entry == "python -m trainer_pkg.start_training"
    assert job.get("model_name_or_path") == "/home/work/models/Qwen2.5-0.5B-Instruct"
    assert int(job.get("per_device_train_batch_size")) == 2 and job.get("finetuning_type") == "lora"
    assert any("--model_path_to_load read as the model" in n for n in job.notes)
    assert any("--batch_size read as the per-device batch" in n for n in job.notes)


def test_micro_batch_size_wins_over_a_global_batch_size():
    job = read_texts({"train.sh": ALPACA_LORA})
    assert job.get("model_name_or_path") == "meta-llama/Llama-2-7b-hf"
    assert int(job.get("per_device_train_batch_size")) == 4


def test_module_without_a_model_flag_or_a_tool_module_is_no_training():
    for text in ("python -m pip install -r requirements.txt\n", "python -m http.server 8000\n",
                 "python -m torch.utils.collect_env\n", "python -m mytool.report --out report.txt\n"):
        assert read_texts({"x.sh": text}).runner == "unknown", text


def test_check_answers_a_module_launch(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    s = tmp_path / "train.sh"
    s.write_text(MODULE_SH)
    main(["check", str(s), "--gpu", "a100-40gb", "--json", "--no-app"])
    d = json.loads(capsys.readouterr().out)
    assert d["verdict"] == "fits" and d["model"]["name"] == "qwen2.5-0.5b"
    assert d["understood"]["micro_batch"] == 2 and d["understood"]["method"] == "lora"
