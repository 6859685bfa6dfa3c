"""Step 1: hardware. Detected GPUs (polled in a worker), or a profile + count; doctor findings."""

from __future__ import annotations

from importlib import import_module
from typing import Any, ClassVar, Protocol, cast

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import DataTable, Static

from rocm_tune.core.errors import UserError
from rocm_tune.core.plan.questions import questions_for
from rocm_tune.tui.screens.base import StepScreen, next_binding
from rocm_tune.tui.widgets.fields import QuestionField
from rocm_tune.tui.widgets.table import FitTable

GPU_COLUMNS = ("#", "name", "profile", "VRAM used", "util", "temp", "power")
# doctor checks worth showing before planning (ids or words in their names)


class _Polling(Protocol):
    """The app's GPU poll interval (RocmTuneApp.poll_interval; that module imports this one)."""

    poll_interval: float


class Samples(Message):
    def __init__(self, backend: str, samples: tuple, error: str | None = None) -> None:
        super().__init__()
        self.backend, self.samples, self.error = backend, samples, error


class DoctorFindings(Message):
    def __init__(self, lines: list[tuple[str, str, str]], error: str | None = None) -> None:
        super().__init__()
        self.lines, self.error = lines, error


def sample_row(s: Any) -> tuple[str, ...]:
    from rocm_tune.tui.render import fmt_gib, num  # after the first paint (the formatters load then)

    util, temp, power = num(getattr(s, "util_percent", None)), num(getattr(s, "temp_c", None)), num(
        getattr(s, "power_w", None))
    return (
        str(getattr(s, "index", "?")),
        str(getattr(s, "name", "") or "N/A")[:28],
        str(getattr(s, "profile_id", "") or "unknown"),
        f"{fmt_gib(getattr(s, 'vram_used_bytes', None))} / {fmt_gib(getattr(s, 'vram_total_bytes', None), 0)}",
        "N/A" if util is None else f"{util:.0f}%",
        "N/A" if temp is None else f"{temp:.0f}°C",
        "N/A" if power is None else f"{power:.0f} W",
    )


def doctor_text(body: str) -> str:
    """The Doctor section: its bold title line (as a `.section-title` shows it) above `body` (markup)."""
    return f"[b]Doctor[/b]\n{body}"


PLAN_CHECKS = ("check_iommu", "check_bf16", "check_hsa_override", "check_visible_devices")


def doctor_lines(doctor: Any, samples: tuple = (), view: Any = None) -> list[tuple[str, str, str]]:
    """(status, message, fix) of the doctor checks that change a plan: IOMMU, bf16 emulation, HSA
    override, visible devices. torch is never imported here (torch_info is switched off)."""
    view = view if view is not None else doctor.SystemView(torch_info=lambda: None)
    if samples:
        view._cache["gpus"] = ("tui", [], tuple(samples))   # reuse the samples the table shows
    out = []
    for name in PLAN_CHECKS:
        fn = getattr(doctor, name, None)
        if fn is None:
            continue
        try:
            r = fn(view)
        except Exception as exc:  # noqa: BLE001 - a check must not break the screen
            out.append(("fail", f"{name}: {exc}", ""))
            continue
        if r.status == "skip":
            continue
        out.append((r.status, f"{r.title}: {r.summary}", r.fix or ""))
    return out


class HardwareScreen(StepScreen):
    STEP = "hardware"
    # the first question has the keys (enter opens the GPU list); focusing the scrolling body instead
    # restyled every widget on it twice before the first paint
    AUTO_FOCUS = "#in-gpu"
    BINDINGS: ClassVar[list[BindingType]] = [next_binding("hardware")]
    HELP = """[b]Hardware[/b]
The table shows the GPUs detected on this machine (backend in the title), refreshed every second.
GPU 'auto' plans for them; or choose a profile to plan for another machine, with its count,
the number of nodes and the CPU RAM per node (for offload).
Doctor findings that change the plan (IOMMU, bf16 emulation, HSA override) are listed below.

[b]ctrl+n[/b] next   [b]esc[/b] back   [b]tab[/b] next field   [b]f1[/b] help   [b]ctrl+q[/b] quit"""

    def compose(self) -> ComposeResult:
        yield from self.compose_header()
        with VerticalScroll(classes="body"):
            yield Static("Detecting GPUs...", id="backend", classes="section-title")
            table: DataTable[str] = FitTable(id="gpus", cursor_type="row", zebra_stripes=True)
            yield table
            for q in questions_for("hardware"):
                yield QuestionField(q, self.state.answers.get(q.name))
            # the section's title and its findings in one widget (one widget fewer before the first paint)
            yield Static(doctor_text("running checks..."), id="doctor")
        yield from self.compose_footer()

    def on_mount(self) -> None:
        table = self.query_one("#gpus", DataTable)
        for c in GPU_COLUMNS:
            table.add_column(Text(c), key=c)   # a str label is parsed as markup (rich's emoji table loads for it)
        # first paint first: detection and doctor checks start once the screen is on the terminal and
        # the other after-paint callbacks ran (a thread started earlier competes with them for the GIL)
        self.call_after_refresh(self.call_later, self._start_workers)

    def _start_workers(self) -> None:
        self._doctor_started = False
        self.poll_gpus()   # the doctor checks follow the first samples (they reuse them)

    # ---- workers: never touch widgets, post messages
    @work(thread=True, exclusive=True, exit_on_error=False, group="gpus")
    def poll_gpus(self) -> None:
        try:
            backend = self.app.gpu_backend()  # type: ignore[attr-defined]
            samples = tuple(backend.sample())
            self.post_message(Samples(getattr(backend, "name", "?"), samples))
        except Exception as exc:  # noqa: BLE001 - a worker must not crash the app  # a backend must never crash the app
            self.post_message(Samples("none", (), str(exc)))

    @work(thread=True, exclusive=True, exit_on_error=False, group="doctor")
    def run_doctor(self, samples: tuple = ()) -> None:
        doctor = import_module("rocm_tune.core.hardware.doctor")
        try:
            factory = getattr(self.app, "doctor_view", None)
            view = factory() if factory is not None else None
            self.post_message(DoctorFindings(doctor_lines(doctor, samples, view)))
        except Exception as exc:  # noqa: BLE001 - a worker must not crash the app
            self.post_message(DoctorFindings([], f"doctor failed: {exc}"))

    # ---- UI thread
    def on_samples(self, msg: Samples) -> None:
        self.state.backend_name, self.state.samples = msg.backend, msg.samples
        title = self.query_one("#backend", Static)
        if msg.error:
            title.update(f"Detected GPUs: none ({msg.error}); choose a GPU profile below")
        else:
            n = len(msg.samples)
            title.update(f"Detected GPUs: {n} via [b]{msg.backend}[/b]" + ("" if n else
                         " - none found; choose a GPU profile below"))
        table = self.query_one("#gpus", DataTable)
        seen: set[str] = set()
        for s in msg.samples:
            key = str(getattr(s, "index", len(seen)))
            seen.add(key)
            row = sample_row(s)
            if key in table.rows:
                for col, val in zip(GPU_COLUMNS, row):
                    if table.get_cell(key, col) != val:
                        table.update_cell(key, col, val)
            else:
                table.add_row(*row, key=key)
        for gone in [k for k in table.rows if k.value not in seen]:
            table.remove_row(gone)
        table.display = bool(msg.samples)
        if not getattr(self, "_doctor_started", True):
            self._doctor_started = True
            self.run_doctor(msg.samples)
        if self.is_attached and not msg.error:  # re-arm the next poll only after this one finished
            self.set_timer(cast(_Polling, self.app).poll_interval, self.poll_gpus)

    def on_doctor_findings(self, msg: DoctorFindings) -> None:
        w = self.query_one("#doctor", Static)
        if msg.error:
            w.update(doctor_text(f"[dim]{msg.error}[/dim]"))
        elif not msg.lines:
            w.update(doctor_text("no findings that change the plan"))
        else:
            mark = {"fail": "✗", "error": "✗", "warn": "!", "warning": "!", "pass": "✓"}
            w.update(doctor_text("\n".join(f"{mark.get(st, '•')} {m}" + (f"\n    fix: {fx}" if fx else "")
                                            for st, m, fx in msg.lines)))

    def validate_step(self) -> None:
        a = self.state.answers
        if a.get("gpu") == "auto" and not self.state.samples:
            raise UserError("gpu: no GPU was detected here; choose a GPU profile instead of 'auto'")
