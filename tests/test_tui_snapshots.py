"""Snapshot of every screen at 80x24 and 120x36 on fake GPUs / recorded runs with a frozen clock.

Regenerate after an intended change: `python -m pytest tests/test_tui_snapshots.py --snapshot-update`.
"""

from __future__ import annotations

import os

import pytest

from rocm_tune.tui.scenes import SCENES, prepare

SIZES = [(80, 24), (120, 36)]


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("NO_COLOR", raising=False)
    # the registry shows as ~/.local/state/rocm-tune/runs in the launch scene, whatever tmp_path is
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_STATE_HOME", raising=False)
    monkeypatch.setenv("PATH", os.pathsep.join(p for p in os.environ.get("PATH", "").split(os.pathsep)
                                               if not os.path.exists(os.path.join(p, "llamafactory-cli"))))
    prepare(tmp_path)
    return tmp_path


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("name", list(SCENES))
def test_screen_snapshot(name, size, workdir, snap_compare):
    scene = SCENES[name]
    assert snap_compare(scene.make_app(), terminal_size=size, run_before=scene.ready)
