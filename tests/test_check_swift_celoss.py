"""ms-swift's sequence-parallel loss with CELOSS_PARALLEL_SIZE (swift/trainers/sequence_parallel:
ChunkedCrossEntropyLoss when the variable is > 0): the fp32 log-softmax of the logits is made block by block, so the
step holds less than a plain cross-entropy. The script is ms-swift's examples/train/sequence_parallel (shortened)."""

from __future__ import annotations

import json

from rocm_tune.cli import main

SCRIPT = """NPROC_PER_NODE=8 \\
{env}swift sft \\
    --model Qwen/Qwen2.5-3B-Instruct \\
    --dataset 'AI-ModelScope/LongAlpaca-12k' \\
    --train_type lora \\
    --torch_dtype bfloat16 \\
    --per_device_train_batch_size 4 \\
    --split_dataset_ratio 0.01 \\
    --per_device_eval_batch_size 1 \\
    --max_length 65536 \\
    --attn_impl flash_attn \\
    --sequence_parallel_size 8 \\
    --use_logits_to_keep false \\
    --padding_free true
"""


def _run(tmp_path, capsys, env: str) -> dict:
    p = tmp_path / "sp.sh"
    p.write_text(SCRIPT.format(env=env))
    main(["check", str(p), "--gpu", "a100-80gb", "--json"])
    return json.loads(capsys.readouterr().out)


def _step(tmp_path, capsys, env: str) -> tuple[int, list[str]]:
    d = _run(tmp_path, capsys, env)
    return d["memory"]["step"]["peak_allocated_bytes"], d["notes"]


def test_chunked_ce_env_lowers_the_step(tmp_path, capsys):
    plain, notes_plain = _step(tmp_path, capsys, "")
    chunked, notes = _step(tmp_path, capsys, "CELOSS_PARALLEL_SIZE=2048 \\\n")
    assert chunked < plain
    assert any("chunked/fused cross-entropy" in n for n in notes)
    assert not any("chunked/fused cross-entropy" in n for n in notes_plain)
    # the 16-bit logits of each rank's share and their gradient stay: at most 6 of 12 bytes a logit are saved
    vocab, tokens = 151936, 4 * 65536
    assert plain - chunked <= 6 * vocab * tokens / 8 + 1


def test_zero_means_off(tmp_path, capsys):
    plain, _ = _step(tmp_path, capsys, "")
    zero, notes = _step(tmp_path, capsys, "CELOSS_PARALLEL_SIZE=0 \\\n")
    assert zero == plain and not any("chunked" in n for n in notes)


def test_chunked_ce_is_the_loss_in_evaluation_too(tmp_path, capsys):
    plain = _run(tmp_path, capsys, "")["memory"]["eval"]["peak_allocated_bytes"]
    chunked = _run(tmp_path, capsys, "CELOSS_PARALLEL_SIZE=2048 \\\n")["memory"]["eval"]["peak_allocated_bytes"]
    assert chunked < plain
