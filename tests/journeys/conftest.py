"""The field reports' journeys (issue 18 item 6): each seed report in /work/shared/seeds/ walked through the
public interfaces only — the `rocm-tune` CLI as a subprocess and the real LLaMA-Factory / DeepSpeed of the
real-stack venv (tests/realstack/envsetup.py). A journey that needs a GPU runs the same path on CPU with a
scaled-down model and says so (its docstring and a line in the summary, "journeys on CPU: ...").

What runs inside the training processes is read from there: tests/journeys/probe/sitecustomize.py records the
dtypes of the parameters and the gradient-checkpointing calls of the first step of each process, and can make
LLaMA-Factory see a ROCm GPU's bf16 answer (see its docstring).
"""

from __future__ import annotations

from tests.realstack.conftest import data_file, realstack, tiny  # noqa: F401 - the real-stack fixtures, reused

# the summary line of the notes (what each journey ran instead of a GPU) is printed by tests/conftest.py
