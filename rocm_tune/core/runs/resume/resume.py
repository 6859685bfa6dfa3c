"""Resume a run from its newest complete checkpoint, in the same run directory (`rocm-tune resume RUN`).

1. `find_checkpoints(output_dir)`: every `checkpoint-N` of a HF Trainer output directory (what LLaMA-Factory and the
   built-in trainer write), each checked for completeness: weights or adapter (safetensors headers against the
   file size; torch zip archives by their end record), optimizer, scheduler, RNG state and a readable
   trainer_state.json, or for DeepSpeed the `latest` tag whose model and optimizer shards all exist. A checkpoint
   cut short by a kill (the HF Trainer writes trainer_state.json last; `tmp-checkpoint-N` is never renamed) is
   skipped, and the reason is kept.
2. `prepare_resume(run, gpus=, nodes=)`: the checkpoint against the plan it resumes with (runner, method, ZeRO
   stage, world size, micro-batch x accumulation = the same effective batch, precision) -> a `Resume`: the
   command to start (the run's own command, or the plan's launcher at the new world size, both with
   `resume_from_checkpoint=<dir>`), or a UserError with the exact reason what cannot be kept.
3. `resume_run(...)`: records the restart in run.json (`restarts`: when, why, from which checkpoint and step, the
   world size and batch before and after, the previous exit) and starts the run again detached in the same run
   directory: one history, the step count continued.

Standard library only (core is pure).
"""

from __future__ import annotations

import contextlib
import os
import re
import time
import zipfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterator

from rocm_tune.core.errors import UserError
from rocm_tune.core.files import MAX_CONFIG_BYTES, MAX_STATE_BYTES, as_int, read_json, read_text
from rocm_tune.core.runners import LF_LAUNCH_FILE
from rocm_tune.core.runs import rundir as rd
from rocm_tune.core.runs.resume import zero_convert as zc

CKPT_RE = re.compile(r"^checkpoint-(\d+)$")
TMP_CKPT_RE = re.compile(r"^tmp-checkpoint-(\d+)$")
WEIGHT_FILES = ("adapter_model.safetensors", "adapter_model.bin", "model.safetensors", "pytorch_model.bin")
INDEX_FILES = ("model.safetensors.index.json", "pytorch_model.bin.index.json")
ADAPTER_FILES = ("adapter_model.safetensors", "adapter_model.bin")
RESUME_KEYS = ("resume_from_checkpoint", "overwrite_output_dir", "per_device_train_batch_size",
               "gradient_accumulation_steps")
DS_UNIVERSAL = ("python -m deepspeed.checkpoint.ds_to_universal --input_folder {ckpt}/{tag} "
                "--output_folder {ckpt}/{tag}_universal, then resume with `checkpoint: {{load_universal: true}}` in "
                "deepspeed.json (DeepSpeed's universal checkpoint); or `python {ckpt}/zero_to_fp32.py {ckpt} OUT` for "
                "the weights only (the optimizer state is lost)")


# ----------------------------------------------------------------------------------------------- checkpoints


@dataclass(frozen=True)
class Checkpoint:
    path: str
    step: int
    complete: bool
    problem: str | None = None        # why it is not complete
    weights: str | None = None        # adapter | model | deepspeed
    deepspeed_tag: str | None = None
    zero_stage: int | None = None     # from the DeepSpeed shard names (1/2 vs 3), None without DeepSpeed
    world_size: int | None = None     # data-parallel ranks that saved it (rng_state_N / optimizer shards)
    micro_batch: int | None = None    # trainer_state.json train_batch_size
    global_step: int | None = None
    max_steps: int | None = None

    def to_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def _safetensors_ok(path: Path) -> str | None:
    """None when the safetensors header is whole and every tensor's bytes are in the file."""
    from rocm_tune.core.files import read_safetensors_header

    try:
        header, n, size = read_safetensors_header(path)
    except UserError as exc:
        return str(exc)
    end = 0
    for k, v in header.items():
        if k == "__metadata__" or not isinstance(v, dict) or "data_offsets" not in v:
            continue
        off = v["data_offsets"]
        e = as_int(off[1], 0) if isinstance(off, list) and len(off) == 2 else None
        if e is None:
            return f"{path.name}: data_offsets of {k!r} are not two whole numbers (not a whole safetensors file)"
        end = max(end, e)
    if 8 + n + end > size:
        return f"{path.name} holds {size} bytes, its header needs {8 + n + end} (cut short)"
    return None


def _torch_file_ok(path: Path) -> str | None:
    """torch.save files are zip archives: a file cut short has no end-of-archive record."""
    try:
        if path.stat().st_size == 0:
            return f"{path.name} is empty (cut short)"
        if not zipfile.is_zipfile(path):
            return f"{path.name} is not a whole torch archive (cut short)"
    except OSError as exc:
        return f"{path.name} unreadable ({exc.strerror or exc})"
    return None


def _file_ok(path: Path) -> str | None:
    if path.suffix == ".safetensors":
        return _safetensors_ok(path)
    if path.suffix in (".pt", ".pth", ".bin"):
        return _torch_file_ok(path)
    return None if path.is_file() else f"{path.name} missing"


def _deepspeed_shards(ck: Path) -> tuple[str | None, str | None, int | None, int | None]:
    """(tag, problem, zero stage, DP world size) of a DeepSpeed checkpoint inside `ck` (tag None: not DeepSpeed)."""
    latest = ck / "latest"
    if not latest.is_file():
        return None, None, None, None
    try:
        tag = read_text(latest, "latest", 4096).strip()
    except UserError as exc:
        return "?", f"latest unreadable ({exc})", None, None
    if len(tag) > 255 or "/" in tag or "\0" in tag:
        return "?", f"latest does not name a tag folder ({tag[:40]!r}...)", None, None
    tdir = ck / tag
    if not tag or not tdir.is_dir():
        return tag or "?", f"latest names tag {tag!r}, which is not a folder (cut short)", None, None
    names = os.listdir(tdir)
    optim = sorted(n for n in names if n.endswith("_optim_states.pt"))
    ranks = sorted(int(m.group(1)) for n in optim if (m := re.search(r"zero_pp_rank_(\d+)_mp_rank_\d+_optim", n)))
    zero3 = any(re.match(r"zero_pp_rank_\d+_mp_rank_\d+_model_states\.pt$", n) for n in names)
    stage = 3 if zero3 else (2 if ranks else 0)  # 1 and 2 save alike; the plan says which
    if stage == 3:
        model = sorted(n for n in names if n.endswith("_model_states.pt"))
    else:
        model = [n for n in names if n == "mp_rank_00_model_states.pt"]
    if not model:
        return tag, f"{tag}/ holds no model states (cut short)", stage, None
    if stage and (not ranks or ranks != list(range(len(ranks)))):
        return tag, f"{tag}/ optimizer shards {ranks} are not ranks 0..{len(ranks) - 1} (cut short)", stage, None
    if stage == 3 and len(model) != len(ranks):
        return tag, f"{tag}/ has {len(model)} model shards for {len(ranks)} optimizer shards (cut short)", stage, None
    for n in model + optim:
        problem = _torch_file_ok(tdir / n)
        if problem:
            return tag, f"{tag}/{problem}", stage, None
    return tag, None, stage, (len(ranks) or None)


def inspect_checkpoint(path: str | os.PathLike) -> Checkpoint:
    ck = Path(path)
    m = CKPT_RE.match(ck.name) or TMP_CKPT_RE.match(ck.name)
    step = int(m.group(1)) if m else -1
    if TMP_CKPT_RE.match(ck.name):
        return Checkpoint(str(ck), step, False, "a tmp-checkpoint folder: the save never finished (cut short)")

    def bad(problem: str, **kw: Any) -> Checkpoint:
        return Checkpoint(str(ck), step, False, problem, **kw)

    tag, ds_problem, stage, ds_world = _deepspeed_shards(ck)
    if ds_problem:
        return bad(f"DeepSpeed {ds_problem}", deepspeed_tag=tag, zero_stage=stage)
    weights = None
    for name in WEIGHT_FILES:
        if (ck / name).exists():
            problem = _file_ok(ck / name)
            if problem:
                return bad(problem)
            weights = "adapter" if name in ADAPTER_FILES else "model"
            break
    if weights is None:
        for idx in INDEX_FILES:
            if (ck / idx).is_file():
                try:
                    shards = set(read_json(ck / idx, idx, max_bytes=MAX_CONFIG_BYTES)["weight_map"].values())
                except UserError as exc:
                    return bad(f"{idx} unreadable: {exc}")
                except (KeyError, TypeError, AttributeError):
                    return bad(f"{idx} unreadable")
                if not all(isinstance(x, str) and x and "/" not in x for x in shards):
                    return bad(f"{idx}: its weight_map names something other than shard files")
                for s in sorted(shards):
                    problem = _file_ok(ck / s) if (ck / s).exists() else f"{s} missing (cut short)"
                    if problem:
                        return bad(problem)
                weights = "model"
                break
    if weights is None and tag is not None:
        weights = "deepspeed"
    if weights is None:
        return bad("no weights or adapter (adapter_model.safetensors, model.safetensors, ...) (cut short)")
    if tag is None:  # without DeepSpeed the HF Trainer saves optimizer.pt and scheduler.pt
        for name in ("optimizer.pt", "scheduler.pt"):
            if not (ck / name).exists():
                return bad(f"{name} missing (cut short, or saved with save_only_model)")
            problem = _torch_file_ok(ck / name)
            if problem:
                return bad(problem)
    rng = sorted(n for n in os.listdir(ck) if re.match(r"rng_state(_\d+)?\.pth$", n))
    if not rng:
        return bad("no rng_state*.pth (cut short)")
    for n in rng:
        problem = _torch_file_ok(ck / n)
        if problem:
            return bad(problem)
    world = len([n for n in rng if n != "rng_state.pth"]) or 1
    if ds_world and ds_world != world:  # every rank saves its RNG state and its optimizer shard
        return bad(f"DeepSpeed {tag}/ holds optimizer shards of {ds_world} rank(s), the checkpoint RNG states of "
                   f"{world} (cut short)", deepspeed_tag=tag, zero_stage=stage)
    state_path = ck / "trainer_state.json"
    if not state_path.is_file():
        return bad("trainer_state.json missing (the HF Trainer writes it last: cut short)")
    try:
        state = read_json(state_path, "trainer_state.json", max_bytes=MAX_STATE_BYTES)
    except UserError as exc:
        return bad(f"trainer_state.json unreadable: {exc}")
    gstep = as_int(state.get("global_step"), 0)
    if gstep is None:
        return bad("trainer_state.json unreadable: global_step is not a whole number (cut short)")
    mb = as_int(state.get("train_batch_size"), 1)
    ms = as_int(state.get("max_steps"))
    return Checkpoint(str(ck), step if step >= 0 else gstep, True, None, weights=weights, deepspeed_tag=tag,
                      zero_stage=stage, world_size=ds_world or world, micro_batch=mb if isinstance(mb, int) else None,
                      global_step=gstep, max_steps=ms if isinstance(ms, int) else None)


def find_checkpoints(output_dir: str | os.PathLike) -> list[Checkpoint]:
    """Every checkpoint-N (and tmp-checkpoint-N) in `output_dir`, newest first."""
    out = Path(output_dir)
    if not out.is_dir():
        return []
    found = [inspect_checkpoint(p) for p in out.iterdir()
             if p.is_dir() and (CKPT_RE.match(p.name) or TMP_CKPT_RE.match(p.name))]
    return sorted(found, key=lambda c: (c.step, c.complete), reverse=True)


def newest_complete(output_dir: str | os.PathLike) -> tuple[Checkpoint | None, list[Checkpoint]]:
    """(the newest complete checkpoint, the newer ones that were skipped because they are not)."""
    skipped: list[Checkpoint] = []
    for c in find_checkpoints(output_dir):
        if c.complete:
            return c, skipped
        skipped.append(c)
    return None, skipped


# ----------------------------------------------------------------------------------------------- the run's trainer


@dataclass(frozen=True)
class Target:
    """What the run trains with: the runner, its config, its output dir, the plan (None: a plain command)."""

    runner: str                 # llamafactory | builtin
    config: str                 # the YAML the trainer reads
    output_dir: str
    bundle: str | None          # the folder of an exported bundle (run.sh, lf_launch.py, plan.json)
    plan: Any = None            # rocm_tune.core.plan.plan.Plan
    user_config: dict = field(default_factory=dict)


def _load_yaml(path: Path) -> dict:
    from rocm_tune.core.runners import llamafactory

    return llamafactory.peek_file(path)      # the one LLaMA-Factory reader


def _load_plan(path: Path):
    from rocm_tune.core.plan.plan import Plan

    try:
        return Plan.from_dict(read_json(path, "plan file", max_bytes=MAX_STATE_BYTES))
    except (OSError, ValueError, TypeError, UserError):
        return None


def run_target(meta: dict, d: Path) -> Target:
    """Find the trainer config and output dir of a run (plan run, bundle script, built-in trainer config)."""
    cmd = [str(c) for c in meta.get("first_command") or meta.get("command") or []]
    kind = meta.get("kind")
    bundle: Path | None = None
    config: Path | None = None
    runner = "llamafactory"
    if kind == "plan" and (d / "bundle").is_dir():
        bundle = d / "bundle"
    elif kind == "script" and len(cmd) >= 2 and cmd[0] == "bash":
        bundle = Path(cmd[1]).parent
    elif kind == "train" or (len(cmd) >= 4 and cmd[1:4] == ["-m", "rocm_tune", "train"]):
        runner = "builtin"
        config = Path(cmd[4]) if len(cmd) > 4 else None
    if bundle is not None:
        config = bundle / "llamafactory.yaml"
        if not (bundle / LF_LAUNCH_FILE).is_file():
            runner = "builtin"
    if config is None or not config.is_file():
        raise UserError(f"run {meta.get('id')}: cannot tell which trainer config it ran "
                        f"({' '.join(cmd)[:120]!r}); resume works for runs of an exported bundle (--plan, "
                        "--script bundle/run.sh) and of `rocm-tune train CONFIG`")
    cfg = _load_yaml(config)
    out = cfg.get("output_dir")
    if not isinstance(out, str) or not out:
        raise UserError(f"{config}: no output_dir, so there are no checkpoints to resume from")
    out_path = Path(out) if os.path.isabs(out) else (config.parent / out)
    plan = None
    for cand in ([bundle / "plan.json"] if bundle else []) + [d / rd.PLAN_JSON]:
        if cand.is_file():
            plan = _load_plan(cand)
            if plan is not None:
                break
    if plan is not None and bundle is not None and (bundle / LF_LAUNCH_FILE).is_file():
        runner = "llamafactory"
    return Target(runner=runner, config=str(config), output_dir=str(out_path), bundle=str(bundle) if bundle else None,
                  plan=plan, user_config=cfg)


# ----------------------------------------------------------------------------------------------- the check


@dataclass(frozen=True)
class Resume:
    run_id: str
    run_dir: str
    checkpoint: Checkpoint
    skipped: tuple[Checkpoint, ...]
    command: tuple[str, ...]
    cwd: str | None
    env: dict
    world_before: int | None
    world_after: int | None
    micro_batch: int | None
    grad_accum: int | None
    effective_batch: int | None
    notes: tuple[str, ...] = ()
    plan: Any = None  # the plan it resumes with (world size changed), else None
    universal: Any = None  # zero_convert.Universal: the ZeRO checkpoint is converted before the relaunch


    def to_dict(self) -> dict:
        return {"run_id": self.run_id, "run_dir": self.run_dir, "checkpoint": self.checkpoint.to_dict(),
                "skipped": [c.to_dict() for c in self.skipped], "command": list(self.command), "cwd": self.cwd,
                "world_before": self.world_before, "world_after": self.world_after, "micro_batch": self.micro_batch,
                "grad_accum": self.grad_accum, "effective_batch": self.effective_batch, "notes": list(self.notes),
                "convert": self.universal.to_dict() if self.universal is not None else None}


def _strip_overrides(cmd: list[str]) -> list[str]:
    """The command without key=value overrides an earlier resume or retry appended."""
    return [c for c in cmd if c.split("=", 1)[0] not in RESUME_KEYS or "=" not in c]


def _new_world_plan(plan, gpus: int | None, nodes: int | None):
    """The plan at another world size with the same effective batch (micro-batch kept when it divides)."""
    hw = plan.hardware
    g, n = gpus or hw.gpus, nodes or hw.nodes
    s = plan.recommended
    eff = s.micro_batch * s.grad_accum * hw.world
    world = g * n
    micro = s.micro_batch
    while micro > 1 and eff % (micro * world):
        micro -= 1
    if eff % (micro * world):
        raise UserError(f"the effective batch {eff} (micro-batch {s.micro_batch} x accumulation {s.grad_accum} x "
                        f"{hw.world} GPUs) cannot be kept on {world} GPUs: {eff} is not a multiple of {world}; "
                        "choose a world size that divides it")
    env = dict(s.env)
    from rocm_tune.core.export.launch import DEVICE_VARS

    for k in DEVICE_VARS:
        if env.get(k):
            env[k] = ",".join(str(i) for i in range(g))
    new = replace(plan, hardware=replace(hw, gpus=g, nodes=n),
                  recommended=replace(s, micro_batch=micro, grad_accum=eff // (micro * world), env=env))
    return new, micro, eff // (micro * world), eff


def _plan_argv(plan, target: Target, environ: dict) -> tuple[list[str], dict]:
    from rocm_tune.core.export.common import ExportOptions, resolve
    from rocm_tune.core.export.launch import launch_spec

    opts = ExportOptions(runner=target.runner, output_dir=target.output_dir)
    r = resolve(plan, opts)
    spec = launch_spec(r, opts)
    argv, env = spec.resolve(environ)
    if r.launcher == "accelerate":  # accelerate.yaml holds the old process count; the command line wins over it
        i = argv.index("--config_file") + 2
        argv[i:i] = ["--num_processes", str(r.gpus * r.nodes), "--num_machines", str(r.nodes)]
    return argv, env


def _run_env(meta: dict) -> dict:
    return {**os.environ, **{str(k): str(v) for k, v in (meta.get("env") or {}).items()}}


def _universal(ck: Checkpoint, target: Target, meta: dict, d: Path, why: str) -> zc.Universal:
    """The universal-checkpoint conversion of a ZeRO checkpoint, or UserError with the exact reason."""
    if target.runner != "llamafactory" or ck.deepspeed_tag is None:
        raise UserError(f"{Path(ck.path).name}: {why}; the run is not LLaMA-Factory's, so it is not converted here: "
                        + DS_UNIVERSAL.format(ckpt=ck.path, tag=ck.deepspeed_tag))
    env = _run_env(meta)
    try:
        return zc.universal_support(checkpoint=ck.path, tag=ck.deepspeed_tag, zero_stage=ck.zero_stage,
                                    python=env.get("LLAMAFACTORY_PYTHON") or "python3", env=env,
                                    config=target.user_config, config_path=target.config, run_dir=str(d), why=why)
    except UserError as exc:
        raise UserError(f"{exc}. The weights alone (the optimizer state is lost, the steps start again): "
                        f"python {ck.path}/zero_to_fp32.py {ck.path} OUT") from None


def _check_fits_plan(ck: Checkpoint, plan, runner: str | None) -> None:
    """UserError when checkpoint `ck` cannot be loaded by the plan it resumes with (adapter vs full weights,
    ZeRO vs not, the ZeRO stage that saved it)."""
    s = plan.recommended
    if ck.weights == "adapter" and not s.is_lora:
        raise UserError(f"{Path(ck.path).name} holds a LoRA adapter, but the plan trains method {s.method}; "
                        "resume it with the plan that made it")
    if ck.weights == "model" and s.is_lora:
        raise UserError(f"{Path(ck.path).name} holds full model weights, but the plan trains method {s.method} "
                        "(an adapter); resume it with the plan that made it")
    if ck.deepspeed_tag is not None and not s.zero_stage:
        raise UserError(f"{Path(ck.path).name} is a DeepSpeed ZeRO checkpoint, but the plan runs without ZeRO; "
                        f"the HF Trainer cannot load its optimizer state. Resume with ZeRO, or convert: "
                        + DS_UNIVERSAL.format(ckpt=ck.path, tag=ck.deepspeed_tag))
    if s.zero_stage and ck.deepspeed_tag is None and runner == "llamafactory":
        raise UserError(f"{Path(ck.path).name} has no DeepSpeed `latest` tag, but the plan runs ZeRO-"
                        f"{s.zero_stage}: DeepSpeed cannot load its optimizer state from optimizer.pt")
    if ck.zero_stage == 3 and s.zero_stage in (1, 2) or ck.zero_stage == 2 and s.zero_stage == 3:
        raise UserError(f"{Path(ck.path).name} was saved by ZeRO-{ck.zero_stage}, the plan runs ZeRO-"
                        f"{s.zero_stage}: DeepSpeed loads a ZeRO checkpoint only at the stage that saved it; "
                        "convert it: " + DS_UNIVERSAL.format(ckpt=ck.path, tag=ck.deepspeed_tag))


def _resume_command(meta: dict, target: Target, ck: Checkpoint, universal: zc.Universal | None, new_plan,
                    micro: int | None, accum: int | None, cfg: dict) -> tuple[list[str], Any, dict]:
    """(command, cwd, env) of the relaunch: the run's own command with the resume overrides, or the new
    plan's launcher at the new world size (UserError for what the built-in trainer cannot do)."""
    env = dict(meta.get("env") or {})
    base = _strip_overrides([str(c) for c in meta.get("first_command") or meta.get("command") or []])
    cwd = meta.get("cwd")
    if target.runner == "builtin":
        if universal is not None:
            raise UserError(f"{Path(ck.path).name} is a DeepSpeed ZeRO checkpoint and the run is the built-in "
                            "trainer's, which does not load DeepSpeed checkpoints")
        command = base + ["--resume", ck.path]
        if new_plan is not None:
            raise UserError("--gpus/--nodes for a built-in trainer run: start it again with `rocm-tune run --plan` "
                            "at the new size (its launcher is not rebuilt here)")
    else:
        overrides = [f"resume_from_checkpoint={ck.path}", "overwrite_output_dir=false"]
        if universal is not None:
            overrides.append(f"deepspeed={universal.ds_config}")
        if new_plan is not None:
            argv, launch_env = _plan_argv(new_plan, target, {**os.environ, **env})
            env.update(launch_env)
            command = argv + overrides
            if micro != cfg.get("per_device_train_batch_size"):
                command.append(f"per_device_train_batch_size={micro}")
            if accum != cfg.get("gradient_accumulation_steps"):
                command.append(f"gradient_accumulation_steps={accum}")
            cwd = target.bundle
        else:
            command = base + overrides
    return command, cwd, env


def prepare_resume(ref: str, *, gpus: int | None = None, nodes: int | None = None,
                   checkpoint: str | None = None) -> Resume:
    """Check what `resume` would start (UserError: what cannot be resumed, and why)."""
    from rocm_tune.core.runs.registry import find_run

    info = find_run(ref)
    if info.status == "corrupt":
        raise UserError(f"run {info.id} is corrupt ({info.problem}); cannot resume it")
    if info.status == "running" or info.processes:
        raise UserError(f"run {info.id} is still running; stop it first (rocm-tune stop {info.id})")
    d = Path(info.dir)
    meta = rd.read_json(d / rd.RUN_JSON, {}) or {}
    target = run_target(meta, d)
    skipped: list[Checkpoint] = []
    if checkpoint:
        if not os.path.isdir(os.path.expanduser(checkpoint)):  # a file, a FIFO, a device, nothing: never read
            raise UserError(f"--checkpoint {checkpoint!r} is not a folder; give a checkpoint-N folder of the run")
        ck = inspect_checkpoint(os.path.abspath(os.path.expanduser(checkpoint)))
        if not ck.complete:
            raise UserError(f"--checkpoint {checkpoint!r} is not complete: {ck.problem}")
    else:
        found, skipped = newest_complete(target.output_dir)
        if found is None:
            said = "; ".join(f"{Path(c.path).name}: {c.problem}" for c in skipped[:3])
            raise UserError(f"run {info.id}: no complete checkpoint in {target.output_dir}"
                            + (f" ({said})" if said else " (no checkpoint-N folder: the run never saved; "
                               "set save_steps lower)"))
        ck = found
    notes = [f"skipped {Path(c.path).name}: {c.problem}" for c in skipped]
    plan = target.plan
    cfg = target.user_config
    # --- the checkpoint against the plan it resumes with
    if plan is not None:
        _check_fits_plan(ck, plan, target.runner)
    world_before = plan.hardware.world if plan is not None else ck.world_size
    new_plan = None
    micro = cfg.get("per_device_train_batch_size") if isinstance(cfg.get("per_device_train_batch_size"), int) else None
    accum = cfg.get("gradient_accumulation_steps") if isinstance(cfg.get("gradient_accumulation_steps"), int) else None
    eff = micro * accum * world_before if micro and accum and world_before else None
    world_after = world_before
    universal: zc.Universal | None = None
    changes_world = plan is not None and ((gpus and gpus != plan.hardware.gpus) or (nodes and nodes != plan.hardware.nodes))
    if (gpus or nodes) and plan is None:
        raise UserError(f"run {info.id} has no plan.json, so its launcher cannot be rebuilt for --gpus/--nodes; "
                        "resume it without them")
    if changes_world:
        assert plan is not None  # changes_world needs a plan
        new_plan, micro, accum, eff = _new_world_plan(plan, gpus, nodes)
        world_after = new_plan.hardware.world
        if ck.zero_stage and ck.world_size != world_after:
            why = (f"a ZeRO-{plan.recommended.zero_stage} checkpoint saved at a data-parallel world size of "
                   f"{ck.world_size}, resumed at {world_after}: DeepSpeed refuses a ZeRO checkpoint at another DP "
                   "world size (its optimizer state is partitioned per rank) unless it is converted to its universal "
                   f"checkpoint (or keep --gpus {plan.hardware.gpus} --nodes {plan.hardware.nodes})")
            universal = _universal(ck, target, meta, d, why)
        notes.append(f"world size {world_before} -> {world_after}: micro-batch {micro} x accumulation {accum} x "
                     f"{world_after} keeps the effective batch {eff}")
        if ck.world_size and ck.world_size != world_after:
            notes.append(f"the RNG state of {ck.world_size} rank(s) is restored where a rank of that number exists; "
                         "the data order and the step count continue")
    elif ck.zero_stage and ck.world_size and world_before and ck.world_size != world_before:
        why = (f"saved at a data-parallel world size of {ck.world_size}, the plan runs {world_before}: DeepSpeed "
               "refuses a ZeRO checkpoint at another DP world size unless it is converted to its universal checkpoint")
        universal = _universal(ck, target, meta, d, why)
    if universal is not None:
        notes.append(("converted already: " if universal.done else "converts with DeepSpeed's ds_to_universal: ")
                     + f"{universal.output} (DeepSpeed {universal.deepspeed}); the relaunch reads "
                     f"{universal.ds_config} (checkpoint.load_universal); {zc.KEPT}")
    if ck.micro_batch and micro and ck.micro_batch != micro and not changes_world:
        notes.append(f"micro-batch {ck.micro_batch} at save, {micro} now")
    # --- the command
    command, cwd, env = _resume_command(meta, target, ck, universal, new_plan, micro, accum, cfg)
    return Resume(run_id=info.id, run_dir=str(d), checkpoint=ck, skipped=tuple(skipped), command=tuple(command),
                  cwd=cwd, env=env, world_before=world_before, world_after=world_after, micro_batch=micro,
                  grad_accum=accum, effective_batch=eff, notes=tuple(notes), plan=new_plan, universal=universal)


# ----------------------------------------------------------------------------------------------- relaunch


def record_restart(d: Path, meta: dict, record: dict, *, command: list[str], cwd: str | None,
                   env: dict | None) -> dict:
    """Move the previous end (exit.json) into run.json's `restarts`, set the new command; the run is ready to start
    again in the same directory (metrics, logs and the output dir stay)."""
    prev = rd.read_json(d / rd.EXIT_JSON, None) if (d / rd.EXIT_JSON).is_file() else None
    restarts = list(meta.get("restarts") or [])
    record = {"n": len(restarts) + 1, "at": time.time(), "previous_exit": prev, **record}
    restarts.append(record)
    fields = {"restarts": restarts, "command": list(command), "first_command": meta.get("first_command") or
              meta.get("command"), "pid": None, "pgid": None, "pid_start": None, "supervisor_pid": None,
              "supervisor_start": None, "main_exit": None, "cgroup": None, "started_at": None}
    if cwd is not None:
        fields["cwd"] = cwd
    if env is not None:
        fields["env"] = env
    rd.update_run_json(d, **fields)
    for name in (rd.EXIT_JSON, rd.STOP_MARKER):
        try:
            os.unlink(d / name)
        except FileNotFoundError:
            pass
    return record


LOCK_FILE = ".resume.lock"


@contextlib.contextmanager
def resume_lock(run_dir: str | os.PathLike, run_id: str) -> Iterator[None]:
    """Hold an exclusive lock (fcntl.flock on RUN_DIR/.resume.lock) while a resume checks and starts the
    run: a second `resume` of the same run meanwhile is refused with one line, so two never both start
    training in one run directory. The lock file is never followed through a symlink; it goes with the
    process (a crash releases it)."""
    import fcntl

    path = Path(run_dir) / LOCK_FILE
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0), 0o644)
    except OSError as exc:
        raise UserError(f"run {run_id}: cannot lock {str(path)!r} for the resume ({exc.strerror or exc})") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise UserError(f"run {run_id} is being resumed by another `rocm-tune resume` right now (it holds "
                            f"{str(path)!r}); see `rocm-tune runs` once it has started") from None
        yield
    finally:
        os.close(fd)


def resume_run(r: Resume, *, reason: str = "resume", notify: str | None = None) -> rd.RunInfo:
    """Record the restart and start the run again detached in its own directory."""
    from rocm_tune.core.runs.launch.launcher import start_run

    d = Path(r.run_dir)
    meta = rd.read_json(d / rd.RUN_JSON, {}) or {}
    if r.universal is not None:
        zc.convert(r.universal, env=_run_env(meta), log_path=str(d / zc.CONVERT_LOG))
    rec = {"reason": reason, "checkpoint": r.checkpoint.path, "step": r.checkpoint.global_step,
           "world_before": r.world_before, "world_after": r.world_after, "micro_batch": r.micro_batch,
           "grad_accum": r.grad_accum, "effective_batch": r.effective_batch,
           "skipped": [{"path": c.path, "problem": c.problem} for c in r.skipped],
           "converted": r.universal.to_dict() if r.universal is not None else None}
    record_restart(d, meta, rec, command=list(r.command), cwd=r.cwd, env=r.env)
    if r.plan is not None:
        try:
            rd.write_json_atomic(d / "resume-plan.json", r.plan.to_dict())
        except OSError:
            pass
    if notify:
        rd.update_run_json(d, notify=notify)
    return start_run(d, discard=False)
