"""e-rank (issue 26): a rank waiting for a peer is the consequence of the rank that stopped, whatever the text order.

FAMILIES.md ("a consequence (other ranks' watchdog timeouts ...) is never the family when the cause is known", amended
rule "Host memory vs collectives"): a collective timeout, a store wait, a connection the peer closed say only that
some peer stopped taking part. When the log also shows a rank's own exception that is not itself a collective
failure, on another rank (or on no rank said), that exception is why the peer stopped: the waits rank as its
consequence. Text order does not decide: the watchdog fires `timeout` seconds after the peer left, the ranks' streams
are interleaved and buffered, and a launcher may print a rank's captured traceback last. Where both lines carry their
own timestamps, the exception must not come after the first wait (a rank failing after the others had already timed
out did not make them wait). The collective stays the root when no rank shows anything else, or when one of its lines
is the collective library's own error (an internal error, a transport failure), not only a wait.

Pure: regexes over the diagnoses' lines (the spellings are data: rocm_tune/profiles/peer_waits.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from rocm_tune.core.runs.diagnose import rank_exceptions
from rocm_tune.core.runs.diagnose.teardown import DiagLike
from rocm_tune.profiles import launcher_exits as lx
from rocm_tune.profiles import peer_waits as pw

PEER_WAIT = re.compile("|".join(pw.PEER_WAIT))
_STATUS_ONLY = re.compile("|".join(pw.STATUS_ONLY), re.M)
_GLOBAL_RANK = re.compile(r"\[(?:PG [^\]]{0,60} )?Rank (\d+)\]")
_COLLECTIVE_OWN = re.compile(pw.COLLECTIVE_OWN)
_EXC_CLASS = re.compile(r"(?:^|[\s:\]])(?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception|Exit|Interrupt): ")
_RANK_KILLED = re.compile(lx.RANK_KILLED)
_CRASH = re.compile(r"Segmentation fault|Fatal Python error|SIGSEGV|SIGABRT|terminate called|core dumped|Aborted")
COLLECTIVE_FAMILY = "nccl_rccl_timeout_hang"
# families that are never a rank's own cause of the others' waits: the collective itself, the launcher's teardown,
# a harmless line, the scheduler's own stop (a job that hung until its time limit: the hang is the cause)
_NOT_A_CAUSE = frozenset({COLLECTIVE_FAMILY, "launcher_exit", "benign_warning", "slurm_time_limit_preemption"})


class _HitLike(Protocol):
    rank: int | None
    offset: int
    file_index: int
    text: str
    time: float | None
    own_time: bool


def is_wait(h: Any) -> bool:
    """The line is a rank waiting for a peer (profiles/peer_waits.PEER_WAIT), or NCCL's status text that names no
    cause of its own with a wait in the lines right after it (its `Last error:`)."""
    return bool(PEER_WAIT.search(h.text)) or bool(_STATUS_ONLY.search(h.text) and PEER_WAIT.search(h.context))


def waits_only(d: DiagLike) -> bool:
    """Every line of d is a rank waiting for a peer."""
    return bool(d.evidence) and all(is_wait(h) for h in d.evidence)


def _wait_rank(h: Any) -> int | None:
    """The global rank a wait line names (`[Rank 9]`, `[PG 0 Rank 9]`: torchrun's `[default1]:` prefix is the local
    rank on a node), else the line's rank."""
    m = _GLOBAL_RANK.search(h.text)
    return int(m.group(1)) if m else h.rank


def is_own_exception(text: str) -> bool:
    """A Python exception line that is not itself a collective failure, a timeout or a lost connection, nor a crash."""
    return bool(_EXC_CLASS.search(text) or rank_exceptions.is_exception_line(text)) and \
        not _COLLECTIVE_OWN.search(text) and not _CRASH.search(text)


def _not_later(h: _HitLike, waits: Sequence[_HitLike]) -> bool:
    """h did not happen after the first wait, by their own timestamps (no stamps on either: order does not decide)."""
    stamped = [w.time for w in waits if w.own_time and w.time is not None]
    if not (h.own_time and h.time is not None and stamped):
        return True
    return h.time <= min(stamped) + pw.TIME_SLACK_S


def _cause_of(e: DiagLike, family: str, hit: _HitLike, d: DiagLike, generic: str,
              progress: Mapping[int, int], host_phase: Callable[[Any], bool]) -> bool:
    """e (with the family the rules gave it) is a rank's own failure the waits of d follow from."""
    if family in _NOT_A_CAUSE or e.benign:
        return False
    if e.code == generic and not is_own_exception(hit.text):
        return False
    if e.code == "host-oom-killed" and d.code in pw.HANG_ADVISORIES and \
            not any(_RANK_KILLED.search(h.text) or host_phase(h) for h in e.evidence):
        return False   # e-host2: a shell's `Killed` of the whole launcher is as often a user's kill -9 of a hung job,
        # unless the run was loading data or weights into host RAM right before it (FAMILIES.md host_ram_oom vs
        # launcher_exit); ranks that lost a peer or waited for one did not hang by themselves: something ended it
    if any(progress.get(h.file_index, -1) > h.offset for h in e.evidence):
        return False   # the run went on past it: handled, not the end of the run
    if d.code in pw.HANG_ADVISORIES:
        return True    # printed by every rank at the communicator's start: neither its rank nor its time says more
    ranks = {h.rank for h in e.evidence} - {None}
    if ranks and any(_wait_rank(w) in ranks for w in d.evidence):
        return False   # the same rank waited: its own exception may be the wait's own report
    return _not_later(hit, d.evidence)


def demote_waits(diags: Sequence[DiagLike], prio: list[int], own: Mapping[int, str], progress: Mapping[int, int],
                 exception_hit: Callable[[Any], Any], generic: str, consequence: int,
                 host_phase: Callable[[Any], bool] = lambda h: False) -> None:
    """In prio, the collective diagnoses whose every line is a wait for a peer (or a hang advisory,
    profiles/peer_waits.HANG_ADVISORIES) become consequences when another diagnosis of priority >= 2 is a rank's own
    failure or a rank killed (module docstring). host_phase(hit): the run was loading data or weights into host RAM
    right before the hit."""
    waits = [i for i, d in enumerate(diags) if d.family == COLLECTIVE_FAMILY and prio[i] >= 2 and
             (waits_only(d) or d.code in pw.HANG_ADVISORIES)]
    if not waits:
        return
    causes = [(e, own.get(j, e.family), exception_hit(e) if e.code == generic else e.first)
              for j, e in enumerate(diags) if prio[j] >= 2 and j not in waits]
    for i in waits:
        if any(_cause_of(e, fam, hit, diags[i], generic, progress, host_phase) for e, fam, hit in causes):
            prio[i] = consequence


def handled_before_waits(diags: Sequence[DiagLike], prio: list[int], progress: Mapping[int, int], generic: str,
                         consequence: int) -> None:
    """e-peer2: a catch-all exception the run went past (its progress after every line of it, in the same log: a
    traceback logged and handled) is no cause of the waits that came after that progress: it ranks below them, so the
    waits stay the root when no rank shows anything else (FAMILIES.md: the timeout is the root only then)."""
    waits = [d for i, d in enumerate(diags) if d.family == COLLECTIVE_FAMILY and prio[i] >= 1 and d.evidence]
    if not waits:
        return
    for i, d in enumerate(diags):
        if d.code != generic or prio[i] < 2 or not d.evidence:
            continue
        if all(progress.get(h.file_index, -1) > h.offset for h in d.evidence) and \
                any(w.first.file_index == h.file_index and w.first.offset > progress.get(h.file_index, -1)
                    for w in waits for h in d.evidence):
            prio[i] = consequence
