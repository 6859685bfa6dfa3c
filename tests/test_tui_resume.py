"""The app's checkpoint list (`c` on the monitor, `k` on the run list) resumes a run like `rocm-tune resume` (issue 21).

A real built-in trainer run (tiny random Qwen2 on CPU) is stopped after it saved checkpoints; a save cut short by the
kill (`tmp-checkpoint-N`) lies beside them. The list shows both; resuming from the cut-short one is refused on screen
with `prepare_resume`'s own reason; `n` resumes from the newest complete checkpoint after a confirmation, in the same
run directory, and the run finishes with its step count continued.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest
import yaml

from rocm_tune.core.runs.registry import find_run
from tests.conftest import run_cli
from tests.helpers_train import read_jsonl, tiny_assets, train_dict, wait_for
from tests.helpers_tui import wait_for as pilot_wait

pytest.importorskip("transformers")
STEPS = 24


def _status(rid: str) -> str:
    return find_run(rid).status


def _stopped_run(tmp_path_factory, tmp_path) -> tuple[str, Path, Path]:
    assets = tiny_assets(tmp_path_factory, n=64)
    out = tmp_path / "out"
    cfg = tmp_path / "train.yaml"
    cfg.write_text(yaml.safe_dump(train_dict(assets, out, max_steps=STEPS, save_steps=2, logging_steps=1,
                                             per_device_train_batch_size=2, finetuning_type="lora")), encoding="utf-8")
    r = run_cli("run", "--config", str(cfg), "--name", "tui-resume", "--json", env={"CUDA_VISIBLE_DEVICES": ""})
    assert r.returncode == 0, r.stderr
    rid, d = json.loads(r.stdout)["id"], Path(json.loads(r.stdout)["dir"])
    assert wait_for(lambda: (out / "checkpoint-2" / "trainer_state.json").exists() or _status(rid) != "running",
                    timeout=300)
    s = run_cli("stop", rid, "--grace", "60", "--json", timeout=120)
    assert json.loads(s.stdout)["status"] == "stopped", s.stdout
    assert not (out / f"checkpoint-{STEPS}").exists(), "the run finished before it was stopped"
    return rid, d, out


def test_checkpoint_list_refuses_a_cut_short_checkpoint_and_resumes_from_the_newest_complete(tmp_path_factory,
                                                                                            tmp_path):
    from rocm_tune.core.hardware.devices.synthetic import FakeBackend
    from rocm_tune.tui.app import RocmTuneApp

    rid, d, out = _stopped_run(tmp_path_factory, tmp_path)
    newest = max((p for p in out.glob("checkpoint-*") if (p / "trainer_state.json").exists()),
                 key=lambda p: int(p.name.split("-")[1]))
    # a save the kill cut short: the HF Trainer writes tmp-checkpoint-N and renames it when done
    cut = out / "tmp-checkpoint-999"
    shutil.copytree(newest, cut)
    got: dict = {}

    async def go():
        app = RocmTuneApp(attach=rid, backend=FakeBackend("mi50-32gb", 1, seed=1), poll_interval=0.3)
        async with app.run_test(size=(130, 40)) as pilot:
            await pilot_wait(pilot, lambda: getattr(app.screen, "view", None) is not None
                             and app.screen.view.status == "stopped", 30, "the stopped run")
            mon = app.screen
            # the run list's `k` opens the same list for the selected run
            await pilot.press("r")
            await pilot_wait(pilot, lambda: type(app.screen).__name__ == "RunListScreen"
                             and app.screen.query_one("DataTable").row_count == 1, 30, "the run list")
            await pilot.press("k")
            await pilot_wait(pilot, lambda: type(app.screen).__name__ == "CheckpointsScreen"
                             and app.screen.listing is not None, 30, "the checkpoint list from the run list")
            assert app.screen.listing.run_id == rid and app.screen.listing.output_dir == str(out)
            await pilot.press("escape")
            await pilot_wait(pilot, lambda: type(app.screen).__name__ == "RunListScreen", 10, "back on the run list")
            await pilot.press("escape")
            await pilot_wait(pilot, lambda: app.screen is mon, 10, "back on the monitor")
            await pilot.press("c")
            await pilot_wait(pilot, lambda: type(app.screen).__name__ == "CheckpointsScreen"
                             and app.screen.listing is not None, 30, "the checkpoint list")
            ck = app.screen
            table = ck.query_one("DataTable")
            assert table.row_count == len(list(out.glob("checkpoint-*"))) + 1
            # each checkpoint named by its folder in the output folder (whole at 80 columns), the highlighted one's
            # full path and why it is cut short below the table
            first = [str(c) for c in table.get_row_at(0)]
            assert first[0] == cut.name and first[1] == "999" and first[2] == "cut short"
            await pilot_wait(pilot, lambda: "cut short: " in str(ck.query_one("#ck-detail").render()), 10, "detail")
            assert str(cut).replace(str(Path.home()), "~", 1)[-40:] in str(ck.query_one("#ck-detail").render())
            # the cut-short one: refused, with prepare_resume's reason, nothing started
            await pilot.press("enter")
            await pilot_wait(pilot, lambda: "not resumed" in str(ck.query_one("#ck-status").render()), 30, "refusal")
            said = str(ck.query_one("#ck-status").render())
            assert "is not complete" in said and "tmp-checkpoint-999" in said
            assert _status(rid) == "stopped"
            # another number of GPUs: `rocm-tune resume --gpus 2`'s own refusal for this run, on screen
            ck.query_one("#ck-gpus").value = "2"
            await pilot.press("n")
            await pilot_wait(pilot, lambda: "--gpus" in str(ck.query_one("#ck-status").render()), 30, "refusal")
            cli = run_cli("resume", rid, "--gpus", "2", "--dry-run")
            assert cli.returncode == 2 and cli.stderr.strip().split("error: ", 1)[-1] in str(ck.query_one("#ck-status").render())
            ck.query_one("#ck-gpus").value = ""
            ck.query_one("DataTable").focus()
            # n: the newest complete one, after a confirmation that names it and the skipped one
            await pilot.press("n")
            await pilot_wait(pilot, lambda: type(app.screen).__name__ == "ConfirmModal", 30, "confirmation")
            body = "\n".join(str(w.render()) for w in app.screen.query("Static"))
            assert str(newest) in body and "skipped tmp-checkpoint-999" in body and f"rocm-tune resume {rid}" in body
            await pilot.press("y")
            await pilot_wait(pilot, lambda: app.screen is mon, 60, "back on the monitor")
            got["started"] = ck.started
            await pilot_wait(pilot, lambda: mon.view is not None and mon.view.status in ("running", "finished"),
                             60, "the monitor follows the resumed run")
            await pilot.press("ctrl+q")

    asyncio.run(go())
    assert got["started"].id == rid
    assert wait_for(lambda: _status(rid) != "running", timeout=300)
    assert _status(rid) == "finished", (d / "stdout.log").read_text()[-3000:]
    step = json.loads((newest / "trainer_state.json").read_text())["global_step"]
    recs = read_jsonl(d / "metrics.jsonl")
    starts = [x for x in recs if x["type"] == "start"]
    assert len(starts) == 2 and starts[1]["resumed_from_step"] == step
    after = [x["step"] for x in recs[recs.index(starts[1]):] if x["type"] == "step"]
    assert after == list(range(step + 1, STEPS + 1))
    meta = json.loads((d / "run.json").read_text())
    assert len(meta["restarts"]) == 1 and meta["restarts"][0]["checkpoint"] == str(newest)
