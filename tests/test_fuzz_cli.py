"""Property-based fuzz of every subcommand's arguments and of the files they read (issue 15).

The property: whatever the arguments and file contents, `rocm-tune` answers with exit code 0, 1 or 2,
never a traceback (no exception escapes `cli.main`), a rc-2 answer ends in one `error:` line, and
`--json` output is strict JSON (no NaN/Infinity). Runs in-process (fast), with modest example counts
and `deadline=None` so a loaded CI machine does not fail it. Commands that would start something
real are given a command that cannot start (`run -- <missing>`), `--check` (`train`) or `--once`
(`attach`); `demo` is fuzzed through its flag values only with `--help`-free invalid values.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rocm_tune import cli
from rocm_tune.core.runs import rundir as rd

SETTINGS = settings(max_examples=12, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                           HealthCheck.filter_too_much])


@pytest.fixture(scope="module")
def hostile_files(tmp_path_factory):
    d = tmp_path_factory.mktemp("hostile")
    fifo = d / "fifo.yaml"
    os.mkfifo(fifo)
    (d / "deep.json").write_text("[" * 200_000)
    (d / "deep.yaml").write_text("a: " + "[" * 200_000 + "\n")
    (d / "junk.bin").write_bytes(bytes(range(256)) * 64)
    (d / "empty.json").write_text("")
    (d / "long.log").write_text("x" * 3_000_000)
    (d / "dir").mkdir()
    (d / "nan.json").write_text('{"recommended": {"cutoff_len": Infinity}, "version": 2}')
    link = d / "dangling.json"
    link.symlink_to(d / "nowhere")
    return d


VALUES = ["0", "1", "-1", "2", "7", "64", "1e309", "nan", "inf", "-inf", "1.5", "99999999999999999999", "abc",
          " ", "qwen2.5-0.5b", "mi50-32gb", "lora", "full", "fp16", "bf16", "../x", "/dev/zero", "-", "%s",
          "{fifo}", "{deep.json}", "{deep.yaml}", "{junk.bin}", "{empty.json}", "{dir}", "{dangling.json}",
          "{nan.json}", "{long.log}", "99999999999"]


def _value(draw, files: Path) -> str:
    v = draw(st.one_of(st.sampled_from(VALUES), st.text(max_size=12)))
    if v.startswith("{") and v.endswith("}") and v[1:-1]:
        name = v[1:-1]
        return str(files / ("fifo.yaml" if name == "fifo" else name))
    return v.replace("\0", "")


def _options(name: str):
    parser, _ = cli.build_parser(name)
    opts = []
    positionals = []
    for a in parser._actions:
        if a.dest == "help":
            continue
        if not a.option_strings:
            positionals.append(a)
            continue
        opts.append(a)
    return opts, positionals


SKIP_OPTS = {"gpus": {"--watch", "--record", "--frames"}, "attach": {"--plain", "--interval"},
             "export": {"-o", "--out"}, "wizard": {"--plain", "-o", "--output"}, "run": {"--cwd"}}


@st.composite
def argv_for(draw, name: str, files: Path, tmp: Path):
    opts, positionals = _options(name)
    skip = SKIP_OPTS.get(name, set())
    argv = [name]
    for a in positionals:
        if a.nargs in ("*", "?", argparse_remainder()) and draw(st.booleans()):
            continue
        if a.dest == "command":
            continue
        argv.append(_value(draw, files))
    chosen = draw(st.lists(st.sampled_from([o for o in opts if not set(o.option_strings) & skip]),
                           max_size=5, unique_by=lambda o: o.dest)) if opts else []
    for o in chosen:
        flag = draw(st.sampled_from(o.option_strings))
        if o.nargs == 0:
            argv.append(flag)
        else:
            val = draw(st.sampled_from([str(c) for c in o.choices])) if o.choices and draw(st.booleans()) \
                else _value(draw, files)
            argv += [flag, val]
    # never start anything real, never follow forever
    if name == "attach":
        argv += ["--once", "--no-gpus"]
    elif name == "train":
        argv += ["--check"]
    elif name == "export":
        argv += ["-o", str(tmp / f"bundle-{draw(st.integers(0, 10**9))}")]
    elif name == "wizard":
        argv += ["--answers", str(files / draw(st.sampled_from(["deep.yaml", "fifo.yaml", "junk.bin", "nan.json"])))]
    elif name == "run":
        argv += ["--", "/nonexistent/rocm-tune-fuzz-command"]
    return argv


def argparse_remainder():
    import argparse

    return argparse.REMAINDER


def check_answer(argv: list[str], capsys) -> int:
    try:
        rc = cli.main(argv)
    except SystemExit as exc:  # --help / --version
        rc = exc.code if isinstance(exc.code, int) else 0
    out, err = capsys.readouterr()
    assert rc in (0, 1, 2), (argv, rc, err[-500:])
    assert "Traceback" not in err, (argv, err[-2000:])
    if rc == 2:
        last = err.strip().splitlines()[-1] if err.strip() else ""
        assert "error:" in last, (argv, err[-500:])
    if rc == 0 and "--json" in argv and out.strip():
        json.loads(out, parse_constant=lambda c: pytest.fail(f"{argv}: invalid JSON constant {c}"))
    return rc


FUZZED = ["estimate", "plan", "models", "dataset", "export", "run", "runs", "attach", "stop", "gpus", "train",
          "wizard", "doctor"]


@pytest.mark.slow
@pytest.mark.parametrize("name", FUZZED)
def test_every_subcommand_answers_any_arguments_without_a_traceback(name, hostile_files, tmp_path, capsys,
                                                                      monkeypatch):
    monkeypatch.setenv("ROCM_TUNE_FAKE_GPUS", "mi50-32gb:2")
    monkeypatch.chdir(tmp_path)

    @SETTINGS
    @given(argv=argv_for(name, hostile_files, tmp_path))
    def prop(argv):
        check_answer(argv, capsys)

    prop()


# ---------------------------------------------------------------------------------------------- files

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=30),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(
        st.sampled_from(["instruction", "input", "output", "messages", "conversations", "role", "content",
                         "from", "value", "loss", "step", "type", "total_steps", "grad_norm", "id", "pid",
                         "command", "created_at", "env", "x"]), children, max_size=5),
    max_leaves=20)


@pytest.mark.slow
@SETTINGS
@given(records=st.lists(JSON_VALUES, max_size=6), as_lines=st.booleans(), junk=st.binary(max_size=40))
def test_dataset_files_of_any_content(records, as_lines, junk, tmp_path_factory, capsys):
    d = tmp_path_factory.mktemp("ds")
    p = d / ("data.jsonl" if as_lines else "data.json")
    body = "\n".join(json.dumps(r) for r in records) if as_lines else json.dumps(records)
    p.write_bytes(body.encode() + (junk if len(records) % 3 == 2 else b""))
    check_answer(["dataset", str(p), "--json"], capsys)


LOG_LINES = st.one_of(
    st.builds(lambda r: json.dumps(r), JSON_VALUES),
    st.builds(lambda s, v: f"{{'loss': {v}, 'grad_norm': {v}, 'learning_rate': 1e-4, 'epoch': {s}}}",
              st.integers(0, 10**6), st.sampled_from(["0.0", "nan", "inf", "1.5", "-3", "1e309", "'x'"])),
    st.builds(lambda a, b: f" {a}%|###| {a}/{b} [00:01<00:02, 1.5s/it]", st.integers(0, 10**9), st.integers(0, 10**9)),
    st.sampled_from(["Traceback (most recent call last):", "ValueError: Your setup doesn't support bf16/gpu.",
                     "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB",
                     "[rank1]: world size: 2 compute dtype: None", "OVERFLOW! Rank 0 Skipping step."]),
    st.text(max_size=80))


@pytest.mark.slow
@SETTINGS
@given(lines=st.lists(LOG_LINES, max_size=30),
       name=st.sampled_from(["metrics.jsonl", "trainer_log.jsonl", "train.log", "trainer_state.json", "nohup.out"]))
def test_attach_to_log_files_of_any_content(lines, name, tmp_path_factory, capsys):
    d = tmp_path_factory.mktemp("log")
    p = d / name
    p.write_bytes("\n".join(lines).encode("utf-8", "replace"))
    check_answer(["attach", str(p), "--once", "--json", "--no-gpus"], capsys)
    check_answer(["attach", str(d), "--once", "--json", "--no-gpus"], capsys)


@pytest.mark.slow
@SETTINGS
@given(doc=JSON_VALUES, raw=st.text(max_size=60), use_raw=st.booleans())
def test_training_configs_of_any_content(doc, raw, use_raw, tmp_path_factory, capsys):
    d = tmp_path_factory.mktemp("cfg")
    p = d / "train.yaml"
    p.write_text(raw if use_raw else yaml.safe_dump(doc, allow_unicode=True), encoding="utf-8")
    check_answer(["train", str(p), "--check"], capsys)


RUN_FIELDS = ["id", "name", "command", "cwd", "env", "created_at", "started_at", "pid", "pgid", "supervisor_pid",
              "plan", "kind", "total_steps", "pid_start", "supervisor_start", "cgroup", "main_exit"]


@pytest.mark.slow
@SETTINGS
@given(changes=st.dictionaries(st.sampled_from(RUN_FIELDS), JSON_VALUES, max_size=4),
       exit_rec=st.one_of(st.none(), JSON_VALUES))
def test_run_records_of_any_content(changes, exit_rec, capsys):
    info = rd.create_run(["true"], name="fz")
    path = Path(info.dir) / "run.json"
    meta = json.loads(path.read_text())
    meta.update(changes)
    path.write_text(json.dumps(meta))
    if exit_rec is not None:
        (Path(info.dir) / "exit.json").write_text(json.dumps(exit_rec))
    check_answer(["runs", "--json"], capsys)
    check_answer(["runs"], capsys)
    check_answer(["attach", info.dir, "--once", "--json", "--no-gpus"], capsys)
    rc = check_answer(["stop", info.dir, "--grace", "0"], capsys)
    assert rc in (0, 1, 2)
    import shutil

    shutil.rmtree(info.dir, ignore_errors=True)


@pytest.mark.slow
@SETTINGS
@given(plan=JSON_VALUES)
def test_plan_files_of_any_content(plan, tmp_path_factory, capsys):
    d = tmp_path_factory.mktemp("plan")
    p = d / "plan.json"
    p.write_text(json.dumps(plan))
    check_answer(["export", "--plan", str(p), "-o", str(d / "out")], capsys)
