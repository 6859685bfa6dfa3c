"""Issue 18 item 3: LLaMA-Factory datasets by name (`--dataset-name NAME[,NAME] [--dataset-dir DIR]`), driven as a
user drives them: the CLI (`export`, `plan`) in a working directory of its own, and the app's Export screen.

DIR defaults to `data`, which LLaMA-Factory resolves from where run.sh runs it (the bundle directory). A
dataset_info.json readable here is checked (one line naming the name and the closest names, exit 2); one that
is not readable here is left to the training machine, and the export says so. The real LLaMA-Factory loading
such a bundle is tests/realstack/test_dataset_name.py.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
import yaml

from tests.conftest import run_cli

MODEL = ["--model", "qwen2.5-0.5b", "--gpu", "mi250x", "--gpus", "1"]


def _rows(n: int, words: int) -> list[dict]:
    return [{"instruction": f"question {i}", "input": "", "output": " ".join(["word"] * words)} for i in range(n)]


def _data_dir(root: Path, info: dict | None = None) -> Path:
    """A LLaMA-Factory style data/ folder: dataset_info.json + two alpaca files."""
    d = root / "data"
    d.mkdir(parents=True)
    (d / "alpaca_en_demo.json").write_text(json.dumps(_rows(30, 12)), encoding="utf-8")
    (d / "identity.json").write_text(json.dumps(_rows(10, 3)), encoding="utf-8")
    info = info if info is not None else {
        "alpaca_en_demo": {"file_name": "alpaca_en_demo.json"},
        "alpaca_zh_demo": {"file_name": "alpaca_zh_demo.json"},
        "identity": {"file_name": "identity.json"},
        "glaive_toolcall_en_demo": {"file_name": "glaive.json", "formatting": "sharegpt"},
    }
    (d / "dataset_info.json").write_text(json.dumps(info, indent=2), encoding="utf-8")
    return d


@pytest.fixture(scope="module")
def plan_file(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("plan")
    r = run_cli("plan", *MODEL, "--json")
    assert r.returncode == 0, r.stderr
    (d / "plan.json").write_text(r.stdout, encoding="utf-8")
    return d / "plan.json"


def _export(cwd: Path, plan_file: Path, *args: str):
    return run_cli("export", "--plan", str(plan_file), *args, cwd=cwd)


def _one_error(r) -> str:
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert "Traceback" not in r.stderr and r.stderr.count("\n") == 1, r.stderr
    return r.stderr.strip()


def _lf(bundle: Path) -> dict:
    return yaml.safe_load((bundle / "llamafactory.yaml").read_text(encoding="utf-8"))


def _dataset_line(bundle: Path) -> str:
    lines = [ln for ln in (bundle / "run.sh").read_text(encoding="utf-8").splitlines() if ln.startswith("# dataset:")]
    assert len(lines) == 1, lines
    return lines[0]


# ----------------------------------------------------------------------------- not readable here


def test_name_not_readable_here_is_exported_for_the_training_machine(tmp_path, plan_file):
    """No data/dataset_info.json on this machine: exit 0, the bundle's data/ is named, and the user is told
    (a stderr note; the `dataset` field and `notes` of --json)."""
    r = _export(tmp_path, plan_file, "--dataset-name", "alpaca_en_demo", "-o", "bundle")
    assert r.returncode == 0, r.stderr
    bundle = (tmp_path / "bundle").resolve()
    lf = _lf(bundle)
    assert lf["dataset"] == "alpaca_en_demo" and lf["dataset_dir"] == str(bundle / "data")
    assert _dataset_line(bundle) == (f"# dataset: alpaca_en_demo, resolved by LLaMA-Factory in {bundle}/data/"
                                     "dataset_info.json on the machine that runs this script")
    notes = [ln for ln in r.stderr.splitlines() if ln.startswith("rocm-tune export: note: dataset alpaca_en_demo")]
    assert len(notes) == 1 and "training machine" in notes[0] and f"{bundle}/data/dataset_info.json" in notes[0]
    assert "dataset alpaca_en_demo" not in r.stdout  # the note is on stderr, not mixed into the file list
    # run.sh really runs from the bundle directory, where that relative `data` lives
    assert 'cd "$(dirname "${BASH_SOURCE[0]}")"' in (bundle / "run.sh").read_text(encoding="utf-8")

    j = _export(tmp_path, plan_file, "--dataset-name", "alpaca_en_demo", "--dataset-dir", "/srv/lf/data",
                "-o", "b2", "--json")
    assert j.returncode == 0, j.stderr
    out = json.loads(j.stdout)
    assert out["dataset"] == {"names": ["alpaca_en_demo"], "dataset_dir": "/srv/lf/data",
                              "resolved": "training machine", "checked": None}
    assert any("/srv/lf/data/dataset_info.json" in n and "training machine" in n for n in out["notes"])
    assert _lf(tmp_path / "b2")["dataset_dir"] == "/srv/lf/data"
    # a dataset_info.json that is a dangling link here (a mount of the training machine) is not readable here
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "dataset_info.json").symlink_to("/srv/lf/data/dataset_info.json")
    d = _export(tmp_path, plan_file, "--dataset-name", "alpaca_en_demo", "-o", "b3", "--json")
    assert d.returncode == 0, d.stderr
    assert json.loads(d.stdout)["dataset"]["resolved"] == "training machine"


def test_online_is_accepted_without_checking(tmp_path, plan_file):
    _data_dir(tmp_path)  # a local data/ that does not list the name: ONLINE never looks at it
    r = _export(tmp_path, plan_file, "--dataset-name", "llamafactory/alpaca_en", "--dataset-dir", "ONLINE",
                "-o", "b", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["dataset"]["resolved"] == "hub" and out["dataset"]["checked"] is None
    lf = _lf(tmp_path / "b")
    assert (lf["dataset"], lf["dataset_dir"]) == ("llamafactory/alpaca_en", "ONLINE")
    assert "from the hub (dataset_dir ONLINE)" in _dataset_line(tmp_path / "b")


# ----------------------------------------------------------------------------- readable here: checked


def test_unknown_name_is_one_line_with_the_closest_names_and_nothing_written(tmp_path, plan_file):
    _data_dir(tmp_path)
    msg = _one_error(_export(tmp_path, plan_file, "--dataset-name", "alpaca_en_dmeo", "-o", "b"))
    info = tmp_path / "data" / "dataset_info.json"
    assert msg == (f"rocm-tune export: error: dataset 'alpaca_en_dmeo' is not in {info}; "
                   "closest: alpaca_en_demo, alpaca_zh_demo")
    assert not (tmp_path / "b").exists()
    # each name of a comma list is checked; the bad one is named
    msg = _one_error(_export(tmp_path, plan_file, "--dataset-name", "alpaca_en_demo, identiy", "-o", "b"))
    assert "'identiy'" in msg and "closest: identity" in msg
    # nothing close: the names it does list
    msg = _one_error(_export(tmp_path, plan_file, "--dataset-name", "zzzz", "-o", "b"))
    assert "'zzzz'" in msg and "it lists: alpaca_en_demo, alpaca_zh_demo, glaive_toolcall_en_demo, identity" in msg
    assert not (tmp_path / "b").exists()


def test_known_names_in_the_current_directory_are_checked_and_written_absolute(tmp_path, plan_file):
    _data_dir(tmp_path)
    r = _export(tmp_path, plan_file, "--dataset-name", "alpaca_en_demo, identity", "-o", "b", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    info = str(tmp_path / "data" / "dataset_info.json")
    assert out["dataset"] == {"names": ["alpaca_en_demo", "identity"], "dataset_dir": str(tmp_path / "data"),
                              "resolved": "here", "checked": info}
    assert not any("dataset alpaca_en_demo" in n for n in out["notes"])  # checked: nothing to warn about
    lf = _lf(tmp_path / "b")
    assert (lf["dataset"], lf["dataset_dir"]) == ("alpaca_en_demo,identity", str(tmp_path / "data"))
    assert _dataset_line(tmp_path / "b") == (f"# dataset: alpaca_en_demo,identity, resolved by LLaMA-Factory in "
                                             f"{info} on the machine that runs this script")
    h = _export(tmp_path, plan_file, "--dataset-name", "identity", "-o", "b3")
    assert h.returncode == 0 and "note: dataset" not in h.stderr, h.stderr


def test_relative_dir_in_the_bundle_is_checked_there(tmp_path, plan_file):
    """Not in the current directory but in the bundle (where run.sh runs LLaMA-Factory): checked there, and the
    YAML names the bundle's folder."""
    work = tmp_path / "work"
    work.mkdir()
    bundle = tmp_path / "bundle"
    r = _export(work, plan_file, "--dataset-name", "identity", "--dataset-dir", "lf-data", "-o", str(bundle))
    assert r.returncode == 0 and "training machine" in r.stderr, r.stderr
    _data_dir(bundle)
    (bundle / "data").rename(bundle / "lf-data")
    msg = _one_error(_export(work, plan_file, "--dataset-name", "identiti", "--dataset-dir", "lf-data",
                             "-o", str(bundle), "--force"))
    assert f"{bundle / 'lf-data' / 'dataset_info.json'}; closest: identity" in msg
    assert _lf(bundle)["dataset"] == "identity"  # the failed export left the earlier bundle as it was
    r = _export(work, plan_file, "--dataset-name", "identity", "--dataset-dir", "lf-data", "-o", str(bundle),
                "--force", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["dataset"]["resolved"] == "bundle"
    assert _lf(bundle)["dataset_dir"] == str(bundle / "lf-data")


def test_malformed_or_wrong_dataset_info_is_one_line_naming_the_file(tmp_path, plan_file):
    d = tmp_path / "data"
    d.mkdir()
    (d / "dataset_info.json").write_text('{\n  "alpaca_en_demo": {"file_name": "a.json"},\n}\n', encoding="utf-8")
    msg = _one_error(_export(tmp_path, plan_file, "--dataset-name", "alpaca_en_demo", "-o", "b"))
    assert str(d / "dataset_info.json") in msg and "line 3 column 1" in msg
    (d / "dataset_info.json").write_text('["alpaca_en_demo"]', encoding="utf-8")
    msg = _one_error(_export(tmp_path, plan_file, "--dataset-name", "alpaca_en_demo", "-o", "b"))
    assert str(d / "dataset_info.json") in msg and "object" in msg
    (d / "dataset_info.json").write_text('{"alpaca_en_demo": "a.json"}', encoding="utf-8")
    msg = _one_error(_export(tmp_path, plan_file, "--dataset-name", "alpaca_en_demo", "-o", "b"))
    assert "'alpaca_en_demo'" in msg and str(d / "dataset_info.json") in msg
    assert not (tmp_path / "b").exists()


@pytest.mark.parametrize("args,named", [
    (["--dataset-name", "a,,b"], "'a,,b'"),
    (["--dataset-name", " "], "--dataset-name ' '"),
    (["--dataset-name", "a", "--dataset-dir", ""], "--dataset-dir ''"),
    (["--dataset-name", "a", "--dataset", "{f}"], "--dataset-name 'a'"),
    (["--dataset-dir", "data"], "--dataset-dir 'data'"),
    (["--dataset-name", "a\tb"], "'a\\tb'"),
])
def test_bad_dataset_flags_are_one_line(tmp_path, plan_file, args, named):
    f = tmp_path / "train.json"
    f.write_text(json.dumps(_rows(4, 2)), encoding="utf-8")
    msg = _one_error(_export(tmp_path, plan_file, *[a.replace("{f}", str(f)) for a in args], "-o", "b"))
    assert named in msg
    assert not (tmp_path / "b").exists()


# ----------------------------------------------------------------------------- plan and export from flags


def test_plan_uses_the_named_local_file_for_its_statistics(tmp_path):
    data = _data_dir(tmp_path)
    by_file = run_cli("plan", *MODEL, "--dataset", str(data / "alpaca_en_demo.json"), "--json", cwd=tmp_path)
    by_name = run_cli("plan", *MODEL, "--dataset-name", "alpaca_en_demo", "--json", cwd=tmp_path)
    none = run_cli("plan", *MODEL, "--json", cwd=tmp_path)
    assert by_file.returncode == by_name.returncode == none.returncode == 0, by_name.stderr
    cut = {k: json.loads(r.stdout)["recommended"]["cutoff_len"] for k, r in
           (("file", by_file), ("name", by_name), ("none", none))}
    assert cut["name"] == cut["file"] != cut["none"], cut
    assert by_name.stderr == ""
    # a typo: the same one line as export's
    msg = _one_error(run_cli("plan", *MODEL, "--dataset-name", "alpaca_en_dmo", cwd=tmp_path))
    assert msg.endswith(f"dataset 'alpaca_en_dmo' is not in {data / 'dataset_info.json'}; "
                        "closest: alpaca_en_demo, alpaca_zh_demo")
    # not readable here: planned without statistics, and said so
    far = run_cli("plan", *MODEL, "--dataset-name", "alpaca_en_demo", "--dataset-dir", "/srv/none", "--json",
                  cwd=tmp_path)
    assert far.returncode == 0 and json.loads(far.stdout)["recommended"]["cutoff_len"] == cut["none"]
    assert "without dataset statistics" in far.stderr and "/srv/none/dataset_info.json" in far.stderr


def test_export_from_flags_with_a_name(tmp_path):
    _data_dir(tmp_path)
    r = run_cli("export", *MODEL, "--dataset-name", "identity", "-o", "b", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    lf = _lf(tmp_path / "b")
    assert (lf["dataset"], lf["dataset_dir"]) == ("identity", str(tmp_path / "data"))
    plan = json.loads((tmp_path / "b" / "plan.json").read_text(encoding="utf-8"))
    assert plan["goal"]["dataset"] == str(tmp_path / "data")  # its statistics came from identity.json
    msg = _one_error(run_cli("export", *MODEL, "--dataset-name", "identty", "-o", "b2", cwd=tmp_path))
    assert "'identty'" in msg and "closest: identity" in msg and not (tmp_path / "b2").exists()


# ----------------------------------------------------------------------------- the app's Export screen


@pytest.mark.slow
def test_app_export_screen_checks_names_like_the_cli(tmp_path, monkeypatch):
    from rocm_tune.core.hardware.devices.synthetic import FakeBackend
    from rocm_tune.tui.app import RocmTuneApp
    from tests.helpers_tui import wait_for

    monkeypatch.chdir(tmp_path)
    _data_dir(tmp_path)
    cli = run_cli("export", *MODEL, "--dataset-name", "alpaca_en_dmeo", "-o", "x", cwd=tmp_path)
    cli_msg = _one_error(cli).removeprefix("rocm-tune export: error: ")
    answers = {"gpu": "mi250x", "gpus": 1, "model": "qwen2.5-0.5b", "method": "lora"}

    def status(app) -> str:
        return str(app.screen.query_one("#status").render())

    async def go():
        app = RocmTuneApp(start="export", answers=answers, backend=FakeBackend("mi250x", 1, seed=1),
                          poll_interval=5.0)
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_for(pilot, lambda: type(app.screen).__name__ == "ExportScreen"
                           and any(w.option_count for w in app.screen.query("#files")))
            field = app.screen.query_one("#dataset")
            field.value = "alpaca_en_dmeo"
            await wait_for(pilot, lambda: app.screen._error is not None)
            assert app.screen._error == cli_msg  # the CLI's line, word for word
            assert status(app).startswith("dataset 'alpaca_en_dmeo' is not in")  # (cut to the screen's width)
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: "nothing written" in status(app))
            field.value = "alpaca_en_demo,identity"
            await wait_for(pilot, lambda: "dataset: alpaca_en_demo,identity" in
                           app.screen._files.get("llamafactory.yaml", ""))
            assert f"dataset_dir: {tmp_path / 'data'}" in app.screen._files["llamafactory.yaml"]
            assert app.state.answers.get("dataset") is None  # a name is no local file for the Goal screen
            field.value = "alpaca_en_demo@/srv/lf/data"
            await wait_for(pilot, lambda: "dataset_dir: /srv/lf/data" in app.screen._files.get("llamafactory.yaml", ""))
            await wait_for(pilot, lambda: "not checked here" in status(app))
            app.screen.query_one("#out-dir").value = "out"
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: "wrote" in status(app))
        lf = _lf(tmp_path / "out")
        assert (lf["dataset"], lf["dataset_dir"]) == ("alpaca_en_demo", "/srv/lf/data")

    asyncio.run(go())
