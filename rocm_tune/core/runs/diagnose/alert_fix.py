"""One fix text for a failure, whoever shows it: a live alert (`attach`, the app's monitor) whose code `explain` also
diagnoses takes the fix `explain` gives for the same run — `diagnose.explain_target` is called, not copied — so an
OOM alert says the plan's smallest change that fits, with numbers, exactly as `rocm-tune explain RUN` does.

`explain_fixes(spec)` runs explain on the run (never signalling anything: stacks=False) and returns {code: fix};
`AlertFixes` keeps the answer per run and alert set, so a monitor polling every second runs explain once per new
alert, not once per poll. Fronts (commands/attach.py, tui/monitor_model.py) call it; watch/alerts do not import it
(explain reads the watcher's targets, so the dependency goes one way).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

EXPLAINED = frozenset(("oom",))   # alert codes whose fix is explain's (the estimator's numbers need the whole log)


def explain_fixes(spec: str, codes: frozenset[str] = EXPLAINED) -> dict[str, str]:
    """{alert code: explain's fix} for the run `spec` names (a run id, directory, log file, PID), the first
    diagnosis of each code; {} when explain cannot read it."""
    from rocm_tune.core.errors import UserError
    from rocm_tune.core.runs.diagnose.diagnose import explain_target

    try:
        exp = explain_target(spec, stacks=False)
    except (UserError, OSError, ValueError, RecursionError):
        return {}
    out: dict[str, str] = {}
    for d in exp.diagnoses:
        if d.code in codes and d.code not in out and d.fix:
            out[d.code] = d.fix
    return out


class AlertFixes:
    """explain's fixes for the alerts of one run, computed once per new set of explained alerts."""

    def __init__(self, spec: str) -> None:
        self.spec = spec
        self._key: tuple | None = None
        self._fixes: dict[str, str] = {}

    def apply(self, alerts: Sequence[Any]) -> tuple:
        """`alerts` (core.runs.watch.alerts.Alert) with explain's fix where explain diagnoses the same code."""
        key = tuple((a.code, a.step, a.evidence[:200]) for a in alerts if a.code in EXPLAINED)
        if not key:
            return tuple(alerts)
        if key != self._key:
            self._key, self._fixes = key, explain_fixes(self.spec)
        fixes = self._fixes
        return tuple(dataclasses.replace(a, fix=fixes[a.code]) if a.code in fixes else a for a in alerts)
