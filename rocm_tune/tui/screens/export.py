"""Step 5: export. Choose formats and a directory, preview each file, write, copy over SSH (OSC 52)."""

from __future__ import annotations

import os
from typing import Any, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Input, Label, OptionList, SelectionList, Static, TextArea
from textual.widgets.option_list import Option

from rocm_tune.core.errors import UserError
from rocm_tune.tui import export_model as em
from rocm_tune.tui.screens.base import StepScreen
from rocm_tune.tui.screens.launch import LAUNCH_BINDING, LaunchMixin
from rocm_tune.tui.widgets.inputs import OrderedInput, after_keys
from rocm_tune.tui.widgets.toggles import TickList

# the dataset entry exported when none is given: a name no dataset_info.json has, so LLaMA-Factory
# stops at once naming it, and the status line and the help say so
PLACEHOLDER = "CHANGE_ME_dataset"
PLACEHOLDER_DIR = "data"   # LLaMA-Factory's default dataset_dir, where dataset_info.json would list it


def named_in(dataset: str) -> tuple[str, str | None] | None:
    """(NAME[,NAME...], DIR or None) when the field names LLaMA-Factory datasets (`NAME`, `a,b`, `NAME@DIR`)."""
    from rocm_tune.core.export.datasets import parse_field

    return parse_field(dataset)


def with_dataset(plan: dict | None, dataset: str) -> tuple[dict | None, Any]:
    """The plan to export with the dataset typed on this screen, and the export options: a local
    file or dataset_info.json folder, LLaMA-Factory dataset name(s) (`NAME`, `a,b`, `NAME@DIR`: checked
    as `rocm-tune export --dataset-name NAME --dataset-dir DIR` checks them, by the same core function),
    or (empty) the clearly marked placeholder dataset name."""
    if plan is None:
        return None, None
    from rocm_tune.core.export.common import ExportOptions

    goal = dict(plan.get("goal") or {})
    named = named_in(dataset) if dataset else None
    if named is not None:
        goal.pop("dataset", None)
        return {**plan, "goal": goal}, ExportOptions(dataset_name=named[0], dataset_dir=named[1])
    if dataset:
        path = os.path.expanduser(dataset)
        if not os.path.exists(path):
            raise UserError(f"dataset {dataset!r} does not exist: give a file or a dataset_info.json folder")
        goal["dataset"] = dataset
        return {**plan, "goal": goal}, None
    goal.pop("dataset", None)
    return {**plan, "goal": goal}, ExportOptions(dataset_name=PLACEHOLDER, dataset_dir=PLACEHOLDER_DIR)


class BundleRendered(Message):
    def __init__(self, files: dict[str, str], error: str | None = None, dataset: str = "",
                 formats: list[str] | None = None, dataset_note: str | None = None) -> None:
        super().__init__()
        self.files, self.error, self.dataset, self.formats = files, error, dataset, formats or []
        self.dataset_note = dataset_note  # named dataset(s) not readable here: where they will be resolved


class BundleWritten(Message):
    def __init__(self, paths: list[str], error: str | None = None, exists: list[str] | None = None) -> None:
        super().__init__()
        self.paths, self.error, self.exists = paths, error, exists or []


class ExportScreen(LaunchMixin, StepScreen):
    STEP = "export"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "write", "Write", priority=True),
        Binding("ctrl+n", "next", "Write", show=False, priority=True),   # the last step: ctrl+n writes too
        Binding("ctrl+y", "copy", "Copy file", priority=True),
        LAUNCH_BINDING,
        Binding("escape", "back", "Back"),
    ]
    HELP = """[b]Export[/b]
Pick the formats (space toggles: [x] ticked, [ ] not), the output directory and the dataset (a
local file or a dataset_info.json folder; the Goal screen's is filled in; or LLaMA-Factory dataset
names: NAME, NAME,NAME or NAME@DIR, DIR default data, checked here when DIR/dataset_info.json is
readable, else resolved by LLaMA-Factory on the training machine). With no dataset the
bundle is written with the placeholder dataset name CHANGE_ME_dataset in llamafactory.yaml, and
the status line says so: put your dataset there before training. The list shows every file of the bundle,
and the right pane previews the highlighted one. ctrl+s writes the bundle: existing files are never
overwritten silently (you are asked first). ctrl+y copies the previewed file to your local clipboard,
over SSH too (OSC 52; the terminal must allow it). ctrl+l launches the plan now (asks first), the
same way as `rocm-tune run --plan`, and opens the monitor on the new run.

[b]ctrl+s[/b] write   [b]ctrl+y[/b] copy file   [b]ctrl+l[/b] launch   [b]esc[/b] back to the plan   [b]f1[/b] help   [b]ctrl+q[/b] quit"""

    def compose(self) -> ComposeResult:
        yield from self.compose_header()
        with Horizontal(classes="body"):
            with Vertical(id="export-side"):
                yield Static("Formats", classes="section-title")
                yield TickList(*[(f"{name}  {desc}", name, name in em.DEFAULT_FORMATS)
                                 for name, desc in em.FORMATS.items()], id="formats", compact=True)
                with Horizontal(classes="setting"):
                    yield Label("dir", classes="s-label-short")
                    yield OrderedInput(self._default_dir(), id="out-dir", compact=True)
                with Horizontal(classes="setting"):
                    yield Label("data", classes="s-label-short")
                    yield OrderedInput(str(self.state.answers.get("dataset") or ""), id="dataset",
                                       compact=True, placeholder=f"none: {PLACEHOLDER} placeholder")
                yield Static("Files", classes="section-title")
                yield OptionList(id="files")
            yield TextArea("", id="preview", read_only=True, show_line_numbers=False, soft_wrap=False)
        yield from self.compose_footer()

    def _default_dir(self) -> str:
        name = ((self.state.plan_dict or {}).get("model") or {}).get("name") or "bundle"
        return os.path.join(".", f"rocm-tune-{name}")

    def on_mount(self) -> None:
        self._files: dict[str, str] = {}
        self._dir_default = self._default_dir()
        self._waited = 0
        self._timer: Timer | None = None
        self._error: str | None = None
        self._dataset_initial = self.query_one("#dataset", Input).value
        self._dataset_edited = False
        self.wait_for_plan()

    def wait_for_plan(self) -> None:
        """The plan screen below may still be planning (when the app starts here): render once it is done."""
        if self.state.plan_dict is None and self._waited < 300:
            self._waited += 1
            self.set_timer(0.1, self.wait_for_plan)
            return
        inp = self.query_one("#out-dir", Input)
        if inp.value == self._dir_default:
            inp.value = self._dir_default = self._default_dir()
        self.render_bundle()

    def formats(self) -> list[str]:
        return list(self.query_one("#formats", SelectionList).selected)

    @on(SelectionList.SelectedChanged)
    def _formats_changed(self) -> None:
        self.render_bundle()

    def dataset(self) -> str:
        return self.query_one("#dataset", Input).value.strip()

    @on(Input.Changed, "#dataset")
    def _dataset_typed(self, event: Input.Changed) -> None:
        if not self._dataset_edited and event.value == self._dataset_initial:
            return   # the field being filled at mount is no edit
        self._dataset_edited = True
        # the launch (ctrl+l) and the Goal screen use a local file or folder; a dataset name is the export's only
        self.state.answers["dataset"] = None if named_in(event.value) else (event.value.strip() or None)
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(0.3, self.render_bundle)

    @work(thread=True, exclusive=True, exit_on_error=False, group="render")
    def render_bundle(self) -> None:
        dataset, formats = self.dataset(), self.formats()
        try:
            plan, opts = with_dataset(self.state.plan_dict, dataset)
            files = em.render(plan, formats, opts)
            note = None
            if dataset and opts is not None and opts.dataset_name:
                from rocm_tune.core.export.datasets import for_export

                named = for_export(opts, None)
                if named is not None and named.resolved in ("training machine", "hub"):
                    where = "the hub" if named.resolved == "hub" else f"{named.given_dir}/ on the training machine"
                    note = f"{named.text}: not checked here, read from {where}"
            self.post_message(BundleRendered(files, dataset=dataset, formats=formats, dataset_note=note))
        except UserError as exc:
            self.post_message(BundleRendered({}, str(exc), dataset=dataset, formats=formats))
        except Exception as exc:  # noqa: BLE001 - a worker must not crash the app
            self.post_message(BundleRendered({}, f"export failed: {type(exc).__name__}: {exc}", dataset=dataset,
                                             formats=formats))

    def on_bundle_rendered(self, msg: BundleRendered) -> None:
        if msg.dataset != self.dataset() or list(msg.formats) != self.formats():
            return   # rendered for fields since changed: a newer render is on its way (never show the older one)
        shown = (msg.dataset, tuple(msg.formats), tuple(msg.files.items()), msg.error, msg.dataset_note)
        if shown == getattr(self, "_shown", None):
            return   # the same bundle again (a debounced re-render): the status line keeps what ctrl+s said
        self._shown = shown
        self._files = msg.files
        self._error = msg.error
        ol = self.query_one("#files", OptionList)
        current = ol.highlighted_option.id if ol.highlighted_option is not None else None
        ol.clear_options()
        for name in msg.files:
            ol.add_option(Option(name, id=name))
        if msg.error:
            self.set_status(msg.error, error=True)
            self.query_one("#preview", TextArea).text = ""
            return
        if msg.files:
            names = list(msg.files)
            ol.highlighted = names.index(current) if current in names else 0
            self.preview(names[ol.highlighted])
        if not msg.formats:
            self.set_status("no format ticked: space ticks one", error=True)
        elif not msg.dataset:
            self.set_status(f"{len(msg.files)} files; no dataset: '{PLACEHOLDER}' stands in (set 'data')")
        elif msg.dataset_note:
            self.set_status(f"{len(msg.files)} files; {msg.dataset_note}")
        else:
            self.set_status(f"{len(msg.files)} files; ctrl+s writes them to {self.query_one('#out-dir', Input).value}")

    def preview(self, name: str) -> None:
        area = self.query_one("#preview", TextArea)
        area.text = self._files.get(name, "")
        area.border_title = name

    @on(OptionList.OptionHighlighted, "#files")
    def _file_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self.preview(str(event.option.id))

    # ---- write
    def action_write(self) -> None:
        after_keys(self, self._write)

    def action_launch(self) -> None:
        after_keys(self, super().action_launch)

    def _write(self) -> None:
        if not self.is_current:
            return
        out_dir = self.query_one("#out-dir", Input).value.strip()
        if not out_dir:
            self.set_status("dir: give an output directory", error=True)
            return
        if self._error:
            self.set_status(f"nothing written: {self._error}", error=True)
            return
        if not self.formats():
            self.set_status("nothing to write: tick at least one format (space)", error=True)
            return
        if not self._files:
            self.set_status("the files are still being rendered; try again", error=True)
            return
        existing = em.existing(out_dir, list(self._files))
        if existing or em.other_files(out_dir):
            # asked here, in the app, where `rocm-tune export` would want --force
            from rocm_tune.tui.widgets.modals import ConfirmModal

            def answer(yes: bool | None) -> None:
                if yes:
                    self.write(out_dir, True)
                else:
                    self.set_status("nothing written")
            if existing:
                title = f"Overwrite {len(existing)} file(s) in {out_dir}?"
                shown = ", ".join(existing[:6]) + (" ..." if len(existing) > 6 else "")
            else:
                title = f"Write the bundle into {out_dir}?"
                shown = "It holds other files (no earlier bundle); none of them is written over."
            self.app.push_screen(ConfirmModal(title, shown), answer)
        else:
            self.write(out_dir, False)

    @work(thread=True, exclusive=True, exit_on_error=False, group="write")
    def write(self, out_dir: str, force: bool) -> None:
        try:
            plan, opts = with_dataset(self.state.plan_dict, self.dataset())
            paths = em.write(plan, self.formats(), out_dir, force, opts)
            self.post_message(BundleWritten(paths))
        except UserError as exc:
            self.post_message(BundleWritten([], str(exc)))
        except Exception as exc:  # noqa: BLE001 - a worker must not crash the app
            self.post_message(BundleWritten([], f"write failed: {type(exc).__name__}: {exc}"))

    def on_bundle_written(self, msg: BundleWritten) -> None:
        if msg.error:
            self.set_status(msg.error, error=True)
            return
        where = os.path.dirname(msg.paths[0]) if msg.paths else ""
        note = f"; dataset is the placeholder {PLACEHOLDER}" if not self.dataset() else ""
        self.set_status(f"wrote {len(msg.paths)} file(s) to {where}{note}")
        self.notify(f"wrote {len(msg.paths)} file(s) to {where}")

    def action_copy(self) -> None:
        area = self.query_one("#preview", TextArea)
        if not area.text:
            self.set_status("nothing to copy", error=True)
            return
        self.app.copy_to_clipboard(area.text)
        self.set_status(f"copied {area.border_title} ({len(area.text)} chars) to the clipboard (OSC 52)")

    def action_next(self) -> None:
        self.action_write()

    def collect(self) -> dict[str, Any]:
        return {}
