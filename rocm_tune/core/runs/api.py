"""The run API named in docs/internals.md in one place (no import cycle: this module sits on top).

`create_run(...)`, `launch(...) -> RunInfo`, `list_runs()`, `find_run(ref) -> RunInfo`, `stop_run(ref, grace=10)`.
Layers: procs <- rundir <- registry <- launcher <- api (supervisor: procs, rundir).
"""

from __future__ import annotations

from rocm_tune.core.runs.launch.launcher import launch, start_run, stop_run
from rocm_tune.core.runs.registry import find_run, list_runs
from rocm_tune.core.runs.rundir import RunInfo, create_run, load_run

__all__ = ["RunInfo", "create_run", "find_run", "launch", "list_runs", "load_run", "start_run", "stop_run"]
