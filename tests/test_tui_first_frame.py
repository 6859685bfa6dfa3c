"""The first frame is the whole screen and stays right: the footer's keys are in it (no second layout pass
mounts them), a focus move that shows the same keys rebuilds nothing, and a table whose column widths
grow after a frame was drawn never keeps lines drawn at the old widths (issue 25 item 15)."""

from __future__ import annotations

import asyncio
from functools import partial

from textual.app import App
from textual.binding import Binding
from textual.geometry import Region
from textual.screen import Screen
from textual.widgets import Footer, Input, Static

from helpers_tui import wait_for
from rocm_tune.tui.widgets.footer import KeyFooter
from rocm_tune.tui.widgets.table import FitTable


def keys_of(footer) -> list[tuple[str, str]]:
    return footer.keys


def test_hardware_first_frame_has_the_footer_keys(monkeypatch):
    monkeypatch.setenv("ROCM_TUNE_FAKE_GPUS", "mi50-32gb:2")
    from rocm_tune.tui.app import RocmTuneApp

    at_paint: list[list[tuple[str, str]]] = []
    original = RocmTuneApp.screen_painted

    def painted(self, screen=None):
        if self.first_paint_at is None:
            at_paint.append(keys_of(self.screen.query_one(KeyFooter)))
        original(self, screen)

    monkeypatch.setattr(RocmTuneApp, "screen_painted", painted)
    recomposed: list[bool] = []   # per footer rebuild: was the first frame painted by then
    original_recompose = Footer.recompose

    async def recompose(self):
        recomposed.append(self.app.first_paint_at is not None)
        return await original_recompose(self)

    monkeypatch.setattr(Footer, "recompose", recompose)

    async def run():
        app = RocmTuneApp(start="hardware")
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: app.first_paint_at is not None, what="first paint")
            await wait_for(pilot, lambda: app.screen.query_one("#gpus").row_count == 2, what="GPU rows")
            await pilot.pause()
            return keys_of(app.screen.query_one(KeyFooter))

    settled = asyncio.run(run())
    assert at_paint and at_paint[0], "the first frame's footer has no keys"
    assert False not in recomposed, "a second layout pass rebuilt the footer before the first frame"
    assert at_paint[0] == settled
    assert ("ctrl+n", "Model") in settled and ("f1", "Help") in settled


class _Keys(Screen):
    def compose(self):
        yield Input(id="a")
        yield Input(id="b")
        yield _WithKey(id="c")
        yield KeyFooter()


class _WithKey(Static, can_focus=True):
    BINDINGS = [Binding("x", "noop", "Extra")]

    def action_noop(self) -> None:
        pass


class _KeysApp(App):
    ENABLE_COMMAND_PALETTE = False
    BINDINGS = [Binding("f1", "noop", "Help")]

    def on_mount(self) -> None:
        self.push_screen(_Keys())

    def action_noop(self) -> None:
        pass


def test_footer_rebuilds_only_when_its_keys_change():
    async def run():
        app = _KeysApp()
        async with app.run_test(size=(80, 10)) as pilot:
            screen = app.screen
            footer = screen.query_one(KeyFooter)
            await wait_for(pilot, lambda: app.focused is not None and app.focused.id == "a", what="focus on a")
            await pilot.pause()
            first = footer._entries
            assert keys_of(footer) == [("f1", "Help")] and not footer.children   # one widget, no FooterKey
            screen.set_focus(screen.query_one("#b"))          # same keys shown: nothing rebuilt
            await pilot.pause()
            await pilot.pause()
            assert footer._entries is first
            screen.set_focus(screen.query_one("#c"))          # a key of the focused widget: shown
            await wait_for(pilot, lambda: ("x", "Extra") in keys_of(footer), what="the focused widget's key")
            screen.set_focus(screen.query_one("#a"))          # and gone again
            await wait_for(pilot, lambda: keys_of(footer) == [("f1", "Help")], what="the key gone")

    asyncio.run(run())


class _ClickApp(App):
    ENABLE_COMMAND_PALETTE = False
    BINDINGS = [Binding("f2", "hit('one')", "One"), Binding("f3", "hit('two')", "Two"),
                Binding("f4", "hit('off')", "Off")]

    def __init__(self, compact: bool) -> None:
        super().__init__()
        self.compact, self.hits = compact, []

    def compose(self):
        yield KeyFooter(compact=self.compact)

    def action_hit(self, name: str) -> None:
        self.hits.append(name)

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        return None if parameters == ("off",) else True   # None: shown, disabled (dim), as Footer shows it


def test_a_click_on_a_footer_key_runs_it_and_the_key_under_the_mouse_is_highlighted():
    """The one-widget footer acts as Footer's FooterKeys: a click on a key's cells runs its binding (on either
    side of a key: its first and last cell), a click between keys or on a disabled key runs nothing, the key under
    the mouse is drawn in the hover background and no other, compact or not."""

    async def run(compact: bool):
        app = _ClickApp(compact)
        async with app.run_test(size=(60, 3)) as pilot:
            footer = app.query_one(KeyFooter)
            await pilot.pause()
            strip = footer.render_line(0)
            spans = footer._spans
            assert [footer._entries[i].description for _, _, i in spans] == ["One", "Two", "Off"]
            (a0, a1, _), (b0, b1, _), (c0, _, _) = spans
            await pilot.click(KeyFooter, offset=(a0, 0))
            await pilot.click(KeyFooter, offset=(b1 - 1, 0))
            await pilot.click(KeyFooter, offset=(c0, 0))            # disabled: a bell, no action
            await pilot.click(KeyFooter, offset=(59, 0))            # past the keys
            if compact:
                await pilot.click(KeyFooter, offset=(a1, 0))        # the margin between two keys
            await pilot.pause()
            await pilot.hover(KeyFooter, offset=(b0, 0))
            await pilot.pause()
            hovered = footer.render_line(0)
            return app.hits, strip, hovered, (b0, b1), footer.get_component_rich_style("key-footer--hover")

    for compact in (True, False):
        hits, before, after, (b0, b1), hover = asyncio.run(run(compact))
        assert hits == ["one", "two"], (compact, hits)
        cells = lambda strip: [(seg.text, seg.style) for seg in strip]  # noqa: E731
        assert "".join(t for t, _ in cells(before)) == "".join(t for t, _ in cells(after))
        changed = [x for x in range(60) if before.crop(x, x + 1)._segments[0].style
                   != after.crop(x, x + 1)._segments[0].style]
        assert changed and min(changed) == b0 and max(changed) == b1 - 1, (compact, changed, b0, b1)
        assert all(after.crop(x, x + 1)._segments[0].style.bgcolor == hover.bgcolor for x in changed)


class _TableApp(App):
    def compose(self):
        table = FitTable(id="t")
        table.styles.height = 5   # fixed: the rows added below do not resize it (a resize hides the race)
        yield table


def test_table_lines_follow_column_widths_that_grow_after_a_frame():
    async def run():
        app = _TableApp()
        async with app.run_test(size=(80, 10)) as pilot:
            table = app.query_one(FitTable)
            for c in ("#", "name", "power"):
                table.add_column(c, key=c)
            await pilot.pause()
            table.add_row("0", "AMD Instinct MI50 32GB", "250 W")
            # a frame drawn before the table's idle handler has widened the columns to the new row
            table.render_lines(Region(0, 0, table.size.width, table.size.height))
            await pilot.pause()
            return [s.text for s in table.render_lines(Region(0, 0, table.size.width, 2))]

    header, row = asyncio.run(run())
    assert row.split() == ["0", "AMD", "Instinct", "MI50", "32GB", "250", "W"]
    assert header.index("name") == row.index("AMD") and header.index("power") == row.index("250 W")


def test_ordered_input_has_the_classes_textual_input_gives_it():
    """OrderedInput gives '-valid' at construction where Input's value watcher would add it (no restyle of an
    unmounted node); after mount and after a change of value its classes are Input's own, validators or not."""
    from textual.validation import Number

    from rocm_tune.tui.widgets.inputs import OrderedInput

    cases = [
        ("1", {}), ("", {}), ("1", {"type": "integer"}), ("x", {"type": "integer"}),
        ("7", {"validators": [Number(minimum=10)]}), ("7", {"validate_on": ["submitted"]}),
        ("abc", {"restrict": "[a-z]*"}), ("1", {"classes": "mine"}),
    ]

    class Pair(App):
        def compose(self):
            for i, (value, kw) in enumerate(cases):
                yield Input(value, id=f"plain-{i}", **kw)
                yield OrderedInput(value, id=f"ordered-{i}", **kw)

    async def run():
        app = Pair()
        seen = []
        async with app.run_test() as pilot:
            await pilot.pause()
            for stage in ("mounted", "changed"):
                for i in range(len(cases)):
                    plain, ordered = app.query_one(f"#plain-{i}", Input), app.query_one(f"#ordered-{i}", Input)
                    seen.append((stage, cases[i], set(plain.classes), set(ordered.classes)))
                    if stage == "mounted":
                        plain.value = ordered.value = "12"
                await pilot.pause()
        return seen

    seen = asyncio.run(run())
    assert any("-valid" in ordered for _, _, _, ordered in seen) and any("-invalid" in o for _, _, _, o in seen)
    for stage, case, plain, ordered in seen:
        assert ordered == plain, (stage, case, plain, ordered)


def test_first_focus_restyles_the_focused_field_once(monkeypatch):
    """The first screen's focus restyles the focused field's subtree once (set_focus's `:focus-within` restyle),
    not first the control's parts through its own focus watcher and then the field (inputs._FocusedOnce); what it
    gives is a full restyle's (tests/test_tui_focus_styles.py), and a focus moved by tab restyles the control. Of the
    field, only the nodes a focus rule can apply to are restyled (screens.base.FreshScreen._update_focus_styles):
    the field itself (its label is its `q-label` component) and the Select's current-value line, not the Select's
    own node or the help line."""
    monkeypatch.setenv("ROCM_TUNE_FAKE_GPUS", "mi50-32gb:2")
    from textual.css.stylesheet import Stylesheet

    from rocm_tune.tui.app import RocmTuneApp

    restyled: list[list[str]] = []
    original = Stylesheet.update_nodes

    def update_nodes(self, nodes, animate=False):
        nodes = list(nodes)
        restyled.append([n.id or type(n).__name__ for n in nodes])
        return original(self, nodes, animate)

    monkeypatch.setattr(Stylesheet, "update_nodes", update_nodes)

    async def run():
        app = RocmTuneApp(start="hardware")
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: app.first_paint_at is not None, what="first paint")
            at_paint = [ids for ids in restyled if "q-gpu" in ids]
            await pilot.press("tab")
            await pilot.pause()
            return at_paint, app.focused.id, [ids for ids in restyled if app.focused.id in ids]

    at_paint, focused, after_tab = asyncio.run(run())
    assert len(at_paint) == 1 and {"q-gpu", "ArrowCurrent"} <= set(at_paint[0]), at_paint   # the field: its label
    assert not {"in-gpu", "Static"} & set(at_paint[0]), at_paint
    assert focused != "in-gpu" and after_tab, after_tab




def test_no_widget_of_any_scene_has_a_tooltip(workdir):
    """The app runs without Textual's hidden Tooltip widget on each screen (RocmTuneApp sets _disable_tooltips,
    as App.run_test does): no widget of any screen of any scene has a tooltip that it would keep from showing."""
    from rocm_tune.tui.scenes import SCENES

    async def run(scene):
        app = scene.make_app()
        assert app._disable_tooltips   # the app itself, before run_test sets it for the test
        async with app.run_test(size=(80, 24)) as pilot:
            await scene.ready(pilot)
            widgets = [w for s in app.screen_stack for w in s.walk_children(with_self=True)]
            return len(widgets), [(scene.name, repr(w)) for w in widgets if w.tooltip is not None]

    for scene in SCENES.values():
        count, with_tooltip = asyncio.run(run(scene))
        assert count > 5 and not with_tooltip, with_tooltip


FIRST_PAINT_MODULES = r"""
import asyncio, json, os, sys
from rocm_tune.tui.app import RocmTuneApp
at_paint = []
painted = RocmTuneApp.screen_painted
def screen_painted(self, screen=None):
    if self.first_paint_at is None:   # the moment the first frame is on the terminal (the workers start after it)
        at_paint.append((type(self.screen).__name__, sorted(sys.modules)))
    painted(self, screen)
RocmTuneApp.screen_painted = screen_painted
async def main():
    app = RocmTuneApp(start="hardware")
    task = asyncio.create_task(app.run_async(headless=True, size=(80, 24)))
    while app.first_paint_at is None and not task.done():
        await asyncio.sleep(0.001)
    print(json.dumps(at_paint[0]))
    os._exit(0)
asyncio.run(main())
"""


def test_the_first_paint_loads_only_what_the_first_screen_shows(monkeypatch):
    """In a fresh interpreter, as `rocm-tune` starts, the Hardware screen is painted before anything it does not
    show is imported: no other screen, no GPU detection or doctor (they run after the paint, in workers), no
    formatter of their values, no Switch (no yes/no question on it), nothing heavy (benchmarks/tui_startup.py)."""
    import json
    import subprocess
    import sys

    monkeypatch.setenv("ROCM_TUNE_FAKE_GPUS", "mi50-32gb:2")
    out = subprocess.run([sys.executable, "-c", FIRST_PAINT_MODULES], capture_output=True, text=True, timeout=300,
                         check=True)
    screen, modules = json.loads(out.stdout.strip().splitlines()[-1])
    assert screen == "HardwareScreen"
    assert "rocm_tune.tui.screens.hardware" in modules and "textual.widgets._data_table" in modules
    not_yet = {"textual.widgets._switch", "rocm_tune.core.hardware.devices", "rocm_tune.core.hardware.doctor",
               "rocm_tune.tui.render", "rocm_tune.tui.screens.model", "rocm_tune.tui.screens.plan",
               "rocm_tune.tui.screens.monitor", "torch", "transformers", "yaml", "pygments"}
    assert not not_yet & set(modules), sorted(not_yet & set(modules))


def test_a_yes_no_question_is_a_switch_whose_value_round_trips():
    """QuestionField imports Switch only where it composes one (a yes/no question): the field shows a Switch,
    set_value and value() go through it as bools, and an Input field still takes text."""
    from textual.widgets import Switch

    from rocm_tune.core.plan.questions import Question
    from rocm_tune.tui.widgets.fields import QuestionField

    yes_no = Question("packing", "bool", "Packing", "pack short samples together", "goal", default=False)
    number = Question("epochs", "int", "Epochs", "passes over the data", "goal", default=3, minimum=1)

    class Fields(App):
        def compose(self):
            yield QuestionField(yes_no, None)
            yield QuestionField(number, None)

    async def run():
        app = Fields()
        async with app.run_test(size=(80, 12)) as pilot:
            switch_field, number_field = app.query(QuestionField)
            seen = [type(switch_field.control), switch_field.value()]
            switch_field.set_value(True)
            number_field.set_value(5)
            await pilot.pause()
            return seen + [switch_field.value(), switch_field.control.value, number_field.value()]

    kind, before, after, shown, epochs = asyncio.run(run())
    assert kind is Switch and before is False and after is True and shown is True and epochs == 5


# widgets the Hardware screen mounts before its first paint (issue 25 item 15): Textual's per-widget work (compose,
# styling, mount, layout, render: ~6-9 M instructions each) is most of the app's cost above a bare Textual app.
# 34 before the fifth round; the Doctor title and findings are one Static, the footer one widget (no FooterKeys),
# the Select's current-value line draws its arrow (no arrow Statics), a wizard field draws its label (no Label).
HARDWARE_FIRST_PAINT_WIDGETS = 23


def test_the_hardware_screen_paints_first_with_at_most_its_widgets(monkeypatch):
    """The first frame of the Hardware screen is made of at most HARDWARE_FIRST_PAINT_WIDGETS widgets (the
    screen's own descendants at its first paint), and the one-widget parts are what they replace: the footer
    holds no FooterKey, the Select's line holds its value and no arrow, a field holds no Label, the Doctor section
    is one Static whose first line is its title."""
    monkeypatch.setenv("ROCM_TUNE_FAKE_GPUS", "mi50-32gb:2")
    from rocm_tune.tui.app import RocmTuneApp

    at_paint: list[list[str]] = []
    doctor: list[str] = []
    original = RocmTuneApp.screen_painted

    def painted(self, screen=None):
        if self.first_paint_at is None:
            at_paint.append([type(w).__name__ for w in self.screen.walk_children(with_self=False)])
            doctor.append(str(self.screen.query_one("#doctor").render()))   # the workers start after the paint
        original(self, screen)

    monkeypatch.setattr(RocmTuneApp, "screen_painted", painted)

    async def run():
        app = RocmTuneApp(start="hardware")
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: app.first_paint_at is not None, what="first paint")
            return type(app.screen).__name__

    screen = asyncio.run(run())
    widgets = at_paint[0]
    assert screen == "HardwareScreen"
    assert len(widgets) <= HARDWARE_FIRST_PAINT_WIDGETS, (len(widgets), sorted(widgets))
    assert "KeyFooter" in widgets and "FooterKey" not in widgets and "FitTable" in widgets
    assert widgets.count("NonSelectableStatic") == 1 and "ArrowCurrent" in widgets   # the GPU field's value, no arrows
    assert widgets.count("QuestionField") == 4 and "Label" not in widgets
    assert doctor[0].splitlines() == ["Doctor", "running checks..."]


def _select_rows(make, states):
    """The rows a Select draws in each state (its current-value line), as the screen's compositor has them."""
    from textual.widgets import Select

    class One(App):
        def compose(self):
            yield make()
            yield Input(id="other")

    async def run():
        app = One()
        rows = []
        async with app.run_test(size=(40, 16)) as pilot:
            select = app.query_one(Select)
            app.query_one("#other").focus()
            for state in states:
                if state == "focused":
                    select.focus()
                elif state == "expanded":
                    select.expanded = True
                elif state == "closed":
                    select.expanded = False
                elif state == "disabled":
                    select.disabled = True
                elif state == "picked":
                    select.value = "mi300x"
                await pilot.pause()
                await pilot.pause()
                r = select.region
                strip = app.screen._compositor.render_strips()[r.y].crop(r.x, r.right)
                # what is drawn: each cell's text and style (the mouse's offset metadata is each widget's own)
                rows.append((state, [(seg.text, seg.style.clear_meta_and_links() if seg.style else None)
                                     for seg in strip.simplify()]))
        return rows

    return asyncio.run(run())


def test_the_select_line_draws_the_picture_of_textual_select():
    """CompactSelect's current-value line draws its arrow itself (ArrowCurrent, no arrow Statics): in every state
    (a value, no value, focused, the list open (▲) and closed again, disabled at Textual's 0.7 opacity, a new value)
    its row is cell for cell and style for style the one Textual's compact Select draws."""
    from textual.widgets import Select

    from rocm_tune.tui.widgets.inputs import CompactSelect

    options = [("mi50-32gb  AMD Instinct MI50", "mi50-32gb"), ("mi300x", "mi300x")]
    states = ["blurred", "focused", "expanded", "closed", "picked", "disabled"]
    for value, blank in (("mi50-32gb", False), (Select.NULL, True)):
        ours = _select_rows(partial(CompactSelect, options, value=value, allow_blank=blank, id="s"), states)
        theirs = _select_rows(partial(Select, options, value=value, allow_blank=blank, compact=True, id="s"), states)
        assert ours == theirs, (value, [(a, b) for a, b in zip(ours, theirs) if a != b][:1])
        texts = {state: "".join(t for t, _ in row) for state, row in ours}
        assert "▲" in texts["expanded"] and "▼" in texts["closed"] and "mi300x" in texts["picked"], texts
