"""The run list: runs side by side with their loss curves; mark two and compare their loss curves."""

from __future__ import annotations

import asyncio

from rocm_tune.tui.scenes import SCENES, prepare
from rocm_tune.tui.screens.runs import common_grid
from tests.helpers_tui import wait_for


def test_common_grid_lines_runs_up_by_step():
    a = [(s, 10.0 - s) for s in range(1, 11)]          # 10 steps
    b = [(s, 5.0) for s in range(2, 21, 2)]             # 20 steps, logged every 2
    (va, vb), last = common_grid([a, b], 4)
    assert last == 20 and va == [5.0, 0.0, None, None] and vb == [5.0, 5.0, 5.0, 5.0]


def test_run_list_shows_loss_curves_and_compares_two(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    prepare(tmp_path)
    scene = SCENES["monitor"]

    async def go():
        app = scene.make_app()
        async with app.run_test(size=(120, 36)) as pilot:
            await scene.ready(pilot)
            await pilot.press("r")
            await wait_for(pilot, lambda: type(app.screen).__name__ == "RunListScreen"
                           and app.screen.query_one("DataTable").row_count == 2 and len(app.screen._curves) == 2)
            t = app.screen.query_one("DataTable")
            curves = [str(t.get_row_at(i)[5]) for i in range(2)]
            assert all(any(c in "▁▂▃▄▅▆▇█" for c in curve) for curve in curves), curves
            await pilot.press("c")          # nothing marked yet: says what to do
            assert type(app.screen).__name__ == "RunListScreen"
            await pilot.press("space", "down", "space", "c")
            await wait_for(pilot, lambda: type(app.screen).__name__ == "CompareScreen")
            await pilot.pause(0.3)
            chart = str(app.screen.query_one("#cmp-chart").render())
            assert "qwen-lora" in chart and "fp16-overflow" in chart and "•" in chart

    asyncio.run(go())


def test_run_list_at_80x24_shows_every_column_to_elapsed(tmp_path, monkeypatch):
    """Issue 25 item 12: at 80 columns the elapsed column was cut off; the name column goes (the id ends with it)."""
    from rocm_tune.tui.screens.runs import run_row

    monkeypatch.chdir(tmp_path)
    prepare(tmp_path)
    scene = SCENES["monitor"]

    async def go():
        app = scene.make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await scene.ready(pilot)
            await pilot.press("r")
            await wait_for(pilot, lambda: type(app.screen).__name__ == "RunListScreen"
                           and app.screen.query_one("DataTable").row_count == 2 and len(app.screen._curves) == 2)
            await pilot.pause(0.2)
            screen = app.screen
            lines = ["".join(seg.text for seg in strip) for strip in screen._compositor.render_strips()]
            assert "elapsed" in "\n".join(lines)
            for r in screen._runs.values():
                row = run_row(r, app.clock(), None, 0.0, narrow=True)
                line = next(ln for ln in lines if r.id in ln)
                assert line.rstrip().endswith(row[-1]), (line, row[-1])
            title = str(screen.query_one("#runs-title").render())
            assert len(title) <= 78

    asyncio.run(go())
