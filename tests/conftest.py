"""Shared test fixtures. Area-specific helpers live in tests/helpers_<area>.py."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"


@pytest.fixture(autouse=True)
def _isolated_state(tmp_path_factory, monkeypatch):
    """Every test gets its own XDG state/config/cache so the run registry never leaks."""
    base = tmp_path_factory.mktemp("xdg")
    for var in ("XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
        d = base / var.lower()
        d.mkdir()
        monkeypatch.setenv(var, str(d))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    monkeypatch.setenv("TOKENIZERS_PARALLELISM", "false")
    for var in ("ROCM_TUNE_CONFIG", "ROCM_TUNE_FAKE_GPUS", "ROCM_TUNE_REPLAY"):  # the user's own settings
        monkeypatch.delenv(var, raising=False)
    yield


def run_cli(*args: str, env: dict | None = None, cwd=None, timeout: float = 120, input: str | None = None):
    """Run `python -m rocm_tune ARGS` as a real subprocess; returns CompletedProcess (text)."""
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    return subprocess.run(
        [sys.executable, "-m", "rocm_tune", *args],
        capture_output=True, text=True, env=full_env, cwd=cwd, timeout=timeout, input=input,
    )


@pytest.fixture
def cli():
    return run_cli


# journeys (tests/journeys/): what a journey ran instead of the GPU it needs, one summary line. The notes travel as
# the tests' user property "journey-note" (pytest-xdist sends them to the controller, where only this conftest
# is loaded when pytest is run without paths).
_JOURNEY_NOTES: list[str] = []


def pytest_runtest_logreport(report):
    if report.when == "call":
        for key, value in report.user_properties:
            if key == "journey-note" and value not in _JOURNEY_NOTES:
                _JOURNEY_NOTES.append(value)


# the real tools' venvs (tests/prebuild_envs.py): built in the background from the start of a run that uses them
def _builder_of(path: Path) -> str | None:
    if "swiftstack" in path.parts:
        return "tests.swiftstack.envsetup"
    if "realstack" not in path.parts:
        return None
    return {"test_torchtune.py": "tests.realstack.torchtune_env",
            "test_axolotl.py": "tests.realstack.axolotl_env"}.get(path.name, "tests.realstack.envsetup")


def pytest_collection_finish(session):
    worker = getattr(session.config, "workerinput", {}).get("workerid")
    if worker not in (None, "gw0") or os.environ.get("ROCM_TUNE_REALSTACK") == "0":
        return   # one starter per run (xdist: the first worker; each builder locks, so a second one would only wait)
    builders = sorted({b for item in session.items if (b := _builder_of(Path(str(item.fspath)))) is not None})
    if not builders:
        return
    import tempfile

    log = open(Path(tempfile.gettempdir()) / f"rocm-tune-prebuild-{os.getpid()}.log", "w")  # noqa: SIM115
    # left running at the end of the session: a build cut short would only be started again by the next run
    subprocess.Popen([sys.executable, "-m", "tests.prebuild_envs", *builders], cwd=REPO, stdout=log,
                     stderr=subprocess.STDOUT, start_new_session=True)


def pytest_terminal_summary(terminalreporter):
    if _JOURNEY_NOTES:
        terminalreporter.write_line("journeys on CPU: " + "; ".join(_JOURNEY_NOTES))


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    """The app's scenes prepared in a temporary folder that is also HOME and the working directory (TUI tests;
    a test file with other needs defines its own)."""
    from rocm_tune.tui.scenes import prepare

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    prepare(tmp_path)
    return tmp_path
