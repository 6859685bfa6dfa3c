"""FileFollower / sources: incremental, robust reading of growing logs; parsers never raise."""

from __future__ import annotations

import json
import os
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rocm_tune.core.runs.watch.parsers import (
    TextParser,
    events_from_trainer_state,
    llamafactory_parser,
    metrics_parser,
    parse_dict_text,
    parse_oom,
)
from rocm_tune.core.runs.watch.sources import FileFollower, LineSource, TrainerStateSource, sniff_kind


def test_missing_file_then_created_and_partial_lines(tmp_path):
    p = tmp_path / "log.txt"
    f = FileFollower(str(p))
    assert f.read_lines() == []          # does not exist yet
    with open(p, "ab") as fh:
        fh.write(b"first\nsec")
    assert f.read_lines() == ["first"]   # "sec" is incomplete: kept
    with open(p, "ab") as fh:
        fh.write(b"ond\nthird")
    assert f.read_lines() == ["second"]
    assert f.read_lines() == []
    assert f.flush_partial() == ["third"]


def test_truncation_restarts_from_zero(tmp_path):
    p = tmp_path / "log.txt"
    p.write_bytes(b"a\nb\nc\n")
    f = FileFollower(str(p))
    assert f.read_lines() == ["a", "b", "c"]
    p.write_bytes(b"x\n")                # truncated and rewritten (overwrite_output_dir)
    assert f.read_lines() == ["x"]
    assert f.truncations == 1


def test_rotation_drains_old_file_then_follows_new(tmp_path):
    p = tmp_path / "log.txt"
    p.write_bytes(b"1\n")
    f = FileFollower(str(p))
    assert f.read_lines() == ["1"]
    with open(p, "ab") as fh:
        fh.write(b"2\n")
    os.rename(p, tmp_path / "log.txt.1")  # logrotate: the writer's last lines are in the old file
    p.write_bytes(b"3\n")
    assert f.read_lines() == ["2", "3"]
    assert f.rotations == 1
    with open(p, "ab") as fh:
        fh.write(b"4\n")
    assert f.read_lines() == ["4"]


def test_invalid_utf8_binary_junk_and_carriage_returns(tmp_path):
    p = tmp_path / "log.txt"
    p.write_bytes(b"ok \xff\xfe junk\x00\n 1/10 [00:01<00:09, 1.00it/s]\r 2/10 [00:02<00:08, 1.00it/s]\r")
    f = FileFollower(str(p), split_cr=True)
    lines = f.read_lines()
    assert lines[0] == "ok \ufffd\ufffd junk\x00"
    assert lines[1:] == [" 1/10 [00:01<00:09, 1.00it/s]", " 2/10 [00:02<00:08, 1.00it/s]"]


def test_endless_line_is_cut(tmp_path):
    p = tmp_path / "log.txt"
    p.write_bytes(b"x" * 5000)
    f = FileFollower(str(p), max_line=1000)
    lines = f.read_lines()
    assert lines and all(len(x) <= 1000 for x in lines)


def test_line_source_parses_only_new_lines(tmp_path):
    p = tmp_path / "trainer_log.jsonl"
    src = LineSource("llamafactory", str(p))
    assert list(src.poll()) == []
    with open(p, "a") as fh:
        fh.write(json.dumps({"current_steps": 1, "total_steps": 4, "loss": 2.0}) + "\n")
        fh.write('{"current_steps": 2, "total_st')
    (batch,) = list(src.poll())
    assert [e.step for e in batch] == [1]
    with open(p, "a") as fh:
        fh.write('eps": 4, "loss": 1.5}\n')
    (batch,) = list(src.poll())
    assert [(e.step, e.loss) for e in batch] == [(2, 1.5)]


def test_trainer_state_source_picks_newest_checkpoint_and_emits_new_entries(tmp_path):
    def state(steps):
        return json.dumps({"max_steps": 10, "log_history": [{"step": s, "loss": 1.0 / s, "epoch": s / 10}
                                                             for s in steps]})

    (tmp_path / "checkpoint-2").mkdir()
    (tmp_path / "checkpoint-2" / "trainer_state.json").write_text(state([1, 2]))
    src = TrainerStateSource(str(tmp_path))
    (b,) = list(src.poll())
    assert [e.step for e in b] == [1, 2]
    assert list(src.poll()) == []  # unchanged
    (tmp_path / "checkpoint-4").mkdir()
    p4 = tmp_path / "checkpoint-4" / "trainer_state.json"
    p4.write_text(state([1, 2, 3, 4]))
    os.utime(p4, (os.stat(p4).st_atime, os.stat(p4).st_mtime + 5))
    (b,) = list(src.poll())
    assert [e.step for e in b] == [3, 4]


def test_sniff_kind(tmp_path):
    a = tmp_path / "x.jsonl"
    a.write_text('{"type": "start", "time": 1, "total_steps": 3}\n')
    b = tmp_path / "y.jsonl"
    b.write_text('{"current_steps": 1, "total_steps": 3, "loss": 1}\n')
    c = tmp_path / "z.log"
    c.write_text("hello\n")
    assert (sniff_kind(str(a)), sniff_kind(str(b)), sniff_kind(str(c))) == ("metrics", "llamafactory", "text")


# ---------------------------------------------------------------- property-based: never raise
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=12), kids, max_size=6),
    max_leaves=20,
)
keys = st.sampled_from(["type", "step", "loss", "grad_norm", "time", "mem", "kind", "message", "current_steps",
                        "total_steps", "lr", "epoch", "elapsed_time", "vram_allocated", "log_history", "eval_loss",
                        "train_runtime", "status", "config"])
loggy_dicts = st.dictionaries(keys, json_values, max_size=8)
_TOKENS = list("{}[]'\":,. 0123456789/|<>%-+eE\r\x1bnaifts_=") + [
    "loss", "grad_norm", "it/s", "s/it", "OVERFLOW! Skipping step", "Tried to allocate", "GiB", "[rank0]:", "step=",
    "nan", "inf", "out of memory", "Attempted loss scale: ", "\x00", "\ufffd", "Total optimization steps = "]
loggy_text = st.lists(st.sampled_from(_TOKENS), max_size=80).map("".join)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(st.text(max_size=200), loggy_text), max_size=20))
def test_text_parser_never_raises(lines):
    p = TextParser()
    p.feed_lines(lines)
    for line in lines:
        p.feed(line)
        parse_oom(line)
        parse_dict_text(line)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.one_of(loggy_dicts.map(lambda d: json.dumps(d, allow_nan=True)), st.text(max_size=80)),
                max_size=10))
def test_jsonl_parsers_never_raise(lines):
    for p in (metrics_parser(), llamafactory_parser()):
        p.feed_lines(lines)
        for line in lines:
            p.feed(line)


@settings(max_examples=100, deadline=None)
@given(json_values | st.dictionaries(keys, json_values) |
       st.builds(lambda h, m: {"log_history": h, "max_steps": m}, st.lists(loggy_dicts, max_size=5), json_values))
def test_trainer_state_never_raises(obj):
    events_from_trainer_state(obj)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=400) | loggy_text.map(lambda s: s.encode("utf-8", "replace")),
       cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=6))
def test_follower_chunking_gives_the_same_lines_as_one_read(tmp_path, data, cuts):
    """However the writer's bytes arrive, the lines are those of reading the whole file once."""
    p = tmp_path / f"f{abs(hash((data, tuple(cuts))))}.log"
    p.write_bytes(b"")
    f = FileFollower(str(p), split_cr=True)
    got: list[str] = []
    prev = 0
    for c in sorted({min(c, len(data)) for c in cuts}) + [len(data)]:
        with open(p, "ab") as fh:
            fh.write(data[prev:c])
        prev = c
        got += f.read_lines()
    got += f.flush_partial()
    f.close()
    whole = re.split(r"\r\n|\r|\n", data.decode("utf-8", "replace"))
    assert [x for x in got if x] == [x for x in whole if x]
    TextParser().feed_lines(got)
