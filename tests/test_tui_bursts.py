"""Issue 25 item 1: keys that arrive in one burst (a laggy SSH link, a fast typist) land in the field they were
typed into, on every screen with editable fields, and what is planned / checked / written uses those values.

`burst` posts every key to the app at once, as a terminal's burst is read (Pilot.press waits for the app to be
idle after each key, which hides the defect): `End ctrl+u 1 0 2 4 Tab End ctrl+u 1` on the Check screen used to
give cutoff_len 1 and the micro-batch unchanged (the keys after the tab were forwarded to the old field, because
Textual moved the focus only once the tab had bubbled through the old field's queue).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from rocm_tune.core.check.check import check
from rocm_tune.core.hardware.devices.synthetic import FakeBackend
from rocm_tune.tui.app import RocmTuneApp
from rocm_tune.tui.check_model import CheckSession
from tests.helpers_tui import burst, typed, wait_for
from tests.test_tui_check import case  # noqa: F401  (the fixture: LLaMA-Factory #3708's files)

ANSWERS = {"gpu": "mi50-32gb", "gpus": 2, "model": "qwen2.5-7b", "method": "lora", "effective_batch": 64}


def refill(value: str) -> list[str]:
    """The keys that replace a field's text with `value` (End, ctrl+u, the characters)."""
    return ["end", "ctrl+u", *typed(value)]


async def burst_fields(pilot, values: dict[str, str], then: tuple[str, ...] = ()) -> list:
    """Focus the first field, then send ONE burst: each field's new text, and as many tabs as the focus chain
    holds between one field and the next (selects and lists in between are tabbed over); then `then`."""
    app = pilot.app
    screen = app.screen
    widgets = [screen.query_one(f"#{wid}") for wid in values]
    widgets[0].focus()
    await pilot.pause()
    chain = screen.focus_chain
    keys: list[str] = []
    for n, (w, text) in enumerate(zip(widgets, values.values())):
        if n:
            tabs = chain.index(w) - chain.index(widgets[n - 1])
            assert tabs > 0, f"#{w.id} does not follow #{widgets[n - 1].id} in the focus chain"
            keys += ["tab"] * tabs
        keys += refill(text)
    burst(app, *keys, *then)
    return widgets


async def landed(pilot, widgets: list, values: dict[str, str]) -> None:
    """Each field shows what was typed into it (the test fails naming what each one shows)."""
    want = list(values.values())
    try:
        await wait_for(pilot, lambda: [w.value for w in widgets] == want, 30)
    except AssertionError:
        raise AssertionError(f"typed {dict(zip(values, want))}, fields show "
                             f"{ {w.id: w.value for w in widgets} }") from None


def status(app) -> str:
    return str(app.screen.query_one("#status").render())


def test_a_burst_lands_in_each_wizard_field_and_the_plan_and_export_use_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rows = [{"instruction": "q " * (i % 200), "input": "", "output": "a " * (i * 7 % 600)} for i in range(60)]
    (tmp_path / "data.json").write_text(json.dumps(rows))

    async def go():
        app = RocmTuneApp(answers={"gpu": "mi50-32gb"}, backend=FakeBackend("mi50-32gb", 2, seed=1),
                          poll_interval=5.0)
        async with app.run_test(size=(80, 24)) as pilot:
            # Hardware: three fields, then ctrl+n in the same burst: the step takes the typed values
            await wait_for(pilot, lambda: type(app.screen).__name__ == "HardwareScreen")
            hw = {"in-gpus": "4", "in-nodes": "2", "in-cpu_ram_gib": "256"}
            await landed(pilot, await burst_fields(pilot, hw, ("ctrl+n",)), hw)
            await wait_for(pilot, lambda: type(app.screen).__name__ == "ModelScreen")
            assert (app.state.answers["gpus"], app.state.answers["nodes"], app.state.answers["cpu_ram_gib"]) \
                == (4, 2, 256)
            # Model: the name, then ctrl+n
            model = {"in-model": "qwen2.5-0.5b"}
            await landed(pilot, await burst_fields(pilot, model, ("ctrl+n",)), model)
            await wait_for(pilot, lambda: type(app.screen).__name__ == "GoalScreen")
            assert app.state.answers["model"] == "qwen2.5-0.5b" and app.state.model.name == "qwen2.5-0.5b"
            # Goal: batch, LoRA rank and epochs across the selects between them, then ctrl+n
            goal = {"in-effective_batch": "32", "in-lora_rank": "16", "in-epochs": "2"}
            await landed(pilot, await burst_fields(pilot, goal, ("ctrl+n",)), goal)
            await wait_for(pilot, lambda: type(app.screen).__name__ == "PlanScreen" and app.state.plan_dict, 60)
            a = app.state.answers
            assert (a["effective_batch"], a["lora_rank"], a["epochs"]) == (32, 16, 2)
            d = app.state.plan_dict
            assert d["goal"]["effective_batch"] == 32 and d["hardware"]["gpus"] == 4 and d["hardware"]["nodes"] == 2
            # Plan: the issue's burst (cutoff_len, tab, micro-batch), and grad accum; the re-plan uses them all
            mb = str(d["recommended"]["micro_batch"] + 1)
            plan = {"set-cutoff_len": "1024", "set-micro_batch": mb, "set-grad_accum": "2"}
            await landed(pilot, await burst_fields(pilot, plan), plan)
            scr = app.screen
            await wait_for(pilot, lambda: scr._planned_for is not None and scr._planned_for.get("cutoff_len") == 1024
                           and scr._planned_for.get("micro_batch") == int(mb)
                           and scr._planned_for.get("grad_accum") == 2, 60)
            rec = app.state.plan_dict["recommended"]
            assert (rec["cutoff_len"], rec["micro_batch"], rec["grad_accum"]) == (1024, int(mb), 2)
            # two fields and ctrl+n in one burst: the export is the plan of both typed values
            plan2 = {"set-cutoff_len": "768", "set-micro_batch": "1"}
            await landed(pilot, await burst_fields(pilot, plan2, ("ctrl+n",)), plan2)
            await wait_for(pilot, lambda: type(app.screen).__name__ == "ExportScreen"
                           and any(w.option_count for w in app.screen.query("#files")), 60)
            rec = app.state.plan_dict["recommended"]
            assert (rec["cutoff_len"], rec["micro_batch"]) == (768, 1)
            # Export: folder and dataset, then ctrl+s: written where typed, with that dataset
            exp = {"out-dir": "typed-bundle", "dataset": "data.json"}
            await landed(pilot, await burst_fields(pilot, exp, ("ctrl+s",)), exp)
            await wait_for(pilot, lambda: (tmp_path / "typed-bundle" / "llamafactory.yaml").is_file(), 60,
                           what=lambda: f"written (status: {status(app)})")
            lf = (tmp_path / "typed-bundle" / "llamafactory.yaml").read_text()
            assert "cutoff_len: 768" in lf and "per_device_train_batch_size: 1" in lf

    asyncio.run(go())


def test_a_burst_lands_in_each_field_of_the_launch_and_checkpoint_dialogs():
    from rocm_tune.tui.screens.checkpoints import CheckpointsScreen
    from rocm_tune.tui.screens.launch import LaunchModal

    async def go():
        app = RocmTuneApp(answers={"gpu": "mi50-32gb"}, backend=FakeBackend("mi50-32gb", 2, seed=1),
                          poll_interval=5.0)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: type(app.screen).__name__ == "HardwareScreen")
            got: list = []
            app.push_screen(LaunchModal("Launch?", "what would run"), got.append)
            await wait_for(pilot, lambda: type(app.screen).__name__ == "LaunchModal" and app.screen.query("#notify"))
            launch = {"retry-oom": "3", "notify": "https://ntfy.sh/my-runs"}
            await landed(pilot, await burst_fields(pilot, launch, ("enter",)), launch)
            await wait_for(pilot, lambda: got, 30)
            assert got == [{"retry_oom": 3, "notify": "https://ntfy.sh/my-runs"}]
            # the checkpoint list's resume size (no such run: the list says so, the fields still take keys)
            app.push_screen(CheckpointsScreen("no-such-run-xyz"))
            await wait_for(pilot, lambda: type(app.screen).__name__ == "CheckpointsScreen"
                           and any("no-such-run" in str(w.render()) for w in app.screen.query("#ck-status")))
            size = {"ck-gpus": "4", "ck-nodes": "2"}
            await landed(pilot, await burst_fields(pilot, size), size)
            assert app.screen.resume_size() == (4, 2)

    asyncio.run(go())


def test_the_issues_burst_on_the_check_screen_lands_in_both_fields_and_is_checked_and_written(case, tmp_path,  # noqa: F811
                                                                                               monkeypatch):
    paths, model = case
    monkeypatch.chdir(tmp_path)
    opts = {"gpu_id": "rtx3090", "vram_gib": None, "gpus": None, "nodes": None, "model_ref": model}
    session = CheckSession(paths, check(paths, **opts), opts)
    out = tmp_path / "typed-out"

    async def go():
        app = RocmTuneApp(check=session)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: type(app.screen).__name__ == "CheckPlanScreen"
                           and app.screen._fixed_report is not None, 60)
            scr = app.screen
            assert scr.query_one("#set-micro_batch").value == "1"
            # End ctrl+u 1 0 2 4 Tab End ctrl+u 2 (the issue's burst, a micro-batch other than the file's)
            values = {"set-cutoff_len": "1024", "set-micro_batch": "2"}
            await landed(pilot, await burst_fields(pilot, values), values)
            await wait_for(pilot, lambda: (scr._planned_for or {}).get("cutoff_len") == 1024
                           and (scr._planned_for or {}).get("micro_batch") == 2, 60)
            summary = str(scr.query_one("#plan-summary").render())
            assert "cutoff_len 1024" in " ".join(summary.split()) and "micro-batch 2" in summary
            # ctrl+n, then the folder typed in the dialog and enter, in one burst
            burst(app, "ctrl+n")
            await wait_for(pilot, lambda: type(app.screen).__name__ == "ExportFixModal" and app.screen.query("#fix-dir"))
            folder = {"fix-dir": str(out)}
            await landed(pilot, await burst_fields(pilot, folder, ("enter",)), folder)
            await wait_for(pilot, lambda: getattr(scr, "written", None), 30)

    asyncio.run(go())
    fixed = (out / Path(paths[0]).name).read_text()
    assert "cutoff_len: 1024" in fixed and "per_device_train_batch_size: 2" in fixed
