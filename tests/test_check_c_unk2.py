"""check names the model from the clues users leave when the model field names none (issue 26, helper c-unk2).

Configs written here (not corpus cases): LLaMA-Factory YAML with the example's placeholder, a launch script whose
$MODEL_PATH no file sets, a run named after its model, a family named only by its template, and no card named.
"""

from __future__ import annotations

import json

import pytest

from rocm_tune.cli import main
from rocm_tune.core.check.check import check
from rocm_tune.core.model.clues import is_placeholder, models_named

LF = """model_name_or_path: {model}
stage: sft
do_train: true
finetuning_type: {ft}
template: {template}
dataset: alpaca_en_demo
cutoff_len: {cutoff}
per_device_train_batch_size: 1
gradient_accumulation_steps: 8
bf16: true
output_dir: {out}
"""


def _yaml(tmp_path, name="sft.yaml", model="PATH_TO_MODEL", ft="lora", template="qwen", cutoff=1024,
          out="saves/run1", extra=""):
    p = tmp_path / name
    p.write_text(LF.format(model=model, ft=ft, template=template, cutoff=cutoff, out=out) + extra)
    return str(p)


@pytest.mark.parametrize("ref", ["PATH_TO_MODEL", "/path/to/model", "path/to/your/model", "<model>",
                                 "YOUR_MODEL_PATH", "your_model", "{model_path}", "model_name_or_path"])
def test_placeholders_name_no_model(ref):
    assert is_placeholder(ref)


@pytest.mark.parametrize("ref", ["Qwen/Qwen2.5-7B", "/data/models/llama3-8b", "$MODEL_PATH", "my-finetune-v2"])
def test_real_names_are_no_placeholder(ref):
    assert not is_placeholder(ref)


@pytest.mark.parametrize("text,name", [
    ("saves/qwen2_5-7b/lora/sft", "qwen2.5-7b"),
    ("Meta-Llama-3.1-8B-Instruct", "llama-3.1-8b"),
    ("# fine-tune Qwen3 30B A3B on 8 GPUs", "qwen3-30b-a3b"),
    ("echo \"training Mixtral-8x7B now\"", "mixtral-8x7b"),
])
def test_a_model_named_in_free_text(text, name):
    assert [s.name for _, s in models_named(text)] == [name]


@pytest.mark.parametrize("text", ["runs/2024-07-15/checkpoint-2000", "qwen2.5 v2 step 500", "llama3 20240715",
                                  "global_step1000 epoch-3", "qwen2.5-7"])
def test_dates_versions_and_steps_are_never_a_size(text):
    assert models_named(text) == []


def test_placeholder_and_output_dir_name_the_model(tmp_path):
    rep = check([_yaml(tmp_path, out="saves/qwen2_5-7b/lora/sft")], gpu_id="a100-80gb")
    assert rep.model is not None and rep.model.name == "qwen2.5-7b"
    assert rep.model.identified_by == "clue" and "output_dir" in rep.model.identified
    said = " ".join(rep.assumptions)
    assert "taken to be qwen2.5-7b, from output_dir: saves/qwen2_5-7b/lora/sft" in said
    assert "placeholder 'PATH_TO_MODEL'" in said
    assert rep.verdict == "fits"


def test_json_says_the_model_came_from_a_clue(tmp_path, capsys):
    path = _yaml(tmp_path, out="saves/qwen2_5-7b/lora/sft")
    rc = main(["check", path, "--gpu", "a100-80gb", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0 and out["verdict"] == "fits"
    assert out["model"]["identified_by"] == "clue" and out["model"]["name"] == "qwen2.5-7b"


def test_the_config_file_name_names_the_model(tmp_path):
    rep = check([_yaml(tmp_path, name="llama3_8b_lora_sft.yaml", model="/path/to/model", template="llama3")],
                gpu_id="rtx4090")
    assert rep.model is not None and rep.model.name == "llama-3-8b"
    assert "the file name llama3_8b_lora_sft.yaml" in " ".join(rep.assumptions)


def test_unset_shell_variable_and_an_echo_line(tmp_path):
    sh = tmp_path / "train.sh"
    sh.write_text('echo "fine-tuning Qwen2.5-14B-Instruct"\n'
                  "llamafactory-cli train \\\n  --model_name_or_path $MODEL_PATH \\\n  --stage sft --do_train \\\n"
                  "  --finetuning_type full --template qwen --dataset alpaca_en_demo --cutoff_len 2048 \\\n"
                  "  --per_device_train_batch_size 1 --bf16 --output_dir $OUT\n")
    rep = check([str(sh)], gpu_id="rtx4090")
    assert rep.model is not None and rep.model.name == "qwen2.5-14b"
    assert "echo" in rep.model.identified
    assert rep.verdict == "oom"         # 14B full fine-tuning on one 24 GB card


def test_several_sizes_named_is_a_question_not_a_guess(tmp_path):
    path = _yaml(tmp_path, extra="# tried Qwen2.5-7B-Instruct first, then Qwen2.5-72B-Instruct\n")
    rep = check([path], gpu_id="a100-80gb")
    assert rep.model is None and rep.verdict == "unknown"
    ask = next(f.message for f in rep.findings if f.code == "model-unknown")
    assert "qwen2.5-7b" in ask and "qwen2.5-72b" in ask


def test_a_clue_outside_the_templates_family_is_not_taken(tmp_path):
    # template llama3 (Llama 3.x), but the run is named after a Qwen: the two disagree, no Qwen is assumed
    rep = check([_yaml(tmp_path, template="llama3", out="saves/qwen2_5-7b/lora")], gpu_id="mi300x")
    assert rep.model is None or rep.model.name != "qwen2.5-7b"


def test_family_without_size_every_size_oom(tmp_path):
    # Qwen2-VL full fine-tuning on a 16 GiB card: the smallest size (2B) already does not fit, so none does
    rep = check([_yaml(tmp_path, ft="full", template="qwen2_vl", cutoff=4096)], gpu_id="t4")
    assert rep.verdict == "oom"
    assert rep.model.identified_by == "clue" and "smallest" in rep.model.identified
    assert any("template: qwen2_vl" in a and "no size fits" in a for a in rep.assumptions)
    assert rep.fix is None      # a fix for the 2B would say nothing of the size really run


def test_family_without_size_sizes_disagree(tmp_path):
    # LoRA of a Llama 3.x on one 24 GB card: 1B fits, 70B does not: the size decides, and the answer says the range
    rep = check([_yaml(tmp_path, template="llama3")], gpu_id="rtx4090")
    assert rep.verdict == "unknown"
    assert "the model's size decides" in rep.reason and "template: llama3" in rep.reason
    assert "llama-3.2-1b: fits" in rep.reason and ": oom" in rep.reason


def test_family_end_without_a_preset_gives_no_verdict(tmp_path):
    # every Llama 3.x with a preset fits one MI300X as LoRA, but the registry's largest (405B) has no preset here:
    # "every size fits" would be a guess
    rep = check([_yaml(tmp_path, template="llama3")], gpu_id="mi300x")
    assert rep.verdict == "unknown" and "Llama-3.1-405B" in rep.reason


def test_no_card_tiny_job_fits_every_card(tmp_path):
    rep = check([_yaml(tmp_path, model="Qwen/Qwen2.5-0.5B-Instruct", cutoff=512)])
    assert rep.verdict == "fits"
    assert any("no GPU named" in a and "fits a card of 8 GiB" in a for a in rep.assumptions)
    assert rep.vram_bytes == 8 * 2**30


def test_no_card_huge_job_oom_on_every_card(tmp_path):
    rep = check([_yaml(tmp_path, model="Qwen/Qwen2.5-72B-Instruct", ft="full", cutoff=8192)])
    assert rep.verdict == "oom"
    assert any("largest card" in a and "every card" in a for a in rep.assumptions)


def test_no_card_middle_job_asks_for_the_card(tmp_path, capsys):
    path = _yaml(tmp_path, model="Qwen/Qwen2.5-7B-Instruct", cutoff=2048)
    rep = check([path])
    assert rep.verdict == "unknown" and "which GPU?" in rep.reason and "GiB per GPU" in rep.reason
    main(["check", path, "--json"])
    assert json.loads(capsys.readouterr().out)["question"]["flag"] == "--gpu"


def test_no_clue_stays_the_model_question(tmp_path):
    rep = check([_yaml(tmp_path, template="not_a_template", out="runs/2024-07-15/checkpoint-2000")],
                gpu_id="a100-80gb")
    assert rep.verdict == "unknown" and rep.model is None
    assert "the model is not known" in rep.reason


def test_a_local_folder_without_size_and_the_order_of_sources(tmp_path):
    # the folder names no model; output_dir (read before comments) names a 7B, a comment a 14B: the 7B is taken
    path = _yaml(tmp_path, model="/data/ckpt/v1_merged_base", out="saves/qwen2.5-7b-dpo",
                 extra="# next: try Qwen2.5-14B-Instruct\n")
    rep = check([path], gpu_id="a100-80gb")
    assert rep.model is not None and rep.model.name == "qwen2.5-7b"
    assert any("'/data/ckpt/v1_merged_base' names no model here" in a and "output_dir" in a for a in rep.assumptions)
