"""The command that starts a plan's training: one `LaunchSpec` for run.sh and for the launcher.

`launch_spec(r, opts)` says which program runs, with which arguments and environment, in which
directory (the bundle). `shell.render` writes it as run.sh; `rocm_tune.core.runs.launch.plan_launch`
starts the same argv with the same environment, so what `rocm-tune run --plan` starts is what
`bash run.sh` starts.

Values that only the starting machine knows (the node rank and master address of a multi-node run,
an interpreter override) are `EnvRef`s: run.sh writes them as `"${NAME:-default}"` /
`"${NAME:?message}"`, the launcher reads them from the environment it starts with.

The built-in trainer is started as `<python> -m rocm_tune train llamafactory.yaml`, with the
interpreter that made the bundle (recorded at export, `--python` / `$ROCM_TUNE_PYTHON` override it),
never as a bare `rocm-tune`, which is not on PATH under cron, Slurm, pipx or a systemd unit. Several
GPUs: `<python> -m torch.distributed.run` (torchrun of the same interpreter).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Mapping, Union

from rocm_tune.core.errors import UserError
from rocm_tune.core.export.common import (
    ACCEL_YAML,
    HANG_ENV,
    HOSTFILE,
    LF_LAUNCH,
    LF_PYTHON_ENV,
    PYTHON_ENV,
    ExportOptions,
    Resolved,
    q,
    trainer_argv,
    visible_devices,
)

DEVICE_VARS = ("HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES")


@dataclass(frozen=True)
class EnvRef:
    """A value read from the environment when the command starts.

    `default`: used when the variable is unset or empty; `required`: the message when it is unset
    and there is no default (run.sh: `"${NAME:?message}"`, the launcher: a UserError)."""

    name: str
    default: str | None = None
    required: str | None = None

    def shell(self) -> str:
        if self.default is not None:
            return f"\"${{{self.name}:-{_in_double_quotes(self.default)}}}\""
        if self.required is not None:
            return f"\"${{{self.name}:?{_in_double_quotes(self.required)}}}\""
        return f"\"${{{self.name}-}}\""

    def value(self, environ: Mapping[str, str]) -> str:
        got = environ.get(self.name)
        if got:
            return got
        if self.default is not None:
            return self.default
        if self.required is not None:
            raise UserError(f"{self.name} is not set: {self.required}")
        return ""


Arg = Union[str, EnvRef]


def _in_double_quotes(text: str) -> str:
    """`text` inside "...${X:-text}..." stays literal ($, `, ", \\ escaped)."""
    return "".join("\\" + ch if ch in '$`"\\' else ch for ch in text)


def shell_word(a: Arg) -> str:
    return a.shell() if isinstance(a, EnvRef) else q(a)


@dataclass(frozen=True)
class LaunchSpec:
    """What starts the training: `argv` in `cwd` (the bundle directory) with `plan_env` (the plan's
    variables) and then `launcher_env` (what the launcher itself needs) set on top of the caller's
    environment. `lines` groups argv into the lines run.sh shows (one shell command)."""

    argv: tuple[Arg, ...]
    cwd: str = "."
    plan_env: tuple[tuple[str, str], ...] = ()
    launcher_env: tuple[tuple[str, Arg], ...] = ()
    lines: tuple[int, ...] = ()  # number of argv items on each shown line (sums to len(argv))
    program: str = ""  # what must be installed for argv[0] to work, in words
    notes: tuple[str, ...] = field(default=())

    def in_dir(self, cwd: str) -> LaunchSpec:
        from dataclasses import replace

        return replace(self, cwd=cwd)

    def resolve(self, environ: Mapping[str, str] | None = None) -> tuple[list[str], dict[str, str]]:
        """(argv, env) as the launcher starts them: EnvRefs read from `environ` (default os.environ
        updated by the plan's and the launcher's variables, as run.sh exports them first)."""
        base = dict(os.environ if environ is None else environ)
        env: dict[str, str] = dict(self.plan_env)
        scope = {**base, **env}
        for k, v in self.launcher_env:
            env[k] = v.value(scope) if isinstance(v, EnvRef) else v
            scope[k] = env[k]
        argv = [a.value(scope) if isinstance(a, EnvRef) else a for a in self.argv]
        return argv, env

    def shell_lines(self) -> list[str]:
        """argv as the lines of one shell command (run.sh joins them with ` \\`), plus "$@"."""
        words = [shell_word(a) for a in self.argv]
        groups = list(self.lines) or [len(words)]
        out, i = [], 0
        for n in groups:
            out.append(" ".join(words[i:i + n]))
            i += n
        out[-1] += ' "$@"'
        return out


MASTER_ADDR = EnvRef("MASTER_ADDR", required="set MASTER_ADDR to the address of node 0")
NODE_RANK = EnvRef("NODE_RANK", default="0")


def python_ref(r: Resolved) -> EnvRef:
    return EnvRef(PYTHON_ENV, default=r.python)


def lf_python_ref() -> EnvRef:
    """The Python that has LLaMA-Factory installed (the activated environment's python3 unless set)."""
    return EnvRef(LF_PYTHON_ENV, default="python3")


def launch_spec(r: Resolved, opts: ExportOptions) -> LaunchSpec:
    """The command of the plan's launcher and runner (see the module docstring). LLaMA-Factory is always started
    through the bundle's lf_launch.py (measured memory and dtypes per rank; the plan's dtype pinned)."""
    port = str(opts.master_port)
    prog: list[Arg] = list(trainer_argv(r))
    plan_env = tuple((k, r.env[k]) for k in sorted(r.env))
    launcher_env: list[tuple[str, Arg]] = []
    if r.world_size > 1:  # the launcher lowers the process group's timeout to it once the Trainer is built
        launcher_env.append((HANG_ENV, str(r.hang_timeout)))
    builtin = r.runner != "llamafactory"
    program = f"LLaMA-Factory (through {LF_LAUNCH})" if not builtin else f"rocm-tune's trainer in {r.python}"
    groups: list[list[Arg]]
    # one process: LLaMA-Factory with DeepSpeed needs torchrun even then ("FORCE_TORCHRUN=1"); the built-in
    # trainer sets up DeepSpeed itself
    if r.world_size == 1 and (builtin or not r.uses_deepspeed) and r.launcher in ("llamafactory-cli", "rocm-tune"):
        groups = [[python_ref(r) if builtin else lf_python_ref(), *prog]]
    elif r.launcher in ("torchrun", "rocm-tune", "llamafactory-cli"):
        # the built-in trainer: torchrun of the recorded interpreter; LLaMA-Factory: torchrun of its Python
        # (what `FORCE_TORCHRUN=1 llamafactory-cli train` starts, with lf_launch.py in place of its launcher)
        first: list[Arg] = [python_ref(r) if builtin else lf_python_ref(), "-m", "torch.distributed.run"]
        if r.nodes == 1:
            groups = [first + ["--standalone", "--nnodes", "1", "--nproc_per_node", str(r.gpus)], prog]
        else:
            groups = [first + ["--nnodes", str(r.nodes), "--nproc_per_node", str(r.gpus), "--node_rank", NODE_RANK],
                      ["--master_addr", MASTER_ADDR, "--master_port", port],
                      prog]
        if builtin:
            program = f"torch and rocm-tune in {r.python}"
        else:
            program = f"torch and LLaMA-Factory in ${LF_PYTHON_ENV} (default python3)"
    elif r.launcher == "deepspeed":
        devices = visible_devices(r.env)
        if r.nodes > 1:
            # --no_ssh: every node starts only its own processes (node NODE_RANK), as with torchrun; the
            # bundle's hostfile gives DeepSpeed the node count and slots per node (names are not used)
            groups = [["deepspeed", "--hostfile", HOSTFILE, "--no_ssh", "--node_rank", NODE_RANK,
                       "--num_nodes", str(r.nodes), "--num_gpus", str(r.gpus)],
                      ["--master_addr", MASTER_ADDR, "--master_port", port]]
        elif devices:
            # the deepspeed launcher ignores *_VISIBLE_DEVICES; --include picks the same GPUs
            groups = [["deepspeed", "--include", "localhost:" + devices, "--master_port", port]]
        else:
            groups = [["deepspeed", "--num_gpus", str(r.gpus), "--master_port", port]]
        # --no_local_rank: without it the launcher passes --local_rank=N before the YAML and LLaMA-Factory
        # parses argv instead of the YAML ("Some specified arguments are not used by the HfArgumentParser")
        tail: list[Arg] = ["--no_local_rank", *trainer_argv(r, module_flag="--module")]
        groups.append(tail)
        program = "DeepSpeed (deepspeed)"
    elif r.launcher == "accelerate":
        groups = [["accelerate", "launch", "--config_file", ACCEL_YAML]]
        if r.nodes > 1:
            groups.append(["--machine_rank", NODE_RANK, "--main_process_ip", MASTER_ADDR,
                           "--main_process_port", port])
        groups.append(prog)
        program = "accelerate"
    else:  # normalize_launcher admits nothing else
        raise AssertionError(r.launcher)
    argv = tuple(a for g in groups for a in g)
    return LaunchSpec(argv=argv, plan_env=plan_env, launcher_env=tuple(launcher_env),
                      lines=tuple(len(g) for g in groups), program=program)
