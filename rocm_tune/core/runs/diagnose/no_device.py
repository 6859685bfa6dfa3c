"""e-hipfa (issue 26): `invalid device ordinal` (hipErrorInvalidDevice) reads as a wrong index - config_error -
unless the log shows the process enumerated no GPU at all before: rccl-tests' `# Using devices` header with the
failure in place of its first device row, or a device count of zero printed, with no visibility mask set. Then no
index could have worked: the runtime sees no device (hip_error, the no-gpu-visible reading).

Pure: regexes over the log text (the spellings are data: rocm_tune/profiles/device_visibility.py).
"""
from __future__ import annotations

import re
from collections.abc import Sequence

from rocm_tune.profiles import device_visibility as dv

_HEADER = re.compile(dv.RCCL_TESTS_HEADER, re.M)
_ROW = re.compile(dv.RCCL_TESTS_ROW, re.M)
_ZERO = re.compile(dv.ZERO_GPUS)
_MASK = re.compile(dv.MASK_SET)
_NODE_LS = re.compile(dv.NODE_LS, re.M)
_ID_LINE = re.compile(dv.ID_LINE)
_ID_GROUP = re.compile(dv.ID_GROUP)


def _header_without_rows(blob: str, at: int) -> bool:
    """rccl-tests' device header is the last header before offset `at`, and no device row follows it."""
    heads = [m for m in _HEADER.finditer(blob, 0, at)]
    return bool(heads) and not _ROW.search(blob, heads[-1].end(), at)


def none_enumerated(line: str, texts: Sequence[str]) -> bool:
    """The failing `line` (an invalid device ordinal) came after the log showed no GPU enumerated at all."""
    first = line.strip().splitlines()[0] if line.strip() else ""
    for blob in texts:
        at = blob.find(first) if first else -1
        if at < 0:
            continue
        before = blob[:at]
        if _MASK.search(before):
            return False
        if _header_without_rows(blob, at) or _ZERO.search(before):
            return True
    return False


def _user_groups(m: re.Match) -> set[str]:
    """The names and numbers of the groups an `id` line lists (its primary group included)."""
    out = {m.group("gid"), m.group("gname")}
    for g in _ID_GROUP.finditer(m.group("groups") or ""):
        out.update(g.groups())
    return out


def node_out_of_reach(blob: str) -> tuple[str, str, str] | None:
    """(node, its group, the user) when the log shows a GPU device node that only its owner and group may open
    (`ls -l`) and the `id` of a non-root user outside that group (FAMILIES.md amended rule 2: the permissions)."""
    who = _ID_LINE.search(blob)
    if who is None or who.group("uid") == "0":
        return None
    groups = _user_groups(who)
    for m in _NODE_LS.finditer(blob):
        if "rw" in m.group("oth")[:2] or m.group("grp")[:2] != "rw":
            continue                 # anyone may open it, or not even its group: not a matter of membership
        if m.group("group") not in groups:
            return m.group("node"), m.group("group"), f"uid={who.group('uid')}({who.group('gname')})"
    return None
