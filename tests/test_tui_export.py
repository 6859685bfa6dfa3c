"""Issue 12 defects 2 and 6: Export without a dataset is no dead end; ticks readable by glyph."""

from __future__ import annotations

import asyncio
import json

import pytest

from rocm_tune.core.hardware.devices.synthetic import FakeBackend
from rocm_tune.tui.app import RocmTuneApp
from tests.helpers_tui import wait_for

ANSWERS = {"gpu": "mi50-32gb", "gpus": 2, "model": "qwen2.5-7b", "method": "lora", "effective_batch": 64}


def status(app) -> str:
    return str(app.screen.query_one("#status").render())


def rows(app) -> list[str]:
    return ["".join(seg.text for seg in strip) for strip in app.screen._compositor.render_strips()]


@pytest.mark.slow
def test_export_without_dataset_uses_a_marked_placeholder_then_the_dataset_typed_here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rows_ = [{"instruction": f"q{i}", "input": "", "output": "a " * (i % 50)} for i in range(40)]
    (tmp_path / "mine.json").write_text(json.dumps(rows_))

    async def go():
        app = RocmTuneApp(start="export", answers=dict(ANSWERS), backend=FakeBackend("mi50-32gb", 2, seed=1),
                          poll_interval=5.0)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: type(app.screen).__name__ == "ExportScreen"
                           and any(w.option_count for w in app.screen.query("#files")))
            files = app.screen._files
            assert "dataset: CHANGE_ME_dataset" in files["llamafactory.yaml"]
            line = status(app)
            assert "CHANGE_ME_dataset" in line and len(line) <= 78 and "--" not in line
            # ticked and unticked formats differ by glyph, not only by colour
            app.screen.query_one("#formats").deselect("accelerate")
            await wait_for(pilot, lambda: "accelerate.yaml" not in app.screen._files)
            await pilot.pause(0.1)
            screen_rows = rows(app)
            assert any("[x] sh" in r for r in screen_rows) and any("[ ] accelerate" in r for r in screen_rows)
            app.screen.query_one("#out-dir").value = "out"
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: "wrote" in status(app))
            assert "placeholder" in status(app)
            assert "dataset: CHANGE_ME_dataset" in (tmp_path / "out" / "llamafactory.yaml").read_text()
            # a dataset named here replaces the placeholder (and the launch uses it too)
            app.screen.query_one("#dataset").value = "mine.json"
            await wait_for(pilot, lambda: "CHANGE_ME" not in app.screen._files.get("llamafactory.yaml", "CHANGE_ME"))
            assert "dataset: mine" in app.screen._files["llamafactory.yaml"]
            assert app.state.answers["dataset"] == "mine.json"
            assert "CHANGE_ME" not in status(app)
            # a missing dataset is named in one line, and ctrl+s says why nothing is written
            app.screen.query_one("#dataset").value = "nope.json"
            await wait_for(pilot, lambda: "does not exist" in status(app))
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: "nothing written" in status(app))
            # unticking every format: ctrl+s says so (not "choose a format" while some are ticked)
            app.screen.query_one("#dataset").value = ""
            lst = app.screen.query_one("#formats")
            lst.deselect_all()
            await wait_for(pilot, lambda: "no format ticked" in status(app))
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: "tick at least one format" in status(app))

    asyncio.run(go())


def test_a_folder_with_other_files_is_asked_about_in_the_app_never_refused_with_a_cli_flag(tmp_path, monkeypatch):
    """Issue 25 item 13: where `export -o` wants --force, the app asks; nothing of the user's is written over."""
    monkeypatch.chdir(tmp_path)
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("my notes\n")

    async def go():
        app = RocmTuneApp(start="export", answers=dict(ANSWERS), backend=FakeBackend("mi50-32gb", 2, seed=1),
                          poll_interval=5.0)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: type(app.screen).__name__ == "ExportScreen"
                           and any(w.option_count for w in app.screen.query("#files")))
            export = app.screen
            export.query_one("#out-dir").value = "mine"
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: type(app.screen).__name__ == "ConfirmModal" and app.screen.query(".title"))
            said = "\n".join(str(w.render()) for w in app.screen.query("Static"))
            assert "holds other files" in said and "--force" not in said
            await pilot.press("n")
            await wait_for(pilot, lambda: app.screen is export and "nothing written" in status(app))
            assert sorted(p.name for p in mine.iterdir()) == ["notes.txt"]
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: type(app.screen).__name__ == "ConfirmModal")
            await pilot.press("y")
            await wait_for(pilot, lambda: "wrote" in status(app))
            assert "--force" not in status(app) and (mine / "run.sh").is_file()
            assert (mine / "notes.txt").read_text() == "my notes\n"

    asyncio.run(go())


@pytest.mark.slow
def test_the_ms_swift_format_is_offered_unticked_and_ticking_it_adds_swift_sft_sh(tmp_path, monkeypatch):
    """Issue 24 item 2: the Export screen offers `swift` (another runner's format: not part of the default `all`);
    ticked, the bundle gets swift_sft.sh with the dataset typed here, as `export --format all,swift` writes it."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine.json").write_text(json.dumps([{"instruction": "q", "input": "", "output": "a"}] * 4))

    async def go():
        app = RocmTuneApp(start="export", answers=dict(ANSWERS), backend=FakeBackend("mi50-32gb", 2, seed=1),
                          poll_interval=5.0)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: type(app.screen).__name__ == "ExportScreen"
                           and any(w.option_count for w in app.screen.query("#files")))
            assert "swift_sft.sh" not in app.screen._files
            assert any("[ ] swift" in r for r in rows(app))
            app.screen.query_one("#dataset").value = "mine.json"
            app.screen.query_one("#formats").select("swift")
            await wait_for(pilot, lambda: "swift_sft.sh" in app.screen._files)
            text = app.screen._files["swift_sft.sh"]
            assert f"--dataset {tmp_path / 'mine.json'}" in text and "export NPROC_PER_NODE=2" in text
            assert "run.sh" in app.screen._files and "llamafactory.yaml" in app.screen._files

    asyncio.run(go())
