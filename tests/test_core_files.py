"""rocm_tune.core.files: one-line errors that name the file, lenient peeks, atomic writes."""

from __future__ import annotations

import json
import os

import pytest

from rocm_tune.core.errors import UserError
from rocm_tune.core.files import (
    atomic_write_json,
    atomic_write_text,
    read_json,
    read_text,
    read_yaml,
    try_read_json,
    try_read_yaml,
)


def one_line(fn, *args, **kw) -> str:
    with pytest.raises(UserError) as e:
        fn(*args, **kw)
    msg = str(e.value)
    assert "\n" not in msg
    return msg


def test_read_json_errors_name_file_and_what(tmp_path):
    missing = tmp_path / "nope.json"
    assert one_line(read_json, missing, "plan file") == f"plan file {str(missing)!r} does not exist (no such file)"
    bad = tmp_path / "bad.json"
    bad.write_text('{"a": 1,\n "b": }')
    msg = one_line(read_json, bad, "plan file")
    assert msg.startswith(f"malformed JSON in plan file {bad} at line 2 column 7")
    arr = tmp_path / "arr.json"
    arr.write_text("[1, 2]")
    assert one_line(read_json, arr, "model config") == f"model config {arr} must hold a JSON object, got a JSON array"
    assert read_json(arr, "list", expect=list) == [1, 2]
    latin = tmp_path / "latin.json"
    latin.write_bytes(b'{"x": "caf\xe9"}')
    assert "is not UTF-8 text (bad byte at offset 10)" in one_line(read_json, latin, "x")
    assert "is a directory" in one_line(read_text, tmp_path, "dataset file")
    bom = tmp_path / "bom.json"
    bom.write_bytes(b'\xef\xbb\xbf{"k": 1}')
    assert read_json(bom, "x") == {"k": 1}


def test_read_yaml(tmp_path):
    good = tmp_path / "a.yaml"
    good.write_text("lr: 0.1\nname: x\n")
    assert read_yaml(good, "training config") == {"lr": 0.1, "name": "x"}
    empty = tmp_path / "e.yaml"
    empty.write_text("")
    assert read_yaml(empty, "training config") == {}
    bad = tmp_path / "b.yaml"
    bad.write_text("a: 1\nb: [unclosed\n")
    assert "is not valid YAML at line 3" in one_line(read_yaml, bad, "training config")
    lst = tmp_path / "l.yaml"
    lst.write_text("- 1\n")
    assert "must be a YAML mapping" in one_line(read_yaml, lst, "training config")


def test_lenient_readers_never_raise(tmp_path):
    bad = tmp_path / "bad"
    bad.write_text("{oops: [")
    assert try_read_json(bad, {}) == {} and try_read_json(tmp_path / "none") is None
    assert try_read_yaml(bad) is None and try_read_yaml(tmp_path / "none") is None
    ok = tmp_path / "ok.yaml"
    ok.write_text("a: 1\n")
    assert try_read_yaml(ok) == {"a": 1}


def test_atomic_write_keeps_mode_refuses_without_force_and_leaves_no_temp(tmp_path):
    p = tmp_path / "run.sh"
    atomic_write_text(p, "echo 1\n", mode=0o755)
    assert p.read_text() == "echo 1\n" and os.stat(p).st_mode & 0o777 == 0o755
    atomic_write_text(p, "echo 2\n")  # the replaced file's mode is kept
    assert p.read_text() == "echo 2\n" and os.stat(p).st_mode & 0o777 == 0o755
    msg = one_line(atomic_write_text, p, "echo 3\n", force=False)
    assert str(p) in msg and "--force" in msg and p.read_text() == "echo 2\n"
    atomic_write_json(tmp_path / "r.json", {"n": 1, "p": tmp_path})
    assert json.loads((tmp_path / "r.json").read_text()) == {"n": 1, "p": str(tmp_path)}
    assert sorted(x.name for x in tmp_path.iterdir()) == ["r.json", "run.sh"]
    msg = one_line(atomic_write_text, tmp_path / "no" / "dir" / "x", "y")   # bad input: names the directory
    assert str(tmp_path / "no" / "dir") in msg and "does not exist" in msg
    msg = one_line(atomic_write_text, tmp_path, "y")                        # a directory in the way
    assert str(tmp_path) in msg and "is a directory" in msg
    assert sorted(x.name for x in tmp_path.iterdir()) == ["r.json", "run.sh"]
