"""One fix text for a failure, whoever shows it: a live alert (`attach`, the app's monitor) on a failure `explain` also
diagnoses (the same code, or the same log line) takes the fix `explain` gives for the same run —
`diagnose.explain_target` is called, not copied — so an OOM alert says the plan's smallest change that fits, with numbers, exactly as `rocm-tune explain RUN` does.

`_explain(spec)` runs explain on the run (never signalling anything: stacks=False): its fix per code and its root;
`AlertFixes` keeps the answer per run and alert set, so a monitor polling every second runs explain once per new
alert, not once per poll. Fronts (commands/attach.py, tui/monitor_model.py) call it; watch/alerts do not import it
(explain reads the watcher's targets, so the dependency goes one way).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

EXPLAINED = frozenset(("oom",))   # alert codes whose fix is explain's (the estimator's numbers need the whole log)
# every alert made from an explain signature (data["family"] set: the catalogue's codes) is explained too, and the
# exit alert gets explain's root cause: the same log gives the same fix, live or afterwards (issue 26 item 5)
EXITED = "process-exited"
# alerts read from the series of steps with the run's own precision and numbers (the watcher knows `compute dtype`,
# the curve): they keep the watcher's fix - explain reads these same alerts through the same engine
# (diagnose._series_hits), so its answer for them is the watcher's, not a second opinion
SERIES = frozenset(("loss-collapse", "nan-loss", "nan-grad-norm", "fp16-overflow-streak"))


@dataclasses.dataclass(frozen=True)
class Explained:
    """What explain says of a run: its fix per code (first diagnosis of each) and its root cause, if any."""
    fixes: dict
    root: Any = None          # diagnose.Diagnosis
    diagnoses: tuple = ()


def _explain(spec: str) -> Explained:
    """explain's answer for the run `spec` names (a run id, directory, log file, PID), never signalling anything;
    an empty answer when explain cannot read it."""
    from rocm_tune.core.errors import UserError
    from rocm_tune.core.runs.diagnose.diagnose import explain_target

    try:
        exp = explain_target(spec, stacks=False)
    except (UserError, OSError, ValueError, RecursionError):
        return Explained({})
    out: dict[str, str] = {}
    for d in exp.diagnoses:
        if d.code not in out and d.fix:
            out[d.code] = d.fix
    root = exp.diagnoses[exp.root] if exp.root is not None else None
    return Explained(out, root, tuple(exp.diagnoses))


def _is_explained(a: Any) -> bool:
    return a.code not in SERIES and (a.code in EXPLAINED or a.code == EXITED or bool(a.evidence))


def _reads(d: Any, alert_line: str) -> bool:
    """Whether explain's diagnosis `d` is of the log line the alert shows."""
    line = (alert_line or "").strip()
    return bool(line) and any(line == h.text.strip() or (len(line) > 20 and line in h.text) for h in d.evidence)


def _with_explain(a: Any, ex: Explained) -> Any:
    """The alert `a` with explain's word on the same failure: its fix for the same code, or for the same log line
    (the watcher's own signs - a collective timeout, a version check - take explain's fix for that line); an alert
    the catalogue made on the very line explain reads as the root but under another cause (e.g. a `CUDA error`
    printed by ROCm's HIP runtime) becomes explain's root; the run's exit gets explain's root cause."""
    root = ex.root
    if a.code == EXITED:
        if root is None or not root.fix:
            return a
        # e-unk2: a weak-tier root is shown as what it is: its title says "a guess", data["root_guess"] too
        guess = bool((root.numbers or {}).get("guess"))
        return dataclasses.replace(a, fix=f"explain: {root.title} - {root.fix}",
                                   data={**(a.data or {}), "root_code": root.code, "root_family": root.family,
                                         **({"root_guess": True} if guess else {})})
    if root is not None and root.code != a.code and (a.data or {}).get("family") and _reads(root, a.evidence) \
            and not (root.numbers or {}).get("guess"):   # e-unk2: a guess never overrides a rule's own alert
        return dataclasses.replace(a, code=root.code, title=root.title, fix=root.fix,
                                   data={**(a.data or {}), "family": root.family, "cause": root.cause,
                                         "live_code": a.code})
    if a.code in ex.fixes:
        return dataclasses.replace(a, fix=ex.fixes[a.code])
    same = next((d for d in ex.diagnoses if d.fix and not d.benign and _reads(d, a.evidence)), None)
    if same is not None:
        return dataclasses.replace(a, fix=same.fix, data={**(a.data or {}), "explain_code": same.code})
    return a


class AlertFixes:
    """explain's fixes for the alerts of one run, computed once per new set of explained alerts."""

    def __init__(self, spec: str) -> None:
        self.spec = spec
        self._key: tuple | None = None
        self._ex = Explained({})

    def apply(self, alerts: Sequence[Any]) -> tuple:
        """`alerts` (core.runs.watch.alerts.Alert) with explain's fix where explain diagnoses the same failure."""
        key = tuple((a.code, a.step, a.evidence[:200]) for a in alerts if _is_explained(a))
        if not key:
            return tuple(alerts)
        if key != self._key:
            self._key, self._ex = key, _explain(self.spec)
        return tuple(_with_explain(a, self._ex) if _is_explained(a) else a for a in alerts)
