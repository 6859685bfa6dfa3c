"""`check` and the sample length (issue 26): LLaMA-Factory pads each micro-batch to its longest sample
(train/sft/workflow.py: SFTDataCollatorWith4DAttentionMask, pad_to_multiple_of=8), so with the data on disk its longest
sample decides the verdict, and without it an OOM at the cap says how long a sample may be and still fit. The config
is LLaMA-Factory's examples/train_lora/llama3_lora_sft.yaml with a long cutoff_len."""

from __future__ import annotations

import json
import re

from rocm_tune.core.check.check import check

LF = """### model
model_name_or_path: meta-llama/Meta-Llama-3-8B-Instruct

### method
stage: sft
do_train: true
finetuning_type: lora
lora_rank: 8
lora_target: all

### dataset
dataset: {dataset}
template: llama3
cutoff_len: {cutoff}
max_samples: 1000
overwrite_cache: true
preprocessing_num_workers: 16

### output
output_dir: saves/llama3-8b/lora/sft
logging_steps: 10
save_steps: 500
plot_loss: true
overwrite_output_dir: true

### train
per_device_train_batch_size: 4
gradient_accumulation_steps: 8
learning_rate: 1.0e-4
num_train_epochs: 3.0
lr_scheduler_type: cosine
warmup_ratio: 0.1
bf16: true
ddp_timeout: 180000000
"""


def _write(tmp_path, cutoff: int, dataset: str = "alpaca_short") -> str:
    f = tmp_path / "llama3_lora_sft.yaml"
    f.write_text(LF.format(cutoff=cutoff, dataset=dataset))
    return str(f)


def test_the_data_on_disk_decides_the_length(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    rows = [{"instruction": "Name a colour of the sky.", "input": "", "output": "Blue, on a clear day."}] * 50
    (data / "short.json").write_text(json.dumps(rows))
    (data / "dataset_info.json").write_text(json.dumps({"alpaca_short": {"file_name": "short.json"}}))
    cap = check([_write(tmp_path, 65536, dataset="not_on_disk")], gpu_id="rtx4090")
    assert cap.verdict == "oom"                     # 4 x 65536 tokens through an 8B on 24 GB: the cap does not fit
    rep = check([_write(tmp_path, 65536)], gpu_id="rtx4090")
    assert rep.cfg.cutoff_len == 65536               # the config as written
    assert rep.verdict == "fits"                     # every batch is padded to a one-line sample, a few dozen tokens
    said = next(a for a in rep.assumptions if a.startswith("every batch counted at the longest sample of the data"))
    assert "not at cutoff_len 65536" in said and "at the cap the verdict would be oom" in said


def test_without_the_data_an_oom_at_the_cap_says_the_longest_sample_that_fits(tmp_path):
    rep = check([_write(tmp_path, 65536, dataset="not_on_disk")], gpu_id="rtx4090")
    assert rep.verdict == "oom" and rep.oom_phase == "step"
    said = next(a for a in rep.assumptions if a.startswith("every batch counted at cutoff_len (65536)"))
    fit = int(re.search(r"stays within (\d+) tokens", said).group(1))
    assert 0 < fit < 65536 and fit % 8 == 0
    # the figure is the boundary check itself finds: at that cutoff_len it fits, 8 tokens more it does not
    assert check([_write(tmp_path, fit, dataset="not_on_disk")], gpu_id="rtx4090").verdict == "fits"
    assert check([_write(tmp_path, fit + 8, dataset="not_on_disk")], gpu_id="rtx4090").verdict == "oom"
