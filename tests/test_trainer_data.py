"""Datasets of the built-in trainer: formats, chat template, prompt masking, cutoff, packing."""

from __future__ import annotations

import json

import pytest

from rocm_tune.core.errors import UserError
from rocm_tune.train.config import config_from_dict
from rocm_tune.train.data import (
    IGNORE_INDEX,
    Collator,
    build_datasets,
    encode,
    load_conversations,
    pack,
    resolve_dataset_files,
    to_messages,
)
from rocm_tune.train.tiny import build_tokenizer, tiny_records


@pytest.fixture(scope="module")
def tok():
    return build_tokenizer(tiny_records(60))


def labelled_text(tok, ex):
    return tok.decode([t for t, lab in zip(ex.input_ids, ex.labels) if lab != IGNORE_INDEX])


def test_alpaca_masks_everything_but_the_reply(tok):
    msgs = to_messages({"instruction": "count from", "input": "3", "output": "3 4 5 6"}, "alpaca")
    assert [m["role"] for m in msgs] == ["user", "assistant"] and msgs[0]["content"] == "count from\n3"
    ex = encode(tok, msgs, 1000)
    assert labelled_text(tok, ex) == "3 4 5 6<|im_end|>\n"
    full = tok.decode(ex.input_ids)
    assert full.startswith("<|im_start|>user\ncount from\n3<|im_end|>\n<|im_start|>assistant\n")
    # train_on_prompt: every token is a label
    ex2 = encode(tok, msgs, 1000, train_on_prompt=True)
    assert ex2.labels == ex2.input_ids


def test_sharegpt_and_messages_multi_turn(tok):
    sg = {"conversations": [{"from": "system", "value": "be brief"}, {"from": "human", "value": "red"},
                            {"from": "gpt", "value": "green"}, {"from": "human", "value": "blue"},
                            {"from": "gpt", "value": "cat"}]}
    msgs = to_messages(sg, "sharegpt")
    ms = to_messages({"messages": [{"role": r, "content": c} for r, c in
                                   [("system", "be brief"), ("user", "red"), ("assistant", "green"), ("user", "blue"),
                                    ("assistant", "cat")]]}, "messages")
    assert msgs == ms
    ex = encode(tok, msgs, 1000)
    # both assistant turns are trained, no user/system text is
    assert labelled_text(tok, ex) == "green<|im_end|>\ncat<|im_end|>\n"


def test_fallback_template_without_chat_template(tok):
    import copy

    t2 = copy.deepcopy(tok)
    t2.chat_template = None
    ex = encode(t2, to_messages({"instruction": "repeat the words", "input": "sun moon", "output": "sun moon"},
                                "alpaca"), 1000)
    assert labelled_text(t2, ex) == "sun moon<|im_end|>"
    assert "### User:" in t2.decode(ex.input_ids) and "### Assistant:" in t2.decode(ex.input_ids)


def test_cutoff_and_packing(tok):
    msgs = to_messages({"instruction": "repeat the words", "input": "a b", "output": "red green blue cat dog"}, "alpaca")
    full = encode(tok, msgs, 1000)
    cut = encode(tok, msgs, len(full.input_ids) - 3)
    assert cut.input_ids == full.input_ids[:-3]
    # a cutoff that removes the whole reply leaves nothing to learn: dropped
    assert encode(tok, msgs, 4) is None
    exs = [full] * 5
    packed = pack(exs, 32)
    assert all(len(p.input_ids) == 32 for p in packed[:-1])
    assert sum(len(p.input_ids) for p in packed) == 5 * len(full.input_ids)


def test_build_datasets_and_collator(tmp_path, tok):
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "config.json").write_text("{}")
    f = tmp_path / "d.jsonl"
    f.write_text("\n".join(json.dumps(r) for r in tiny_records(40)) + "\n")
    cfg = config_from_dict({"model_name_or_path": str(tmp_path / "m"), "train_file": str(f), "cutoff_len": 24,
                            "val_size": 0.1, "max_samples": 30})
    train, ev, stats = build_datasets(cfg, tok)
    assert stats["conversations"] == 30 and len(train) == 27 and len(ev) == 3
    assert stats["truncated"] > 0 and all(len(train[i]["input_ids"]) <= 24 for i in range(len(train)))
    col = Collator(tok.pad_token_id)
    batch = col([train[0], train[1]])
    n = max(len(train[0]["input_ids"]), len(train[1]["input_ids"]))
    assert tuple(batch["input_ids"].shape) == (2, n)
    assert int(batch["attention_mask"].sum()) == col.tokens == len(train[0]["input_ids"]) + len(train[1]["input_ids"])
    assert int((batch["labels"][batch["attention_mask"] == 0] != IGNORE_INDEX).sum()) == 0
    cfgp = config_from_dict({"model_name_or_path": str(tmp_path / "m"), "train_file": str(f), "cutoff_len": 64,
                             "packing": True})
    trainp, _, _ = build_datasets(cfgp, tok)
    assert len(trainp) < 40 and len(trainp[0]["input_ids"]) == 64


def test_dataset_info_json(tmp_path):
    d = tmp_path / "data"
    d.mkdir()
    (d / "mine.json").write_text(json.dumps([{"q": "hi", "a": "hello"}]))
    (d / "chat.json").write_text(json.dumps([{"msgs": [{"r": "u", "c": "x"}, {"r": "a", "c": "y"}]}]))
    (d / "dataset_info.json").write_text(json.dumps({
        "mine": {"file_name": "mine.json", "columns": {"prompt": "q", "response": "a"}},
        "chat": {"file_name": "chat.json", "formatting": "sharegpt", "columns": {"messages": "msgs"},
                 "tags": {"role_tag": "r", "content_tag": "c", "user_tag": "u", "assistant_tag": "a"}},
        "hub": {"hf_hub_url": "org/x"},
    }))
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "config.json").write_text("{}")
    cfg = config_from_dict({"model_name_or_path": str(tmp_path / "m"), "dataset": "mine,chat", "dataset_dir": str(d)})
    convs = load_conversations(cfg)
    assert convs == [[{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}],
                     [{"role": "user", "content": "x"}, {"role": "assistant", "content": "y"}]]
    with pytest.raises(UserError, match="no local file_name"):
        resolve_dataset_files("hub", str(d))
    with pytest.raises(UserError, match="'nope' is neither"):
        resolve_dataset_files("nope", str(d))


@pytest.mark.parametrize("text,needle", [
    ("", "has no samples"),
    ("[1, 2]", "first sample of .*x.json is a JSON int, expected an object"),
    ('[{"instruction": "a", "output": "b"}, 7]', "x.json record 1: the record is a JSON int"),
    ('{"instruction": "a", "output": "b"}\n{oops\n', "on line 2 column 2"),
    ("[{]", "malformed JSON in .* at line 1 column 3"),
    ('[{"instruction": "a"}]', "record 0: the record has no 'output'"),
    ('[{"foo": 1}]', r"unknown dataset format .*\['foo'\]"),
    ('[{"messages": [{"role": "robot", "content": "x"}]}]', "unknown role 'robot'"),
    ('[{"instruction": "q", "chosen": "a", "rejected": "b"}]', "preference data"),
])
def test_malformed_files(tmp_path, text, needle):
    f = tmp_path / "x.json"
    f.write_text(text)
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "config.json").write_text("{}")
    cfg = config_from_dict({"model_name_or_path": str(tmp_path / "m"), "train_file": str(f)})
    with pytest.raises(UserError, match=needle) as exc:
        load_conversations(cfg)
    assert "\n" not in str(exc.value)


def test_unknown_roles_are_refused():
    with pytest.raises(UserError, match="unknown role 'robot'"):
        to_messages({"messages": [{"role": "robot", "content": "x"}]}, "messages")


def test_tools_and_observations_and_pretraining_text(tmp_path):
    rec = {"conversations": [{"from": "human", "value": "q"}, {"from": "function_call", "value": "f()"},
                             {"from": "observation", "value": "42"}, {"from": "gpt", "value": "a"}],
           "system": "be brief", "tools": "[f]"}
    f = tmp_path / "t.jsonl"
    f.write_text(json.dumps(rec) + "\n")
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "config.json").write_text("{}")
    cfg = config_from_dict({"model_name_or_path": str(tmp_path / "m"), "train_file": str(f)})
    assert load_conversations(cfg) == [[
        {"role": "system", "content": "[f]\n\nbe brief"}, {"role": "user", "content": "q"},
        {"role": "assistant", "content": "f()"}, {"role": "user", "content": "42"},
        {"role": "assistant", "content": "a"}]]
    assert to_messages({"text": "plain words"}, "text") == [{"role": "text", "content": "plain words"}]
