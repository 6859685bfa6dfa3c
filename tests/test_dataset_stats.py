"""rocm_tune.core.data.dataset and `rocm-tune dataset`: formats, dataset_info.json, token counts, errors."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from rocm_tune.core.data.dataset import (
    APPROX_METHOD,
    CUTOFFS,
    SAMPLE_OVERHEAD,
    TURN_OVERHEAD,
    DatasetStats,
    analyze_dataset,
    approx_tokens,
    round_cutoff,
)
from rocm_tune.core.errors import UserError
from tests.conftest import run_cli

CHATML = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


def write_json(path: Path, data) -> Path:
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def write_jsonl(path: Path, rows) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def make_tokenizer(dir_: Path, chat_template: str | None = CHATML) -> Path:
    """A real word-level tokenizer (tokenizers library) with ChatML special tokens."""
    from tokenizers import AddedToken, Tokenizer, models, pre_tokenizers

    words = ["user", "assistant", "system", "hi", "there", "ok", "hello", "world", "the", "a", "is", "answer", "question"]
    vocab = {"[UNK]": 0}
    for w in words:
        vocab.setdefault(w, len(vocab))
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.add_special_tokens([AddedToken("<|im_start|>", special=True), AddedToken("<|im_end|>", special=True)])
    dir_.mkdir(parents=True, exist_ok=True)
    tok.save(str(dir_ / "tokenizer.json"))
    cfg = {"name_or_path": "tiny-wordlevel", "eos_token": "<|im_end|>"}
    if chat_template:
        cfg["chat_template"] = chat_template
    (dir_ / "tokenizer_config.json").write_text(json.dumps(cfg), encoding="utf-8")
    return dir_


# ----------------------------------------------------------------------------- formats


def test_alpaca_json_array_lengths_follow_the_approximation(tmp_path):
    rows = [
        {"instruction": "a" * 40, "input": "", "output": "b" * 80},  # 10 + 20 tokens, 2 turns
        {"instruction": "x" * 4, "input": "y" * 4, "output": "z" * 400, "system": "s" * 8},  # prompt "xxxx\nyyyy"
    ]
    stats = analyze_dataset(str(write_json(tmp_path / "d.json", rows)))
    assert stats.format == "alpaca" and stats.count == 2 and stats.tokenizer == APPROX_METHOD
    first = 10 + 20 + 2 * TURN_OVERHEAD + SAMPLE_OVERHEAD
    second = math.ceil(approx_tokens("s" * 8) + approx_tokens("xxxx\nyyyy") + 100) + 3 * TURN_OVERHEAD + SAMPLE_OVERHEAD
    assert stats.lengths == tuple(sorted([first, second]))


def test_alpaca_history_counts_every_turn(tmp_path):
    rows = [{"instruction": "q" * 40, "output": "r" * 40, "history": [["h" * 40, "g" * 40], ["i" * 40, "j" * 40]]}]
    stats = analyze_dataset(str(write_json(tmp_path / "h.json", rows)))
    assert stats.lengths == (6 * 10 + 6 * TURN_OVERHEAD + SAMPLE_OVERHEAD,)


def test_sharegpt_jsonl_and_messages_are_detected(tmp_path):
    conv = [{"from": "human", "value": "a" * 40}, {"from": "gpt", "value": "b" * 40}]
    sg = analyze_dataset(str(write_jsonl(tmp_path / "s.jsonl", [{"conversations": conv, "system": "c" * 40}] * 3)))
    assert sg.format == "sharegpt" and sg.count == 3
    assert sg.lengths == (30 + 3 * TURN_OVERHEAD + SAMPLE_OVERHEAD,) * 3
    msgs = [{"role": "system", "content": "s" * 4}, {"role": "user", "content": "u" * 4},
            {"role": "assistant", "content": [{"type": "text", "text": "a" * 8}]}]
    oa = analyze_dataset(str(write_jsonl(tmp_path / "m.jsonl", [{"messages": msgs}])))
    assert oa.format == "messages"
    assert oa.lengths == (1 + 1 + 2 + 3 * TURN_OVERHEAD + SAMPLE_OVERHEAD,)


def test_jsonl_content_in_a_json_file_is_read(tmp_path):
    p = tmp_path / "lines.json"
    p.write_text('{"instruction": "aaaa", "output": "bbbb"}\n{"instruction": "cccc", "output": "dddd"}\n')
    assert analyze_dataset(str(p)).count == 2


def test_preference_pairs_count_prompt_plus_longer_answer(tmp_path):
    rows = [{"instruction": "q" * 40, "chosen": "c" * 400, "rejected": "r" * 40}]
    stats = analyze_dataset(str(write_json(tmp_path / "dpo.json", rows)))
    assert stats.lengths == (10 + 100 + 2 * TURN_OVERHEAD + SAMPLE_OVERHEAD,)
    assert any("preference" in n for n in stats.notes)


def test_cjk_counts_one_token_per_character():
    assert approx_tokens("训练模型") == 4.0
    assert approx_tokens("abcd") == 1.0
    assert approx_tokens("1234") == 2.0
    assert approx_tokens("Привет") == 3.0


# ----------------------------------------------------------------------------- dataset_info.json


def test_dataset_info_entry_with_columns_and_tags(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    write_json(data / "chat.json", [{"dialog": [{"speaker": "me", "text": "a" * 40}, {"speaker": "bot", "text": "b" * 80}],
                                     "sys": "s" * 40}])
    write_json(data / "alp.json", [{"q": "x" * 40, "a": "y" * 40}, {"q": "x" * 4, "a": "y" * 4}])
    (data / "dataset_info.json").write_text(json.dumps({
        "mychat": {"file_name": "chat.json", "formatting": "sharegpt",
                   "columns": {"messages": "dialog", "system": "sys"},
                   "tags": {"role_tag": "speaker", "content_tag": "text", "user_tag": "me", "assistant_tag": "bot"}},
        "myalp": {"file_name": "alp.json", "columns": {"prompt": "q", "response": "a"}},
        "hub": {"hf_hub_url": "someone/data"},
    }))
    chat = analyze_dataset(str(data), dataset_name="mychat")
    assert chat.format == "sharegpt" and chat.name == "mychat" and chat.path == str(data)
    assert chat.lengths == (10 + 10 + 20 + 3 * TURN_OVERHEAD + SAMPLE_OVERHEAD,)
    alp = analyze_dataset(str(data / "dataset_info.json"), dataset_name="myalp")
    assert alp.count == 2 and alp.lengths[-1] == 20 + 2 * TURN_OVERHEAD + SAMPLE_OVERHEAD
    with pytest.raises(UserError, match="choose one with --name: hub, myalp, mychat"):
        analyze_dataset(str(data))
    with pytest.raises(UserError, match="'nope' is not in"):
        analyze_dataset(str(data), dataset_name="nope")
    with pytest.raises(UserError, match="only local files"):
        analyze_dataset(str(data), dataset_name="hub")


def test_dataset_info_file_name_can_be_a_folder(tmp_path):
    data = tmp_path / "d"
    (data / "parts").mkdir(parents=True)
    for i in range(3):
        write_jsonl(data / "parts" / f"p{i}.jsonl", [{"instruction": "a" * 4, "output": "b" * 4}] * (i + 1))
    (data / "dataset_info.json").write_text(json.dumps({"parts": {"file_name": "parts"}}))
    assert analyze_dataset(str(data)).count == 6


# ----------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    "name,content,pattern",
    [
        ("bad.jsonl", '{"instruction": "a", "output": "b"}\n\n{"instruction": oops}\n', r"on line 3 column \d+"),
        ("bad.json", '[{"instruction": "a",\n  "output": }]', r"at line 2 column \d+"),
        ("empty.json", "[]", "has no samples"),
        ("blank.jsonl", "\n\n", "has no samples"),
        ("keys.json", '[{"foo": 1, "bar": 2}]', r"unknown dataset format .*\['bar', 'foo'\]"),
        ("num.json", "42", "JSON int"),
        ("latin1.json", None, "not UTF-8"),
    ],
)
def test_bad_datasets_are_one_line_user_errors(tmp_path, name, content, pattern):
    p = tmp_path / name
    if content is None:
        p.write_bytes(b'[{"instruction": "caf\xe9"}]')
    else:
        p.write_text(content)
    with pytest.raises(UserError, match=pattern) as exc:
        analyze_dataset(str(p))
    assert "\n" not in str(exc.value)


def test_missing_path_and_cli_exit_code(tmp_path):
    with pytest.raises(UserError, match="does not exist"):
        analyze_dataset(str(tmp_path / "nope.json"))
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"instruction": "a"}\n{oops\n')
    out = run_cli("dataset", str(bad))
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and "line 2" in out.stderr and "Traceback" not in out.stderr


def test_records_without_text_are_skipped_and_reported(tmp_path):
    rows = [{"instruction": "a" * 4, "output": "b" * 4}, {"instruction": "", "output": ""}, "garbage"]
    stats = analyze_dataset(str(write_json(tmp_path / "x.json", rows)))
    assert stats.count == 1 and stats.skipped == 2


# ----------------------------------------------------------------------------- statistics


def test_percentiles_truncation_and_histogram_on_known_lengths():
    stats = DatasetStats(path="x", format="alpaca", count=100, tokenizer="t", lengths=tuple(range(1, 101)))
    assert stats.percentile(50) == 50 and stats.percentile(95) == 95 and stats.percentile(100) == 100
    assert stats.percentile(0) == 1
    assert stats.truncated_at(90) == 10 and stats.truncated_at(100) == 0 and stats.truncated_at(0) == 100
    hist = stats.histogram(10)
    assert sum(k for _, _, k in hist) == 100
    assert hist[0][0] <= 1 and hist[-1][1] > 100
    assert all(b > a for a, b, _ in hist)
    assert stats.suggested_cutoff(95) == 128
    d = stats.to_dict()
    assert [t["cutoff_len"] for t in d["truncated"]] == list(CUTOFFS)
    assert d["percentiles"]["p99"] == 99 and d["suggested_cutoff_len"] == 128
    with pytest.raises(UserError):
        stats.percentile(101)


def test_round_cutoff_uses_128_then_256_steps():
    assert [round_cutoff(n) for n in (1, 128, 129, 1024, 1025, 2000, 3000)] == [128, 128, 256, 1024, 1280, 2048, 3072]


# ----------------------------------------------------------------------------- real tokenizer


def test_tokenizer_with_chat_template_counts_exact_tokens(tmp_path):
    model = make_tokenizer(tmp_path / "model")
    rows = [{"instruction": "hi there", "output": "ok"}, {"instruction": "hello world the answer", "output": "a b c"}]
    stats = analyze_dataset(str(write_json(tmp_path / "d.json", rows)), model=str(model))
    # <|im_start|> user hi there <|im_end|> <|im_start|> assistant ok <|im_end|> = 9 tokens
    # <|im_start|> user hello world the answer <|im_end|> <|im_start|> assistant a b c <|im_end|> = 13
    assert stats.lengths == (9, 13)
    assert stats.tokenizer == "tiny-wordlevel (chat template)"


def test_tokenizer_without_template_adds_turn_overhead(tmp_path):
    model = make_tokenizer(tmp_path / "model", chat_template=None)
    rows = [{"instruction": "hi there", "output": "ok"}]
    stats = analyze_dataset(str(write_json(tmp_path / "d.json", rows)), model=str(model))
    assert stats.lengths == (3 + 2 * TURN_OVERHEAD + SAMPLE_OVERHEAD,)
    assert "no chat template" in stats.tokenizer


def test_model_dir_without_tokenizer_falls_back_with_a_note(tmp_path):
    (tmp_path / "m").mkdir()
    stats = analyze_dataset(str(write_json(tmp_path / "d.json", [{"instruction": "a", "output": "b"}])),
                            model=str(tmp_path / "m"))
    assert stats.tokenizer == APPROX_METHOD and any("approximated" in n for n in stats.notes)


def test_template_that_raises_is_counted_without_it(tmp_path):
    strict = "{% for m in messages %}{% if m['role'] == 'system' %}{{ raise_exception('no system') }}{% endif %}" \
             "<|im_start|>{{ m['content'] }}<|im_end|>{% endfor %}"
    model = make_tokenizer(tmp_path / "model", chat_template=strict)
    rows = [{"instruction": "hi", "output": "ok", "system": "the"}, {"instruction": "hi", "output": "ok"}]
    stats = analyze_dataset(str(write_json(tmp_path / "d.json", rows)), model=str(model))
    assert stats.count == 2 and any("failed on 1 samples" in n for n in stats.notes)
    assert 6 in stats.lengths  # the sample without system: 2 x (start, content, end)


# ----------------------------------------------------------------------------- CLI


def test_cli_report_and_json(tmp_path):
    rows = [{"instruction": "word " * n, "output": "ok"} for n in range(1, 400)]
    p = write_json(tmp_path / "d.json", rows)
    out = run_cli("dataset", str(p))
    assert out.returncode == 0, out.stderr
    assert "alpaca, 399 samples" in out.stdout and "cutoff_len" in out.stdout and "suggested cutoff_len" in out.stdout
    js = run_cli("dataset", str(p), "--json")
    assert js.returncode == 0
    data = json.loads(js.stdout)
    stats = analyze_dataset(str(p))
    assert data["count"] == 399 and data["percentiles"]["p95"] == stats.percentile(95)
    assert data["suggested_cutoff_len"] == round_cutoff(stats.percentile(95))
    assert data["suggested_cutoff_len"] >= data["percentiles"]["p95"]
    assert sum(h["count"] for h in data["histogram"]) == 399
    trunc = {t["cutoff_len"]: t["samples"] for t in data["truncated"]}
    assert trunc[256] == stats.truncated_at(256) and trunc[256] > 0


def test_cli_with_model_dir_tokenizer(tmp_path):
    model = make_tokenizer(tmp_path / "model")
    p = write_json(tmp_path / "d.json", [{"instruction": "hi there", "output": "ok"}])
    out = run_cli("dataset", str(p), "--model", str(model), "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["percentiles"]["max"] == 9
