"""Readers of the configs users already have (pure: standard library + yaml).

One module per format: ``lf_yaml`` (LLaMA-Factory YAML, overrides, flags), ``hf_args`` (HF
TrainingArguments flags of custom scripts), ``swift`` (ms-swift command lines), ``deepspeed_json``,
``accelerate`` (accelerate config YAML), ``shell`` (scripts, launch lines, line continuations, #SBATCH).
``read_job(files)`` detects each file's format from its content and merges the files given together
into one :class:`Job` (the files given together are one job: a reference from one to another resolves
to the file given beside it with that name)."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from rocm_tune.core.errors import UserError
from rocm_tune.core.files import MAX_CONFIG_BYTES, check_lines, load_yaml, read_bytes
from rocm_tune.core.formats import accelerate, axolotl, deepspeed_json, hf_args, lf_yaml, shell, swift
from rocm_tune.core.formats.common import Finding, Setting, as_int

__all__ = ["Finding", "Job", "Setting", "detect", "read_job"]

LAUNCHERS = ("torchrun", "deepspeed", "accelerate", "torch.distributed.run", "torch.distributed.launch")


@dataclass
class Job:
    runner: str = "unknown"       # llamafactory | builtin | hf | ms-swift | axolotl | unknown
    entry: str = ""               # what runs: "llamafactory-cli train", "fine-tune.py", ...
    entry_file: str | None = None
    entry_line: int | None = None
    launcher: str | None = None   # torchrun | deepspeed | accelerate | llamafactory-cli | swift | None
    settings: dict[str, Setting] = field(default_factory=dict)
    gpus: Setting | None = None
    nodes: Setting | None = None
    ds: deepspeed_json.DsConfig | None = None
    accelerate: dict | None = None
    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)     # what was mapped / resolved, said in the answer
    files: dict[str, str] = field(default_factory=dict)   # path -> text of every file given
    formats: dict[str, str] = field(default_factory=dict)  # path -> detected format
    script_flags: dict[str, str] = field(default_factory=dict)  # canonical key -> native flag, for fixes
    lf_launch: bool = False            # LLaMA-Factory started through rocm-tune's lf_launch (an exported bundle)
    ds_from_accelerate: bool = False   # ZeRO set by the accelerate config's deepspeed_config (no JSON file)

    def get(self, key: str, default=None):
        s = self.settings.get(key)
        return default if s is None else s.value


def _load_structured(text: str, path: str = "config"):
    s = text.lstrip()
    if s.startswith("{"):
        return deepspeed_json.parse_text(text, path)
    try:
        return load_yaml(text, path, "config", syntax_errors=True)
    except yaml.YAMLError:
        return _lenient_mapping(text)


def _lenient_mapping(text: str) -> dict | None:
    """An excerpt cut mid-line (a post that stops at `lr_sc`): the `key: value` lines that parse."""
    out: dict = {}
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#") or line.startswith((" ", "\t")):
            continue
        if ":" not in line:
            continue
        try:
            d = load_yaml(line, "excerpt", "config", syntax_errors=True)
        except (yaml.YAMLError, UserError):
            continue
        if isinstance(d, dict):
            out.update(d)
    return out if len(out) >= 3 else None


_HOST_LINE = re.compile(r"^\s*([^\s#]+)\s+slots\s*=\s*(\d+)\s*(#.*)?$")


def hostfile_hosts(text: str) -> list[tuple[str, int]] | None:
    """A DeepSpeed hostfile (`HOST slots=N` lines, `#` comments): [(host, slots)], else None."""
    hosts = []
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        m = _HOST_LINE.match(line)
        if m is None:
            return None
        hosts.append((m.group(1), int(m.group(2))))
    return hosts or None


def detect(text: str, path: str = "config") -> str:
    """lf-yaml | axolotl-yaml | accelerate-yaml | deepspeed-json | dataset-info | rocm-tune-plan | hostfile | script
    | python | unknown."""
    if hostfile_hosts(text):
        return "hostfile"
    data = _load_structured(text, path)
    if lf_yaml.is_lf_mapping(data):
        return "lf-yaml"
    if isinstance(data, dict) and "base_model" in data:
        return "axolotl-yaml"
    if accelerate.is_accelerate_mapping(data):
        return "accelerate-yaml"
    if deepspeed_json.is_ds_mapping(data):
        return "deepspeed-json"
    if isinstance(data, dict) and {"recommended", "hardware", "goal"} <= set(data):
        return "rocm-tune-plan"
    if isinstance(data, dict) and data and all(
            isinstance(v, dict) and any(k in v for k in ("file_name", "hf_hub_url", "ms_hub_url", "script_url",
                                                          "cloud_file_name", "om_hub_url")) for v in data.values()):
        return "dataset-info"
    if any(w in text for w in ("import torch", "from transformers", "def ", "import ")) and "\\\n" not in text:
        return "python"
    words = text.split()
    if any(w.startswith("--") for w in words) or any(
            k in text for k in ("llamafactory-cli", "torchrun", "deepspeed", "accelerate", "swift ", "python")):
        return "script"
    return "unknown"


def _entry(argv: list[str]) -> tuple[int, str, str] | None:
    """(index, runner, entry description) of the training program inside a command."""
    for i, w in enumerate(argv):
        base = os.path.basename(w)
        if base in ("llamafactory-cli", "lmf") and i + 1 < len(argv) and argv[i + 1] in ("train", "sft"):
            return i + 1, "llamafactory", "llamafactory-cli train"
        if base == "lf_launch.py" or w == "rocm_tune.train.lf_launch":
            return i, "llamafactory", "lf_launch"
        if base in ("train_bash.py",) or w.endswith(("src/train.py", "src/train_bash.py")) or \
                w in ("llamafactory.train", "llamafactory.launcher"):
            return i, "llamafactory", w
        if base == "swift" and i + 1 < len(argv) and argv[i + 1] in ("sft", "pt", "rlhf"):
            return i + 1, "ms-swift", f"swift {argv[i + 1]}"
        if w in ("axolotl.cli.train",) or (base == "axolotl" and i + 1 < len(argv) and argv[i + 1] == "train"):
            return (i + 1 if base == "axolotl" else i), "axolotl", "axolotl train"
        if ((w == "rocm_tune" and i > 0 and argv[i - 1] in ("-m", "--module")) or base == "rocm-tune") \
                and i + 1 < len(argv) and argv[i + 1] == "train":
            return i + 1, "builtin", "rocm-tune train"     # rocm-tune's own trainer (a --runner builtin bundle)
        if w.endswith(".py"):
            return i, "hf", w
    return None


def _count_devices(v: str) -> int | None:
    parts = [p for p in str(v).split(",") if p.strip() != ""]
    return len(parts) if parts and all(p.strip().lstrip("-").isdigit() or p.strip().startswith(("GPU-", "MIG-"))
                                       for p in parts) else None


def _read_command(job: Job, cmd: shell.Command, file: str, script: shell.Script) -> None:
    argv = cmd.argv
    hit = _entry(argv)
    if hit is None:
        return
    idx, runner, entry = hit
    job.runner, job.entry, job.entry_file, job.entry_line = runner, entry, file, cmd.tokens[idx].line
    job.lf_launch = entry == "lf_launch"
    pre = cmd.tokens[:idx]
    prog = cmd.tokens[idx + 1:]
    env = {**script.exports, **cmd.env}
    # the launcher and its flags (everything before the program)
    launch_flags: dict[str, tuple[str, int]] = {}
    for i, t in enumerate(pre):
        b = os.path.basename(t.text)
        if b in LAUNCHERS or b.endswith("ccelerate") or t.text in LAUNCHERS:
            job.launcher = "accelerate" if b.endswith("ccelerate") else ("torchrun" if "torch" in b else b)
            launch_flags = shell.flag_values(pre[i + 1:])
            break
    if runner == "llamafactory" and job.launcher is None:
        job.launcher = "llamafactory-cli" if "llamafactory-cli" in entry else None
    if runner == "ms-swift":
        job.launcher = "swift"
    g = None
    for k in ("nproc_per_node", "nproc-per-node", "num_gpus", "num_processes"):
        if k in launch_flags and as_int(launch_flags[k][0]):
            g = Setting("gpus", as_int(launch_flags[k][0]), file, launch_flags[k][1], k, "flag")
    if "include" in launch_flags:         # deepspeed --include localhost:0,1
        inc = launch_flags["include"][0].split("@")[0]
        n = _count_devices(inc.split(":", 1)[1]) if ":" in inc else None
        if n:
            g = Setting("gpus", n, file, launch_flags["include"][1], "include", "flag")
    for k in ("nnodes", "num_nodes", "num_machines"):
        if k in launch_flags and as_int(launch_flags[k][0]):
            job.nodes = Setting("nodes", as_int(launch_flags[k][0]), file, launch_flags[k][1], k, "flag")
    if "hostfile" in launch_flags:     # read when the hostfile is given beside the script (read_texts)
        job.settings["__hostfile__"] = Setting("__hostfile__", launch_flags["hostfile"][0], file,
                                               launch_flags["hostfile"][1], "hostfile", "flag")
    if "config_file" in launch_flags:
        job.settings["accelerate_config"] = Setting("accelerate_config", launch_flags["config_file"][0], file,
                                                    launch_flags["config_file"][1], "config_file", "flag")
    if g is None and as_int(env.get("NPROC_PER_NODE", "x")) and (runner in ("ms-swift", "llamafactory")):
        g = Setting("gpus", as_int(env["NPROC_PER_NODE"]), file, cmd.line, "NPROC_PER_NODE", "env")
    if g is None:
        for var in ("HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES"):
            if var in env and _count_devices(env[var]):
                n = _count_devices(env[var])
                # llamafactory-cli / swift / deepspeed start one rank per visible device; python script.py is one
                if job.launcher in ("llamafactory-cli", "swift", "deepspeed", "accelerate") or n == 1:
                    g = Setting("gpus", n, file, cmd.line, var, "env")
                break
    if g is None and runner in ("hf", "builtin") and job.launcher is None:
        g = Setting("gpus", 1, file, cmd.line, "python", "assumed")
    if g is not None and job.gpus is None:
        job.gpus = g
    # the program's own arguments
    words = prog
    if runner == "axolotl":
        for t in [t for t in words if not t.text.startswith("-")][:1]:
            if t.text.endswith((".yaml", ".yml")):
                job.settings["__config_ref__"] = Setting("__config_ref__", t.text, file, t.line, t.text, "ref")
        job.script_flags["style"] = "axolotl"
    elif runner in ("llamafactory", "builtin"):
        positional = [t for t in words if not t.text.startswith("-")]
        for t in positional[:1]:
            if t.text.endswith((".yaml", ".yml", ".json")):
                job.settings["__config_ref__"] = Setting("__config_ref__", t.text, file, t.line, t.text, "ref")
        overrides = [(t.text, t.line) for t in words if "=" in t.text and not t.text.startswith("-")]
        job.settings.update(lf_yaml.read_overrides(overrides, file))
        job.settings.update(lf_yaml.read_flags(shell.flag_values(words), file))
        job.script_flags["style"] = "lf-flags"
    elif runner == "ms-swift":
        job.settings.update(swift.read_flags(shell.flag_values(words), file))
        job.script_flags["style"] = "swift"
    else:
        st, notes = hf_args.read_flags(shell.flag_values(words), file)
        job.settings.update(st)
        job.notes += notes
        job.script_flags["style"] = "hf"


def _resolve_ref(ref: str, here: Path, given: dict[str, str]) -> tuple[str | None, str]:
    """A path named in one file -> (path of a given file or an existing one, how it was resolved)."""
    base = os.path.basename(ref.strip())
    for p in given:
        name = os.path.basename(p)
        if name == base or name.startswith(base + ".") or name == base + ".json":
            if os.path.abspath(p) != os.path.abspath(ref):
                return p, f"{ref}: read from the file given beside it ({p})"
            return p, ""
    for cand in (Path(ref), here / ref):
        if cand.is_file():
            return str(cand), ""
    return None, ""


def read_job(paths: list[str]) -> Job:
    """Read the files given together as one job. UserError (exit 2) for a path that cannot be read or a
    file in which nothing is understood."""
    texts: dict[str, str] = {}
    for p in paths:
        path = Path(p)
        if not path.exists():
            raise UserError(f"{p}: no such file")
        if path.is_dir():
            raise UserError(f"{p}: is a directory; give the config files themselves")
        raw = read_bytes(path, "config file", MAX_CONFIG_BYTES)  # a FIFO, a device or a huge file: one line
        if b"\x00" in raw[:4096]:
            raise UserError(f"{p}: a binary file, not a config, script or DeepSpeed JSON")
        texts[p] = check_lines(raw.decode("utf-8", errors="replace"), p, "config file")
    return read_texts(texts)


def read_texts(texts: dict[str, str]) -> Job:
    """As read_job, from {path: text} (the files given, or a fixed version of them)."""
    paths = list(texts)
    job = Job()
    job.files = dict(texts)
    yaml_cfgs: list[tuple[str, dict]] = []
    axo_cfgs: list[str] = []
    for p, text in texts.items():
        fmt = detect(text, p)
        job.formats[p] = fmt
        if fmt == "deepspeed-json":
            job.ds = deepspeed_json.read(_load_structured(text), text, p)
        elif fmt == "accelerate-yaml":
            job.accelerate = accelerate.read(_load_structured(text), text, p)
        elif fmt == "lf-yaml":
            yaml_cfgs.append((p, _load_structured(text)))
        elif fmt == "script":
            script = shell.parse_script(text, p)
            job.findings += script.findings
            for cmd in script.commands:
                if job.entry and _entry(cmd.argv) is not None and job.entry_file != p:
                    job.notes.append(f"{p}:{cmd.line} starts the training too (another way to launch it); "
                                     f"the GPUs are read from {job.entry_file}")
                    continue
                if job.entry and _entry(cmd.argv) is not None:
                    job.findings.append(Finding(
                        "SEVERAL_TRAININGS", "warning", p, cmd.line,
                        f"another training starts on line {cmd.line}; this answer is for the first one "
                        f"({job.entry_file}:{job.entry_line})", "check the other one on its own"))
                    continue
                _read_command(job, cmd, p, script)
            sb = script.sbatch
            for key in ("--nodes", "-N"):
                if key in sb and as_int(sb[key][0]) and job.nodes is None:
                    job.nodes = Setting("nodes", as_int(sb[key][0]), p, sb[key][1], "#SBATCH " + key, "sbatch")
            for key in ("--gres", "--gpus-per-node"):
                if key in sb and job.gpus is None:
                    n = as_int(sb[key][0].rsplit(":", 1)[-1])
                    if n:
                        job.gpus = Setting("gpus", n, p, sb[key][1], "#SBATCH " + key, "sbatch")
        elif fmt == "axolotl-yaml":
            axo_cfgs.append(p)
        elif fmt in ("dataset-info", "hostfile"):
            pass                       # read by check's dataset finding / by the deepspeed --hostfile below
        elif fmt == "rocm-tune-plan":
            job.notes.append(f"{p}: rocm-tune's own plan.json (not read here: the bundle's files are; "
                             f"`rocm-tune preflight {p}` verifies it on the machine)")
        elif fmt == "python":
            # the program a given script starts: its flags are read there, its code is not (info only)
            started = any(os.path.basename(p) in t for q, t in texts.items() if q != p)
            lib = hf_args.python_program(text)
            read = None if started or lib else hf_args.read_python(text, p)
            if read is not None:       # a program that builds its TrainingArguments in code: one process
                job.settings = {**read[0], **job.settings}
                job.notes += read[1]
                job.runner, job.entry, job.entry_file, job.entry_line = "hf", f"python {os.path.basename(p)}", p, 1
                job.script_flags["style"] = "python"
                job.gpus = job.gpus or Setting("gpus", 1, p, 1, "python", "assumed")
                continue
            if lib:
                job.findings.append(Finding("FORMAT_NOT_MODELLED", "warning", p, 1,
                                            f"Python program using {lib.split()[0]}: {lib}; not modelled", None))
                continue
            job.findings.append(Finding(
                "FORMAT_NOT_MODELLED", "info" if started else "warning", p, 1,
                "Python source: the training settings inside a program are not read"
                + ("; the flags the script passes it are" if started else ""), None))
        else:
            job.findings.append(Finding("FORMAT_UNKNOWN", "warning", p, None,
                                        "not recognised as a LLaMA-Factory YAML, DeepSpeed JSON, accelerate config "
                                        "or launch script", None))
    if all(f in ("unknown", "dataset-info", "rocm-tune-plan", "hostfile") for f in job.formats.values()):
        raise UserError(f"{paths[0]}: nothing in it is a training config (LLaMA-Factory YAML, DeepSpeed JSON, "
                        f"accelerate config or launch script)")
    _read_hostfile(job, texts)
    # a YAML the command line names (or the only one given): its keys, then the command's overrides
    ref = job.settings.pop("__config_ref__", None)
    chosen = None
    if ref is not None:
        hit, how = _resolve_ref(str(ref.value), Path(ref.file or ".").parent, {p: t for p, t in texts.items()})
        if hit and job.formats.get(hit) == "lf-yaml":
            chosen = hit
            if how:
                job.notes.append(how)
        elif hit is None:
            job.findings.append(Finding("REFERENCE_MISSING", "warning", ref.file, ref.line,
                                        f"{ref.value} is not here and was not given beside the script", None))
    if chosen is None and yaml_cfgs:
        chosen = yaml_cfgs[0][0]
    if chosen is None and axo_cfgs:
        ax = axo_cfgs[0]
        if ref is not None:
            hit, how = _resolve_ref(str(ref.value), Path(ref.file or ".").parent, texts)
            if hit in axo_cfgs:
                ax = hit
                if how:
                    job.notes.append(how)
        st, notes = axolotl.read(dict(_load_structured(texts[ax])), texts[ax], ax)
        job.settings = {**st, **job.settings}
        job.notes += notes
        job.runner = "axolotl"
        job.script_flags["style"] = "axolotl-yaml"
        if not job.entry:
            job.entry, job.entry_file = "axolotl train", ax
    if chosen is not None:
        data = dict(_load_structured(texts[chosen]))
        base = lf_yaml.read_yaml(data, texts[chosen], chosen)
        try:
            load_yaml(texts[chosen], chosen, "config", syntax_errors=True)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            job.findings.append(Finding("YAML_EXCERPT", "warning", chosen, mark.line + 1 if mark else None,
                                        "the YAML does not parse as a whole (an excerpt?): only its complete "
                                        "`key: value` lines were read", None))
        over = job.settings
        job.settings = {**base, **over}
        if job.runner != "builtin":          # the built-in trainer reads the same YAML
            job.runner = "llamafactory"
        if not job.entry:
            job.entry, job.entry_file = "llamafactory-cli train", chosen
    # DeepSpeed JSON named by the config
    dsref = job.settings.get("deepspeed")
    named_given = dsref is not None and _resolve_ref(str(dsref.value), Path("."), texts)[0] in texts
    if dsref is not None and job.runner == "ms-swift" and str(dsref.value) in swift.NAMED_DS and not named_given:
        stage, off = swift.NAMED_DS[str(dsref.value)]
        data = {"zero_optimization": {"stage": stage}, "bf16": {"enabled": "auto"}, "fp16": {"enabled": "auto"}}
        if off != "none":
            data = deepspeed_json.with_zero(data, stage, off)
        job.ds = deepspeed_json.read(data, "", None)
        job.notes.append(f"--deepspeed {dsref.value}: ms-swift's built-in ZeRO-{stage} config")
    elif dsref is not None and str(dsref.value).strip() not in ("", "None", "null"):
        hit, how = _resolve_ref(str(dsref.value), Path(dsref.file or ".").parent, texts)
        if hit and job.formats.get(hit) == "deepspeed-json":
            job.ds = deepspeed_json.read(_load_structured(texts[hit]), texts[hit], hit)
            if how:
                job.notes.append(how)
        elif hit is None:
            name = os.path.basename(str(dsref.value))
            ex = deepspeed_json.lf_example(name)
            guess = re.search(r"(?:^|[_\-.])z(?:ero)?[_\-]?([0-3])(?![0-9])", name.lower())
            if ex is not None and job.runner == "llamafactory":
                job.ds = deepspeed_json.read(ex, "", None)
                job.notes.append(f"{dsref.value}: not given; read as LLaMA-Factory's own examples/deepspeed file "
                                 f"of that name")
            elif guess:
                stage = int(guess.group(1))
                off = ("all" if stage == 3 else "optimizer") if "offload" in name.lower() else "none"
                base = deepspeed_json.lf_example("ds_z3_config.json" if stage == 3 else "ds_z2_config.json") or {}
                job.ds = deepspeed_json.read(deepspeed_json.with_zero(base, stage, off), "", None)
                job.findings.append(Finding(
                    "REFERENCE_MISSING", "warning", dsref.file, dsref.line,
                    f"DeepSpeed config {dsref.value} is not here and was not given: ZeRO-{stage}"
                    f"{' + offload' if off != 'none' else ''} assumed from its name, buckets \"auto\"",
                    "give the JSON file too"))
            else:
                job.findings.append(Finding("REFERENCE_MISSING", "warning", dsref.file, dsref.line,
                                            f"DeepSpeed config {dsref.value} is not here and was not given beside "
                                            f"the config; its ZeRO stage is unknown", "give the JSON file too"))
    # accelerate config named by --config_file
    acc = job.settings.pop("accelerate_config", None)
    if acc is not None and job.accelerate is None:
        hit, how = _resolve_ref(str(acc.value), Path(acc.file or ".").parent, texts)
        if hit and job.formats.get(hit) == "accelerate-yaml":
            job.accelerate = accelerate.read(_load_structured(texts[hit]), texts[hit], hit)
    if job.accelerate is not None:
        a = job.accelerate
        if job.nodes is None and (a.get("num_machines") or 1) > 1:
            job.nodes = Setting("nodes", a["num_machines"], a["file"], a["lines"].get("num_machines"),
                                "num_machines", "yaml")
        if job.gpus is None and a.get("num_processes"):
            job.gpus = Setting("gpus", a["num_processes"], a["file"], a["lines"].get("num_processes"),
                               "num_processes", "yaml")
        if job.ds is None and a.get("zero_stage") is not None:
            data = {"zero_optimization": {"stage": a["zero_stage"]}}
            if a.get("offload_param") == "cpu" or a.get("offload_optimizer") == "cpu":
                data = deepspeed_json.with_zero(data, a["zero_stage"],
                                                "all" if a.get("offload_param") == "cpu" else "optimizer")
            job.ds = deepspeed_json.read(data, "", None)
            job.ds_from_accelerate = True
    _per_node_processes(job)
    return job


def _read_hostfile(job: Job, texts: dict[str, str]) -> None:
    """`deepspeed --hostfile F`: F given beside the script says the nodes (its hosts) and, when the script does not,
    the GPUs per node (their slots; DeepSpeed's runner.py fetch_hostfile)."""
    ref = job.settings.pop("__hostfile__", None)
    if ref is None:
        return
    hit, how = _resolve_ref(str(ref.value), Path(ref.file or ".").parent, texts)
    hosts = hostfile_hosts(texts[hit]) if hit in texts else None
    if hosts is None:
        job.notes.append(f"--hostfile {ref.value or '(empty)'}: not given beside the script, so the node count is "
                         f"not known from it")
        return
    if how:
        job.notes.append(how)
    if job.nodes is None:
        job.nodes = Setting("nodes", len(hosts), hit, 1, "hostfile", "hostfile")
    if job.gpus is None and len({n for _h, n in hosts}) == 1:
        job.gpus = Setting("gpus", hosts[0][1], hit, 1, "slots", "hostfile")


def _per_node_processes(job: Job) -> None:
    """accelerate's num_processes (config key or `accelerate launch --num_processes`) counts the processes of
    all machines (accelerate/commands/launch.py); `gpus` is per node."""
    g, n = job.gpus, as_int(job.nodes.value) if job.nodes is not None else None
    if g is None or g.native != "num_processes" or not n or n <= 1:
        return
    total = as_int(g.value)
    if total and total % n == 0:
        job.gpus = Setting("gpus", total // n, g.file, g.line, g.native, g.kind)
        job.notes.append(f"num_processes {total} counts all {n} machines: {total // n} GPU(s) per node")
