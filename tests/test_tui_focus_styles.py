"""Styles that follow the focus: the focused field's label is reversed (readable without colour), and only
that one, on the wizard's fields (QuestionField) and the Plan screen's settings (.setting)."""

from __future__ import annotations

import asyncio

import pytest

from helpers_tui import wait_for
from rocm_tune.tui.scenes import SCENES, prepare


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    prepare(tmp_path)
    return tmp_path


def reversed_labels(app, field_selector: str, label_selector: str) -> list[str]:
    """The ids of the focused controls whose field's label is drawn reversed."""
    out = []
    for field in app.screen.query(field_selector):
        label = field.query_one(label_selector)
        if "reverse" in str(label.styles.text_style):
            controls = [w for w in field.walk_children() if w.focusable]
            out.append(controls[0].id if controls else field.id)
    return out


@pytest.mark.parametrize("scene, field, label, ready", [
    ("hardware", "QuestionField", ".q-label", lambda app: type(app.screen).__name__ == "HardwareScreen"),
    ("plan", ".setting", ".s-label",
     lambda app: type(app.screen).__name__ == "PlanScreen" and app.state.plan_dict is not None),
])
def test_the_reversed_label_is_the_focused_fields_only(scene, field, label, ready, workdir):
    async def run():
        app = SCENES[scene].make_app()
        seen = []
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: ready(app), what=f"{scene} screen")
            if app.focused is None or not any(app.focused in f.walk_children() for f in app.screen.query(field)):
                first = next(w for f in app.screen.query(field) for w in f.walk_children() if w.focusable)
                first.focus()
            for _ in range(4):
                await pilot.pause()
                seen.append((app.focused.id, reversed_labels(app, field, label)))
                await pilot.press("tab")
        return seen

    seen = asyncio.run(run())
    ids = [focused for focused, _ in seen]
    assert len(set(ids)) == 4, f"tab did not move through four fields: {ids}"
    for focused, shown in seen:
        assert shown == [focused], f"focus on {focused}, reversed labels of {shown}"
