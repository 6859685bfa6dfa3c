"""Pilot test of the whole wizard: hardware -> model -> goal -> plan (edit) -> export writing files."""

from __future__ import annotations

import asyncio
import json

from rocm_tune.core.hardware.devices.synthetic import FakeBackend
from rocm_tune.tui.app import RocmTuneApp
from tests.helpers_tui import wait_for


async def type_into(pilot, widget, text):
    widget.focus()
    widget.value = ""
    for ch in text:
        await pilot.press(ch)


def status(app) -> str:
    return str(app.screen.query_one("#status").render())


def test_wizard_to_plan_to_export_writes_files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rows = [{"instruction": "q " * (i % 300), "input": "", "output": "a " * (i * 7 % 900)} for i in range(120)]
    (tmp_path / "data.json").write_text(json.dumps(rows))
    backend = FakeBackend("mi50-32gb", 2, seed=3, clock=lambda: 1e9)

    async def go():
        app = RocmTuneApp(backend=backend, poll_interval=0.2)
        async with app.run_test(size=(100, 32)) as pilot:
            # 1 hardware: the fake GPUs are detected; 'auto' plans for them
            await wait_for(pilot, lambda: app.screen.query_one("#gpus").row_count == 2)
            await pilot.press("ctrl+n")
            # 2 model: a bad reference is refused with a message, a preset is accepted
            await wait_for(pilot, lambda: type(app.screen).__name__ == "ModelScreen")
            inp = app.screen.query_one("#in-model")
            await type_into(pilot, inp, "no-such-model-xyz")
            await pilot.press("ctrl+n")
            await wait_for(pilot, lambda: "no-such-model-xyz" in status(app))
            assert type(app.screen).__name__ == "ModelScreen"
            await type_into(pilot, inp, "qwen2.5-7b")
            await pilot.pause(0.3)
            await pilot.press("ctrl+n")
            # 3 goal: effective batch, dataset (histogram appears)
            await wait_for(pilot, lambda: type(app.screen).__name__ == "GoalScreen")
            assert app.state.model.name == "qwen2.5-7b"
            await type_into(pilot, app.screen.query_one("#in-effective_batch"), "0")
            await pilot.press("ctrl+n")
            await wait_for(pilot, lambda: "effective_batch must be between" in status(app))
            await type_into(pilot, app.screen.query_one("#in-effective_batch"), "64")
            await type_into(pilot, app.screen.query_one("#in-dataset"), "data.json")
            await wait_for(pilot, lambda: app.state.dataset_stats is not None)
            assert "cutoff_len  truncated" in str(app.screen.query_one("#dataset-info").render())
            await pilot.press("ctrl+n")
            # 4 plan: recommendation on the detected GPUs; edits update memory and re-plan
            await wait_for(pilot, lambda: type(app.screen).__name__ == "PlanScreen" and app.state.plan_dict)
            d = app.state.plan_dict
            assert d["hardware"]["gpu"] == "mi50-32gb" and d["hardware"]["gpus"] == 2
            assert d["goal"]["effective_batch"] == 64 and d["recommended"]["precision"] != "bf16"
            before = d["memory"]["reserved_bytes"]
            cutoff = app.screen.query_one("#set-cutoff_len")
            await type_into(pilot, cutoff, "8192")
            await wait_for(pilot, lambda: app.state.plan_dict["recommended"]["cutoff_len"] == 8192
                           and app.state.plan_dict["memory"]["reserved_bytes"] > before)
            await pilot.press("ctrl+r")      # back to the recommendation
            await wait_for(pilot, lambda: app.state.plan_dict["memory"]["reserved_bytes"] == before)
            n_alt = len(d["alternatives"])
            if n_alt:
                await pilot.press("ctrl+o")
                await wait_for(pilot, lambda: "alternative 1" in status(app))
                await pilot.press("ctrl+o" if n_alt == 0 else "ctrl+r")
            await pilot.press("ctrl+n")
            # 5 export: preview, write, refuse silent overwrite, confirm -> force
            await wait_for(pilot, lambda: type(app.screen).__name__ == "ExportScreen"
                           and app.screen.query_one("#files").option_count > 0)
            out = app.screen.query_one("#out-dir")
            await type_into(pilot, out, "bundle")
            assert app.screen.query_one("#preview").text.startswith("#!")
            await pilot.press("ctrl+y")
            assert "copied run.sh" in status(app)
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: "wrote" in status(app))
            assert (tmp_path / "bundle" / "run.sh").is_file()
            plan_json = json.loads((tmp_path / "bundle" / "plan.json").read_text())
            assert plan_json["model"]["name"] == "qwen2.5-7b"
            (tmp_path / "bundle" / "run.sh").write_text("# mine\n")
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: type(app.screen).__name__ == "ConfirmModal")
            await pilot.press("n")
            await wait_for(pilot, lambda: "nothing written" in status(app))
            assert (tmp_path / "bundle" / "run.sh").read_text() == "# mine\n"
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: type(app.screen).__name__ == "ConfirmModal")
            await pilot.press("y")
            await wait_for(pilot, lambda: "wrote" in status(app))
            assert (tmp_path / "bundle" / "run.sh").read_text().startswith("#!")

    asyncio.run(go())


def test_plan_is_marked_edited_only_by_a_real_edit():
    """Filling the settings posts Changed messages that can arrive after loading ends: they are no edit."""
    from textual.widgets import Input

    answers = {"gpu": "mi50-32gb", "gpus": 2, "model": "qwen2.5-7b", "method": "lora", "effective_batch": 64}

    async def go():
        app = RocmTuneApp(start="plan", answers=answers, backend=FakeBackend("mi50-32gb", 2, seed=1),
                          poll_interval=5.0)
        async with app.run_test(size=(100, 32)) as pilot:
            await wait_for(pilot, lambda: type(app.screen).__name__ == "PlanScreen" and app.state.plan_dict)
            screen = app.screen
            cutoff = screen.query_one("#set-cutoff_len", Input)
            recommended = app.state.plan_dict["recommended"]["cutoff_len"]
            await pilot.pause(0.3)
            screen.post_message(Input.Changed(cutoff, cutoff.value))   # a late message from filling the fields
            await pilot.pause(0.5)
            assert "edited" not in status(app) and status(app).startswith("recommended")
            await type_into(pilot, cutoff, str(recommended // 2))
            await wait_for(pilot, lambda: "edited" in status(app)
                           and app.state.plan_dict["recommended"]["cutoff_len"] == recommended // 2)

    asyncio.run(go())
