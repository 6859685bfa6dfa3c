"""`rocm-tune check FILE...` in the app: the user's own files on the Plan screen (no widgets here).

The report comes from `rocm_tune.core.check.check.check()`, the call behind `rocm-tune check`; edits on the screen become
keys for `core.check.check.build_fix` (the user's files with those keys changed, in their own format), and the edited
files are checked again by the same `check()`; export writes them with `core.check.check.write_fix` (never over a file
that exists). Nothing here re-implements them.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from typing import Any

from rocm_tune.core.errors import UserError

# Plan-screen settings that map to keys of the user's files (precision and attention do not: shown, not editable)
EDITABLE = ("cutoff_len", "micro_batch", "grad_accum", "zero_stage", "offload", "gradient_checkpointing")
# the build_fix keys the settings above write (a fix's other keys, e.g. the eval batch, are kept under edits)
FIELD_KEYS = ("cutoff_len", "per_device_train_batch_size", "gradient_accumulation_steps",
              "disable_gradient_checkpointing", "__zero__")


@dataclass
class CheckSession:
    """The files and options `rocm-tune check` was given, and its report."""

    paths: list[str]
    report: Any                        # core.check.check.Report
    options: dict = field(default_factory=dict)   # gpu_id, vram_gib, gpus, nodes, model_ref (check()'s keywords)

    @property
    def settings(self) -> dict:
        return settings_of(self.report)


def settings_of(rep: Any) -> dict:
    """The Plan screen's settings of a check report (the values the user's files give)."""
    c = rep.cfg
    if c is None:
        return {}
    from rocm_tune.core.runners.common import as_int

    ga = as_int(rep.job.get("gradient_accumulation_steps")) or 1
    return {"cutoff_len": c.cutoff_len, "micro_batch": c.micro_batch, "grad_accum": ga, "precision": c.precision,
            "zero_stage": c.zero_stage, "offload": c.offload, "gradient_checkpointing": bool(c.gradient_checkpointing),
            "attn": c.attn, "method": c.method}


def keys_for(base: dict, settings: dict, start: dict | None = None) -> dict:
    """`build_fix` keys that turn the user's values (`base`) into `settings`, on top of `start` (a fix's own keys)."""
    keys = {k: v for k, v in (start or {}).items() if k not in FIELD_KEYS}
    if settings.get("cutoff_len") != base.get("cutoff_len"):
        keys["cutoff_len"] = settings["cutoff_len"]
    if settings.get("micro_batch") != base.get("micro_batch"):
        keys["per_device_train_batch_size"] = settings["micro_batch"]
    if settings.get("grad_accum") != base.get("grad_accum"):
        keys["gradient_accumulation_steps"] = settings["grad_accum"]
    if settings.get("gradient_checkpointing") != base.get("gradient_checkpointing"):
        keys["disable_gradient_checkpointing"] = not settings["gradient_checkpointing"]
    if (settings.get("zero_stage"), settings.get("offload")) != (base.get("zero_stage"), base.get("offload")):
        z, off = int(settings["zero_stage"]), str(settings["offload"])
        if z == 0:
            raise UserError("ZeRO stage 0 cannot be written into these files; keep a stage >= 1 or edit them by hand")
        keys["__zero__"] = (z, off)
    for k in ("precision", "attn"):
        if k in settings and settings[k] != base.get(k):
            raise UserError(f"{k} is not changed by check's fix; edit it in your file")
    return keys


def _fix_keys(fix: dict | None) -> dict:
    keys = dict((fix or {}).get("changes") or {})
    if isinstance(keys.get("__zero__"), list):
        keys["__zero__"] = tuple(keys["__zero__"])
    return keys


def fix_keys(session: CheckSession) -> dict:
    """The keys of the check's own minimal fix ({} when there is none)."""
    return _fix_keys(session.report.fix)


def check_files(session: CheckSession, fix: dict) -> Any:
    """The report of the user's files with `fix` applied, by the same `check()` (fixed files in a temporary folder,
    the unchanged ones read where they are; a reference between them resolves by name as for the user's)."""
    from rocm_tune.core.check.check import check

    with tempfile.TemporaryDirectory(prefix="rocm-tune-check-") as tmp:
        paths = []
        for p in session.paths:
            name = os.path.basename(p)
            if name in fix["files"]:
                q = os.path.join(tmp, name)
                with open(q, "w", encoding="utf-8") as fh:
                    fh.write(fix["files"][name])
                paths.append(q)
            else:
                paths.append(p)
        for name, text in fix["files"].items():   # a file the fix adds (a DeepSpeed JSON)
            q = os.path.join(tmp, name)
            if not os.path.exists(q):
                with open(q, "w", encoding="utf-8") as fh:
                    fh.write(text)
                paths.append(q)
        return check(paths, **session.options)


def recheck(session: CheckSession, keys: dict) -> tuple[dict | None, Any]:
    """(the fix that writes `keys` into the user's files, its check report); no keys: (the check's fix, report)."""
    rep = session.report
    if not keys:
        return rep.fix, rep
    from rocm_tune.core.check.check import build_fix

    fix = build_fix(rep.job, keys, rep.cfg)
    if not fix["files"]:
        return None, rep
    return fix, check_files(session, fix)


def default_export_dir(session: CheckSession) -> str:
    """Where export suggests writing: a new folder in the current directory named after the first file."""
    stem = os.path.splitext(os.path.basename(session.paths[0]))[0] or "check"
    base = os.path.join(os.getcwd(), f"{stem}-fixed")
    out, n = base, 2
    while os.path.lexists(out):
        out, n = f"{base}-{n}", n + 1
    return out


def export(session: CheckSession, fix: dict | None, out_dir: str) -> list[str]:
    """Write the fixed files into out_dir with `core.check.check.write_fix` (an existing file there is refused, and the
    user's own files are never written)."""
    from rocm_tune.core.check.check import write_fix

    if not fix or not fix.get("files"):
        raise UserError("nothing to export: your files need no change (edit a setting to write a changed copy)")
    out_dir = os.path.abspath(os.path.expanduser(out_dir.strip()))
    if not out_dir.strip():
        raise UserError("give a folder to write the fixed files into")
    mine = {os.path.realpath(p) for p in session.paths}
    for name in fix["files"]:
        if os.path.realpath(os.path.join(out_dir, name)) in mine:
            raise UserError(f"{os.path.join(out_dir, name)} is one of your own files; choose another folder")
    # refused here in the app's words (write_fix refuses the same, naming the CLI's --force)
    if os.path.lexists(out_dir) and not os.path.isdir(out_dir):
        raise UserError(f"{out_dir} exists and is not a folder; choose another folder")
    there = [n for n in fix["files"] if os.path.lexists(os.path.join(out_dir, n))]
    if there:
        more = f" (and {len(there) - 1} more)" if len(there) > 1 else ""
        raise UserError(f"{os.path.join(out_dir, there[0])} already exists{more}: nothing was written; "
                        "choose another folder (ctrl+n again)")
    return write_fix(fix, out_dir, False)


def shard_words(rep: Any) -> str:
    """How the report's model is spread, in the words `check` prints (core/check/check.py shard_words)."""
    from rocm_tune.core.check.check import shard_words as words

    return words(rep)
