"""Step 4: the plan. Recommendation, reasons, warnings, VRAM bar, speed; every setting editable."""

from __future__ import annotations

from typing import Any, ClassVar, cast

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Input, Label, OptionList, Select, Static

from rocm_tune.core.errors import UserError
from rocm_tune.core.plan.warnings import headline_caveats
from rocm_tune.tui import plan_model as pm
from rocm_tune.tui.render import (
    flow,
    fmt_count,
    fmt_duration,
    fmt_gib,
    fmt_num,
    fmt_s_step,
    fmt_tok_s,
    render_vram_bar,
)
from rocm_tune.tui.screens.base import StepScreen
from rocm_tune.tui.screens.launch import LAUNCH_BINDING, LaunchMixin
from rocm_tune.tui.widgets.inputs import CompactSelect, OrderedInput, after_keys

# pgup / pgdn scroll the right-hand pane whatever has the focus: priority, as every widget (an Input too) binds
# them to scroll itself; an open choice list still pages itself (action_pane hands the key on)
PANE_BINDINGS = [Binding("pagedown", "pane(1)", "More", priority=True),
                 Binding("pageup", "pane(-1)", "Back up", show=False, priority=True)]

DEBOUNCE_S = 0.25   # a burst of keys is planned once, from the fields' final values

LABELS = {"cutoff_len": "cutoff_len", "micro_batch": "micro-batch", "grad_accum": "grad accum",
          "precision": "precision", "zero_stage": "ZeRO stage", "offload": "offload",
          "gradient_checkpointing": "checkpointing", "attn": "attention"}


class Replanned(Message):
    def __init__(self, seq: int, plan_dict: dict | None, error: str | None = None,
                 settings: dict | None = None) -> None:
        super().__init__()
        self.seq, self.plan_dict, self.error, self.settings = seq, plan_dict, error, settings


class PlanReady(Message):
    def __init__(self, result: Any = None, plan_dict: dict | None = None, error: str | None = None) -> None:
        super().__init__()
        self.result, self.plan_dict, self.error = result, plan_dict, error


def render_summary(d: dict, label: str = "recommended", width: int = 1000) -> Text:
    """Headline of a plan dict: fit, model and hardware, speed and ETA, batch (pure). Each figure is kept whole
    within `width` columns (a line breaks between figures, never inside one)."""
    t = Text()
    fits = d.get("fits")
    caveats = headline_caveats(d.get("warnings"), (d.get("recommended") or {}).get("precision")) if fits else []
    t.append(" FITS " if fits else " DOES NOT FIT ",
             style=("bold reverse yellow" if caveats else "bold reverse green") if fits else "bold reverse red")
    for c in caveats:
        t.append(f" but {c}", style="bold yellow")
    model, hw, goal = d.get("model") or {}, d.get("hardware") or {}, d.get("goal") or {}
    rec = d.get("recommended") or {}
    t.append(f"  {label}", style="bold")
    t.append("\n")
    nodes = f" x {hw['nodes']} nodes" if (hw.get("nodes") or 1) > 1 else ""
    flow(t, [(f"{model.get('name', '?')} ({fmt_count(model.get('params_total'))})", ""),
             (f"  {rec.get('method', goal.get('method', '?'))}/{goal.get('stage', '?')}", ""),
             (f"  on {hw.get('gpus', '?')}x {hw.get('gpu', '?')}{nodes}", "")], width)
    tp = d.get("throughput") or {}
    t.append("\n")
    speed: list = [[("speed ", ""), (fmt_tok_s(tp.get("tokens_per_s")), "bold")]]
    low, high = tp.get("low"), tp.get("high")
    if isinstance(low, dict) and isinstance(high, dict):
        speed.append((f" ({fmt_num(low.get('tokens_per_s'))}-{fmt_num(high.get('tokens_per_s'))})", "dim"))
    speed.append((f"  {fmt_s_step(tp.get('seconds_per_step'))}", ""))
    speed.append([("  ETA ", ""), (fmt_duration(tp.get("eta_seconds")), "bold")])
    hours = goal.get("hours")
    eta = tp.get("eta_seconds")
    if hours and isinstance(eta, (int, float)) and eta > hours * 3600:
        speed.append((f"  > budget {hours:g} h", "bold red"))
    flow(t, speed, width)
    world = (hw.get("gpus") or 1) * (hw.get("nodes") or 1)
    mb, ga = rec.get("micro_batch"), rec.get("grad_accum")
    if isinstance(mb, int) and isinstance(ga, int):
        t.append("\n")
        batch = [(f"batch {mb} x {ga} accum x {world} GPU = {mb * ga * world}", "")]
        eff = goal.get("effective_batch")
        if eff and eff != mb * ga * world:
            batch.append((f" (goal {eff})", "yellow"))
        if rec.get("launcher"):
            batch.append((f"  launcher {rec['launcher']}", ""))
        flow(t, batch, width)
    return t


def render_details(d: dict, width: int = 1000) -> Text:
    """What really executes (core/runners, not only the precision's name) and the environment it sets (pure)."""
    t = Text()
    ex = d.get("execution")
    if isinstance(ex, dict) and ex.get("frozen_weights"):
        t.append("executes ", style="bold")
        parts: list = [(f"frozen {ex.get('frozen_weights')},", ""), (f" trainable {ex.get('trainable_weights')},", ""),
                 (f" compute {ex.get('compute')},", ""),
                 (f" autocast {ex['autocast']}" if ex.get("autocast") else " no autocast", "")]
        if ex.get("launch"):
            parts.append((f"  via {ex['launch']}", "dim"))
        flow(t, parts, width)
    env = (d.get("recommended") or {}).get("env") or {}
    if env:
        t.append(("\n" if t.plain else "") + "env", style="dim")
        parts = []
        for k, v in env.items():
            one = f" {k}={v}"
            # a variable longer than the line breaks after its "=", never inside the name or the value
            parts += [(one, "dim")] if len(one) <= width - 2 else [(f" {k}=", "dim"), (f"  {v}", "dim")]
        flow(t, parts, width, indent="  ")
    return t


def render_findings(d: dict) -> Text:
    t = Text()
    warnings = d.get("warnings") or []
    for w in warnings:
        t.append(f"! {w.get('code', '')}", style="bold yellow")
        t.append(f" {w.get('message', '')}\n")
        if w.get("fix"):
            t.append(f"  fix: {w['fix']}\n", style="dim")
    reasons = d.get("reasons") or []
    if reasons:
        t.append("Why\n", style="bold")
        for r in reasons:
            t.append(f"• {r}\n")
    t.rstrip()
    return t if t.plain else Text("no warnings", style="dim")


class PlanScreen(LaunchMixin, StepScreen):
    STEP = "plan"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+n", "next", "Export", priority=True),
        LAUNCH_BINDING,
        Binding("ctrl+p", "preflight", "Preflight", priority=True),
        Binding("ctrl+o", "alternative", "Option", priority=True),   # the next alternative
        Binding("ctrl+r", "reset", "Reset", priority=True),
        Binding("escape", "back", "Back", show=False),
        *PANE_BINDINGS,
    ]
    HELP = """[b]Plan[/b]
The planner's recommendation: whether it fits, the per-GPU VRAM split (weights, gradients, optimizer,
activations, free), predicted tokens/s, seconds per step and ETA, the warnings with their fixes and
the reasons for each choice (pgup/pgdn scroll them, wherever the focus is). Edit any setting on
the left: memory (and speed, where the speed model is available) update as you type. ctrl+o steps
through the alternatives, ctrl+r resets to them.
ctrl+l launches the plan as shown (with your edits) after a confirmation: it is exported into a new
run directory and started detached (LLaMA-Factory when llamafactory-cli is installed, else the
built-in trainer; the dataset from the Goal screen), then the monitor opens on it.

ctrl+p starts a preflight of the plan as shown (rocm-tune preflight, detached) and watches it.

[b]ctrl+n[/b] export   [b]ctrl+l[/b] launch   [b]ctrl+p[/b] preflight   [b]ctrl+o[/b] next alternative   [b]ctrl+r[/b] reset edits   [b]esc[/b] back
[b]pgup[/b]/[b]pgdn[/b] scroll   [b]tab[/b] next setting   [b]f1[/b] help   [b]ctrl+q[/b] quit"""

    def compose(self) -> ComposeResult:
        yield from self.compose_header()
        with Horizontal(classes="body"):
            with Vertical(id="plan-settings"):
                yield Static("Settings", classes="section-title")
                for name, (kind, choices) in pm.EDITABLE.items():
                    with Horizontal(classes="setting"):
                        yield Label(LABELS[name], classes="s-label")
                        if kind == "int":
                            yield OrderedInput("", id=f"set-{name}", compact=True, type="integer")
                        else:
                            yield CompactSelect([(c, c) for c in choices], id=f"set-{name}", allow_blank=False)
                yield Static("", id="set-error")
            with VerticalScroll(id="plan-main"):
                yield Static("planning...", id="plan-summary")
                yield Static("", id="vram")
                yield Static("", id="findings")
                yield Static("", id="details")
        yield from self.compose_footer()

    def on_mount(self) -> None:
        self._options: list[dict] = []
        self._index = 0
        self._timer: Timer | None = None
        self._settings: dict = {}
        self._result = None
        self._base: dict = {}
        self._edit_seq = 0
        self._dirty = False
        self._invalid: str | None = None
        self._planned_for: dict | None = None   # the settings the shown plan was planned for
        self._pending_action = None             # export / launch waiting for the re-plan of the shown values
        self._shown: dict | None = None         # the plan dict on the screen (the VRAM bar is redrawn from it)
        # a plan left by an earlier visit (another model, other answers) is never drawn, exported or launched:
        # this screen plans the current answers, and shows nothing but "planning..." until that plan is back
        self.state.plan, self.state.plan_dict = None, None
        self.make_plan()

    @work(thread=True, exclusive=True, exit_on_error=False, group="plan")
    def make_plan(self) -> None:
        try:
            if self.state.model is None and self.state.answers.get("model"):
                from rocm_tune.core.model.architecture import load_model

                self.state.model = load_model(str(self.state.answers["model"]))
            if self.state.answers.get("dataset") and self.state.dataset_stats is None:
                self.state.dataset_stats = pm.dataset_stats(self.state.answers["dataset"], self.state.model)
            result, d = pm.run_plan(self.state.answers, self.state.model, self.state.dataset_stats,
                                    self.state.samples)
            self.post_message(PlanReady(result, d))
        except UserError as exc:
            self.post_message(PlanReady(error=str(exc)))
        except Exception as exc:  # noqa: BLE001 - a worker must not crash the app
            self.post_message(PlanReady(error=f"planning failed: {type(exc).__name__}: {exc}"))

    def on_plan_ready(self, msg: PlanReady) -> None:
        if msg.error:
            self.query_one("#plan-summary", Static).update(Text(msg.error, style="bold red"))
            self.set_status(msg.error, error=True)
            return
        assert msg.plan_dict is not None  # a PlanReady without an error carries its plan
        self.state.plan = self._result = msg.result
        self._base = msg.plan_dict
        self._options = pm.option_sets(msg.plan_dict)
        self.load_option(0)

    # ---- options and edits
    def fill_settings(self) -> None:
        """Show self._settings in the fields, as no edit: pending edits and re-plans are dropped."""
        self._dirty, self._invalid, self._pending_action = False, None, None
        # a re-plan still on its way from earlier edits must not overwrite the option being loaded
        self._edit_seq += 1
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        # filling the fields is no edit: their Changed messages are prevented (they may arrive later)
        with self.prevent(Input.Changed, Select.Changed):
            for name in pm.EDITABLE:
                w = self.query_one(f"#set-{name}")
                v = self._settings.get(name)
                if isinstance(w, Input):
                    w.value = "" if v is None else str(v)
                elif isinstance(w, Select) and v is not None:
                    w.value = ("on" if v else "off") if isinstance(v, bool) else str(v)

    def load_option(self, index: int) -> None:
        self._index = index % max(1, len(self._options))
        opt = self._options[self._index]
        self._settings = dict(opt["settings"])
        self.fill_settings()
        try:
            self._planned_for = self._settings = self.read_settings()
        except UserError:
            self._planned_for = dict(self._settings)
        self.query_one("#set-error", Static).update("")
        self.show(pm.option_plan(self._base, opt), opt["label"])

    def pane_width(self) -> int:
        """Columns of the right-hand pane's text (its scrollbar's gutter is kept, so this does not change when the
        text grows past the fold)."""
        w = self.query_one("#plan-summary", Static).size.width
        return w if w > 0 else max(30, (self.app.size.width or 80) - 38)

    def action_pane(self, pages: int) -> None:
        """pgup / pgdn: scroll the right-hand pane (warnings, reasons, the fix) whatever has the focus."""
        focused = self.app.focused
        if isinstance(focused, OptionList) and focused.screen is self:
            (focused.action_page_down if pages > 0 else focused.action_page_up)()   # an open Select's list
            return
        main = self.query_one("#plan-main", VerticalScroll)
        main.scroll_to(y=main.scroll_target_y + pages * max(1, main.scrollable_content_region.height - 1), animate=False,
                       immediate=True)

    def draw_vram(self, d: dict) -> None:
        """The VRAM bar at the widget's current width, the plan's headroom marked (redrawn on resize)."""
        hw = d.get("hardware") or {}
        w = self.query_one("#vram", Static)
        bar = Text("VRAM per GPU\n", style="bold")
        width = (w.size.width or 60) - 26
        bar.append_text(render_vram_bar(d.get("memory") or {}, hw.get("vram_bytes") or 0, max(16, width),
                                        pm.headroom(d), in_use=hw.get("vram_in_use_bytes") or 0))
        cpu = (d.get("memory") or {}).get("cpu_offload_bytes")
        if cpu:
            bar.append(f"\nCPU RAM for offload: {fmt_gib(cpu)}")
        w.update(bar)

    def on_resize(self) -> None:
        # the plan on the screen when the redraw runs (a plan that came back meanwhile is not overdrawn)
        self.call_after_refresh(self._redraw_vram)

    def _redraw_vram(self) -> None:
        shown = getattr(self, "_shown", None)
        if shown:
            self.draw(shown, self._shown_label)

    def draw(self, d: dict, label: str) -> None:
        """The pane at its current width: the headline, the VRAM bar, the warnings and reasons, then the details."""
        width = self.pane_width()
        self.query_one("#plan-summary", Static).update(render_summary(d, label, width))
        self.draw_vram(d)
        self.query_one("#findings", Static).update(render_findings(d))
        self.query_one("#details", Static).update(render_details(d, width))

    def show(self, d: dict, label: str) -> None:
        self.state.plan_dict = self._shown = d
        self._shown_label = label
        self.draw(d, label)
        self.query_one("#plan-main", VerticalScroll).scroll_home(animate=False, immediate=True)   # a new plan from its top, at once
        n = len(self._options)
        self.set_status(f"{label} ({self._index + 1}/{n})" + ("; ctrl+o for the next" if n > 1 else ""))

    @on(Input.Changed)
    @on(Select.Changed)
    def _edited(self, event) -> None:
        if not self._options or not (getattr(event.control, "id", "") or "").startswith("set-"):
            return
        # Debounced: a burst of keys (typing, a paste, SSH batching) is planned once, from the
        # fields' final values, never from a value some key in the middle of the burst left.
        self._edit_seq += 1
        self._dirty = True
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(DEBOUNCE_S, self.settle)

    def read_settings(self) -> dict:
        out = dict(self._settings)
        for name in pm.EDITABLE:
            w = cast("Input | Select[Any]", self.query_one(f"#set-{name}"))  # the settings fields
            raw = w.value
            if isinstance(w, Select) and raw is Select.NULL:
                continue
            out[name] = pm.parse_setting(name, raw)
        return out

    def settle(self) -> None:
        """Plan from what the fields show now: memory at once (estimate() is pure and < 1 ms); speed,
        warnings and reasons from a re-plan in a worker. An invalid field shows its error and blocks
        export and launch until it is fixed."""
        self._timer = None
        err = self.query_one("#set-error", Static)
        try:
            settings = self.read_settings()
        except UserError as exc:
            self._invalid = str(exc)
            self._dirty = False
            err.update(Text(str(exc), style="red"))
            return
        self._invalid = None
        self._dirty = False
        if settings == self._settings and self._planned_for == settings:
            err.update("")      # back to what is planned (e.g. typed and deleted again)
            return
        try:
            if self.state.model is None:
                raise UserError("no model loaded")
            memory = pm.reestimate(self.state.model, self._base, settings)
        except UserError as exc:
            self._invalid = str(exc)
            err.update(Text(str(exc), style="red"))
            return
        err.update(Text("re-planning with these values...", style="dim"))
        self._settings = settings
        self._planned_for = None
        opt = self._options[self._index]
        d = pm.apply_edits(pm.option_plan(self._base, opt), settings, memory)
        self.show(d, "edited " + opt["label"])
        seq = self._edit_seq
        self.replan(settings, seq)

    @work(thread=True, exclusive=True, exit_on_error=False, group="replan")
    def replan(self, settings: dict, seq: int) -> None:
        try:
            d = pm.replan(self._result, settings)
            self.post_message(Replanned(seq, d, settings=settings))
        except UserError as exc:
            self.post_message(Replanned(seq, None, str(exc), settings=settings))
        except Exception as exc:  # noqa: BLE001 - a worker must not crash the app
            self.post_message(Replanned(seq, None, f"{type(exc).__name__}: {exc}", settings=settings))

    def take_result(self, msg: Any) -> bool:
        """A re-plan (or re-check) of the current fields came back: its error is shown and False returned, or the
        error line is cleared and its settings become the planned ones."""
        err = self.query_one("#set-error", Static)
        if msg.error:
            self._invalid = msg.error
            err.update(Text(msg.error, style="red"))
            self._pending_action = None
            return False
        err.update("")
        self._planned_for = msg.settings
        return True

    def on_replanned(self, msg: Replanned) -> None:
        if msg.seq != self._edit_seq or self._dirty:
            return  # a newer edit is on its way
        try:
            if self.read_settings() != msg.settings:
                return  # the fields moved on since: their own re-plan follows
        except UserError:
            return
        if not self.take_result(msg):
            return
        assert msg.plan_dict is not None  # take_result() passed: a re-plan without an error carries its plan
        label = "edited " + self._options[self._index]["label"]
        self.show(msg.plan_dict, label)
        action, self._pending_action = self._pending_action, None
        if action is not None:
            action()

    def in_step(self) -> bool:
        """True when the plan shown (and exported) is the plan of the values the fields show now;
        else it re-plans them (or shows why it cannot) and returns False."""
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        try:
            settings = self.read_settings()
        except UserError as exc:
            self._invalid = str(exc)
            self.query_one("#set-error", Static).update(Text(str(exc), style="red"))
            self.set_status(f"fix the setting first: {exc}", error=True)
            return False
        if settings == self._planned_for and not self._dirty:
            return True
        self.settle()
        if self._invalid:
            self.set_status(f"fix the setting first: {self._invalid}", error=True)
            return False
        self.set_status("re-planning with the values shown; continuing when it is done")
        return self._planned_for == settings

    def _when_in_step(self, action) -> None:
        """Run `action` once the plan matches the fields. Keys typed before the action's key may still
        wait in the fields' queues (priority bindings overtake them): go through those queues first."""
        after_keys(self, lambda: self._run_in_step(action) if self.is_current else None)

    def _run_in_step(self, action) -> None:
        if not self._options or self.in_step():
            action()
        elif not self._invalid:
            self._pending_action = action

    def action_next(self) -> None:
        self._when_in_step(super()._next)

    def action_launch(self) -> None:
        self._when_in_step(super().action_launch)

    # ---- preflight (ctrl+p): the plan as shown, tried for real in a detached run, then watched
    def action_preflight(self) -> None:
        self._when_in_step(self._confirm_preflight)

    def _confirm_preflight(self) -> None:
        from rocm_tune.tui.widgets.modals import ConfirmModal

        if not self.state.plan_dict:
            self.set_status("no plan yet: wait for the planner", error=True)
            return
        plan = self.state.plan_dict

        def answer(yes: bool | None) -> None:
            if yes:
                self.set_status("starting the preflight ...")
                self.start_preflight_worker(plan)
            else:
                self.set_status("no preflight started")

        self.app.push_screen(ConfirmModal(
            "Start a preflight of this plan?",
            "rocm-tune preflight, detached: the device check, the collectives check and a few optimizer steps "
            "of the plan as shown (random weights), measuring memory; the adjusted plan is written into the run "
            "directory. The monitor opens on it.", variant="launch"), answer)

    @work(thread=True, exclusive=True, exit_on_error=False, group="preflight")
    def start_preflight_worker(self, plan: dict) -> None:
        from rocm_tune.core.check.preflight import start_preflight

        try:
            info = start_preflight(plan)
            self.app.call_from_thread(self._preflight_started, info.id, None)
        except UserError as exc:
            self.app.call_from_thread(self._preflight_started, None, str(exc))
        except Exception as exc:  # noqa: BLE001 - a worker must not crash the app
            self.app.call_from_thread(self._preflight_started, None, f"preflight failed: {type(exc).__name__}: {exc}")

    def _preflight_started(self, run_id: str | None, error: str | None) -> None:
        if error:
            self.set_status(error, error=True)
            return
        self.set_status(f"preflight {run_id} started")
        from rocm_tune.tui.navigation import make_screen

        self.app.push_screen(make_screen("monitor", attach=run_id))

    def action_alternative(self) -> None:
        after_keys(self, lambda: self.load_option(self._index + 1) if self._options else None)

    def action_reset(self) -> None:
        after_keys(self, lambda: self.load_option(self._index) if self._options else None)

    def validate_step(self) -> None:
        if not self.state.plan_dict:
            raise UserError("no plan yet: wait for the planner or go back and fix the answers")

    def collect(self) -> dict:
        return {}
