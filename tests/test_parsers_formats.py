"""Parsers on real and recorded log formats (tests/fixtures/logs)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rocm_tune.core.runs.watch.history import History
from rocm_tune.core.runs.watch.parsers import (
    GIB,
    TextParser,
    event_from_llamafactory,
    events_from_trainer_state,
    llamafactory_parser,
    metrics_parser,
    parse_dict_text,
    parse_hms,
    parse_oom,
)

LOGS = Path(__file__).parent / "fixtures" / "logs"
LF = LOGS / "llamafactory-0.9.5-lora-cpu"


def _lines(path: Path) -> list[str]:
    return path.read_bytes().decode("utf-8", "replace").splitlines()


def _state_steps() -> dict[int, dict]:
    state = json.loads((LF / "trainer_state.json").read_text())
    return {e["step"]: e for e in state["log_history"] if "loss" in e}


def test_hf_stdout_transformers5_string_values_match_trainer_state():
    evs = TextParser().feed_lines(_lines(LF / "stdout.log"))
    steps = [e for e in evs if e.kind == "step"]
    truth = _state_steps()
    assert [e.step for e in steps] == list(range(1, 37))
    for e in steps:
        t = truth[e.step]
        # stdout prints 4 significant digits as strings ('5.733'); trainer_state has the floats
        assert e.loss == pytest.approx(t["loss"], rel=1e-3)
        assert e.grad_norm == pytest.approx(t["grad_norm"], rel=1e-3)
        assert e.epoch == pytest.approx(t["epoch"], rel=1e-3)
        assert e.total_steps == 36
    end = [e for e in evs if e.kind == "end"]
    assert len(end) == 1
    assert end[0].get("train_loss") == pytest.approx(5.764)
    assert end[0].get("runtime_s") == pytest.approx(5.165)
    # only the training bar counts as progress; dataset bars ("examples/s") do not
    prog = [e for e in evs if e.kind == "progress"]
    assert prog and all(e.total_steps == 36 for e in prog)
    rates = [e.step_time_s for e in prog if e.step_time_s]
    assert min(rates) == pytest.approx(1 / 10.24, rel=1e-3)  # not "Loading weights ... 31246.96it/s"
    assert rates[-1] == pytest.approx(1 / 6.97, rel=1e-3)


def test_llamafactory_trainer_log_jsonl():
    evs = llamafactory_parser().feed_lines(_lines(LF / "trainer_log.jsonl"))
    steps = [e for e in evs if e.kind == "step"]
    assert len(steps) == 36 and steps[-1].step == 36 and steps[-1].total_steps == 36
    truth = _state_steps()
    assert all(e.loss == truth[e.step]["loss"] for e in steps)
    assert steps[1].learning_rate == 0.00025
    assert steps[-1].get("elapsed_time") == "0:00:05"
    # the last line (after train_runtime is logged) carries no loss: progress
    assert evs[-1].kind == "progress" and evs[-1].step == 36


def test_llamafactory_record_vram_and_throughput_fields():
    # LogCallback.on_log with RECORD_VRAM=1 and include_num_input_tokens_seen
    line = {"current_steps": 10, "total_steps": 100, "loss": 1.25, "lr": 1e-4, "epoch": 0.1, "percentage": 10.0,
            "elapsed_time": "1:02:03", "remaining_time": "1 day, 0:00:01", "throughput": 1234.56,
            "total_tokens": 81920, "vram_allocated": 30.5, "vram_reserved": 31.25}
    e = event_from_llamafactory(line)
    assert e.kind == "step" and e.step == 10 and e.total_steps == 100
    assert e.tokens_per_s == 1234.56
    assert e.get("vram_allocated_bytes") == int(30.5 * GIB)
    assert e.get("vram_reserved_bytes") == int(31.25 * GIB)
    h = History()
    h.add(e)
    assert h.source_elapsed_s == 3723 and h.source_remaining_s == 86401
    assert h.vram[0] == {"allocated_bytes": int(30.5 * GIB), "reserved_bytes": int(31.25 * GIB)}
    ev = event_from_llamafactory({"current_steps": 50, "total_steps": 100, "eval_loss": 1.1, "epoch": 0.5})
    assert ev.kind == "eval" and ev.loss == 1.1


def test_trainer_state_log_history():
    evs = events_from_trainer_state(json.loads((LF / "trainer_state.json").read_text()))
    assert [e.kind for e in evs].count("step") == 36
    assert evs[0].total_steps == 36
    assert evs[-1].kind == "end" and evs[-1].get("runtime_s") == pytest.approx(5.1653)


def test_metrics_jsonl_all_record_types():
    evs = metrics_parser().feed_lines(_lines(LOGS / "clean-metrics.jsonl"))
    kinds = [e.kind for e in evs]
    assert kinds[0] == "start" and kinds[-1] == "end"
    assert kinds.count("step") == 20 and "eval" in kinds and "checkpoint" in kinds
    s = next(e for e in evs if e.kind == "step")
    assert s.step == 1 and s.time == 1736300002.0 and s.tokens_per_s == 2048.0
    assert s.get("vram_allocated_bytes") == 5 * GIB
    nan = metrics_parser().feed_lines(_lines(LOGS / "alert-nan-loss-metrics.jsonl"))
    bad = next(e for e in nan if e.kind == "step" and e.step == 8)
    assert bad.loss != bad.loss and bad.grad_norm == float("inf")


def test_transformers4_dict_with_nan_and_webui_running_log():
    p = TextParser()
    (e,) = p.feed("{'loss': 0.0, 'grad_norm': nan, 'learning_rate': 4.3478e-07, 'epoch': 0.02}")
    assert e.loss == 0.0 and e.grad_norm != e.grad_norm and e.learning_rate == 4.3478e-07
    # LLaMA-Factory webui (running_log.txt): logger line ending in a dict with throughput
    (e2,) = p.feed("[INFO|2025-01-01 10:00:00] llamafactory.train.callbacks:158 >> "
                   "{'loss': 1.2345, 'learning_rate': 1.0000e-04, 'epoch': 0.10, 'throughput': 1234.56}")
    assert e2.loss == 1.2345 and e2.tokens_per_s == 1234.56 and e2.step == 2


def test_step_numbers_follow_tqdm_with_logging_interval():
    p = TextParser()
    lines = []
    for n in range(1, 31):
        lines.append(f" {n * 100 // 30}%|##   | {n}/30 [00:{n:02d}<00:10,  1.00it/s]")
        if n % 10 == 0:
            lines.append(f"{{'loss': {2 - n / 100}, 'learning_rate': 1e-4, 'epoch': {n / 30:.2f}}}")
    steps = [e.step for e in p.feed_lines(lines) if e.kind == "step"]
    assert steps == [10, 20, 30]


def test_rank_prefixes_and_ansi():
    p = TextParser()
    (e,) = p.feed("[rank3]:\x1b[31m{'loss': 2.5, 'epoch': 0.1}\x1b[0m")
    assert e.rank == 3 and e.loss == 2.5
    (o,) = p.feed("[default1]:[2025-03-02 10:12:04,100] [INFO] [loss_scaler.py:183:update_scale] [deepspeed] "
                  "OVERFLOW! Rank 1 Skipping step. Attempted loss scale: 65536, reducing to 32768")
    assert o.kind == "overflow" and o.rank == 1 and o.get("loss_scale") == 32768
    assert o.get("attempted_loss_scale") == 65536
    (z,) = p.feed("[2024-01-01 00:00:00,000] [INFO] [stage_1_and_2.py:1850:step] [deepspeed] fp16 dynamic loss "
                  "scale overflow! Skipping step. Attempted loss scale: 4294967296, reducing to 2147483648")
    assert z.kind == "overflow" and z.get("loss_scale") == 2147483648


def test_deepspeed_step_and_throughput_lines():
    p = TextParser()
    (e,) = p.feed("[2025-03-02 10:12:44,500] [INFO] [logging.py:128:log_dist] [Rank 0] step=10, skipped=3, "
                  "lr=[0.00019], mom=[(0.9, 0.999)]")
    assert e.kind == "progress" and e.step == 10 and e.get("skipped") == 3 and e.learning_rate == 0.00019
    (t,) = p.feed("[Rank 0] epoch=0/micro_step=40/global_step=10, RunningAvgSamplesPerSec=12.5, "
                  "CurrSamplesPerSec=12.9, MemAllocated=10.25GB, MaxMemAllocated=12.5GB")
    assert t.step == 10 and t.samples_per_s == 12.5 and t.get("vram_max_allocated_bytes") == int(12.5 * GIB)


@pytest.mark.parametrize("text, expect", [
    (("torch.OutOfMemoryError: HIP out of memory. Tried to allocate 1.45 GiB. GPU 3 has a total capacity of "
     "63.98 GiB of which 1.12 GiB is free. Of the allocated memory 49.80 GiB is allocated by PyTorch, and "
     "11.07 GiB is reserved by PyTorch but unallocated."),
     {"backend": "HIP", "tried_bytes": int(1.45 * GIB), "gpu": 3, "total_bytes": int(63.98 * GIB),
      "free_bytes": int(1.12 * GIB), "allocated_bytes": int(49.80 * GIB),
      "reserved_unallocated_bytes": int(11.07 * GIB)}),
    (("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
     "79.19 GiB of which 1.72 GiB is free. Process 3123019 has 77.46 GiB memory in use."),
     {"backend": "CUDA", "tried_bytes": 2 * GIB, "gpu": 0, "free_bytes": int(1.72 * GIB)}),
    (("RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 15.78 GiB total capacity; "
     "14.56 GiB already allocated; 3.75 MiB free; 14.74 GiB reserved in total by PyTorch)"),
     {"backend": "CUDA", "tried_bytes": 20 * 2**20, "total_bytes": int(15.78 * GIB),
      "allocated_bytes": int(14.56 * GIB), "free_bytes": int(3.75 * 2**20), "reserved_bytes": int(14.74 * GIB)}),
])
def test_oom_numbers(text, expect):
    d = parse_oom(text)
    for k, v in expect.items():
        assert d[k] == v, k


def test_small_helpers():
    assert parse_hms("0:00:05") == 5 and parse_hms("01:02") == 62 and parse_hms("x") is None
    assert parse_dict_text("{'a': {'b': 1}}") == {"a": {"b": 1}} or parse_dict_text("{'a': {'b': 1}}") is not None
    assert parse_dict_text("no dict here") is None
    assert parse_oom("all good") is None


def test_per_rank_duplicate_dicts_count_once():
    p = TextParser()
    lines = []
    for i in range(1, 4):
        for r in (0, 1):
            lines.append(f"[rank{r}]:{{'loss': {2 - i / 10}, 'epoch': {i / 3:.2f}}}")
    assert [(e.step, e.rank) for e in p.feed_lines(lines) if e.kind == "step"] == [(1, 0), (2, 0), (3, 0)]
