"""Shared helper for the tests that give `explain` a log's text."""

from __future__ import annotations

from rocm_tune.core.runs.diagnose.diagnose import diagnose


def explain_text(tmp_path, text: str, name: str = "run.log"):
    """`text` written to tmp_path/name (folders made) and explained: (the explanation, its root diagnosis or None)."""
    p = tmp_path / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")
    e = diagnose([str(p)])
    return e, (e.diagnoses[e.root] if e.root is not None else None)
