"""e-hidden (issue 26): a multi-node job whose log just stops - no error, no exit, no kill - is a collective hang.

FAMILIES.md (nccl_rccl_timeout_hang: "a collective timed out or hung"): ranks on two or more nodes that came up and
joined their process group, then printed nothing more - no traceback, no error or fatal line, no launcher exit, no
kill, no end of training - wait in a collective that never completes (an inter-node transport that stalls, one rank
that never reached the collective). The watchdog's timeout message comes only after `timeout` (30 min by default, often
raised to hours) and many users post the log before it. A single-node run that stops is no such sign (it may be
loading, compiling or simply still running), and a log that printed anything failing is read by the other rules.

Pure: regexes over the log's text (the launch spellings are data: rocm_tune/profiles/collective_causes.py).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rocm_tune.profiles import collective_causes as cc

_NODES = tuple(re.compile(p, re.M) for p in cc.MULTI_NODE_LAUNCH)
_HOSTS = tuple(re.compile(p, re.M) for p in cc.HOST_LIST_LAUNCH)
_GROUP_UP = re.compile("|".join(cc.GROUP_UP))

CODE = "multinode-silent-hang"


def multi_node_launch(text: str) -> str | None:
    """The launch line that asks for two or more nodes (or names a host list), else None."""
    for rx in _NODES:
        for m in rx.finditer(text):
            if int(m.group(1)) >= 2:
                return _line_of(text, m.start())
    for rx in _HOSTS:
        if (h := rx.search(text)) is not None:
            return _line_of(text, h.start())
    return None


def _line_of(text: str, at: int) -> str:
    start = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at)
    return text[start:end if end >= 0 else len(text)].strip()


def silent_hang(texts: Sequence[str]) -> str | None:
    """The multi-node launch line of logs whose ranks joined a process group (texts: the logs' texts, no failure
    found in them by the caller), else None."""
    blob = "\n".join(texts)
    launch = multi_node_launch(blob)
    if launch is None or not _GROUP_UP.search(blob):
        return None
    return launch
