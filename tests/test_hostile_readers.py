"""Issue 25 items 16-19: hostile input to the newer commands (check, explain, resume, --notify, --retry-oom,
--dataset-name, --fix), through the real CLI as subprocesses.

Every hostile file kind of tests/helpers_hostile.py (FIFO, /dev/zero, a sparse 3 GiB file, a 3 MiB line,
brackets 100,000 deep, YAML indented 3,000 deep, a YAML alias bomb, an integer of 4,000 digits, 1e400,
a list where a string belongs, a TOML key of 60,000 dotted parts, a 200,000-term Python expression,
a safetensors header size of 2**63) is fed to every reader each command has. Each case asserts: exit 2
and ONE line on stderr (or, for a file the command only peeks at, no error at all), never a traceback,
done within the subprocess timeout (a hang fails the test) and under a 3 GiB address-space limit (a
memory blow-up is a MemoryError, which fails it), and no user file changed.

Item 16 uses real processes that are not runs (`sleep`, a bash with a USR2 trap, a Python process with a
faulthandler on SIGUSR2) and asserts they are alive and their handler never ran. Item 19's full disk is
real: the child gets a small RLIMIT_FSIZE (writes past it fail with EFBIG, as on a full disk), and a
64 KiB tmpfs where this machine lets the test mount one.
"""

from __future__ import annotations

import fcntl
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.helpers_hostile import KINDS, make

TIMEOUT = 90  # a hang fails the test; every refusal below comes before anything could block
AS_LIMIT = 3 * 2**30
GOOD_YAML = ("model_name_or_path: qwen2.5-0.5b\nstage: sft\nfinetuning_type: lora\ncutoff_len: 1024\n"
             "per_device_train_batch_size: 1\n")


def cli(*args: str, env: dict | None = None, fsize: int | None = None) -> subprocess.CompletedProcess:
    """`python -m rocm_tune ARGS` with an address-space limit (and a file-size limit when given)."""
    def limits():
        resource.setrlimit(resource.RLIMIT_AS, (AS_LIMIT, AS_LIMIT))
        if fsize is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))

    full = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", **(env or {}))
    return subprocess.run([sys.executable, "-m", "rocm_tune", *args], capture_output=True, text=True, env=full,
                          timeout=TIMEOUT, preexec_fn=limits, stdin=subprocess.DEVNULL)


def one_line(p: subprocess.CompletedProcess, must: str = "") -> str:
    assert "Traceback" not in p.stderr, p.stderr[-2000:]
    assert p.returncode == 2, (p.returncode, p.stdout[-500:], p.stderr[-800:])
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1, p.stderr[-2000:]
    assert lines[0].startswith("rocm-tune") and "error" in lines[0], lines[0]
    assert len(lines[0]) < 1000, lines[0][:200]  # the value is named, not dumped
    assert must in lines[0], (must, lines[0])
    return lines[0]


def no_traceback(p: subprocess.CompletedProcess) -> None:
    assert "Traceback" not in p.stderr and "Error:" not in p.stderr.replace("error:", ""), p.stderr[-2000:]
    assert p.returncode in (0, 1, 2), (p.returncode, p.stderr[-800:])


def snapshot(root: Path) -> dict:
    """Every entry under root: mode, size, mtime and (for small regular files) the bytes; never opens a FIFO."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            st = p.lstat()
            data = p.read_bytes() if p.is_file() and not p.is_symlink() and st.st_size < 2**20 else None
            is_dir = p.is_dir() and not p.is_symlink()  # a folder's own size/mtime moves with a temp file in it
            out[str(p.relative_to(root))] = (st.st_mode, None if is_dir else st.st_size,
                                             None if is_dir else st.st_mtime_ns,
                                             os.readlink(p) if p.is_symlink() else None, data)
    return out


@pytest.fixture
def user_dir(tmp_path):
    """A folder of the user's files: its snapshot must be the same after every command."""
    d = tmp_path / "user"
    d.mkdir()
    (d / "good.yaml").write_text(GOOD_YAML)
    yield d


def unchanged(d: Path, before: dict) -> None:
    assert snapshot(d) == before


# ------------------------------------------------------------------------------------------------ 17, 18: check

CHECK_CASES = [(fmt, k) for fmt in ("yaml", "json", "py", "sh") for k in KINDS[fmt]]
# a value of the wrong type inside a well-formed file is a finding of check (exit 0/1), not bad input
CHECK_FINDINGS = {("yaml", "1e400"), ("json", "list-for-str"), ("py", "deep")}


@pytest.mark.parametrize("fmt,kind", CHECK_CASES, ids=[f"{f}-{k}" for f, k in CHECK_CASES])
def test_check_reads_every_hostile_file_kind_in_one_line(user_dir, fmt, kind):
    p = make(kind, user_dir / f"hostile.{fmt}", fmt)
    before = snapshot(user_dir)
    files = [str(user_dir / "good.yaml"), str(p)] if fmt == "json" else [str(p)]
    r = cli("check", *files, "--gpu", "mi50-32gb", "--no-app")
    if (fmt, kind) in CHECK_FINDINGS:
        no_traceback(r)
    else:  # the file is named; a value of the wrong shape is named by its key
        one_line(r, "model_name_or_path" if kind == "list-for-str" else "hostile")
    unchanged(user_dir, before)


def test_check_names_the_limit_that_was_hit(user_dir):
    cases = {("huge", "yaml"): "reads at most 8 MiB", ("long-line", "yaml"): "lines of at most 1,024 KiB",
             ("fifo", "yaml"): "is a FIFO", ("dev-zero", "json"): "is a device",
             ("deep-block", "yaml"): "more than 100 levels deep", ("alias-bomb", "yaml"): "alias bomb",
             ("bigint", "json"): "train_micro_batch_size_per_gpu is an integer of 4000 digits",
             ("1e400", "json"): "train_micro_batch_size_per_gpu is '1e400', a number that overflows",
             ("chain", "py"): "too deeply", ("deep", "json"): "nests brackets more than 1000 levels"}
    for (kind, fmt), must in cases.items():
        p = make(kind, user_dir / f"{kind}.{fmt}", fmt)
        one_line(cli("check", str(p), "--gpu", "mi50-32gb", "--no-app"), must)


def test_check_with_a_hostile_dataset_info_next_to_the_config(user_dir):
    (user_dir / "data").mkdir()
    (user_dir / "train.yaml").write_text(GOOD_YAML + "dataset: alpaca\ndataset_dir: data\n")
    for kind in ("huge", "deep", "bigint", "1e400"):
        info = user_dir / "data" / "dataset_info.json"
        info.unlink(missing_ok=True)
        make(kind, info, "json")
        before = snapshot(user_dir)
        one_line(cli("check", str(user_dir / "train.yaml"), "--gpu", "mi50-32gb", "--no-app"), "dataset_info.json")
        unchanged(user_dir, before)


# ------------------------------------------------------------------------------------------------ explain


@pytest.mark.parametrize("kind", KINDS["log"])
def test_explain_a_hostile_log(user_dir, kind):
    p = make(kind, user_dir / "train.log", "log")
    before = snapshot(user_dir)
    r = cli("explain", str(p))
    if kind in ("fifo", "dev-zero"):
        one_line(r, "not a regular file")
    else:  # a big log or a long line is a log: read bounded, explained
        no_traceback(r)
    unchanged(user_dir, before)


@pytest.mark.parametrize("kind", KINDS["json"])
def test_explain_an_output_dir_whose_trainer_state_is_hostile(user_dir, kind):
    ck = user_dir / "out" / "checkpoint-5"
    ck.mkdir(parents=True)
    (user_dir / "out" / "train.log").write_text("step 1\n")
    make(kind, ck / "trainer_state.json", "json")
    before = snapshot(user_dir)
    for target in (user_dir / "out", ck):  # a file it only peeks at: no error, no hang, no blow-up
        no_traceback(cli("explain", str(target)))
    unchanged(user_dir, before)


# ------------------------------------------------------------------------------------------------ resume, notify


@pytest.fixture(scope="module")
def stopped_run(tmp_path_factory):
    """An exported 2-GPU bundle started with `rocm-tune run --script` (its Python is /bin/false: it ends at once),
    registered in a state folder of this module's own: (env, run id, bundle)."""
    base = tmp_path_factory.mktemp("hostile-run")
    env = {"XDG_STATE_HOME": str(base / "state"), "XDG_CONFIG_HOME": str(base / "config")}
    data = base / "data.json"
    data.write_text(json.dumps([{"instruction": "hi", "input": "", "output": "hello"}] * 8))
    b = base / "bundle"
    r = run_cli("export", "--dataset", str(data), "--model", "qwen2.5-0.5b", "--gpu", "mi250x", "--gpus", "2",
                "--micro-batch", "4", "--effective-batch", "8", "--allow-unfit", "-o", str(b), env=env)
    assert r.returncode == 0, r.stderr
    r = run_cli("run", "--script", str(b / "run.sh"), "--json", "--env", "LLAMAFACTORY_PYTHON=/bin/false", env=env)
    assert r.returncode == 0, r.stderr
    rid = json.loads(r.stdout)["id"]
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        st = run_cli("runs", "--json", env=env)
        if '"status": "running"' not in st.stdout:
            break
        time.sleep(0.2)
    return env, rid, b


RESUME_FILES = [("trainer_state.json", "json"), ("adapter_model.safetensors", "safetensors"),
                ("model.safetensors.index.json", "json"), ("latest", "text")]
RESUME_CASES = [(n, f, k) for n, f in RESUME_FILES for k in KINDS[f] if not (n == "latest" and k == "huge")]


@pytest.mark.parametrize("name,fmt,kind", RESUME_CASES, ids=[f"{n}-{k}" for n, _f, k in RESUME_CASES])
def test_resume_checkpoint_with_a_hostile_file(stopped_run, tmp_path, name, fmt, kind):
    env, rid, _b = stopped_run
    ck = tmp_path / "checkpoint-7"
    ck.mkdir()
    make(kind, ck / name, fmt)
    before = snapshot(tmp_path)
    one_line(cli("resume", rid, "--checkpoint", str(ck), "--dry-run", env=env), "not complete")
    unchanged(tmp_path, before)


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "huge"])
def test_resume_checkpoint_that_is_not_a_folder(stopped_run, tmp_path, kind):
    env, rid, _b = stopped_run
    p = make(kind, tmp_path / "checkpoint-9", "text")
    one_line(cli("resume", rid, "--checkpoint", str(p), "--dry-run", env=env), "is not a folder")


@pytest.mark.parametrize("kind", KINDS["json"])
def test_resume_with_a_hostile_plan_json_never_falls_over(stopped_run, kind):
    env, rid, b = stopped_run
    plan = b / "plan.json"
    keep = plan.read_bytes()
    plan.unlink()
    try:
        make(kind, plan, "json")
        r = cli("resume", rid, "--dry-run", env=env)
        no_traceback(r)
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr[-500:]
    finally:
        plan.unlink()
        plan.write_bytes(keep)


@pytest.mark.parametrize("kind", KINDS["toml"])
@pytest.mark.parametrize("command", ["resume", "run"])
def test_a_hostile_notify_config_is_one_line(stopped_run, tmp_path, kind, command):
    env, rid, _b = stopped_run
    cfg = make(kind, tmp_path / "config.toml", "toml")
    argv = ["resume", rid, "--dry-run"] if command == "resume" else ["run", "--dir", str(tmp_path / "r"), "--", "true"]
    line = one_line(cli(*argv, env={**env, "ROCM_TUNE_CONFIG": str(cfg)}), "config.toml")
    assert not (tmp_path / "r").exists(), line  # nothing was started


BAD_URLS = ["http://[::1", "https://[zz]/x", "http://host:port/", "https://example.com:99999999/x",
            "slack:http://[x", "https://exa mple.com/x", "http://", "https://\x07bell.example/"]


@pytest.mark.parametrize("url", BAD_URLS)
@pytest.mark.parametrize("command", ["resume", "run"])
def test_a_malformed_notify_url_is_one_line(stopped_run, tmp_path, url, command):
    env, rid, _b = stopped_run
    argv = (["resume", rid, "--dry-run", "--notify", url] if command == "resume" else
            ["run", "--notify", url, "--dir", str(tmp_path / "r"), "--", "true"])
    one_line(cli(*argv, env=env), "--notify")
    assert not (tmp_path / "r").exists()


def test_two_resumes_at_once_the_second_is_refused(stopped_run):
    env, rid, b = stopped_run
    run_dir = Path(next(r["dir"] for r in json.loads(run_cli("runs", "--json", env=env).stdout)["runs"]
                        if r["id"] == rid))
    before = json.loads((run_dir / "run.json").read_text())
    fd = os.open(run_dir / ".resume.lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # what a first `resume` holds while it checks and starts the run
        one_line(cli("resume", rid, env=env), "being resumed by another")
    finally:
        os.close(fd)
    after = json.loads((run_dir / "run.json").read_text())
    assert after.get("restarts") == before.get("restarts") and after.get("pid") == before.get("pid")


# ------------------------------------------------------------------------------------------------ --dataset-name, plan


@pytest.mark.parametrize("kind", KINDS["json"])
@pytest.mark.parametrize("command", ["plan", "export"])
def test_a_hostile_dataset_info_for_dataset_name(tmp_path, kind, command):
    d = tmp_path / "data"
    d.mkdir()
    make(kind, d / "dataset_info.json", "json")
    before = snapshot(d)
    extra = ["-o", str(tmp_path / "bundle")] if command == "export" else []
    r = cli(command, "--model", "qwen2.5-0.5b", "--gpu", "mi50-32gb", "--dataset-name", "d", "--dataset-dir", str(d),
            *extra)
    if kind in ("list-for-str", "long-line"):  # well-formed JSON: the entry is checked where it is used
        no_traceback(r)
    else:
        one_line(r, "dataset_info.json")
    unchanged(d, before)


@pytest.mark.parametrize("kind", KINDS["json"])
def test_retry_oom_with_a_hostile_plan_file(tmp_path, kind):
    p = make(kind, tmp_path / "plan.json", "json")
    one_line(cli("run", "--retry-oom", "1", "--plan", str(p), "--dir", str(tmp_path / "r")), "plan")
    assert not (tmp_path / "r").exists()


# ------------------------------------------------------------------------------------------------ 16: signals


def _not_a_run(tmp_path: Path, kind: str) -> tuple[subprocess.Popen, Path, Path]:
    """(process, the file its SIGUSR2 handler would write, its log): a `sleep`, a bash with a USR2 trap, or a
    Python process with a faulthandler on SIGUSR2 — none of them a rocm-tune run."""
    hit = tmp_path / f"{kind}.signalled"
    log = tmp_path / f"{kind}.log"
    ready = tmp_path / f"{kind}.ready"
    if kind == "sleep":
        argv = ["sleep", "300"]
    elif kind == "bash":
        argv = ["bash", "-c", f"trap 'echo USR2 >> {hit}' USR2; echo \"{{'loss': 1.0}}\"; touch {ready}; "
                              "while true; do sleep 0.2; done"]
    else:
        argv = [sys.executable, "-c",
                f"import faulthandler, signal, time, pathlib\nfh = open({str(hit)!r}, 'w')\n"
                "faulthandler.register(signal.SIGUSR2, file=fh, all_threads=True)\n"
                f"print(\"{{'loss': 1.0, 'epoch': 0.1}}\", flush=True)\npathlib.Path({str(ready)!r}).touch()\n"
                "time.sleep(300)\n"]
    out = open(log, "w")
    env = {k: v for k, v in os.environ.items() if k != "ROCM_TUNE_RUN_ID"}
    proc = subprocess.Popen(argv, stdout=out, stderr=out, env=env, start_new_session=True)
    out.close()
    deadline = time.monotonic() + 30
    while kind != "sleep" and not ready.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    if kind == "sleep":
        while time.monotonic() < deadline:
            from rocm_tune.core.runs.procs import proc_stat

            if proc_stat(proc.pid) is not None and open(f"/proc/{proc.pid}/comm").read().strip() == "sleep":
                break
            time.sleep(0.05)
    return proc, hit, log


def _still_unsignalled(proc: subprocess.Popen, hit: Path) -> None:
    time.sleep(0.5)  # a signal sent would have been delivered by now; the asserts do not depend on timing
    assert proc.poll() is None, f"{proc.args[0]} ended: it was signalled"
    assert not hit.exists() or hit.read_text() == "", hit.read_text()[:300]


@pytest.mark.parametrize("kind", ["sleep", "bash", "python"])
def test_explain_pid_and_log_never_signal_a_process_that_is_not_a_run(tmp_path, kind):
    proc, hit, log = _not_a_run(tmp_path, kind)
    try:
        for argv in (["explain", str(proc.pid), "--stacks"], ["explain", str(proc.pid), "--stall-s", "0"],
                     ["explain", str(log), "--stacks"], ["explain", str(log), "--json", "--stacks"]):
            r = cli(*argv)
            no_traceback(r)
            _still_unsignalled(proc, hit)
    finally:
        proc.kill()
        proc.wait()


def test_a_run_json_naming_another_process_is_never_trusted_to_signal(stopped_run, tmp_path):
    """run.json edited to name a `sleep` (with its true start time) as the run's pid and supervisor: explain
    --stacks and stop leave it alone."""
    from rocm_tune.core.runs.procs import proc_start_time

    env, _rid, _b = stopped_run
    r = run_cli("run", "--json", "--name", "victim", "--", "true", env=env)
    assert r.returncode == 0, r.stderr
    info = json.loads(r.stdout)
    run_dir = Path(info["dir"])
    deadline = time.monotonic() + 30
    while not (run_dir / "exit.json").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    proc, hit, _log = _not_a_run(tmp_path, "python")
    sleeper, _hit2, _log2 = _not_a_run(tmp_path, "sleep")
    try:
        meta = json.loads((run_dir / "run.json").read_text())
        start = proc_start_time(proc.pid)
        meta.update(pid=proc.pid, pid_start=start, pgid=proc.pid, supervisor_pid=sleeper.pid,
                    supervisor_start=proc_start_time(sleeper.pid))
        (run_dir / "run.json").write_text(json.dumps(meta))
        (run_dir / "exit.json").unlink()
        for argv in (["explain", info["id"], "--stacks"], ["explain", str(run_dir), "--stacks"],
                     ["stop", info["id"], "--grace", "0"]):
            no_traceback(cli(*argv, env=env))
            _still_unsignalled(proc, hit)
            assert sleeper.poll() is None, "the sleep named as supervisor was signalled"
    finally:
        for p in (proc, sleeper):
            p.kill()
            p.wait()


@pytest.mark.parametrize("pid", ["\u00b2", "\u0663", "\uff11\uff12", "1\u00b2"])
@pytest.mark.parametrize("command", ["explain", "attach"])
def test_a_pid_is_ascii_digits_only(pid, command):
    extra = ["--once", "--no-gpus"] if command == "attach" else []
    one_line(cli(command, pid, *extra), "unknown target")


# ------------------------------------------------------------------------------------------------ 19: --fix


def _oom_config(d: Path, pad: int = 8192) -> Path:
    """An LF YAML that does not fit a 32 GiB card (a fix is written), padded with a comment to `pad` bytes."""
    p = d / "train.yaml"
    p.write_text("model_name_or_path: qwen2.5-7b\nstage: sft\nfinetuning_type: full\ncutoff_len: 4096\n"
                 "per_device_train_batch_size: 16\nbf16: true\n# " + "x" * pad + "\n")
    return p


@pytest.mark.parametrize("existing", [False, True])
def test_fix_on_a_full_disk_leaves_nothing_partial(user_dir, existing):
    cfg = _oom_config(user_dir)
    out = user_dir / "fixed"
    if existing:  # --force over a file already there: on failure it keeps its old bytes
        out.mkdir()
        (out / "train.yaml").write_text("old: contents\n")
    before = snapshot(user_dir)
    r = cli("check", str(cfg), "--gpu", "mi50-32gb", "--fix", str(out), *(["--force"] if existing else []),
            fsize=4096)
    line = one_line(r, "--fix")
    assert "file too large" in line or "disk full" in line, line
    unchanged(user_dir, before)  # no partial file, no temp file, the old one intact
    # without the limit the same command writes the whole fix
    r = cli("check", str(cfg), "--gpu", "mi50-32gb", "--fix", str(out), "--force")
    assert r.returncode in (0, 1) and "Traceback" not in r.stderr, r.stderr[-800:]
    assert (out / "train.yaml").read_text().startswith("model_name_or_path")


def test_fix_on_a_full_tmpfs(user_dir, tmp_path):
    mnt = tmp_path / "full"
    mnt.mkdir()
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mnt)],
                                           capture_output=True).returncode != 0:
        pytest.skip("cannot mount a tmpfs here (needs root and a mount namespace that allows it); "
                    "test_fix_on_a_full_disk_leaves_nothing_partial covers it with RLIMIT_FSIZE")
    try:
        with open(mnt / "fill", "wb", buffering=0) as fh:
            try:
                while True:
                    fh.write(b"\0" * 4096)
            except OSError:
                pass
        (mnt / "fixed").mkdir(exist_ok=True)
        cfg = _oom_config(user_dir)
        before = snapshot(mnt)
        one_line(cli("check", str(cfg), "--gpu", "mi50-32gb", "--fix", str(mnt / "fixed")), "disk full")
        assert snapshot(mnt) == before
    finally:
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


PROGRAM = ("from transformers import TrainingArguments, Trainer, AutoModelForCausalLM\n"
           "model = AutoModelForCausalLM.from_pretrained('Qwen/Qwen2.5-7B', torch_dtype='bfloat16')\n"
           "args = TrainingArguments(output_dir='out', per_device_train_batch_size=64, bf16=True,\n"
           "                         gradient_accumulation_steps=1, deepspeed='ds_z2_offload_config.json')\n"
           "Trainer(model=model, args=args).train()\n")


def test_fix_never_writes_shell_lines_into_a_python_program(user_dir):
    prog = user_dir / "train.py"
    prog.write_text(PROGRAM.replace(", deepspeed='ds_z2_offload_config.json'", "").replace(
        "gradient_accumulation_steps=1, ", ""))
    before = snapshot(user_dir)
    out = user_dir / "fixed"
    r = cli("check", str(prog), "--gpu", "mi50-32gb", "--model", "qwen2.5-7b", "--fix", str(out))
    line = one_line(r, "by hand")
    unchanged(user_dir, before)
    j = json.loads(cli("check", str(prog), "--gpu", "mi50-32gb", "--model", "qwen2.5-7b", "--json").stdout)
    assert j["fix"]["manual"] and all("=" in m and not m.startswith("--") and m in line for m in j["fix"]["manual"])
    for text in j["fix"]["files"].values():
        assert "\n--" not in text and not text.lstrip().startswith("--")


def test_fix_edits_a_python_programs_own_arguments_as_python(user_dir):
    import ast

    prog = user_dir / "train.py"
    prog.write_text(PROGRAM)
    out = user_dir / "fixed"
    # an A100: SDPA's flash kernel, so the fix is the batch alone (on an MI50 the math kernel's scores also need
    # checkpointing, which a program's TrainingArguments gets by hand: test_fix_never_writes_shell_lines_...)
    r = cli("check", str(prog), "--gpu", "a100-40gb", "--model", "qwen2.5-7b", "--fix", str(out))
    assert r.returncode in (0, 1) and "Traceback" not in r.stderr, r.stderr[-800:]
    fixed = (out / "train.py").read_text()
    tree = ast.parse(fixed)  # still Python
    kws = {k.arg: ast.literal_eval(k.value) for n in ast.walk(tree) if isinstance(n, ast.Call)
           and getattr(n.func, "id", "") == "TrainingArguments" for k in n.keywords}
    assert kws["per_device_train_batch_size"] < 64
    assert kws["per_device_train_batch_size"] * kws["gradient_accumulation_steps"] == 64  # same effective batch
    assert not any(line.lstrip().startswith("--") for line in fixed.splitlines())
