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


# ---------------------------------------------------------------------------------- the safe loaders (issue 25)


def test_safe_loaders_refuse_explosive_structure_naming_the_limit():
    from rocm_tune.core.files import load_json, load_toml, load_yaml, parse_python
    from tests.helpers_hostile import _BOMB_YAML

    assert "alias bomb" in one_line(load_yaml, _BOMB_YAML, "b.yaml", "config")
    assert "100 levels" in one_line(load_yaml, "a: &a [*a]\n", "r.yaml", "config")  # a recursive alias
    assert "100 levels" in one_line(load_yaml, "a:\n" + "".join(" " * i + "b:\n" for i in range(1, 150)), "d.yaml",
                                    "config")
    assert "x.y is an integer of 40 digits" in one_line(load_json, '{"x": {"y": %s}}' % ("9" * 40), "n.json", "config")
    assert "x.1 is '1e400'" in one_line(load_json, '{"x": [1, 1e400]}', "f.json", "config")
    assert "cutoff_len is '1.0e+999'" in one_line(load_yaml, "cutoff_len: 1.0e+999\n", "f.yaml", "config")
    assert "dotted key" in one_line(load_toml, "a" + ".a" * 200 + " = 1\n", "c.toml", "config")
    assert "too deeply" in one_line(parse_python, "x = " + "1+" * 100_000 + "1\n", "p.py", "program")
    # what real files hold still loads: explicit infinities, 30-digit ints, shared anchors used a few times
    assert load_yaml("a: .inf\nb: &x {k: 1}\nc: *x\nd: " + "9" * 30 + "\n", "ok.yaml", "config")["c"] == {"k": 1}
    assert load_json('{"a": Infinity, "b": 1e300}', "ok.json", "config")["b"] == 1e300


def test_as_int_and_as_str_are_the_use_site_type_checks():
    from rocm_tune.core.files import as_int, as_str

    assert as_int(4) == 4 and as_int(4.0) == 4 and as_int(True) is None and as_int(float("inf")) is None
    assert as_int([1]) is None and as_int("4") is None and as_int(5, 0, 3) is None and as_int(2.5) is None
    assert as_str("x") == "x" and as_str(["x"]) is None


def test_write_all_atomic_writes_all_or_nothing(tmp_path):
    from rocm_tune.core.errors import UserError
    from rocm_tune.core.files import write_all_atomic

    (tmp_path / "a.txt").write_text("old a")
    write_all_atomic({str(tmp_path / "a.txt"): "new a", str(tmp_path / "b.txt"): "new b"})
    assert (tmp_path / "a.txt").read_text() == "new a" and (tmp_path / "b.txt").read_text() == "new b"
    with pytest.raises(UserError) as e:  # the second target's folder is missing: the first is not replaced
        write_all_atomic({str(tmp_path / "a.txt"): "newer", str(tmp_path / "no" / "c.txt"): "c"})
    assert "nothing was written" in str(e.value) and (tmp_path / "a.txt").read_text() == "new a"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt", "b.txt"]  # no temp file left
