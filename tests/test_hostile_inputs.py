"""The last defects of a hostile-input run (issue 18, item 5) and their siblings, through the real CLI.

Each case: exit code 2, ONE line on stderr naming the value (never a traceback), and the user's files
byte-identical afterwards (symlinks compared as links: a dangling one stays dangling, its target is
never created). Nothing the user made is deleted or overwritten without --force; with --force a
symlink is replaced itself, never its target. Every command is a real `python -m rocm_tune`
subprocess, except the wide matrix of wizard answers, which runs `cli.main` in this process.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from rocm_tune import cli
from rocm_tune.core.hardware.devices.synthetic import MAX_REPLAY_BYTES
from rocm_tune.core.files import MAX_NESTING
from tests.conftest import run_cli

NO_GPU = {"ROCM_TUNE_FAKE_GPUS": "", "ROCM_TUNE_REPLAY": ""}
TIMEOUT = 120  # a safety net only: every refusal below comes before anything could block


# ------------------------------------------------------------------------------------------ helpers


def snapshot(root: Path) -> dict[str, tuple[str, object]]:
    """Every entry under root (root included): ("link", target) / ("file", bytes) / ("dir", None) /
    ("other", mode). Symlinks are never followed."""
    out: dict[str, tuple[str, object]] = {}
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            rel = str(p.relative_to(root))
            if p.is_symlink():
                out[rel] = ("link", os.readlink(p))
            elif p.is_dir():
                out[rel] = ("dir", None)
            elif p.is_file():
                out[rel] = ("file", p.read_bytes())
            else:
                out[rel] = ("other", p.lstat().st_mode)
    return out


def one_line_error(p, must: str) -> str:
    assert "Traceback" not in p.stderr, p.stderr
    assert p.returncode == 2, (p.returncode, p.stdout[-500:], p.stderr[-800:])
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1, p.stderr
    assert lines[0].startswith("rocm-tune") and "error" in lines[0], lines[0]
    assert must in lines[0], (must, lines[0])
    return lines[0]


def registry_entries() -> list[str]:
    from rocm_tune.core.runs.rundir import runs_root

    root = runs_root()
    return sorted(os.listdir(root)) if root.is_dir() else []


def loop(at: Path) -> Path:
    """A symlink loop at `at` (at -> at.b -> at)."""
    other = at.with_name(at.name + ".b")
    os.symlink(other.name, at)
    os.symlink(at.name, other)
    return at


@pytest.fixture(scope="module")
def plan_file(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("hostile plan")
    data = d / "data.json"
    data.write_text(json.dumps([{"instruction": "say hi", "input": "", "output": "hi there"},
                                {"instruction": "count", "input": "", "output": "one two three"}]))
    p = run_cli("plan", "--model", "qwen2.5-0.5b", "--gpu", "mi50-32gb", "--dataset", str(data), "--json",
                env=NO_GPU)
    assert p.returncode == 0, p.stderr
    (d / "plan.json").write_text(p.stdout, encoding="utf-8")
    return d / "plan.json"


# a --plan launch that cannot train anything: the built-in runner with /bin/true as its Python
HARMLESS = ("--runner", "builtin", "--python", "/bin/true")


def run_plan(plan: Path, run_dir: Path, *extra: str):
    return run_cli("run", "--plan", str(plan), "--dir", str(run_dir), *HARMLESS, *extra, env=NO_GPU, timeout=TIMEOUT)


# ------------------------------------------------------------------------- 1. run --plan --dir: bundle


def test_run_plan_dir_with_the_users_run_sh_refuses_and_deletes_nothing(plan_file, tmp_path):
    out = tmp_path / "out"
    (out / "bundle").mkdir(parents=True)
    (out / "bundle" / "run.sh").write_text("#!/bin/sh\necho mine\n")
    (out / "notes.txt").write_text("my notes")
    before = snapshot(tmp_path)
    one_line_error(run_plan(plan_file, out), "run.sh")
    assert snapshot(tmp_path) == before
    assert registry_entries() == []


def test_run_plan_dir_on_an_exported_bundle_refuses_and_changes_nothing(plan_file, tmp_path):
    out = tmp_path / "out" / "bundle"
    p = run_cli("export", "--plan", str(plan_file), "-o", str(out), env=NO_GPU)
    assert p.returncode == 0, p.stderr
    assert (out / "run.sh").is_file() and (out / "plan.json").is_file()
    before = snapshot(tmp_path)
    one_line_error(run_plan(plan_file, out), "plan.json")
    assert snapshot(tmp_path) == before and registry_entries() == []


def test_run_plan_dir_with_other_files_in_bundle_refuses_and_deletes_nothing(plan_file, tmp_path):
    out = tmp_path / "out"
    (out / "bundle").mkdir(parents=True)
    (out / "bundle" / "mine.txt").write_text("not a bundle file")
    os.symlink(tmp_path / "nowhere", out / "bundle" / "llamafactory.yaml")  # a dangling link is a file too
    before = snapshot(tmp_path)
    one_line_error(run_plan(plan_file, out), "llamafactory.yaml")
    assert snapshot(tmp_path) == before and not (tmp_path / "nowhere").exists()
    os.unlink(out / "bundle" / "llamafactory.yaml")
    before = snapshot(tmp_path)
    one_line_error(run_plan(plan_file, out), "mine.txt")
    assert snapshot(tmp_path) == before and registry_entries() == []


def test_run_plan_dir_bundle_that_is_a_file_or_a_loop(plan_file, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "bundle").write_text("a file named bundle")
    before = snapshot(tmp_path)
    one_line_error(run_plan(plan_file, out), "bundle")
    assert snapshot(tmp_path) == before
    os.unlink(out / "bundle")
    loop(out / "bundle")
    before = snapshot(tmp_path)
    one_line_error(run_plan(plan_file, out), "symlink loop")
    assert snapshot(tmp_path) == before and registry_entries() == []


# ------------------------------------------------------------------------ 2. run --plan --dir: plan.json


@pytest.mark.parametrize("kind", ["file", "link", "dangling", "loop"])
def test_run_plan_dir_refuses_an_existing_plan_json(plan_file, tmp_path, kind):
    out = tmp_path / "out"
    out.mkdir()
    target = tmp_path / "target.json"
    if kind == "file":
        (out / "plan.json").write_text('{"mine": true}')
    elif kind == "link":
        target.write_text('{"the target": true}')
        os.symlink(target, out / "plan.json")
    elif kind == "dangling":
        os.symlink(target, out / "plan.json")
    else:
        loop(out / "plan.json")
    before = snapshot(tmp_path)
    one_line_error(run_plan(plan_file, out), "plan.json")
    assert snapshot(tmp_path) == before
    assert registry_entries() == []


def test_run_plan_dir_force_replaces_the_link_never_its_target(plan_file, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    target = tmp_path / "target.json"
    target.write_text('{"the target": true}')
    os.symlink(target, out / "plan.json")
    (out / "bundle").mkdir()
    script = tmp_path / "my-script.sh"
    script.write_text("#!/bin/sh\necho mine\n")
    os.symlink(script, out / "bundle" / "run.sh")
    p = run_plan(plan_file, out, "--force", "--json")
    assert p.returncode == 0, p.stderr
    info = json.loads(p.stdout)
    assert Path(info["dir"]) == out.resolve()
    assert target.read_text() == '{"the target": true}'          # the targets are untouched
    assert script.read_text() == "#!/bin/sh\necho mine\n"
    assert not (out / "plan.json").is_symlink()                    # the links themselves were replaced
    assert not (out / "bundle" / "run.sh").is_symlink()
    assert json.loads((out / "plan.json").read_text()) == json.loads(plan_file.read_text())
    assert "rocm_tune" in (out / "bundle" / "run.sh").read_text()


def test_run_force_only_where_it_means_something(plan_file, tmp_path):
    one_line_error(run_cli("run", "--force", "--", "true", env=NO_GPU), "--force")
    one_line_error(run_cli("run", "--plan", str(plan_file), *HARMLESS, "--force", env=NO_GPU), "--force")
    assert registry_entries() == []


# ---------------------------------------------------------------- 5. run --dir: symlink loops, dangling


@pytest.mark.parametrize("how", ["loop", "under-loop", "dangling", "under-dangling"])
@pytest.mark.parametrize("source", ["command", "plan"])
def test_run_dir_through_a_broken_symlink_is_refused(plan_file, tmp_path, how, source):
    if how in ("loop", "under-loop"):
        d = loop(tmp_path / "d")
    else:
        d = tmp_path / "d"
        os.symlink(tmp_path / "nowhere" / "deeper", d)
    arg = d / "sub" if how.startswith("under") else d
    before = snapshot(tmp_path)
    if source == "command":
        p = run_cli("run", "--dir", str(arg), "--", "true", env=NO_GPU, timeout=TIMEOUT)
    else:
        p = run_plan(plan_file, arg)
    line = one_line_error(p, "--dir")
    assert ("symlink loop" if "loop" in how else "dangling symlink") in line
    assert snapshot(tmp_path) == before and not (tmp_path / "nowhere").exists()
    assert registry_entries() == []


@pytest.mark.parametrize("mode", [[], ["--foreground"]])
def test_preflight_dir_symlink_loop_is_refused(plan_file, tmp_path, mode):
    d = loop(tmp_path / "d")
    before = snapshot(tmp_path)
    p = run_cli("preflight", str(plan_file), *mode, "--dir", str(d), "--cpu", "--out", str(tmp_path / "adjusted.json"),
                env=NO_GPU, timeout=TIMEOUT)
    one_line_error(p, "symlink loop")
    assert snapshot(tmp_path) == before and registry_entries() == []


# ------------------------------------------------------------------------- 3. wizard -o through links


@pytest.fixture
def answers(tmp_path) -> Path:
    a = tmp_path / "answers.yaml"
    a.write_text("model: qwen2.5-0.5b\ngpu: mi50-32gb\n")
    return a


@pytest.mark.parametrize("kind", ["dangling", "loop", "under-loop", "link"])
def test_wizard_output_never_writes_through_a_symlink(answers, tmp_path, kind):
    target = tmp_path / "target.json"
    out = tmp_path / "plan.json"
    if kind == "dangling":
        os.symlink(target, out)
    elif kind == "loop":
        loop(out)
    elif kind == "under-loop":
        out = loop(tmp_path / "d") / "plan.json"
    else:
        target.write_text("the target")
        os.symlink(target, out)
    before = snapshot(tmp_path)
    p = run_cli("wizard", "--answers", str(answers), "-o", str(out), env=NO_GPU, timeout=TIMEOUT)
    one_line_error(p, "plan.json")
    assert snapshot(tmp_path) == before


def test_wizard_output_force_replaces_a_dangling_link_itself(answers, tmp_path):
    target = tmp_path / "elsewhere" / "target.json"
    out = tmp_path / "plan.json"
    os.symlink(target, out)
    p = run_cli("wizard", "--answers", str(answers), "-o", str(out), "--force", "--json", env=NO_GPU)
    assert p.returncode in (0, 1), p.stderr
    assert not out.is_symlink() and json.loads(out.read_text()) == json.loads(p.stdout)
    assert not (tmp_path / "elsewhere").exists()


def test_wizard_force_without_output_is_refused(answers):
    one_line_error(run_cli("wizard", "--answers", str(answers), "--force", env=NO_GPU), "--force")


# -------------------------------------------------------------------- 4. wizard answers: numbers


@pytest.mark.parametrize("value", [".inf", "-.inf", ".nan", "1.0e+999"])
def test_wizard_infinite_effective_batch_is_one_line(tmp_path, value):
    a = tmp_path / "a.yaml"
    a.write_text(f"model: qwen2.5-0.5b\ngpu: mi50-32gb\neffective_batch: {value}\n")
    before = snapshot(tmp_path)
    one_line_error(run_cli("wizard", "--answers", str(a), env=NO_GPU), "effective_batch")
    assert snapshot(tmp_path) == before


NUMERIC = ["gpus", "nodes", "cpu_ram_gib", "effective_batch", "lora_rank", "epochs", "hours"]
BAD_NUMBERS = [".inf", "-.inf", ".nan", "1.0e+999", "-1", "0", "true", "false", "99999999999999999999999",
               "1" * 5000, "[1]", "{a: 1}", "2026-01-01", "'12 GB'", "-1.0e+300"]


def test_every_numeric_wizard_answer_refuses_nan_inf_huge_negative_bool(tmp_path, capsys):
    from rocm_tune.core.plan.questions import BY_NAME

    assert set(NUMERIC) == {q.name for q in BY_NAME.values() if q.kind in ("int", "float")}
    a = tmp_path / "a.yaml"
    for key in NUMERIC:
        for value in BAD_NUMBERS:
            a.write_text(f"model: qwen2.5-0.5b\ngpu: mi50-32gb\n{key}: {value}\n")
            rc = cli.main(["wizard", "--answers", str(a)])
            err = capsys.readouterr().err
            assert rc == 2, (key, value, err)
            lines = err.strip().splitlines()
            # an int of 5,000 digits is refused by the YAML reader already (naming the file and the key)
            must = key
            assert len(lines) == 1 and must in lines[0] and "Traceback" not in err, (key, value, err)


def test_wizard_answer_for_a_question_that_does_not_apply_is_refused(tmp_path):
    a = tmp_path / "a.yaml"
    a.write_text("model: qwen2.5-0.5b\ngpu: mi50-32gb\nmethod: full\nlora_rank: 16\n")
    one_line_error(run_cli("wizard", "--answers", str(a), env=NO_GPU), "lora_rank")
    a.write_text("model: qwen2.5-0.5b\ngpu: mi50-32gb\nmethod: qlora\nlora_rank: 16\n")  # control: it applies
    p = run_cli("wizard", "--answers", str(a), "--json", env=NO_GPU)
    assert p.returncode in (0, 1), p.stderr
    assert json.loads(p.stdout)["recommended"]["lora_rank"] == 16


# ----------------------------------------------------------------------- 6. the replay GPU backend


def _replay(path) -> object:
    return run_cli("gpus", "--json", env={"ROCM_TUNE_FAKE_GPUS": "", "ROCM_TUNE_REPLAY": str(path)},
                   timeout=TIMEOUT)


def test_replay_refuses_a_fifo_without_reading_it(tmp_path):
    fifo = tmp_path / "replay.json"
    os.mkfifo(fifo)  # no writer ever opens it: a reader that opened it blocking would hang
    one_line_error(_replay(fifo), "FIFO")


def test_replay_refuses_a_device(tmp_path):
    one_line_error(_replay("/dev/zero"), "/dev/zero")


def test_replay_refuses_deep_nesting(tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 200_000)
    one_line_error(_replay(deep), f"{MAX_NESTING} levels")
    ok_depth = tmp_path / "ok.json"  # the limit is the project's one: a frame list nested 1000 deep loads as JSON
    ok_depth.write_text('{"frames": ' + "[" * (MAX_NESTING - 1) + "]" * (MAX_NESTING - 1) + "}")
    one_line_error(_replay(ok_depth), "malformed")  # past the nesting check; refused for its content


def test_replay_refuses_a_file_larger_than_its_bound(tmp_path):
    big = tmp_path / "big.json"
    with open(big, "wb") as fh:  # sparse: nothing is written to disk
        fh.truncate(MAX_REPLAY_BYTES + 1)
    one_line_error(_replay(big), "MiB")


def test_replay_of_a_real_recording_still_plays(tmp_path):
    rec = tmp_path / "rec.json"
    p = run_cli("gpus", "--record", str(rec), "--frames", "2", "--interval", "0.1",
                env={"ROCM_TUNE_FAKE_GPUS": "mi50-32gb:2", "ROCM_TUNE_REPLAY": ""})
    assert p.returncode == 0, p.stderr
    p = _replay(rec)
    assert p.returncode == 0, p.stderr
    assert "mi50-32gb" in p.stdout and p.stdout.count('"index"') >= 2


# ---------------------------------------------------------- 7. --double-quant needs 4-bit --method qlora


@pytest.mark.parametrize("command", ["plan", "estimate", "export", "preflight"])
@pytest.mark.parametrize("flags,must", [
    (["--method", "lora", "--no-double-quant"], "--method qlora"),
    (["--method", "lora", "--double-quant"], "--method qlora"),
    (["--method", "full", "--no-double-quant"], "--method qlora"),
    (["--method", "qlora", "--quant-bits", "8", "--double-quant"], "--quant-bits 8"),
])
def test_double_quant_needs_4bit_qlora(tmp_path, command, flags, must):
    argv = [command, "--model", "qwen2.5-0.5b", *flags]
    if command != "estimate":
        argv += ["--gpu", "mi50-32gb"]
    if command == "export":
        argv += ["-o", str(tmp_path / "bundle")]
    line = one_line_error(run_cli(*argv, env=NO_GPU, timeout=TIMEOUT), must)
    assert "double-quant" in line
    assert list(tmp_path.iterdir()) == []


def test_no_double_quant_with_qlora_is_accepted():
    # (an NVIDIA profile: on gfx906 the planner trains LoRA instead of QLoRA)
    p = run_cli("plan", "--model", "qwen2.5-0.5b", "--gpu", "h100-sxm", "--method", "qlora", "--no-double-quant",
                "--json", env=NO_GPU)
    assert p.returncode in (0, 1), p.stderr
    assert json.loads(p.stdout)["recommended"]["double_quant"] is False


# ---------------------------------------------------------------------------------------- siblings


@pytest.mark.parametrize("how", ["dangling", "loop", "under-loop", "under-dangling"])
def test_export_out_through_a_broken_symlink_is_refused(plan_file, tmp_path, how):
    if how in ("loop", "under-loop"):
        d = loop(tmp_path / "d")
    else:
        d = tmp_path / "d"
        os.symlink(tmp_path / "nowhere", d)
    arg = d / "bundle" if how.startswith("under") else d
    before = snapshot(tmp_path)
    one_line_error(run_cli("export", "--plan", str(plan_file), "-o", str(arg), env=NO_GPU), "-o")
    assert snapshot(tmp_path) == before and not (tmp_path / "nowhere").exists()


@pytest.mark.parametrize("what", ["fifo", "device", "deep"])
def test_preflight_plan_file_is_read_bounded(tmp_path, what):
    if what == "fifo":
        src = tmp_path / "plan.json"
        os.mkfifo(src)
    elif what == "device":
        src = Path("/dev/zero")
    else:
        src = tmp_path / "plan.json"
        src.write_text("[" * 200_000)
    one_line_error(run_cli("preflight", str(src), env=NO_GPU, timeout=TIMEOUT), str(src.name))
    assert registry_entries() == []


@pytest.mark.parametrize("how", ["dangling", "loop", "under-loop"])
def test_preflight_out_through_a_broken_symlink_is_refused(plan_file, tmp_path, how):
    out = tmp_path / "adjusted.json"
    if how == "dangling":
        os.symlink(tmp_path / "nowhere", out)
    elif how == "loop":
        loop(out)
    else:
        out = loop(tmp_path / "d") / "adjusted.json"
    before = snapshot(tmp_path)
    p = run_cli("preflight", str(plan_file), "--out", str(out), "--cpu", env=NO_GPU, timeout=TIMEOUT)
    one_line_error(p, "adjusted.json")
    assert snapshot(tmp_path) == before and registry_entries() == []


@pytest.mark.parametrize("how", ["loop", "under-dangling", "dangling-data"])
def test_demo_dir_through_a_broken_symlink_is_refused(tmp_path, how):
    if how == "loop":
        arg = loop(tmp_path / "d")
    elif how == "under-dangling":
        os.symlink(tmp_path / "nowhere", tmp_path / "d")
        arg = tmp_path / "d" / "work"
    else:
        arg = tmp_path / "d"
        arg.mkdir()
        os.symlink(tmp_path / "nowhere" / "data.json", arg / "data.json")
    before = snapshot(tmp_path)
    one_line_error(run_cli("demo", "--headless", "--dir", str(arg), env=NO_GPU, timeout=TIMEOUT), "--dir")
    assert snapshot(tmp_path) == before and not (tmp_path / "nowhere").exists()
    assert registry_entries() == []


def test_export_dataset_through_a_loop_or_deep_dataset_info_is_one_line(plan_file, tmp_path):
    d = loop(tmp_path / "data")
    before = snapshot(tmp_path)
    one_line_error(run_cli("export", "--plan", str(plan_file), "-o", str(tmp_path / "b"), "--dataset", str(d),
                           env=NO_GPU), "data")
    assert snapshot(tmp_path) == before
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "dataset_info.json").write_text('{"a": ' + "[" * 200_000)
    before = snapshot(tmp_path)
    one_line_error(run_cli("export", "--plan", str(plan_file), "-o", str(tmp_path / "b"), "--dataset", str(folder),
                           env=NO_GPU), f"{MAX_NESTING} levels")
    assert snapshot(tmp_path) == before
