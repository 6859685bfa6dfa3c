"""LoRA target_modules read the way PEFT matches them (core/model/lora.py), sizes named by a word
(core/model/names.NAMED_SIZES), and check's padding assumption (issue 25 item 9)."""

import json
import subprocess
import sys

from rocm_tune.core.memory.estimate import TrainConfig, estimate
from rocm_tune.core.model.architecture import identify_model, load_model
from rocm_tune.core.model.lora import split_targets, valid_target, wrapped_groups


def _names(groups):
    return sorted({g.name for g in groups})


def test_split_targets_spellings():
    assert split_targets("q_proj,v_proj") == ("q_proj", "v_proj")
    assert split_targets("['q_proj', 'v_proj']") == ("q_proj", "v_proj")     # a list printed as a string
    assert split_targets(["self_attn.q_proj", "mlp.up_proj"]) == ("self_attn.q_proj", "mlp.up_proj")
    rx = r"model.language_model.layers.[\d]+.(mlp|self_attn).(up|down|gate|q|k|v|o)_proj"
    assert split_targets(rx) == (rx,)                                         # one regex, kept whole


def test_regex_paths_and_names_match_like_peft():
    m = load_model("qwen2.5-7b")
    every = ["down_proj", "gate_proj", "k_proj", "o_proj", "q_proj", "up_proj", "v_proj"]
    for rx in (r"model.language_model.layers.[\d]+.(mlp|cross_attn|self_attn).(up|down|gate|q|k|v|o)_proj",
               r"language_model.model.layers.[\d]+.(mlp|self_attn).(up|down|gate|q|k|v|o)_proj"):
        hit, _ = wrapped_groups(m.linears, (rx,))
        assert _names(hit) == every
    hit, _ = wrapped_groups(m.linears, (r".*self_attn.(q|v)_proj",))
    assert _names(hit) == ["q_proj", "v_proj"]
    hit, miss = wrapped_groups(m.linears, ("self_attn.q_proj", "mlp.down_proj", "out_proj"))
    assert _names(hit) == ["down_proj", "q_proj"] and miss == ["out_proj"]      # PEFT ignores a name that matches nothing
    hit, _ = wrapped_groups(m.linears, ("mlp.q_proj",))                          # wrong parent: no match
    assert hit == []
    assert not valid_target("(unclosed") and valid_target(r"layers.[\d]+.q_proj") and valid_target("q_proj")


def test_regex_target_estimates_like_the_names_it_matches():
    m = load_model("qwen2.5-7b")
    base = dict(method="lora", cutoff_len=1024, micro_batch=1)
    by_names = estimate(m, TrainConfig(**base, lora_targets=("q_proj", "v_proj")))
    by_rx = estimate(m, TrainConfig(**base, lora_targets=(r"model.layers.\d+.self_attn.(q|v)_proj",)))
    assert by_rx.per_gpu.peak_allocated_bytes == by_names.per_gpu.peak_allocated_bytes


def test_size_named_by_a_word_is_bounded_and_says_architecture_not_modelled():
    got = identify_model("ai21labs/Jamba-v0.1", network=False)
    assert got.how == "assumed" and 40e9 < got.spec.params.total < 65e9
    assert "not modelled" in got.assumption and "Jamba" in got.assumption
    got = identify_model("deepseek-ai/deepseek-vl2-tiny", network=False)
    assert got.how == "assumed" and got.spec.is_moe
    assert identify_model("someorg/whatever-model", network=False).how == "unknown"


def test_an_oom_in_the_step_states_the_cutoff_len_padding_assumption(tmp_path):
    y = tmp_path / "sft.yaml"
    y.write_text("model_name_or_path: Qwen/Qwen2.5-7B-Instruct\nstage: sft\nfinetuning_type: lora\n"
                 "lora_target: ['q_proj', 'v_proj']\ncutoff_len: 2048\nper_device_train_batch_size: 64\n"
                 "dataset: alpaca_en_demo\ntemplate: qwen\n")
    p = subprocess.run([sys.executable, "-m", "rocm_tune", "check", str(y), "--gpu", "mi300x", "--json"],
                       capture_output=True, text=True, check=False)
    d = json.loads(p.stdout)
    assert d["verdict"] == "oom" and d["oom_phase"] == "step"
    assert any("counted at cutoff_len (2048)" in a and "longest sample" in a for a in d["assumptions"])
    y.write_text(y.read_text() + "packing: true\n")
    p = subprocess.run([sys.executable, "-m", "rocm_tune", "check", str(y), "--gpu", "mi300x", "--json"],
                       capture_output=True, text=True, check=False)
    assert not any("counted at cutoff_len" in a for a in json.loads(p.stdout)["assumptions"])


def _check(tmp_path, name, text, *args):
    f = tmp_path / name
    f.write_text(text)
    p = subprocess.run([sys.executable, "-m", "rocm_tune", "check", str(f), *args, "--json"],
                       capture_output=True, text=True, check=False)
    return json.loads(p.stdout)


def test_axolotl_loads_in_its_training_dtype_and_offload_checkpointing_is_on(tmp_path):
    # gpt-oss-20b: its config.json names no torch_dtype (transformers alone would load fp32)
    base = ("base_model: openai/gpt-oss-20b\nadapter: lora\nlora_r: 16\nlora_target_linear: true\n"
            "sequence_len: 2048\nmicro_batch_size: 1\ndatasets:\n  - path: x\n    type: alpaca\n")
    bf = _check(tmp_path, "a.yaml", base + "bf16: auto\ngradient_checkpointing: offload\n", "--gpu", "mi300x")
    plain = _check(tmp_path, "b.yaml", base + "gradient_checkpointing: false\n", "--gpu", "mi300x")
    load = {d: d_["memory"]["load"]["peak_allocated_bytes"] for d, d_ in (("bf", bf), ("plain", plain))}
    assert bf["understood"]["gradient_checkpointing"] is True
    assert load["bf"] < load["plain"]                 # frozen weights in axolotl's torch_dtype


def test_a_thin_fit_on_a_shape_assumed_from_the_name_asks_for_the_model(tmp_path):
    text = ("model_name_or_path: /nowhere/SomeNewModel-7B\nstage: sft\nfinetuning_type: lora\ncutoff_len: {n}\n"
            "per_device_train_batch_size: 1\ntemplate: default\ndataset: x\n")
    roomy = _check(tmp_path, "r.yaml", text.format(n=512), "--gpu", "mi300x")
    assert roomy["verdict"] == "fits"
    # find a cutoff_len whose margin is thin on a 24 GiB card: the answer is then the question, not "fits"
    answers = {n: _check(tmp_path, f"t{n}.yaml", text.format(n=n), "--vram-gib", "24") for n in (256, 4096, 8192)}
    thin = [d for d in answers.values() if d["verdict"] == "unknown"]
    assert thin and all("real shape decides" in d["reason"] for d in thin)
    assert all(d["verdict"] != "fits" or d["margin_bytes"] >= 0.10 * 24 * 2**30 for d in answers.values())


def test_a_program_after_a_commented_continuation_line_runs_as_its_own_command():
    from rocm_tune.core.formats import read_texts

    # bash: the comment ends the env-assignment command; `swift sft ...` on the next line is a command of its own
    job = read_texts({"launch.sh": "CUDA_VISIBLE_DEVICES=0,1 \\\nNPROC_PER_NODE=2 \\\n# X=1 \\\nswift sft \\\n"
                                   "    --model Qwen/Qwen2.5-7B-Instruct \\\n    --train_type lora \\\n"
                                   "    --max_length 4096\n"})
    assert job.entry is not None and job.get("model_name_or_path") == "Qwen/Qwen2.5-7B-Instruct"
    assert job.get("cutoff_len") == 4096 or str(job.get("cutoff_len")) == "4096"


def test_a_dstack_task_yaml_is_read_as_its_commands_with_its_env():
    from rocm_tune.core.formats import read_texts

    yml = ("type: task\nenv:\n  - HF_TOKEN\n  - MODEL_ID=Qwen/Qwen2.5-7B-Instruct\nfiles:\n  - train.py\n"
           "commands:\n  - pip install trl\n  - python train.py\n    --model_name_or_path $MODEL_ID\n"
           "    --per_device_train_batch_size 4\nresources:\n  gpu: MI300X\n")
    job = read_texts({"task.dstack.yml": yml})
    assert job.get("model_name_or_path") == "Qwen/Qwen2.5-7B-Instruct"
    assert str(job.get("per_device_train_batch_size")) == "4"
    assert job.settings["model_name_or_path"].line == 9            # the line the flag's command starts on
