"""LLaMA-Factory predicting without training (helper c-lf8). Source: hiyouga/LlamaFactory src/llamafactory/train/sft/
workflow.py run_sft (load_model(..., is_trainable=training_args.do_train); trainer.train() only under do_train;
trainer.predict under do_predict) and model/loader.py load_model (not is_trainable: requires_grad_(False), fp32 weights
cast to compute_dtype, eval()), at v0.9.0 and since. The YAML is written for the test after the repository's
examples/train_lora/llama3_lora_predict.yaml; it is no corpus case."""

from __future__ import annotations

import json
from pathlib import Path

from rocm_tune.cli import main
from rocm_tune.core import formats
from rocm_tune.core.runners import llamafactory

PREDICT = """model_name_or_path: Qwen/Qwen2.5-7B-Instruct
stage: sft
{do}
finetuning_type: lora
eval_dataset: alpaca_en_demo
template: qwen
cutoff_len: 2048
output_dir: saves/qwen2.5-7b/predict
fp16: true
per_device_eval_batch_size: {eb}
predict_with_generate: true
"""


def _check(tmp_path: Path, text: str, capsys) -> dict:
    p = tmp_path / "predict.yaml"
    p.write_text(text)
    rc = main(["check", str(p), "--gpu", "mi300x", "--gpus", "1", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc in (0, 1), out
    return out


def _job(tmp_path: Path, text: str):
    p = tmp_path / "cfg.yaml"
    p.write_text(text)
    return formats.read_job([str(p)])


def test_predict_only_has_no_training_step(tmp_path, capsys):
    out = _check(tmp_path, PREDICT.format(do="do_predict: true", eb=1), capsys)
    mem = out["memory"]
    assert mem.get("step") is None and mem.get("save") is None
    load = mem["load"]["peak_allocated_bytes"]
    # the frozen model in fp16: 2 bytes per parameter (Qwen2.5-7B: 7.6e9 parameters), no fp32 adapter or moments
    assert 14.0e9 < load < 16.0e9, load
    assert mem["eval"]["peak_allocated_bytes"] > load
    assert any("do_predict without do_train" in n for n in out["notes"]), out["notes"]


def test_predict_batch_grows_the_generation(tmp_path, capsys):
    one = _check(tmp_path, PREDICT.format(do="do_predict: true", eb=1), capsys)["memory"]["eval"]
    many = _check(tmp_path, PREDICT.format(do="do_predict: true", eb=16), capsys)["memory"]["eval"]
    assert many["peak_allocated_bytes"] > one["peak_allocated_bytes"] + 2**30


def test_training_job_keeps_its_step(tmp_path, capsys):
    out = _check(tmp_path, PREDICT.format(do="do_train: true\ndo_predict: true", eb=1), capsys)
    assert out["memory"]["step"]["peak_allocated_bytes"] > out["memory"]["load"]["peak_allocated_bytes"]
    assert not any("do_predict without do_train" in n for n in out["notes"])


def test_predicts_only_reading(tmp_path):
    assert llamafactory.predicts_only(_job(tmp_path, PREDICT.format(do="do_predict: true", eb=1)))
    assert not llamafactory.predicts_only(_job(tmp_path, PREDICT.format(do="do_train: true\ndo_predict: true",
                                                                        eb=1)))
    assert not llamafactory.predicts_only(_job(tmp_path, PREDICT.format(do="do_train: true", eb=1)))
    dpo = PREDICT.format(do="do_predict: true", eb=1).replace("stage: sft", "stage: dpo")
    assert not llamafactory.predicts_only(_job(tmp_path, dpo))


BIG = PREDICT.replace("Qwen/Qwen2.5-7B-Instruct", "Qwen/Qwen2.5-72B-Instruct").replace("fp16: true", "bf16: true")


def test_predict_too_large_for_one_gpu_gets_llamafactorys_own_fix(tmp_path, capsys):
    """A 72B model predicted on 8 ranks: every rank holds it whole (get_train_args device_map {"": current device});
    the fix is not ZeRO-3 (refused with predict_with_generate) and no training keys are changed."""
    p = tmp_path / "predict.yaml"
    p.write_text(BIG.format(do="do_predict: true", eb=1))
    rc = main(["check", str(p), "--gpu", "mi250x", "--gpus", "8", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc in (0, 1), out
    assert out["verdict"] == "oom" and out["oom_phase"] == "load"
    whole = [f for f in out["findings"] if f["code"].startswith("whole-model")]
    assert whole and "vllm_infer.py" in whole[0]["fix"] and "ZeRO-3 (deepspeed" not in whole[0]["fix"]
    assert not out.get("fix")


def test_training_job_keeps_the_zero3_fix(tmp_path, capsys):
    p = tmp_path / "train.yaml"
    p.write_text(BIG.format(do="do_train: true", eb=1))
    main(["check", str(p), "--gpu", "mi250x", "--gpus", "8", "--json"])
    out = json.loads(capsys.readouterr().out)
    whole = [f for f in out["findings"] if f["code"].startswith("whole-model")]
    assert whole and "ZeRO-3" in whole[0]["fix"]


def test_bare_do_predict_flag_reads_as_predicting(tmp_path, capsys):
    """`llamafactory-cli train --do_predict ...` (HfArgumentParser: a bare flag is true) predicts as the YAML does."""
    p = tmp_path / "predict.sh"
    p.write_text("llamafactory-cli train --stage sft --do_predict --model_name_or_path Qwen/Qwen2.5-7B-Instruct "
                 "--finetuning_type lora --template qwen --eval_dataset alpaca_en_demo --cutoff_len 2048 "
                 "--per_device_eval_batch_size 1 --predict_with_generate --output_dir saves/pred --bf16\n")
    rc = main(["check", str(p), "--gpu", "mi300x", "--gpus", "1", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc in (0, 1), out
    assert out["memory"].get("step") is None
    assert any("do_predict without do_train" in n for n in out["notes"])


# cutoff_len's default by release: hparams/data_args.py DataArguments.cutoff_len is 1024 through v0.9.0 and 2048 since
# v0.9.1 (commit 1e6f9650); the files date the release by a pin, the old src/train_bash.py entry (up to v0.7.0) or the
# examples/lora_single_gpu-style paths (up to v0.8.1)
NO_CUTOFF = """model_name_or_path: Qwen/Qwen2.5-7B-Instruct
stage: sft
do_train: true
finetuning_type: lora
dataset: my_data
template: qwen
output_dir: saves/x
per_device_train_batch_size: 2
bf16: true
"""


def _cutoff(tmp_path: Path, capsys, files: dict[str, str]) -> int:
    paths = []
    for name, text in files.items():
        p = tmp_path / name
        p.write_text(text)
        paths.append(str(p))
    rc = main(["check", *paths, "--gpu", "mi300x", "--gpus", "1", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc in (0, 1), out
    return int(out["understood"]["cutoff_len"])


def test_cutoff_default_follows_the_release(tmp_path, capsys):
    assert _cutoff(tmp_path, capsys, {"cfg.yaml": NO_CUTOFF}) == 2048
    assert _cutoff(tmp_path, capsys, {"cfg.yaml": NO_CUTOFF, "requirements.txt": "llamafactory==0.9.0\n"}) == 1024
    assert _cutoff(tmp_path, capsys, {"cfg.yaml": NO_CUTOFF, "requirements.txt": "llamafactory==0.9.1\n"}) == 2048
    run = "CUDA_VISIBLE_DEVICES=0 llamafactory-cli train examples/lora_single_gpu/cfg.yaml\n"
    assert _cutoff(tmp_path, capsys, {"cfg.yaml": NO_CUTOFF, "run.sh": run}) == 1024


def test_train_bash_entry_dates_the_release(tmp_path, capsys):
    sh = ("deepspeed --num_gpus 1 src/train_bash.py --stage sft --do_train --model_name_or_path "
          "Qwen/Qwen2.5-7B-Instruct --finetuning_type lora --template qwen --dataset my_data --output_dir out "
          "--per_device_train_batch_size 2 --bf16\n")
    assert _cutoff(tmp_path, capsys, {"train.sh": sh}) == 1024
    given = sh.replace("--bf16", "--bf16 --cutoff_len 4096")
    assert _cutoff(tmp_path, capsys, {"train.sh": given}) == 4096


def test_newest_release_reading(tmp_path):
    job = _job(tmp_path, NO_CUTOFF)
    assert llamafactory.newest_release(job) is None
    job.files["requirements.txt"] = "llamafactory[torch,metrics]==0.8.3\n"
    rel = llamafactory.newest_release(job)
    assert rel is not None and rel[0] == (0, 8, 3)
    assert llamafactory.release_defaults(job)["cutoff_len"].value == 1024


OLD_EVAL = ("python src/train_bash.py --stage sft --model_name_or_path meta-llama/Llama-2-7b-hf {ckpt}--do_eval "
            "--dataset lima --template llama2 --finetuning_type lora --output_dir out --per_device_eval_batch_size 8 "
            "--predict_with_generate --fp16\n")


def _notes_of(tmp_path: Path, capsys, text: str) -> dict:
    p = tmp_path / "eval.sh"
    p.write_text(text)
    rc = main(["check", str(p), "--gpu", "rtx3090", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc in (0, 1), out
    return out


def test_eval_only_reads_as_not_training(tmp_path, capsys):
    out = _notes_of(tmp_path, capsys, OLD_EVAL.format(ckpt=""))
    assert out["memory"].get("step") is None
    assert any("do_eval without do_train" in n for n in out["notes"])


def test_max_new_tokens_default_by_release(tmp_path, capsys):
    """GeneratingArguments.max_new_tokens: 512 through v0.6.3, 1024 since v0.7.0. train_bash.py alone allows v0.7.0
    (1024 counted); checkpoint_dir (accepted up to v0.3.3) dates the run before it (512)."""
    newer = _notes_of(tmp_path, capsys, OLD_EVAL.format(ckpt=""))
    older = _notes_of(tmp_path, capsys, OLD_EVAL.format(ckpt="--checkpoint_dir ckpt/lima "))
    assert any("+ 1024 new tokens" in n for n in newer["notes"])
    assert any("+ 512 new tokens" in n for n in older["notes"])
    assert older["memory"]["eval"]["peak_allocated_bytes"] < newer["memory"]["eval"]["peak_allocated_bytes"]
