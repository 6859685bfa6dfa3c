"""e-host2 (issue 26): the one line that decides among a launcher's teardown and the other ranks' collective noise.

FAMILIES.md ("a consequence ... is never the family when the cause is known", "host_ram_oom vs launcher_exit", amended
rule 3 "Host memory vs collectives"): when one rank dies, the others print NCCL/RCCL errors, watchdog timeouts, lost
connections, and the launcher prints its teardown. What decides is the rank that failed FIRST and how it ended:

- the launcher's first failure (torch elastic's `Root Cause (first observed failure)` row and its `failed (exitcode:
  N) local_rank: L` line, DeepSpeed's `exits with return code = N`, torch.multiprocessing.spawn's `process R
  terminated with ...`): a rank killed from outside (SIGKILL: the OOM killer most often) or a rank that raised its
  own error; the ranks the launcher killed itself after its SIGTERM timeout (`Unable to shutdown process P via
  Signals.SIGTERM, forcefully exiting via Signals.SIGKILL`, then written into the table with -9 "for bookkeeping")
  are its teardown, not a kill by the OOM killer;
- a kill the host reports (the kernel's/Slurm's/Ray's OOM reports, a rank or DataLoader worker killed by SIGKILL, a
  SIGBUS in a run that keeps data in /dev/shm): the other ranks' collective errors are what the dead rank left;
- a rank's own error (a refused setting, a missing checkpoint shard, a GPU OOM ...) raised before the other ranks'
  collective lines, or on the rank the launcher names as the first failure: the collective lines are its
  consequence.

Pure: regexes over the log's text (the spellings are data: rocm_tune/profiles/launcher_exits.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from rocm_tune.profiles import launcher_exits as lx

_SECTION = re.compile(lx.ELASTIC_SECTION, re.M)
_BORDER = re.compile(lx.ELASTIC_BORDER, re.M)
_ROW = re.compile(lx.ELASTIC_ROW, re.M)
_ELASTIC_FIRST = re.compile(lx.ELASTIC_FIRST)
_DEEPSPEED_FIRST = re.compile(lx.DEEPSPEED_FIRST)
_SPAWN_FIRST = re.compile(lx.SPAWN_FIRST)
_FORCED = re.compile(lx.FORCED_KILL)
_RANK_KILLED = re.compile(lx.RANK_KILLED)
_SIGNUM = {name: n for n, (name, _) in lx.SIGNALS.items()}
# what a teardown holds: cheap literals that must be in the text before any regex runs
_TEARDOWN_WORDS = ("exitcode", "return code", "terminated with", "forcefully exiting")

# the collective diagnoses that are every rank's view of a peer gone (not a transport or setting of their own)
COLLECTIVE_NOISE = frozenset({"nccl-error", "nccl-peer-gone", "collective-timeout", "rendezvous-timeout"})
# host reports of a process killed for memory, and the SIGBUS of a run that keeps data in /dev/shm
HOST_KILLS = frozenset({"host-oom-killed", "kernel-oom-killer", "slurm-oom-kill", "ray-oom-killed",
                        "bus-error-signal", "shm-exhausted"})
# hang signs that hold only when nothing comes after them in the log (the ranks set up, then silence)
HANG_AT_END = frozenset({"barrier-no-progress", "nccl-init-then-silence"})
_NOT_OWN = frozenset({"nccl_rccl_timeout_hang", "launcher_exit", "benign_warning", "unknown"})
# a SIGKILL as a launcher or torch writes a rank's end, with the pid where it has one
_KILL_PID = re.compile(r"exitcode\s*:\s*-9 \(pid: (\d+)\)|Signal 9 \(SIGKILL\) received by PID (\d+)|"
                       r"failed \(exitcode: -9\) local_rank: \d+ \(pid: (\d+)\)")


@dataclass(frozen=True)
class Exit:
    """One rank's end as the launcher wrote it."""
    kind: str               # elastic-row | elastic | deepspeed | spawn
    code: int               # negative: the signal that ended it
    rank: int | None        # the global rank (torch elastic's table; spawn's process index), None when not said
    local_rank: int | None
    pid: int | None
    root: bool              # the launcher's first failure (not another rank's row of the table)
    offset: int             # in its file
    file: int = 0           # the index of its file among the logs read together


@dataclass(frozen=True)
class Teardown:
    exits: tuple[Exit, ...] = ()
    forced: frozenset[int] = frozenset()    # pids the launcher killed itself after its SIGTERM timeout

    def first(self) -> Exit | None:
        """The first failure: the earliest one the launcher calls first, with the table's global rank when its
        row is the same process."""
        roots = [e for e in self.exits if e.root]
        if not roots:
            return None
        first = min(roots, key=lambda e: (e.file, e.offset))
        if first.rank is None and first.pid is not None:
            row = next((e for e in roots if e.kind == "elastic-row" and e.pid == first.pid), None)
            if row is not None:
                return replace(first, rank=row.rank, local_rank=row.local_rank)
        return first

    def killed_from_outside(self) -> bool:
        """The first failure is a SIGKILL the launcher did not send itself."""
        f = self.first()
        return f is not None and f.code in (-9, 137) and f.pid not in self.forced


def _row_is_root(text: str, pos: int) -> bool:
    """A table row is in the root-cause section: the nearest section header above it, with no border between."""
    head = None
    for m in _SECTION.finditer(text, max(0, pos - 6000), pos):
        head = m
    if head is None or _BORDER.search(text, head.end(), pos):
        return False
    return head.group(1).startswith("Root Cause")


def other_row(pre: str) -> bool:
    """The line after `pre` is a row of the table's other-failures section (not the first observed failure)."""
    head = None
    for m in _SECTION.finditer(pre, max(0, len(pre) - 6000)):
        head = m
    return head is not None and not head.group(1).startswith("Root Cause") and not _BORDER.search(pre, head.end())


def parse(text: str, base: int = 0) -> Teardown:
    """The launchers' teardown records in a log's text (`base`: the text's offset in its file)."""
    if not any(w in text for w in _TEARDOWN_WORDS):
        return Teardown()
    exits: list[Exit] = []
    for m in _ROW.finditer(text):
        exits.append(Exit("elastic-row", int(m.group(3)), int(m.group(1)), int(m.group(2)), int(m.group(4)),
                          _row_is_root(text, m.start()), base + m.start()))
    for m in _ELASTIC_FIRST.finditer(text):
        exits.append(Exit("elastic", int(m.group(1)), None, int(m.group(2)), int(m.group(3)), True, base + m.start()))
    for m in _DEEPSPEED_FIRST.finditer(text):
        exits.append(Exit("deepspeed", int(m.group(1)), None, None, None, True, base + m.start()))
    for m in _SPAWN_FIRST.finditer(text):
        code = int(m.group(2)) if m.group(2) else -_SIGNUM.get(m.group(3), 0) if m.group(3) in _SIGNUM else 1
        exits.append(Exit("spawn", code, int(m.group(1)), int(m.group(1)), None, True, base + m.start()))
    forced = frozenset(int(m.group(1)) for m in _FORCED.finditer(text))
    return Teardown(tuple(exits), forced)


def merged(parts: Sequence[Teardown]) -> Teardown:
    """The teardown of several files read together (the first file's first failure first)."""
    exits = tuple(replace(e, file=i) for i, t in enumerate(parts) for e in t.exits)
    return Teardown(exits, frozenset().union(*(t.forced for t in parts)) if parts else frozenset())


def launcher_kill(text: str, forced: frozenset[int]) -> bool:
    """A SIGKILL line of the teardown that names a process the launcher killed itself (its SIGTERM timeout)."""
    m = _KILL_PID.search(text)
    return bool(m and forced and int(next(g for g in m.groups() if g)) in forced)


def meaning(code: int | None) -> tuple[str, str] | None:
    """(signal name, what it says) of an exit code as a launcher or a shell writes it."""
    if code is None:
        return None
    if code > lx.SHELL_SIGNAL_BASE:
        code = lx.SHELL_SIGNAL_BASE - code
    return lx.SIGNALS.get(code) or lx.EXIT_CODES.get(code)


class _HitLike(Protocol):
    rank: int | None
    offset: int
    file_index: int
    text: str


class DiagLike(Protocol):
    """What the teardown and peer-wait readings need of a diagnosis (diagnose.Diagnosis has it)."""

    code: str
    family: str
    benign: bool
    first: Any
    evidence: list[Any]


def collective_noise(diags: Sequence[DiagLike], prio: list[int], own: Mapping[int, str], first: Exit | None,
                     progress: Mapping[int, int], earlier: Callable[[Any, Any], int], consequence: int) -> None:
    """Demote (in prio) the other ranks' collective lines (COLLECTIVE_NOISE) to consequences when the rank that
    failed first is in view: killed for host memory, or raising its own error (module docstring)."""
    owners = [(i, own.get(i, d.family) not in _NOT_OWN) for i, d in enumerate(diags)
              if prio[i] >= 2 and not d.benign and d.code not in COLLECTIVE_NOISE and d.code not in HOST_KILLS
              and own.get(i, d.family) not in _NOT_OWN - {"unknown"}]
    if first is not None and first.code > 0 and any(named and _on_rank(diags[j], first) for j, named in owners):
        # the launcher's first failure is a rank's own error: the table's other rows of SIGKILLed ranks came after
        for i, d in enumerate(diags):
            if d.code == "host-oom-killed" and d.evidence and all(other_row(h.pre) for h in d.evidence):
                prio[i] = consequence
    killed = [i for i, d in enumerate(diags) if d.code in HOST_KILLS and prio[i] >= 2 and not d.benign and
              (d.code != "host-oom-killed" or any(_RANK_KILLED.search(h.text) for h in d.evidence))]
    for i, d in enumerate(diags):
        if d.code in HANG_AT_END and first is not None and (first.file, first.offset) > (d.first.file_index,
                                                                                         d.first.offset):
            prio[i] = 0   # the log does not end there: a rank ended after it (no hang there)
        if d.code not in COLLECTIVE_NOISE or prio[i] < 2:
            continue
        if killed or any(_own_error_first(diags[j], d, first, progress, earlier, named) for j, named in owners):
            prio[i] = consequence


def _on_rank(e: DiagLike, first: Exit) -> bool:
    """e's lines are on the rank the launcher names as its first failure."""
    return (first.rank if first.rank is not None else first.local_rank) in {h.rank for h in e.evidence}


def _own_error_first(e: DiagLike, d: DiagLike, first: Exit | None, progress: Mapping[int, int],
                     earlier: Callable[[Any, Any], int], named: bool) -> bool:
    """e (a rank's own error) is the first failure and d (collective lines) the other ranks' view of it: the
    launcher names e's rank as the first to fail with an error of its own (exit code > 0) and d's lines are on
    other ranks; or, the launcher silent on ranks, e (with a family the rules named: `named`) was raised before every
    line of d, the run made no progress after it, and d's lines are on ranks other than e's (or, no rank said at all,
    the launcher says a rank ended with an error code of its own). e-cons: with e's rank said, d's lines may be on
    no rank said (c10d's store errors and NCCL's own lines carry no `[rankN]:` prefix in older torch)."""
    if any(progress.get(h.file_index, -1) > h.offset for h in e.evidence):
        return False
    ranks = {h.rank for h in e.evidence} - {None}
    others = all(h.rank not in ranks for h in d.evidence)
    if first is not None and first.code > 0 and _on_rank(e, first):
        return others
    if not named or not all(earlier(e.first, h) < 0 for h in d.evidence):
        return False
    if ranks:
        return others   # e-cons: d's lines on other ranks, or on none said (a store wait, NCCL's own lines)
    return first is not None and first.code > 0 and first.kind in ("deepspeed", "elastic")
