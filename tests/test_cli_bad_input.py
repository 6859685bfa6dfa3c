"""The demanding user: every subcommand fed bad input, and the CLI contracts checked end to end.

Bad input (wrong path, malformed JSON/YAML, a directory where a file belongs, negative/absurd/NaN numbers,
empty strings, unknown GPU/model, options that would be silently ignored) must give exit code 2 and ONE
line on stderr that names the offending value -- never a traceback. `--json` prints exactly one JSON
object. Nothing the user made is overwritten without --force. Every case is a real `python -m rocm_tune`
subprocess.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from tests.conftest import run_cli

NO_GPU = {"ROCM_TUNE_FAKE_GPUS": "", "ROCM_TUNE_REPLAY": ""}


@pytest.fixture(scope="module")
def d(tmp_path_factory) -> Path:
    """A folder of bad (and a few good) inputs, shared by the table."""
    root = tmp_path_factory.mktemp("bad input")  # a space in every path
    (root / "bad.json").write_text("{bad json", encoding="utf-8")
    (root / "bad.yaml").write_text("a: [1\n", encoding="utf-8")
    (root / "bin.json").write_bytes(b"\xff\xfe\x00garbage")
    (root / "empty.json").write_text("[]", encoding="utf-8")
    (root / "weird.json").write_text('{"recommended": 5}', encoding="utf-8")
    (root / "adir").mkdir()
    (root / "dü r").mkdir()
    (root / "ok.json").write_text(json.dumps([
        {"instruction": "say hi", "input": "", "output": "hi there"},
        {"instruction": "count to three", "input": "", "output": "one two three"},
    ]), encoding="utf-8")
    p = run_cli("plan", "--model", "qwen2.5-0.5b", "--gpu", "mi50-32gb", "--dataset", str(root / "ok.json"),
                "--json")
    assert p.returncode == 0, p.stderr
    (root / "plan.json").write_text(p.stdout, encoding="utf-8")
    return root


# (args with {d} = the folder above, text the one-line error must contain: the offending value)
CASES = [
    (["bogus-command"], "bogus-command"),
    # estimate
    (["estimate", "--model", "nope-model"], "nope-model"),
    (["estimate", "--model", "{d}/missing"], "missing"),
    (["estimate", "--model", "{d}/adir"], "adir"),
    (["estimate", "--model", "{d}/bad.json"], "bad.json"),
    (["estimate", "--model", "{d}/bin.json"], "bin.json"),
    (["estimate", "--model", "{d}/dü r"], "dü r"),
    (["estimate", "--model", ""], "--model"),
    (["estimate", "--model", "qwen2.5-7b", "--cutoff-len", "-1"], "-1"),
    (["estimate", "--model", "qwen2.5-7b", "--cutoff-len", str(10**30)], str(10**30)),
    (["estimate", "--model", "qwen2.5-7b", "--micro-batch", "abc"], "abc"),
    (["estimate", "--model", "qwen2.5-7b", "--method", "bogus"], "bogus"),
    (["estimate", "--model", "qwen2.5-7b", "--lora-rank", "65536"], "65536"),
    (["estimate", "--model", "qwen2.5-7b", "--method", "full", "--lora-rank", "8"], "--lora-rank"),
    (["estimate", "--model", "qwen2.5-7b", "--zero", "5"], "'5'"),
    (["estimate", "--model", "qwen2.5-7b", "--offload", "all"], "all"),
    (["estimate", "--model", "qwen2.5-7b", "--lora-target", "nonexistent_proj"], "nonexistent_proj"),
    (["estimate", "--model", "qwen2.5-7b", "--precision", "fp8"], "fp8"),
    (["estimate", "--model", "qwen2.5-7b", "--gpus", "0"], "--gpus"),
    # plan
    (["plan", "--model", "qwen2.5-7b", "--gpu", "nope-gpu"], "nope-gpu"),
    (["plan", "--model", "qwen2.5-7b", "--gpu", ""], "--gpu ''"),
    (["plan", "--model", "qwen2.5-7b", "--gpu", "mi50-32gb", "--vram-gib", "nan"], "nan"),
    (["plan", "--model", "qwen2.5-7b", "--gpu", "mi50-32gb", "--vram-gib", "inf"], "inf"),
    (["plan", "--model", "qwen2.5-7b", "--gpu", "mi50-32gb", "--hours", "-inf"], "-inf"),
    (["plan", "--model", "qwen2.5-7b", "--gpu", "mi50-32gb", "--cpu-ram-gib", "-1e9"], "-1e9"),
    (["plan", "--model", "qwen2.5-7b", "--gpu", "mi50-32gb", "--epochs", "1e30"], "1e30"),
    (["plan", "--model", "qwen2.5-7b", "--gpu", "mi50-32gb", "--headroom", "2"], "--headroom"),
    (["plan", "--model", "qwen2.5-7b", "--gpu", "mi50-32gb", "--attn", "fa2"], "fa2"),
    (["plan", "--model", "qwen2.5-7b", "--gpu", "mi50-32gb", "--dataset", "{d}/missing.json"], "missing.json"),
    (["plan", "--model", "qwen2.5-7b", "--gpu", "mi50-32gb", "--dataset", "{d}/bad.json"], "bad.json"),
    (["plan", "--model", "qwen2.5-7b", "--gpu", "mi50-32gb", "--dataset-name", "foo,"], "foo,"),
    (["plan", "--model", "qwen2.5-7b", "--gpu", "mi50-32gb", "--dataset-dir", "{d}/x"], "--dataset-dir"),
    (["plan", "--model", "qwen2.5-7b", "--gpu", "mi50-32gb", "--quant-bits", "4"], "--quant-bits"),
    (["plan", "--model", "qwen2.5-7b", "--gpu", "mi50-32gb", "--priority", "fast"], "fast"),
    (["plan", "--model", "qwen2.5-7b", "--gpu", "mi50-32gb", "--micro-batch", "3", "--effective-batch", "1"], "3"),
    # models
    (["models", "zzzzqqq"], "zzzzqqq"),
    (["models", "--show", ""], "--show ''"),
    (["models", "qwen", "--show", "qwen2.5-7b"], "qwen2.5-7b"),
    # dataset
    (["dataset", ""], "''"),
    (["dataset", "{d}/missing.json"], "missing.json"),
    (["dataset", "{d}/bad.json"], "bad.json"),
    (["dataset", "{d}/bin.json"], "bin.json"),
    (["dataset", "{d}/empty.json"], "empty.json"),
    (["dataset", "{d}/adir"], "adir"),
    (["dataset", "{d}/ok.json", "--name", "foo"], "foo"),
    (["dataset", "{d}/ok.json", "--percentile", "101"], "101"),
    (["dataset", "{d}/ok.json", "--model", "{d}/bad.json"], "bad.json"),
    # export
    (["export", "--plan", "{d}/plan.json"], "-o"),
    (["export", "--plan", "{d}/missing.json", "-o", "{d}/x1"], "missing.json"),
    (["export", "--plan", "{d}/bad.json", "-o", "{d}/x1"], "bad.json"),
    (["export", "--plan", "{d}/adir", "-o", "{d}/x1"], "adir"),
    (["export", "--plan", "{d}/weird.json", "-o", "{d}/x1"], "weird.json"),
    (["export", "--plan", "{d}/plan.json", "-o", "{d}/ok.json"], "ok.json"),
    (["export", "--plan", "{d}/plan.json", "-o", "{d}/x1", "--format", "bogus"], "bogus"),
    (["export", "--plan", "{d}/plan.json", "-o", "{d}/x1", "--time", "nonsense"], "nonsense"),
    (["export", "--plan", "{d}/plan.json", "-o", "{d}/x1", "--lr-scheduler", "bogus"], "bogus"),
    (["export", "--plan", "{d}/plan.json", "-o", "{d}/x1", "--template", "bad template"], "bad template"),
    (["export", "--plan", "{d}/plan.json", "-o", "{d}/x1", "--output-dir", ""], "--output-dir ''"),
    (["export", "--plan", "{d}/plan.json", "-o", "{d}/x1", "--lora-dropout", "nan"], "nan"),
    (["export", "--plan", "{d}/plan.json", "-o", "{d}/x1", "--model", "qwen2.5-7b"], "--model"),
    # run
    (["run"], "exactly one"),
    (["run", "--script", "{d}/missing.sh"], "missing.sh"),
    (["run", "--script", "{d}/adir"], "adir"),
    (["run", "--config", "{d}/bad.yaml"], "bad.yaml"),
    (["run", "--plan", "{d}/weird.json"], "weird.json"),
    (["run", "--env", "FOO", "--", "true"], "FOO"),
    (["run", "--cwd", "{d}/missing", "--", "true"], "missing"),
    (["run", "--dir", "{d}/ok.json", "--", "true"], "ok.json"),
    (["run", "--dataset", "{d}/ok.json", "--", "true"], "ok.json"),
    (["run", "--", "{d}/missing-binary"], "missing-binary"),
    # runs, attach, stop
    (["runs", "--limit", "0"], "--limit"),
    (["attach", "{d}/missing"], "missing"),
    (["attach", "999999999"], "999999999"),
    (["attach", "{d}/adir", "--json"], "--json"),
    (["attach", "{d}/adir", "--interval", "0"], "--interval"),
    (["stop", "no-such-run"], "no-such-run"),
    (["stop", "{d}/adir"], "adir"),
    (["stop", "x", "--grace", "-1"], "-1"),
    # gpus, doctor
    (["gpus", "--backend", "bogus"], "bogus"),
    (["gpus", "--show", "nope-gpu"], "nope-gpu"),
    (["gpus", "--record", "{d}/adir"], "adir"),
    (["gpus", "--record", "{d}/nodir/x.json"], "nodir"),
    (["gpus", "--frames", "5"], "--frames"),
    (["gpus", "--profiles", "--show", "mi50-32gb"], "mi50-32gb"),
    (["doctor", "--bogus"], "--bogus"),
    # train, demo, wizard
    (["train", "{d}/missing.yaml"], "missing.yaml"),
    (["train", "{d}/bad.yaml"], "bad.yaml"),
    (["train", "{d}/adir"], "adir"),
    (["train", "{d}/ok.json", "--check"], "ok.json"),
    (["train", "{d}/bad.yaml", "--max-steps", "0"], "--max-steps"),
    (["demo", "--steps", "1"], "--steps"),
    (["demo", "--dir", "{d}/ok.json"], "ok.json"),
    (["demo", "--gpu", "nope-gpu"], "nope-gpu"),
    (["demo", "--json"], "--json"),
    (["wizard", "--answers", "{d}/missing.yaml"], "missing.yaml"),
    (["wizard", "--answers", "{d}/bad.yaml"], "bad.yaml"),
    (["wizard", "--answers", "{d}/adir"], "adir"),
    (["wizard", "--answers", "{d}/ok.json"], "ok.json"),
]


def _one_line_error(p, must: str) -> None:
    assert "Traceback" not in p.stderr, p.stderr
    assert p.returncode == 2, (p.returncode, p.stdout[-500:], p.stderr[-500:])
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1, p.stderr
    assert lines[0].startswith("rocm-tune") and "error" in lines[0], lines[0]
    assert must in lines[0], (must, lines[0])
    assert p.stdout == "", p.stdout


@pytest.mark.parametrize("args,must", CASES, ids=lambda x: " ".join(x)[:60] if isinstance(x, list) else None)
def test_bad_input_is_one_line_exit_2(d, args, must):
    argv = [a.replace("{d}", str(d)) for a in args]
    _one_line_error(run_cli(*argv, env=NO_GPU), must.replace("{d}", str(d)))


def test_nothing_was_created_by_the_refused_commands(d):
    # the refused exports/records above left no bundle or file behind
    assert not (d / "x1").exists() and not (d / "nodir").exists()
    assert sorted(p.name for p in (d / "adir").iterdir()) == []


# ------------------------------------------------------------------------------------- --json contract


def _started_run(tmp_path) -> str:
    p = run_cli("run", "--json", "--name", "quick", "--", "true")
    assert p.returncode == 0, p.stderr
    rid = json.loads(p.stdout)["id"]
    deadline = time.time() + 20
    while time.time() < deadline:
        if json.loads(run_cli("runs", "--json").stdout)["runs"][0]["status"] != "running":
            break
        time.sleep(0.2)
    return rid


JSON_CASES = [
    (["estimate", "--model", "qwen2.5-7b", "--json"], 0),
    (["plan", "--model", "qwen2.5-7b", "--gpu", "mi50-32gb", "--json"], 0),
    (["plan", "--model", "llama-3.1-70b", "--gpu", "mi50-16gb", "--method", "full", "--offload", "none", "--json"], 1),
    (["models", "qwen", "--json"], 0),
    (["models", "--show", "qwen2.5-7b", "--json"], 0),
    (["dataset", "{d}/ok.json", "--json"], 0),
    (["gpus", "--json"], 0),
    (["gpus", "--profiles", "--json"], 0),
    (["gpus", "--show", "mi50-32gb", "--json"], 0),
    (["doctor", "--json"], None),   # 0 or 1 depending on this machine
    (["runs", "--json"], 0),
    (["export", "--plan", "{d}/plan.json", "-o", "{tmp}/bundle", "--json"], 0),
    (["attach", "{run}", "--once", "--json"], 0),
    (["stop", "{run}", "--json"], 1),
]


def test_every_json_output_is_exactly_one_object(d, tmp_path):
    rid = _started_run(tmp_path)
    for args, rc in JSON_CASES:
        argv = [a.replace("{d}", str(d)).replace("{tmp}", str(tmp_path)).replace("{run}", rid) for a in args]
        p = run_cli(*argv, env=NO_GPU)
        assert "Traceback" not in p.stderr, (argv, p.stderr)
        assert rc is None or p.returncode == rc, (argv, p.returncode, p.stderr)
        obj = json.loads(p.stdout)   # raises on anything besides one JSON document
        assert isinstance(obj, dict), argv


# ------------------------------------------------------------------------------------- no overwrite


def _snapshot(folder: Path) -> dict:
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(folder.iterdir())}


def test_export_twice_refuses_and_leaves_the_bundle_unchanged(d, tmp_path):
    out = tmp_path / "bündle dir"
    first = run_cli("export", "--plan", str(d / "plan.json"), "-o", str(out))
    assert first.returncode == 0, first.stderr
    before = _snapshot(out)
    assert {"run.sh", "llamafactory.yaml", "plan.json"} <= set(before)
    time.sleep(0.02)
    again = run_cli("export", "--plan", str(d / "plan.json"), "-o", str(out))
    _one_line_error(again, "--force")
    assert _snapshot(out) == before
    # a user's own file among them is never touched, even with --force
    (out / "my notes.txt").write_text("mine", encoding="utf-8")
    forced = run_cli("export", "--plan", str(d / "plan.json"), "-o", str(out), "--force")
    assert forced.returncode == 0, forced.stderr
    assert (out / "my notes.txt").read_text(encoding="utf-8") == "mine"


def test_gpus_record_never_overwrites(tmp_path):
    env = {"ROCM_TUNE_FAKE_GPUS": "mi50-32gb:2"}
    out = tmp_path / "rec.json"
    out.write_text("my file", encoding="utf-8")
    p = run_cli("gpus", "--record", str(out), "--frames", "1", "--interval", "0.1", env=env)
    _one_line_error(p, str(out))
    assert out.read_text(encoding="utf-8") == "my file"
    p = run_cli("gpus", "--record", str(out), "--frames", "1", "--interval", "0.1", "--force", env=env)
    assert p.returncode == 0, p.stderr
    assert len(json.loads(out.read_text(encoding="utf-8"))["frames"]) == 1
    # a directory is refused even with --force (it used to end in IsADirectoryError)
    _one_line_error(run_cli("gpus", "--record", str(tmp_path), "--force", env=env), str(tmp_path))


def test_wizard_output_never_overwrites(tmp_path):
    answers = tmp_path / "answers.yaml"
    answers.write_text("model: qwen2.5-0.5b\ngpu: mi50-32gb\n", encoding="utf-8")
    out = tmp_path / "plan.json"
    out.write_text("mine", encoding="utf-8")
    p = run_cli("wizard", "--answers", str(answers), "-o", str(out), env=NO_GPU)
    _one_line_error(p, "plan.json")
    assert out.read_text(encoding="utf-8") == "mine"
    # a directory as -o: one line, exit 2, even with --force
    target = tmp_path / "a dir"
    target.mkdir()
    p = run_cli("wizard", "--answers", str(answers), "-o", str(target), "--force", env=NO_GPU)
    _one_line_error(p, "a dir")


def test_wizard_output_dir_leaves_no_tmp_file(tmp_path):
    answers = tmp_path / "answers.yaml"
    answers.write_text("model: qwen2.5-0.5b\ngpu: mi50-32gb\n", encoding="utf-8")
    (tmp_path / "out").mkdir()
    run_cli("wizard", "--answers", str(answers), "-o", str(tmp_path / "out"), "--force", env=NO_GPU)
    assert not (tmp_path / "out.tmp").exists()


def test_wizard_list_json_is_json_or_refused():
    p = run_cli("wizard", "--list", "--json")
    if p.returncode == 2:
        _one_line_error(p, "--list")
    else:
        assert isinstance(json.loads(p.stdout), dict)


def test_export_force_with_a_directory_in_the_way_writes_nothing(d, tmp_path):
    out = tmp_path / "bundle"
    (out / "plan.json").mkdir(parents=True)   # the last file of the bundle
    p = run_cli("export", "--plan", str(d / "plan.json"), "-o", str(out), "--force")
    _one_line_error(p, "plan.json")
    assert sorted(x.name for x in out.iterdir()) == ["plan.json"]


# ------------------------------------------------------------------------------------- stop / attach


def test_stop_unknown_is_2_and_finished_is_1(tmp_path):
    _one_line_error(run_cli("stop", "20990101-000000-nothing-ffff"), "20990101-000000-nothing-ffff")
    rid = _started_run(tmp_path)
    p = run_cli("stop", rid)
    assert p.returncode == 1, (p.stdout, p.stderr)
    assert rid in p.stdout and "not running" in p.stdout and p.stderr == ""


def test_attach_nonexistent_path_is_2(tmp_path):
    missing = tmp_path / "nö such" / "run"
    _one_line_error(run_cli("attach", str(missing), "--once"), str(missing))


# ------------------------------------------------------------------------------------- plan: nothing fits


def test_plan_70b_full_on_one_64gb_card_without_offload_does_not_fit():
    # (on a 16 GB card not even ZeRO-3 + offload fits: on one GPU its offload path brings the whole 1 G-element
    # vocab gradient back with fp64/fp32 copies, ~14 GiB)
    args = ("plan", "--model", "llama-3.1-70b", "--gpu", "mi210", "--method", "full", "--offload", "none")
    p = run_cli(*args, "--json")
    assert p.returncode == 1, p.stderr
    plan = json.loads(p.stdout)
    assert plan["fits"] is False
    w = plan["warnings"][0]
    assert w["code"] == "does-not-fit"
    # how much the smallest configuration needs, and what would fit instead, with numbers
    assert "GiB per GPU" in w["message"] and "64.0 GiB" in w["message"]
    assert "ZeRO-3 with CPU offload" in w["fix"] and "CPU RAM" in w["fix"]
    assert any(r.startswith("would fit: ") and "GiB" in r for r in plan["reasons"])
    human = run_cli(*args)
    assert human.returncode == 1 and "DOES NOT FIT" in human.stdout and "[does-not-fit]" in human.stdout


def test_zero3_offload_keeps_gradients_and_casts_off_the_gpu():
    # 70B full fine-tuning, ZeRO-3 + offload of parameters and optimizer on one GPU: DeepSpeed runs the
    # 16-bit model (no autocast copies) and sends gradient partitions to the host bucket by bucket
    p = run_cli("estimate", "--model", "llama-3.1-70b", "--method", "full", "--precision", "fp16", "--zero", "3",
                "--offload", "all", "--json")
    assert p.returncode == 0, p.stderr
    g = json.loads(p.stdout)["per_gpu"]
    assert g["gradients_bytes"] == 0 and g["autocast_copies_bytes"] == 0 and g["weights_bytes"] == 0
    # the ZeRO-3 step terms on one GPU: the offload path brings the whole vocab gradient back (2 B/element), then
    # the larger of DeepSpeed 0.19.8's fp64 norm chunk (250M elements) and the fp32 copy (4 B/element)
    assert 4 * 2**30 < g["reserved_bytes"] < 32 * 2**30
    assert any("offload gradient temporaries 5.87 GiB" in n for n in json.loads(p.stdout)["notes"])
    # without offload the same model on 4 GPUs keeps its gradient shards (2 bytes x params / 4)
    p4 = run_cli("estimate", "--model", "llama-3.1-70b", "--method", "full", "--precision", "fp16", "--zero", "3",
                 "--gpus", "4", "--json")
    g4 = json.loads(p4.stdout)
    assert g4["per_gpu"]["gradients_bytes"] >= 2 * g4["params"]["total"] // 4


def test_blank_and_value_like_strings_are_named(d):
    # a value that starts with '-' is a value (argparse would call it a missing argument)
    _one_line_error(run_cli("plan", "--model", "qwen2.5-7b", "--gpu", "mi50-32gb", "--hours", "-1e5"), "-1e5")
    # whitespace only counts as empty
    _one_line_error(run_cli("export", "--plan", str(d / "plan.json"), "-o", "   "), "'   '")


def test_unicode_and_spaces_in_paths_work(d, tmp_path):
    data = tmp_path / "dätä sét" / "my data.json"
    data.parent.mkdir()
    data.write_text((d / "ok.json").read_text(encoding="utf-8"), encoding="utf-8")
    p = run_cli("dataset", str(data), "--json")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["count"] == 2
    assert os.path.samefile(json.loads(p.stdout)["path"], data)
