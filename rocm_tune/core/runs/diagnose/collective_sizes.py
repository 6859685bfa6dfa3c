"""e-new15 (issue 26): ranks whose watchdog lines show the SAME collective (one process group, one SeqNum) with
different sizes or different ops. FAMILIES.md, ddp_error: "mismatched shapes across ranks" - a collective every rank
must enter with the same shape got another on some rank (a buffer that grew on one rank only, per-rank padding, a
rank that skipped a step), so it never completes: the timeout is the symptom, the mismatch the cause. Sizes and
spellings: profiles/collective_sizes.py (torch's ProcessGroupNCCL and flight recorder sources).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Protocol

from rocm_tune.profiles import collective_sizes as cs

_WORK, _PG, _RANK = re.compile(cs.WORK), re.compile(cs.PG), re.compile(cs.RANK)


class _Line(Protocol):
    rank: int | None
    text: str
    context: str


@dataclass(frozen=True)
class Work:
    """One rank's line about one collective."""
    pg: str | None
    seq: int
    op: str
    numel_in: int
    rank: int | None


def work_of(h: _Line, pg_default: str | None) -> Work | None:
    """The collective a watchdog line names, with its group (the line's own, else the only group the log names)."""
    m = _WORK.search(h.text)
    if m is None:
        return None
    pg = _PG.search(h.text[:m.start()])
    rank = _RANK.search(h.text[:m.start()])
    return Work(pg.group(1) if pg else pg_default, int(m.group(1)), m.group(2), int(m.group(3)),
                h.rank if h.rank is not None else int(rank.group(1)) if rank else None)


def mismatched(lines: Iterable[_Line]) -> tuple[list[int], dict] | None:
    """(indices of the lines of the collective the ranks entered unequally, its numbers), or None.
    Unequal: lines for one (group, SeqNum) with different OpType, or different NumelIn for an op whose inputs every
    rank must size alike - one rank has one collective at a SeqNum, so two such lines are two ranks. Lines whose group
    is unknown in a log of several groups are not compared."""
    lines = list(lines)
    groups = {g for h in lines for g in _PG.findall(h.context or h.text)}
    pg_default = next(iter(groups)) if len(groups) == 1 else None
    seen: dict[tuple[str | None, int], list[tuple[int, Work]]] = {}
    for i, h in enumerate(lines):
        w = work_of(h, pg_default)
        if w is None or w.op in cs.NOT_COMPARED or (w.pg is None and len(groups) > 1):
            continue
        seen.setdefault((w.pg, w.seq), []).append((i, w))
    for (pg, seq), got in seen.items():
        ops = {w.op for _, w in got}
        sizes = {w.numel_in for _, w in got}
        if len(ops) > 1 or (len(sizes) > 1 and not ops & cs.UNEQUAL_BY_DESIGN):
            return [i for i, _ in got], {"seq": seq, "pg": pg, "op": "/".join(sorted(ops)),
                                         "numel_by_rank": {w.rank: w.numel_in for _, w in got}}
    return None
