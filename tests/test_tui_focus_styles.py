"""Styles that follow the focus: the focused field's label is reversed (readable without colour), and only
that one, on the wizard's fields (QuestionField) and the Plan screen's settings (.setting)."""

from __future__ import annotations

import asyncio

import pytest

from helpers_tui import wait_for
from rocm_tune.tui.scenes import SCENES




def reversed_labels(app, field_selector: str, label_selector: str) -> list[str]:
    """The ids of the focused controls whose field's label is drawn reversed."""
    out = []
    for field in app.screen.query(field_selector):
        name = label_selector.lstrip(".")
        # a QuestionField draws its label itself, in its `q-label` component style; a .setting row holds a Label
        styles = (field.get_component_styles(name) if name in field._get_component_classes()
                  else field.query_one(label_selector).styles)
        if "reverse" in str(styles.text_style):
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


def computed_styles(screen) -> list[tuple]:
    """Every widget's computed CSS and component styles (DataTable's header, Input's cursor ...)."""
    out = []
    for w in screen.walk_children(with_self=True):
        components = tuple((name, str(w.get_component_rich_style(name, partial=True)))
                           for name in sorted(getattr(w, "COMPONENT_CLASSES", ())))
        out.append((repr(w), tuple(w._css_styles.css_lines), tuple(w.styles.inline.css_lines), components))
    return out


@pytest.mark.parametrize("scene", ["hardware", "model", "goal", "plan", "check", "monitor"])
def test_first_paint_styles_are_what_a_full_restyle_gives(scene, workdir, monkeypatch):
    """The first screen is painted without Textual's restyle of every widget on its first resume
    (screens.base.FreshScreen): restyling all of them at that moment changes nothing."""
    from rocm_tune.tui.app import RocmTuneApp

    compared: list[tuple[list, list]] = []
    original = RocmTuneApp.screen_painted

    def painted(self, screen=None):
        if self.first_paint_at is None:
            before = computed_styles(self.screen)
            self.stylesheet.update_nodes(self.screen.walk_children(with_self=True))
            compared.append((before, computed_styles(self.screen)))
        original(self, screen)

    monkeypatch.setattr(RocmTuneApp, "screen_painted", painted)

    async def run():
        app = SCENES[scene].make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: app.first_paint_at is not None, what="first paint")

    asyncio.run(run())
    assert compared
    before, after = compared[0]
    assert len(before) > 10
    changed = [(b, a) for b, a in zip(before, after) if b != a]
    assert not changed and len(before) == len(after), changed[:2]


@pytest.mark.parametrize("scene, field, ready", [
    ("hardware", "QuestionField", lambda app: type(app.screen).__name__ == "HardwareScreen"),
    ("plan", ".setting", lambda app: type(app.screen).__name__ == "PlanScreen" and app.state.plan_dict is not None),
])
def test_a_focus_move_gives_what_a_full_restyle_gives(scene, field, ready, workdir):
    """A focus move restyles only the nodes a `:focus`/`:blur`/`:focus-within` rule can apply to
    (screens.base.FreshScreen._update_focus_styles), not every node of the fields it leaves and enters:
    after each tab, restyling every widget of the screen changes nothing."""

    async def run():
        app = SCENES[scene].make_app()
        compared = []
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: ready(app), what=f"{scene} screen")
            if app.focused is None or not any(app.focused in f.walk_children() for f in app.screen.query(field)):
                next(w for f in app.screen.query(field) for w in f.walk_children() if w.focusable).focus()
            for _ in range(4):
                await pilot.press("tab")
                await pilot.pause()
                before = computed_styles(app.screen)
                app.stylesheet.update_nodes(app.screen.walk_children(with_self=True))
                compared.append((app.focused.id, before, computed_styles(app.screen)))
        return compared

    compared = asyncio.run(run())
    assert len({focused for focused, _, _ in compared}) == 4, "tab did not move through four fields"
    for focused, before, after in compared:
        assert len(before) > 10 and len(before) == len(after)
        changed = [(b, a) for b, a in zip(before, after) if b != a]
        assert not changed, (focused, changed[:2])
