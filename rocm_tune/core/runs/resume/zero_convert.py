"""A DeepSpeed ZeRO checkpoint resumed at another data-parallel world size, through DeepSpeed's own universal
checkpoint (`rocm-tune resume RUN --gpus N`).

DeepSpeed partitions the optimizer state per rank and refuses a ZeRO checkpoint at another DP world size
(`ZeRORuntimeException: The checkpoint being loaded used a DP world size of 2 but the current world size is 1`).
Its answer is the universal checkpoint:

1. `python -m deepspeed.checkpoint.ds_to_universal --input_folder CK/global_stepN --output_folder
   CK/global_stepN_universal --inject_missing_state`, run by the run's own Python (the one with LLaMA-Factory and
   DeepSpeed). A HF Trainer checkpoint carries no `universal_checkpoint_info` (Megatron writes it), so the tool
   needs `--inject_missing_state`; it writes one folder per parameter (fp32 master weights, Adam's exp_avg,
   exp_avg_sq and step) and `CK/latest_universal` naming the new tag, last.
2. The relaunch uses a copy of the run's DeepSpeed JSON with `"checkpoint": {"load_universal": true}`, written in
   the run directory (never over the user's JSON): DeepSpeed's `engine.load_checkpoint` then reads the tag from
   `latest_universal` instead of `latest`, and the HF Trainer's `deepspeed_load_checkpoint` (it calls
   `load_checkpoint(CK, load_optimizer_states=True, load_lr_scheduler_states=True)`) restores it at any world size.

Kept: the weights (fp32 masters), the optimizer state, the LR scheduler and the step count (trainer_state.json),
the data order. Not kept: the RNG states of ranks that no longer exist (a new rank starts from the seed).

Where DeepSpeed cannot do it, `universal_support` says exactly why (no DeepSpeed, a DeepSpeed without the tool or
without `--inject_missing_state`, a ZeRO-3 checkpoint and a tool that converts stages 1/2 only, an optimizer
offloaded to NVMe, which `load_checkpoint` never loads ZeRO state for).

Standard library only (core is pure): DeepSpeed runs in the run's own Python, in a subprocess.
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from rocm_tune.core.errors import UserError

UNIVERSAL_SUFFIX = "_universal"
LATEST_UNIVERSAL = "latest_universal"
DS_CONFIG_NAME = "deepspeed-universal.json"
CONVERT_LOG = "zero-convert.log"
KEPT = ("the weights (fp32 master copy), the optimizer state, the LR scheduler and the step count are kept; the RNG "
        "state of ranks that no longer exist is not (they start from the seed)")

# What the run's Python says about its DeepSpeed (one JSON line on stdout).
_PROBE = r"""
import json
out = {}
try:
    import deepspeed
    out["version"] = str(deepspeed.__version__)
except Exception as exc:
    out["error"] = f"{type(exc).__name__}: {exc}"
else:
    try:
        import inspect
        from deepspeed.checkpoint import ds_to_universal as tool
        src = inspect.getsource(tool)
        out["tool"] = True
        out["inject"] = "inject_missing_state" in src
        out["stage3"] = "_extract_zero_shard_files_stage3" in src
    except Exception as exc:
        out["tool"] = False
        out["tool_error"] = f"{type(exc).__name__}: {exc}"
    try:
        from deepspeed.runtime import constants
        out["load_universal"] = hasattr(constants, "LOAD_UNIVERSAL_CHECKPOINT")
    except Exception:
        out["load_universal"] = False
print("ROCM_TUNE_PROBE " + json.dumps(out))
"""


@dataclass(frozen=True)
class Universal:
    """A planned conversion: what runs, where it writes, which DeepSpeed JSON the relaunch reads."""

    python: str
    deepspeed: str              # its version
    checkpoint: str             # CK (checkpoint-N)
    tag: str                    # global_stepN
    output: str                 # CK/global_stepN_universal
    ds_config: str              # the run dir's deepspeed-universal.json
    user_ds_config: str         # the JSON the run was planned with (read, never written)
    done: bool                  # already converted (latest_universal names a whole output folder)

    def command(self) -> list[str]:
        return [self.python, "-m", "deepspeed.checkpoint.ds_to_universal", "--input_folder",
                os.path.join(self.checkpoint, self.tag), "--output_folder", self.output, "--inject_missing_state",
                "--num_extract_workers", "1", "--num_merge_workers", "1"]

    def to_dict(self) -> dict:
        return {"kind": "universal", "python": self.python, "deepspeed": self.deepspeed,
                "checkpoint": self.checkpoint, "tag": self.tag, "output": self.output, "ds_config": self.ds_config,
                "user_ds_config": self.user_ds_config, "already_converted": self.done, "command": self.command(),
                "kept": KEPT}


def probe_deepspeed(python: str, env: dict | None = None, timeout: float = 300) -> dict:
    """What DeepSpeed the run's Python has: {"version", "tool", "inject", "stage3", "load_universal"} or {"error"}."""
    try:
        p = subprocess.run([python, "-c", _PROBE], check=False, capture_output=True, text=True, timeout=timeout,
                           env=env, stdin=subprocess.DEVNULL)
    except FileNotFoundError:
        return {"error": f"{python} not found"}
    except OSError as exc:
        return {"error": f"{python}: {exc.strerror or exc}"}
    except subprocess.TimeoutExpired:
        return {"error": f"{python} did not import deepspeed within {timeout:.0f} s"}
    for line in p.stdout.splitlines():
        if line.startswith("ROCM_TUNE_PROBE "):
            try:
                got = json.loads(line.split(" ", 1)[1])
            except ValueError:
                break
            return got if isinstance(got, dict) else {"error": "unreadable answer"}
    tail = (p.stderr.strip().splitlines() or [f"exit code {p.returncode}"])[-1]
    return {"error": f"{python} -c 'import deepspeed' failed: {tail}"}


def _ds_json_path(cfg: dict, config_path: str) -> Path | None:
    ds = cfg.get("deepspeed")
    if not isinstance(ds, str) or not ds:
        return None
    p = Path(os.path.expanduser(ds))
    return p if p.is_absolute() else Path(config_path).parent / p


def _nvme(ds: dict) -> str | None:
    z = ds.get("zero_optimization")
    if not isinstance(z, dict):
        return None
    for key in ("offload_optimizer", "offload_param"):
        o = z.get(key)
        if isinstance(o, dict) and str(o.get("device", "")).lower() == "nvme":
            return key
    return None


def universal_support(*, checkpoint: str, tag: str, zero_stage: int | None, python: str, env: dict | None,
                      config: dict, config_path: str, run_dir: str, why: str) -> Universal:
    """The conversion that lets DeepSpeed load `checkpoint` at another world size, or UserError with the exact
    reason it cannot (`why`: the sentence saying what needs it)."""
    name = Path(checkpoint).name
    head = f"{name}: {why}; "
    ds_path = _ds_json_path(config, config_path)
    if ds_path is None:
        raise UserError(head + f"{config_path} names no `deepspeed:` JSON to add `checkpoint.load_universal` to")
    from rocm_tune.core.files import MAX_CONFIG_BYTES, read_json

    try:
        ds = read_json(ds_path, "DeepSpeed JSON", max_bytes=MAX_CONFIG_BYTES)
    except UserError as exc:
        raise UserError(head + f"cannot read the DeepSpeed JSON {ds_path} ({exc})") from None
    if not isinstance(ds, dict):
        raise UserError(head + f"the DeepSpeed JSON {ds_path} is not a JSON object")
    nvme = _nvme(ds)
    if nvme:
        raise UserError(head + f"{ds_path} offloads to NVMe ({nvme}); DeepSpeed's load_checkpoint never loads ZeRO "
                        "state into an NVMe-offloaded optimizer, so a universal checkpoint cannot be resumed. Keep "
                        "the world size that saved it")
    info = probe_deepspeed(python, env)
    if "error" in info:
        raise UserError(head + f"the conversion needs DeepSpeed in the run's Python: {info['error']} (set "
                        "LLAMAFACTORY_PYTHON to the Python that trains)")
    ver = info.get("version", "?")
    if not info.get("tool"):
        raise UserError(head + f"DeepSpeed {ver} in {python} has no deepspeed.checkpoint.ds_to_universal "
                        f"({info.get('tool_error', 'missing')}); a newer DeepSpeed converts it")
    if not info.get("inject"):
        raise UserError(head + f"DeepSpeed {ver}'s ds_to_universal has no --inject_missing_state, and a HF Trainer "
                        "checkpoint has no universal_checkpoint_info (Megatron writes it), so it cannot convert it; "
                        "a newer DeepSpeed does")
    if not info.get("load_universal"):
        raise UserError(head + f"DeepSpeed {ver} has no `checkpoint.load_universal` setting; a newer DeepSpeed does")
    if zero_stage == 3 and not info.get("stage3"):
        raise UserError(head + f"DeepSpeed {ver}'s ds_to_universal converts ZeRO-1/2 checkpoints only, this one is "
                        "ZeRO-3; a newer DeepSpeed converts it")
    ck = Path(checkpoint)
    out = ck / (tag + UNIVERSAL_SUFFIX)
    latest = ck / LATEST_UNIVERSAL
    done = False
    if out.exists() or out.is_symlink():
        try:
            named = latest.read_text(encoding="utf-8").strip() if latest.is_file() else None
        except OSError:
            named = None
        done = named == out.name and (out / "mp_rank_00_model_states.pt").is_file() and (out / "zero").is_dir()
        if not done:
            raise UserError(f"{out} exists but {LATEST_UNIVERSAL} does not name it (a conversion cut short, or "
                            "someone else's folder); remove it and resume again to convert")
    elif latest.exists() or latest.is_symlink():
        raise UserError(f"{latest} exists and names no converted folder of {tag}; remove it and resume again")
    return Universal(python=python, deepspeed=ver, checkpoint=str(ck), tag=tag, output=str(out),
                     ds_config=str(Path(run_dir) / DS_CONFIG_NAME), user_ds_config=str(ds_path), done=done)


def write_universal_config(u: Universal) -> str:
    """The run's DeepSpeed JSON with `checkpoint.load_universal: true`, as a new file in the run dir."""
    from rocm_tune.core.files import MAX_CONFIG_BYTES, read_json

    ds = read_json(u.user_ds_config, "DeepSpeed JSON", max_bytes=MAX_CONFIG_BYTES)
    ck = ds.get("checkpoint") if isinstance(ds.get("checkpoint"), dict) else {}
    ds["checkpoint"] = {**ck, "load_universal": True}
    dest = Path(u.ds_config)
    if dest.is_symlink():  # ours, in the run dir; a link there is not followed
        dest.unlink()
    tmp = dest.with_name(dest.name + ".tmp")
    tmp.write_text(json.dumps(ds, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, dest)
    return str(dest)


def _remove_partial(out: Path, latest: Path) -> None:
    import shutil

    shutil.rmtree(out, ignore_errors=True)
    try:
        os.unlink(latest)
    except OSError:
        pass


def convert(u: Universal, *, env: dict | None, log_path: str, timeout: float | None = None) -> None:
    """Run DeepSpeed's ds_to_universal (its output in `log_path`); UserError with its own last error line."""
    if u.done:
        write_universal_config(u)
        return
    out, latest = Path(u.output), Path(u.checkpoint) / LATEST_UNIVERSAL
    with open(log_path, "a", encoding="utf-8") as log:
        log.write("$ " + " ".join(u.command()) + "\n")
        log.flush()
        try:
            p = subprocess.run(u.command(), check=False, stdout=log, stderr=subprocess.STDOUT, env=env, timeout=timeout,
                               stdin=subprocess.DEVNULL)
            rc = p.returncode
        except (OSError, subprocess.TimeoutExpired) as exc:
            _remove_partial(out, latest)
            raise UserError(f"ds_to_universal could not run: {exc}") from None
    named = latest.read_text(encoding="utf-8").strip() if latest.is_file() else None
    if rc != 0 or named != out.name:
        _remove_partial(out, latest)  # both were absent before (universal_support refuses otherwise): ours
        lines = [x.strip() for x in Path(log_path).read_text(encoding="utf-8", errors="replace").splitlines()
                 if x.strip()]
        err = next((x for x in reversed(lines) if "Error" in x or "error" in x), lines[-1] if lines else "")
        raise UserError(f"DeepSpeed's ds_to_universal failed on {u.checkpoint}/{u.tag} (exit {rc}): {err[:300]} "
                        f"(full output: {log_path})")
    write_universal_config(u)
