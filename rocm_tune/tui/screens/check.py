"""The Plan screen opened by `rocm-tune check FILE...` in a terminal: the user's own values, the check's verdict and
per-phase memory, its findings, and the fix as edits against their files (a unified diff); ctrl+n writes the fixed
files (in their format) into a new folder. Edits re-check the edited files (`tui/check_model.py`)."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.markup import escape
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, Static

from rocm_tune.core.errors import UserError
from rocm_tune.tui import check_model as cm
from rocm_tune.tui.render import flow, fmt_gib
from rocm_tune.tui.screens.plan import PlanScreen
from rocm_tune.tui.widgets.inputs import FOCUS_BINDINGS, OrderedInput, after_keys

PHASES = ("load", "step", "generate", "eval", "save")   # generate: GRPO's own vLLM GPU


class Rechecked(Message):
    def __init__(self, seq: int, settings: dict, fix: dict | None = None, report: Any = None,
                 error: str | None = None) -> None:
        super().__init__()
        self.seq, self.settings, self.fix, self.report, self.error = seq, settings, fix, report, error


class FixChecked(Message):
    def __init__(self, report: Any = None, error: str | None = None) -> None:
        super().__init__()
        self.report, self.error = report, error


def render_check_summary(rep: Any, label: str, width: int = 1000) -> Text:
    """Verdict headline and what was understood (pure); each figure kept whole within `width` columns."""
    t = Text()
    if rep.verdict == "fits":
        t.append(" FITS ", style="bold reverse green")
    elif rep.verdict == "oom":
        t.append(f" OOM at {rep.oom_phase} ", style="bold reverse red")
    else:
        t.append(" CANNOT TELL ", style="bold reverse yellow")
    t.append(f"  {label}", style="bold")
    if rep.verdict == "fits" and rep.margin_bytes is not None:
        flow(t, [(f"  margin {fmt_gib(rep.margin_bytes)}", "")], width)
    elif rep.verdict == "oom" and rep.margin_bytes is not None:
        flow(t, [(f"  short by {fmt_gib(-rep.margin_bytes)}", "bold red")], width)
    j = rep.job
    t.append("\n")
    parts = [(f"{rep.runner}" + (f" via {j.launcher}" if j.launcher else "") + ",", ""), (f" {rep.world_size} GPU(s)", "")]
    if rep.gpu is not None:
        parts.append((f" x {rep.gpu.id}" + (f" ({fmt_gib(rep.vram_bytes)})" if rep.vram_bytes else ""), ""))
    flow(t, parts, width)
    c = rep.cfg
    if c is not None:
        shard = cm.shard_words(rep)
        name = rep.model.name if rep.model is not None else "?"
        t.append("\n")
        flow(t, [(f"{name}:", ""), (f" {c.method},", ""), (f" {c.precision},", ""), (f" {shard},", ""),
                 (f" attn {c.attn}", "")], width)
        ga = cm.settings_of(rep).get("grad_accum", 1)
        t.append("\n")
        flow(t, [(f"micro-batch {c.micro_batch} x accum {ga} x {c.world_size} GPU = {c.micro_batch * ga * c.world_size},",
                  ""), (f" cutoff_len {c.cutoff_len},", ""),
                 (f" checkpointing {'on' if c.gradient_checkpointing else 'off'}", "")], width)
    if rep.verdict not in ("fits", "oom") and rep.reason:
        t.append(f"\n{rep.reason}", style="yellow")
    return t


def render_check_details(rep: Any, width: int = 1000) -> Text:
    """What really executes (the runner's own dtypes), below the findings (pure)."""
    t = Text()
    ex = rep.execution or {}
    if ex.get("summary"):
        t.append("executes ", style="bold")
        flow(t, [(w + " ", "") for w in str(ex["summary"][0]).split(" ")], width)
        t.rstrip()
    return t


def render_phases(rep: Any, width: int = 60) -> Text:
    """Per-GPU memory at load / train step / eval / save against the card (reserved; peak allocated in brackets),
    each line within `width` columns: the bar takes what the figures leave."""
    t = Text("VRAM per GPU by phase (reserved)\n", style="bold")
    mem = rep.memory or {}
    vram = rep.vram_bytes or 0
    top = max([vram] + [p["reserved_bytes"] for p in mem.values() if p]) or 1
    rows = [(ph, mem[ph], f" {fmt_gib(mem[ph]['reserved_bytes'])} ({fmt_gib(mem[ph]['peak_allocated_bytes'])})")
            for ph in PHASES if mem.get(ph)]
    bar = max(6, width - 6 - max([len(r[2]) for r in rows] or [0]))
    for ph, p, figures in rows:
        n = round(bar * p["reserved_bytes"] / top)
        over = bool(vram) and p["reserved_bytes"] > vram
        t.append(f"{ph:5s} ")
        t.append("█" * n, style="red" if over else "green")
        t.append("·" * (bar - n), style="dim")
        t.append(figures + "\n", style="bold red" if over else "")
    if vram:
        t.append(f"card  {fmt_gib(vram)}")
    if rep.cpu_ram_bytes:
        t.append("\n")
        flow(t, [("host RAM for offload", ""), (f" (per node): {fmt_gib(rep.cpu_ram_bytes)}", "")], width)
    return t


def render_check_findings(rep: Any) -> Text:
    t = Text()
    order = {"error": 0, "warning": 1}
    for f in sorted(rep.findings, key=lambda f: order.get(f.severity, 2)):   # errors first (a stable sort)
        where = f" {f.file}:{f.line}" if f.file and f.line else (f" {f.file}" if f.file else "")
        t.append(f"! {f.severity} {f.code}", style="bold red" if f.severity == "error" else "bold yellow")
        t.append(f"{where}: {f.message}\n")
        if f.fix:
            t.append(f"  fix: {f.fix}\n", style="dim")
    notes = list(rep.job.notes) + list(rep.est_notes)
    for n in notes:
        t.append(f"• {n}\n", style="dim")
    for a in rep.assumptions:
        t.append(f"assumed {a}\n", style="dim")
    t.rstrip()
    return t if t.plain else Text("no findings", style="dim")


def change_words(key: str, value: Any) -> str:
    """One key of a fix in the user's words (`__zero__` is the ZeRO stage and offload pair, not a file's key)."""
    if key == "__zero__" and isinstance(value, (list, tuple)) and len(value) == 2:
        stage, offload = value
        return f"ZeRO stage {stage}" + (f" with offload {offload}" if offload not in (None, "", "none") else "")
    return f"{key}={value}"


def check_title(paths: list[str], width: int) -> str:
    """The Check screen's header: the command and the files it read, fitted to `width` (no wizard steps)."""
    import os

    names = [os.path.basename(p) for p in paths]
    head = "rocm-tune check  "
    for n in range(len(names), 0, -1):
        more = f" +{len(names) - n} more" if n < len(names) else ""
        text = " ".join(names[:n]) + more
        if len(head) + len(text) <= width or n == 1:
            return f"[b]rocm-tune check[/b]  {escape(text)}"
    return "[b]rocm-tune check[/b]"


def render_fix(fix: dict | None, fixed: Any, edited: bool, width: int = 1000) -> Text:
    """The files export writes, as a unified diff against the user's files, and their own verdict."""
    t = Text()
    if not fix or not fix.get("diff"):
        t.append("Fix\n", style="bold")
        t.append("no change to write" + ("" if edited else ": none needed, or none found (see the findings)"),
                 style="dim")
        return t
    changes = [change_words(k, v) for k, v in (fix.get("changes") or {}).items()]
    flow(t, [("Your edits as edits" if edited else "Minimal fix (same effective batch) as edits", "bold"),
             (" to your files", "bold"), ("  ctrl+n writes them", "")], width)
    t.append("\nchanged:")
    flow(t, [(f" {c}" + ("," if i < len(changes) - 1 else ""), "") for i, c in enumerate(changes)], width, "  ")
    t.append("\n")
    if fixed is not None:
        verdict = {"fits": "fits", "oom": f"OOM at {fixed.oom_phase}"}.get(fixed.verdict, f"cannot tell: {fixed.reason}")
        t.append("checked again: ")
        t.append(verdict + (f", margin {fmt_gib(fixed.margin_bytes)}" if fixed.verdict == "fits" else "") + "\n",
                 style="bold green" if fixed.verdict == "fits" else "bold red")
    for line in fix["diff"].rstrip("\n").splitlines():
        style = ("bold" if line.startswith(("---", "+++")) else "green" if line.startswith("+") else
                 "red" if line.startswith("-") else "cyan" if line.startswith("@@") else "")
        t.append(line + "\n", style=style)
    t.rstrip()
    return t


class ExportFixModal(ModalScreen[str | None]):
    """Ask where to write the fixed files (a new folder; nothing is overwritten)."""

    DEFAULT_CSS = """
    ExportFixModal { align: center middle; }
    ExportFixModal > Vertical { width: 90; max-width: 95%; height: auto; border: thick $accent; padding: 0 1;
                                background: $panel; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel"), *FOCUS_BINDINGS]

    def __init__(self, names: list[str], default: str) -> None:
        super().__init__()
        self.names, self.default = names, default

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("[b]Write the fixed files[/b]")
            yield Static(f"{escape(', '.join(self.names))} into this folder (your own files stay as they are; a file "
                         "already there is never overwritten):")
            yield OrderedInput(self.default, id="fix-dir")
            yield Static("[b]enter[/b] write    [b]esc[/b] cancel")
        yield Footer()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)


class CheckPlanScreen(PlanScreen):
    """PlanScreen fed by a check report instead of the planner (STEP "plan": the breadcrumb says Plan)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+n", "next", "Write fix", priority=True),
        Binding("ctrl+o", "alternative", "Your config / fix", priority=True),
        Binding("ctrl+r", "reset", "Reset", priority=True),
        Binding("ctrl+l", "launch", "Launch", show=False, priority=True),
        Binding("ctrl+p", "preflight", "Preflight", show=False, priority=True),
        Binding("escape", "back", "Back", show=False),
    ]
    HELP = """[b]Plan of your files[/b] (rocm-tune check)
What rocm-tune check understood from your files: the runner, world size, micro-batch x accumulation x GPUs,
sequence length and sharding, the per-GPU memory at load, train step, eval and save against the card, the
verdict, and the findings with the file and line each comes from.
Below the memory, the files ctrl+n writes, as a unified diff against your files: the check's minimal fix
(same effective batch), or your own edits; then the findings (pgup/pgdn scroll them, wherever the focus is). Edit a setting on the left: your files are changed
in their own format and checked again. ctrl+o switches between your config and the minimal fix; ctrl+r
goes back to your values. ctrl+n writes the fixed files into a new folder (never over your files).
Precision and attention are shown, not edited (change them in your file).

[b]ctrl+n[/b] write the fixed files   [b]ctrl+o[/b] your config / fix   [b]ctrl+r[/b] your values
[b]pgup[/b]/[b]pgdn[/b] scroll   [b]tab[/b] next setting   [b]f1[/b] help   [b]ctrl+q[/b] quit"""

    def compose_header(self) -> ComposeResult:
        # not a wizard step: the command and the user's files, no Hardware > Model > ... steps
        yield Static(check_title(self.session.paths, (self.app.size.width or 80) - 2), classes="breadcrumb")

    def on_mount(self) -> None:
        # runs before PlanScreen.on_mount (which calls make_plan below)
        self.query_one("#plan-main").mount(Static("", id="fix"), before="#findings")   # the diff before the notes

    @property
    def session(self) -> cm.CheckSession:
        return self.state.check

    # ---- the report instead of the planner
    def make_plan(self) -> None:  # type: ignore[override]  # the report, not the planner's worker
        s = self.session
        self._user = s.settings
        self._fix = s.report.fix
        self._fixed_report = None
        self._shown_report = s.report
        self._options = [{"label": "your config", "keys": {}, "settings": dict(self._user)}]
        if s.report.fix:
            self._options.append({"label": "minimal fix", "keys": cm.fix_keys(s), "settings": None})
        for name in ("precision", "attn"):
            self.query_one(f"#set-{name}").disabled = True
        self.load_option(0)
        if s.report.fix:
            self.check_fix()

    @work(thread=True, exclusive=True, exit_on_error=False, group="fix")
    def check_fix(self) -> None:
        try:
            self.post_message(FixChecked(cm.check_files(self.session, self.session.report.fix)))
        except UserError as exc:
            self.post_message(FixChecked(error=str(exc)))
        except Exception as exc:  # noqa: BLE001 - a worker must not crash the app
            self.post_message(FixChecked(error=f"{type(exc).__name__}: {exc}"))

    def on_fix_checked(self, msg: FixChecked) -> None:
        if msg.error:
            self.set_status(f"checking the fix failed: {msg.error}", error=True)
            return
        self._fixed_report = msg.report
        if len(self._options) > 1:
            self._options[1]["settings"] = cm.settings_of(msg.report)
        if self._index == 0 and self._planned_for == self._user:
            self.show_check(self.session.report, self._fix, edited=False, label="your config")

    def load_option(self, index: int) -> None:
        self._index = index % max(1, len(self._options))
        opt = self._options[self._index]
        if opt["settings"] is None:
            self.set_status("the fix is being checked; ctrl+o again in a moment")
            self._index = 0
            return
        self._settings = dict(opt["settings"])
        self.fill_settings()
        self._planned_for = dict(self._settings)
        self.query_one("#set-error", Static).update("")
        if self._index == 0:
            self.show_check(self.session.report, self._fix, edited=False, label="your config")
        else:
            self.show_check(self._fixed_report, self.session.report.fix, edited=False, label="minimal fix")

    def show_check(self, rep: Any, fix: dict | None, *, edited: bool, label: str) -> None:
        self._shown_report, self._export_fix = rep, fix
        self._shown_check = (fix, edited, label)
        self.draw_check()
        self.query_one("#plan-main").scroll_home(animate=False, immediate=True)   # a new verdict from its top, at once
        n = len(self._options)
        self.set_status(f"{label}" + ("; ctrl+o: config / fix" if n > 1 else "")
                        + ("; ctrl+n writes the fixed files" if fix else ""))

    def draw_check(self) -> None:
        """The pane at its width: verdict, memory by phase, the fix (what to do), the findings, then the details."""
        rep, (fix, edited, label) = self._shown_report, self._shown_check
        width = self.pane_width()
        self.query_one("#plan-summary", Static).update(render_check_summary(rep, label, width))
        self.query_one("#vram", Static).update(render_phases(rep, width))
        self.query_one("#findings", Static).update(render_check_findings(rep))
        fixed = (self._fixed_report if fix is self.session.report.fix else rep) if fix else None
        self.query_one("#fix", Static).update(render_fix(fix, fixed, edited, width))
        self.query_one("#details", Static).update(render_check_details(rep, width))

    def on_resize(self) -> None:
        self.call_after_refresh(self._redraw_check)

    def _redraw_check(self) -> None:
        if getattr(self, "_shown_check", None) is not None:   # the report on the screen when the redraw runs
            self.draw_check()

    # ---- edits: the user's files with the edited keys, checked again
    def read_settings(self) -> dict:
        out = super().read_settings()
        for k in ("precision", "attn"):   # shown, not edited
            out[k] = self._user.get(k)
        return out

    def settle(self) -> None:
        self._timer = None
        err = self.query_one("#set-error", Static)
        try:
            settings = self.read_settings()
            keys = cm.keys_for(self._user, settings, self._options[self._index]["keys"] if self._index else None)
        except UserError as exc:
            self._invalid, self._dirty = str(exc), False
            err.update(Text(str(exc), style="red"))
            return
        self._invalid, self._dirty = None, False
        if settings == self._planned_for:
            err.update("")
            return
        err.update(Text("checking your files with these values...", style="dim"))
        self._settings = settings
        self._planned_for = None
        self.recheck(settings, keys, self._edit_seq)

    @work(thread=True, exclusive=True, exit_on_error=False, group="recheck")
    def recheck(self, settings: dict, keys: dict, seq: int) -> None:
        try:
            if settings == self._user and not keys:
                self.post_message(Rechecked(seq, settings, self.session.report.fix, self.session.report))
                return
            fix, rep = cm.recheck(self.session, keys)
            self.post_message(Rechecked(seq, settings, fix, rep))
        except UserError as exc:
            self.post_message(Rechecked(seq, settings, error=str(exc)))
        except Exception as exc:  # noqa: BLE001 - a worker must not crash the app
            self.post_message(Rechecked(seq, settings, error=f"{type(exc).__name__}: {exc}"))

    def on_rechecked(self, msg: Rechecked) -> None:
        if msg.seq != self._edit_seq or self._dirty:
            return
        if not self.take_result(msg):
            return
        mine = msg.report is self.session.report
        label = "your config" if mine else "edited " + self._options[self._index]["label"]
        self.show_check(msg.report, msg.fix, edited=not mine, label=label)
        action, self._pending_action = self._pending_action, None
        if action is not None:
            action()

    def in_step(self) -> bool:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        try:
            settings = self.read_settings()
        except UserError as exc:
            self._invalid = str(exc)
            self.set_status(f"fix the setting first: {exc}", error=True)
            return False
        if settings == self._planned_for and not self._dirty:
            return True
        self.settle()
        if self._invalid:
            self.set_status(f"fix the setting first: {self._invalid}", error=True)
            return False
        self.set_status("checking the values shown; continuing when it is done")
        return False

    # ---- export: the fixed files, never over the user's
    def action_next(self) -> None:
        self._when_in_step(self._ask_export)

    def _ask_export(self) -> None:
        fix = getattr(self, "_export_fix", None)
        if not fix or not fix.get("files"):
            self.set_status("nothing to write: your files need no change (edit a setting to write a changed copy)",
                            error=True)
            return

        def chosen(folder: str | None) -> None:
            if folder is None:
                self.set_status("nothing written")
                return
            try:
                written = cm.export(self.session, fix, folder)
            except UserError as exc:
                self.set_status(str(exc), error=True)
                return
            except OSError as exc:
                self.set_status(f"cannot write into {folder}: {exc.strerror or exc}", error=True)
                return
            self.written = written
            self.set_status(f"your files are unchanged; wrote {', '.join(written)}")
            self.notify("wrote " + ", ".join(written), timeout=10)

        self.app.push_screen(ExportFixModal(list(fix["files"]), cm.default_export_dir(self.session)), chosen)

    def action_launch(self) -> None:
        self.set_status("launch from a plan: write the fixed files (ctrl+n), then run them your way", error=True)

    def action_preflight(self) -> None:
        self.set_status("preflight of your files: rocm-tune check FILE... --preflight", error=True)

    def action_reset(self) -> None:
        after_keys(self, lambda: self.load_option(0))   # the user's own values, after the keys typed before

    def action_back(self) -> None:
        pass   # the first screen: nothing to go back to

    def validate_step(self) -> None:
        pass
