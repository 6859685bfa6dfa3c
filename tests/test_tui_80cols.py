"""Issue 25 items 10, 12, 13 (app screens): at 80x24 nothing is cut or wrapped in the middle of a figure or a name,
the right-hand pane scrolls with pgup/pgdn whatever has the focus and a new plan reads from its top, and the app
speaks its own words (no wizard steps on the Check screen, ctrl+n named for where it goes, ZeRO changes in words,
no CLI flag in a refusal). Read from the rendered screen (the text a terminal shows)."""

from __future__ import annotations

import asyncio

from rocm_tune.core.check.check import check
from rocm_tune.core.hardware.devices.synthetic import FakeBackend
from rocm_tune.tui.app import RocmTuneApp
from rocm_tune.tui.check_model import CheckSession
from rocm_tune.tui.render import fmt_count, fmt_gib
from tests.helpers_tui import burst, wait_for
from tests.test_tui_check import case  # noqa: F401  (the fixture: LLaMA-Factory #3708's files)

ANSWERS = {"gpu": "mi50-32gb", "gpus": 2, "model": "qwen2.5-7b", "method": "lora", "effective_batch": 64}


def lines(app) -> list[str]:
    return ["".join(seg.text for seg in strip).rstrip() for strip in app.screen._compositor.render_strips()]


def screen_text(app) -> str:
    return "\n".join(lines(app))


def footer(app) -> str:
    return lines(app)[-1]


async def settled(pilot, n: int = 4) -> None:
    for _ in range(n):
        await pilot.pause()


def test_plan_pane_at_80x24_keeps_figures_whole_and_scrolls_with_pgdn_from_a_field():
    async def go():
        app = RocmTuneApp(start="plan", answers=dict(ANSWERS), backend=FakeBackend("mi50-32gb", 2, seed=1),
                          poll_interval=5.0)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: type(app.screen).__name__ == "PlanScreen" and app.state.plan_dict)
            await settled(pilot)
            d = app.state.plan_dict
            rec, hw = d["recommended"], d["hardware"]
            world = hw["gpus"] * (hw.get("nodes") or 1)
            text = screen_text(app)
            # each figure on one line, whole (the issue saw "on 2x" / "mi50-32gb")
            for figure in (f"{d['model']['name']} ({fmt_count(d['model']['params_total'])})",
                           f"on {hw['gpus']}x {hw['gpu']}",
                           (f"batch {rec['micro_batch']} x {rec['grad_accum']} accum x {world} GPU = "
                            f"{rec['micro_batch'] * rec['grad_accum'] * world}"),
                           "GiB/32 GiB"):
                assert any(figure in line for line in lines(app)), f"{figure!r} not whole on one line:\n{text}"
            assert any("ETA " in line and line.split("ETA ", 1)[1].strip() for line in lines(app)), text
            assert all(len(line) <= 80 for line in lines(app))
            # ctrl+n is named for where it goes; pgdn is on the footer; the footer fits 80 columns
            assert "^n Export" in footer(app) and "pgdn More" in footer(app) and footer(app).endswith("f1 Help")
            # pgdn scrolls the pane while a field has the focus (the keys never reach the field)
            field = app.screen.query_one("#set-cutoff_len")
            field.focus()
            before = field.value
            main = app.screen.query_one("#plan-main")
            assert main.max_scroll_y > 0 and main.scroll_y == 0
            codes = [w["code"] for w in d["warnings"]]
            assert codes and not any(f"! {c}" in screen_text(app) for c in codes[1:])   # below the fold
            burst(app, "pagedown")
            await wait_for(pilot, lambda: main.scroll_y > 0)
            await settled(pilot)
            assert any(f"! {c}" in screen_text(app) for c in codes[1:]), screen_text(app)   # the next warnings
            for _ in range(12):
                burst(app, "pagedown")
            await wait_for(pilot, lambda: main.scroll_y == main.max_scroll_y, 30,
                           lambda: f"scrolled to the end (at {main.scroll_y} of {main.max_scroll_y})")
            assert app.focused is field and field.value == before
            burst(app, "pageup")
            await wait_for(pilot, lambda: main.scroll_y < main.max_scroll_y)
            # ctrl+o: the next option reads from its top
            burst(app, "ctrl+o")
            await wait_for(pilot, lambda: main.scroll_y == 0 and "alternative 1" in screen_text(app), 30,
                           lambda: f"alternative 1 from the top (at {main.scroll_y}):\n{screen_text(app)}")

    asyncio.run(go())


def test_wizard_steps_name_where_ctrl_n_goes_and_preset_names_are_whole():
    async def go():
        app = RocmTuneApp(start="model", answers={"gpu": "mi50-32gb", "gpus": 2},
                          backend=FakeBackend("mi50-32gb", 2, seed=1), poll_interval=5.0)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: type(app.screen).__name__ == "ModelScreen")
            app.screen.query_one("#in-model").value = "deepseek"
            ol = app.screen.query_one("#presets")
            await wait_for(pilot, lambda: ol.option_count > 3 and app.screen._shown_query == "deepseek")
            await settled(pilot)
            names = [s.name for s in app.screen._specs]
            text = screen_text(app)
            shown = [n for n in names if n in text]
            # whole names, none cut; at 80x24 the list shows 14 rows (more matches scroll)
            assert len(shown) >= min(len(names), 14) and "…" not in text, text
            assert "^n Goal" in footer(app) and "^t Demo run" in footer(app)
            burst(app, "escape")
            await wait_for(pilot, lambda: type(app.screen).__name__ == "HardwareScreen")
            await settled(pilot)
            assert "^n Model" in footer(app) and "Next" not in footer(app)

    asyncio.run(go())


def test_check_screen_at_80x24_its_own_header_whole_phase_figures_and_zero_in_words(case, tmp_path,  # noqa: F811
                                                                                   monkeypatch):
    paths, model = case
    monkeypatch.chdir(tmp_path)
    opts = {"gpu_id": "rtx3090", "vram_gib": None, "gpus": None, "nodes": None, "model_ref": model}
    rep = check(paths, **opts)
    session = CheckSession(paths, rep, opts)

    async def go():
        app = RocmTuneApp(check=session)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: type(app.screen).__name__ == "CheckPlanScreen"
                           and app.screen._fixed_report is not None, 60)
            await settled(pilot)
            scr = app.screen
            first = lines(app)[0]
            assert first.strip().startswith("rocm-tune check  PQ_sft.yaml") and "Hardware" not in first
            assert "^n Write fix" in footer(app) and "Next" not in footer(app)
            for ph, p in rep.memory.items():
                if not p:
                    continue
                figure = f"{fmt_gib(p['reserved_bytes'])} ({fmt_gib(p['peak_allocated_bytes'])})"
                assert any(line.split("▕")[-1].lstrip().startswith(ph) and line.endswith(figure)
                           for line in lines(app)), f"{ph}: {figure} not whole on its line:\n{screen_text(app)}"
            assert not lines(app)[-2].endswith("…")   # the status line fits
            # a ZeRO stage edit: the change is said in words, not as the internal key
            scr.query_one("#set-zero_stage").value = "3"
            await wait_for(pilot, lambda: (scr._planned_for or {}).get("zero_stage") == 3, 60)
            fix = str(scr.query_one("#fix").render())
            assert "ZeRO stage 3" in fix and "__zero__" not in fix
            # pgdn from a field scrolls the pane; a new verdict reads from the top
            scr.query_one("#set-cutoff_len").focus()
            main = scr.query_one("#plan-main")
            burst(app, "pagedown")
            await wait_for(pilot, lambda: main.scroll_y > 0)
            burst(app, "ctrl+r")
            await wait_for(pilot, lambda: main.scroll_y == 0 and scr.query_one("#set-zero_stage").value == "2")

    asyncio.run(go())


def test_checkpoint_list_at_80x24_names_each_checkpoint_whole_and_labels_the_size_fields(tmp_path):
    from rocm_tune.core.runs.resume.resume import Checkpoint
    from rocm_tune.tui.resume_model import CheckpointList
    from rocm_tune.tui.screens.checkpoints import CheckpointsLoaded, CheckpointsScreen

    out = tmp_path / "a-rather-long-folder-name-for-the-runs" / "20261127-083000-qwen2.5-7b-lora-sft" / "output"
    cks = (Checkpoint(str(out / "checkpoint-1200"), 1200, True, weights="adapter", world_size=2),
           Checkpoint(str(out / "checkpoint-1100"), 1100, False, "optimizer.pt missing (cut short)"))

    async def go():
        app = RocmTuneApp(answers={"gpu": "mi50-32gb"}, backend=FakeBackend("mi50-32gb", 2, seed=1),
                          poll_interval=5.0)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: type(app.screen).__name__ == "HardwareScreen")
            app.push_screen(CheckpointsScreen("some-run"))
            await wait_for(pilot, lambda: type(app.screen).__name__ == "CheckpointsScreen"
                           and any("some-run" in str(w.render()) for w in app.screen.query("#ck-status")))
            app.screen.post_message(CheckpointsLoaded(CheckpointList("some-run", str(out), cks)))
            await wait_for(pilot, lambda: app.screen.query_one("#ck-table").row_count == 2)
            await settled(pilot)
            text = screen_text(app)
            assert "checkpoint-1200" in text and "checkpoint-1100" in text
            where = next(line for line in lines(app) if " in " in line and "output" in line)
            assert where.rstrip(" █▌▐").endswith("output")   # the folder, shortened from the left, on one line
            assert "resume on GPUs per node the plan's" in text and "nodes the plan's" in text
            burst(app, "down")   # the cut-short one: its full path's tail and why, below the table
            await wait_for(pilot, lambda: "optimizer.pt missing" in screen_text(app))
            assert "output/checkpoint-1100" in screen_text(app)

    asyncio.run(go())
