"""The evaluation phase as transformers' Trainer runs it (helper c-eval). Sources: transformers trainer.py
(Trainer.evaluate passes prediction_loss_only=True only without compute_metrics; evaluation_loop pads, optionally
reduces with preprocess_logits_for_metrics, gathers every rank's logits and keeps them in all_preds on the GPU unless
eval_accumulation_steps / batch_eval_metrics), modeling_layers.py (GenericForSequenceClassification: a score layer of
num_labels outputs, pooled at the last token; GenericForQuestionAnswering: 2 outputs per token), configuration_utils.py
(num_labels defaults to 2). Every program is written for the test after the transformers docs' examples
(text-classification fine-tuning, causal-LM fine-tuning with a metric); none is a corpus case."""

from __future__ import annotations

import json
from pathlib import Path

from rocm_tune.cli import main
from rocm_tune.core import formats
from rocm_tune.core.runners import hf
from rocm_tune.core.runners.common import as_bool, as_int

CLS = '''from transformers import {cls}, AutoTokenizer, TrainingArguments, Trainer
model = {cls}.from_pretrained("Qwen/Qwen2.5-1.5B", torch_dtype="bfloat16"{labels})
tokenizer = AutoTokenizer.from_pretrained("Qwen/Qwen2.5-1.5B")
args = TrainingArguments(output_dir="out", per_device_train_batch_size=2, per_device_eval_batch_size=16,
                         eval_strategy="epoch", bf16=True, max_steps=100, gradient_checkpointing=True)
trainer = Trainer(model=model, args=args, train_dataset=train, eval_dataset=test, compute_metrics=compute_metrics)
trainer.train()
'''

LM = '''from transformers import AutoModelForCausalLM, AutoTokenizer, TrainingArguments, Trainer
model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-1.5B", torch_dtype="bfloat16")
tokenizer = AutoTokenizer.from_pretrained("Qwen/Qwen2.5-1.5B")
args = TrainingArguments(output_dir="out", per_device_train_batch_size=2, per_device_eval_batch_size=4,
                         eval_strategy="steps", eval_steps=50, bf16=True, max_steps=100,
                         gradient_checkpointing=True{extra})
trainer = Trainer(model=model, args=args, train_dataset=train, eval_dataset=test{trainer})
trainer.train()
'''


def _check(tmp_path: Path, name: str, text: str, capsys, *extra: str) -> dict:
    p = tmp_path / name
    p.write_text(text)
    rc = main(["check", str(p), "--gpu", "mi300x", *extra, "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc in (0, 1), out
    return out


def _eval(out: dict) -> int:
    return int(out["memory"]["eval"]["peak_allocated_bytes"])


def _settings(tmp_path: Path, text: str) -> dict:
    p = tmp_path / "prog.py"
    p.write_text(text)
    out, _notes = hf.read_program_calls(text, str(p))
    return {k: s.value for k, s in out.items()}


def test_classification_head_reads_its_label_count(tmp_path):
    s = _settings(tmp_path, CLS.format(cls="AutoModelForSequenceClassification", labels=", num_labels=5"))
    assert s["__head_outputs__"] == 5 and s["__head_pooled__"] is True and s["__compute_metrics__"] is True
    s = _settings(tmp_path, CLS.format(cls="Qwen2ForSequenceClassification", labels=""))
    assert s["__head_outputs__"] == 2              # PretrainedConfig's default num_labels
    s = _settings(tmp_path, CLS.format(cls="AutoModelForQuestionAnswering", labels=", num_labels=7"))
    assert s["__head_outputs__"] == 2 and s["__head_pooled__"] is False     # start + end, per token
    s = _settings(tmp_path, LM.format(extra="", trainer=""))
    assert "__head_outputs__" not in s and "__compute_metrics__" not in s


def test_classification_eval_holds_no_vocabulary_logits(tmp_path, capsys):
    lm = _check(tmp_path, "lm.py", CLS.format(cls="AutoModelForCausalLM", labels=""), capsys)
    cls = _check(tmp_path, "cls.py", CLS.format(cls="AutoModelForSequenceClassification", labels=", num_labels=3"),
                 capsys)
    # eval batch 16 x 1024 tokens x 151936 vocab x 10 B (logits, fp32 copy, log-softmax) is ~23 GiB of the LM's
    # evaluation; the classifier's 3 labels leave only the model and the hidden states
    assert _eval(lm) - _eval(cls) > 20 * 2**30
    assert _eval(cls) < int(cls["memory"]["step"]["peak_allocated_bytes"])


def test_compute_metrics_keeps_the_gathered_logits_on_the_gpu(tmp_path, capsys):
    plain = _check(tmp_path, "a.py", LM.format(extra="", trainer=""), capsys, "--gpus", "1")
    metric = _check(tmp_path, "b.py", LM.format(extra="", trainer=", compute_metrics=compute_metrics"), capsys,
                    "--gpus", "1")
    one_batch = 4 * 1024 * 151936 * 2          # eval batch x tokens x vocab x bf16, the batch held in all_preds
    assert abs(_eval(metric) - _eval(plain) - one_batch) < 2**20
    assert any("all_preds" in str(n) for n in metric.get("notes") or [])


def test_predictions_reduced_or_moved_are_not_kept(tmp_path, capsys):
    plain = _eval(_check(tmp_path, "a.py", LM.format(extra="", trainer=""), capsys))
    for extra, trainer in (("", ", compute_metrics=cm, preprocess_logits_for_metrics=argmax"),
                           (", eval_accumulation_steps=1", ", compute_metrics=cm"),
                           (", batch_eval_metrics=True", ", compute_metrics=cm"),
                           (", prediction_loss_only=True", ", compute_metrics=cm"),
                           ("", ", compute_metrics=None")):
        out = _check(tmp_path, "b.py", LM.format(extra=extra, trainer=trainer), capsys)
        assert _eval(out) == plain, (extra, trainer)


def test_gather_for_metrics_holds_every_ranks_batch(tmp_path, capsys):
    one = _eval(_check(tmp_path, "a.py", LM.format(extra="", trainer=", compute_metrics=cm"), capsys, "--gpus", "1"))
    plain8 = _eval(_check(tmp_path, "p.py", LM.format(extra="", trainer=""), capsys, "--gpus", "8"))
    eight = _eval(_check(tmp_path, "b.py", LM.format(extra="", trainer=", compute_metrics=cm"), capsys, "--gpus", "8"))
    batch = 4 * 1024 * 151936 * 2
    assert abs((eight - plain8) - 8 * batch) < 2**20 and eight > one


def test_reader_keeps_the_eval_arguments(tmp_path):
    text = LM.format(extra=", eval_accumulation_steps=4, predict_with_generate=True, generation_num_beams=4",
                     trainer="")
    p = tmp_path / "t.py"
    p.write_text(text)
    job = formats.read_job([str(p)])
    assert as_int(job.get("eval_accumulation_steps")) == 4 and as_bool(job.get("predict_with_generate")) is True
    assert as_int(job.get("generation_num_beams")) == 4


LF = """model_name_or_path: Qwen/Qwen2.5-1.5B-Instruct
stage: {stage}
do_train: true
finetuning_type: lora
lora_target: all
dataset: {data}
template: qwen
cutoff_len: 2048
output_dir: saves/out
per_device_train_batch_size: 1
gradient_accumulation_steps: 8
bf16: true
val_size: 0.1
per_device_eval_batch_size: {eb}
eval_strategy: steps
eval_steps: 100
"""


def test_preference_eval_runs_chosen_and_rejected_together(tmp_path, capsys):
    # LLaMA-Factory's pairwise collator and TRL's concatenated_forward: an eval pair is 2 rows of logits
    def ev(stage: str, data: str, eb: int) -> int:
        return _eval(_check(tmp_path, f"{stage}{eb}.yaml", LF.format(stage=stage, data=data, eb=eb), capsys,
                            "--gpus", "1"))

    per_row = 2048 * (151936 * 10 + 1536 * 8)      # tokens x (vocab x 10 B + hidden x 2 B x 4)
    sft = ev("sft", "alpaca_en_demo", 2) - ev("sft", "alpaca_en_demo", 1)
    dpo = ev("dpo", "dpo_en_demo", 2) - ev("dpo", "dpo_en_demo", 1)
    assert abs(sft - per_row) < 2**22
    assert abs(dpo - 2 * per_row) < 2**22


EAGER = '''from transformers import AutoModelForCausalLM, TrainingArguments, Trainer
model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf", torch_dtype="bfloat16",
                                             attn_implementation="{attn}")
args = TrainingArguments(output_dir="out", per_device_train_batch_size=1, per_device_eval_batch_size=1,
                         eval_strategy="steps", eval_steps=50, bf16=True, max_steps=100, gradient_checkpointing=True,
                         optim="adafactor")
trainer = Trainer(model=model, args=args, train_dataset=train, eval_dataset=test, max_seq_length=4096)
trainer.train()
'''


def test_eager_attention_scores_peak_in_the_eval_forward(tmp_path, capsys):
    # transformers eager_attention_forward: [rows, heads, seq, seq] scores, the mask added, an fp32 softmax and its
    # cast back, one layer at a time; with a 32k vocabulary at 4096 tokens they outweigh the loss's logits
    eager = _check(tmp_path, "e.py", EAGER.format(attn="eager"), capsys)
    sdpa = _check(tmp_path, "s.py", EAGER.format(attn="sdpa"), capsys)
    assert eager["understood"]["cutoff_len"] == 4096
    seq2 = 4096 * 4096
    logits = 4096 * 32000 * 10
    assert abs((_eval(eager) - _eval(sdpa)) - (32 * seq2 * 10 + seq2 * 2 - logits)) < 2**20
