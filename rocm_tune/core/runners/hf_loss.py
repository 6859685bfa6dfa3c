"""Which transformers release computes a run's causal-LM loss, from the user's files, and the bytes per logit that
release's loss holds (pure; the rows and their sources are profiles/model_losses.py HF_LOSS_BYTES_16BIT).

The release is read, in this order, from:
  - a pinned `transformers==X.Y[.Z]` (a requirements line, `pip install ...==`, pip freeze);
  - an installed release an env dump or a pip listing beside the config shows (`- \\`transformers\\` version: 4.46.1`,
    `transformers  4.44.2`, collect_env's `[pip3] transformers==...`: core/runs/diagnose/version_facts.read_facts);
  - the runner's release pinned in the files (LLaMA-Factory `llamafactory==0.9.0`): the transformers range that
    release declares (profiles/release_pins.py), where it has an upper bound; the fewest bytes any release in the
    range holds.
Files that date nothing keep today's figure (transformers >= 4.49: 10 bytes per logit)."""
from __future__ import annotations

import re

from rocm_tune.profiles.model_losses import (HF_LOSS_BYTES_16BIT, HF_LOSS_FAMILIES, HF_OWN_FORWARD_UNTIL,
                                             HF_QWEN_VL_LOSS_16BIT, TRANSFORMERS_LOSS_BYTES_16BIT)
from rocm_tune.profiles.version_facts import COMMENT_STATED

# the runners whose trainer hands the labels to a transformers model class (Trainer.compute_loss -> model(**inputs)):
# a transformers Trainer / TRL SFT script, LLaMA-Factory's CustomSeq2SeqTrainer, Axolotl's AxolotlTrainer
RUNNERS = ("hf", "llamafactory", "axolotl")
_FIRST_MODELLED = HF_LOSS_BYTES_16BIT[0][0]
Release = tuple[int, int]


def is_vlm(model) -> bool:
    """A vision-language wrapper (core/model/architecture.py: its vision tower known, or its text decoder counted)."""
    return getattr(model, "vision", None) is not None or any(
        "vision-language model" in str(n) for n in getattr(model, "notes", ()) or ())


def row(family: str, release: Release, vlm: bool = False) -> tuple[int, int, str] | None:
    """(bytes per logit under a 16-bit compute dtype with two rows or more in the batch, with one row, the source) of transformers' causal-LM loss
    at `release` for a model type (`vlm`: its vision-language wrapper's forward); None where not modelled (another
    model type or wrapper, a release before v4.31)."""
    if vlm:
        vl_first, vl_after, vl_train, vl_eval, vl_source = HF_QWEN_VL_LOSS_16BIT
        return (vl_train, vl_eval, vl_source) if family == "qwen2" and vl_first <= release < vl_after else None
    if family not in HF_LOSS_FAMILIES or release < _FIRST_MODELLED:
        return None
    until = HF_OWN_FORWARD_UNTIL.get(family)
    if until is not None and release < until:
        release = min(release, (4, 45))      # its own upcasting forward: the v4.31-v4.45 row
    for first, after, train, evaluation, source in HF_LOSS_BYTES_16BIT:
        if release >= first and (after is None or release < after):
            return train, evaluation, source
    return None


def _span(spec: str) -> tuple[Release, Release] | None:
    """(lowest, highest) transformers (major, minor) a specifier allows; None without both bounds."""
    lo = hi = None
    for clause in (c.strip() for c in spec.split(",")):
        m = re.fullmatch(r"(>=|>|<=|<|==)\s*(\d+)\.(\d+)(?:\.(\d+))?", clause)
        if m is None:
            continue
        op, rel, patch = m.group(1), (int(m.group(2)), int(m.group(3))), int(m.group(4) or 0)
        if op in (">=", ">", "=="):
            lo = rel
        if op == "<=" or op == "==":
            hi = rel
        elif op == "<":
            hi = rel if patch else (rel[0], rel[1] - 1)
    return (lo, hi) if lo is not None and hi is not None else None


def _runner_span(job) -> tuple[tuple[Release, Release], str] | None:
    """The transformers range the runner's release pinned in the files declares (LLaMA-Factory only: its releases
    pin an upper bound from v0.9.0 on)."""
    if job.runner != "llamafactory":
        return None
    from rocm_tune.core.runners.llamafactory import pinned_release
    from rocm_tune.profiles.release_pins import PINS

    lf = pinned_release(job)
    if lf is None:
        return None
    for first, last, pins in PINS.get("llamafactory", ()):
        if _rel3(first) <= lf <= _rel3(last):
            spec = dict(pins).get("transformers")
            span = _span(spec) if spec else None
            name = ".".join(map(str, lf))
            return (span, f"llamafactory {name} pinned, which requires transformers {spec}") if span else None
    return None


def _rel3(v: str) -> tuple[int, int, int]:
    parts = [int(p) for p in re.findall(r"\d+", v)[:3]]
    return (parts + [0, 0, 0])[0], (parts + [0, 0, 0])[1], (parts + [0, 0, 0])[2]


def _shown_release(files: dict) -> tuple[Release, str] | None:
    """The one transformers release the files pin or show installed."""
    from rocm_tune.core.runners.preference_logits import pinned_release
    from rocm_tune.core.runs.diagnose.version_facts import read_facts, release

    pinned = pinned_release(files, "transformers")
    if pinned is not None:
        return pinned, f"transformers {pinned[0]}.{pinned[1]} pinned in the files"
    text = "\n".join(str(t or "") for t in files.values())
    if re.search(r"(?i)(?<![\w.\-/])transformers(?:\[[^\]]*\])?\s*==", text):
        return None      # several releases pinned: which one ran is not said
    fact = read_facts(text).get("transformers")
    if fact is not None and len(release(fact.version)) >= 2:
        got = release(fact.version)
        return (got[0], got[1]), f"transformers {fact.version} shown installed ({fact.shown})"
    stated = {m.group("ver") for m in re.finditer(COMMENT_STATED, text)}
    majors = {release(v)[:2] for v in stated}
    if len(majors) != 1:
        return None      # none stated, or several
    got = next(iter(majors))
    return (got[0], got[1]), f"transformers {min(stated)} stated in a comment of the files"


def loss_bytes(job, model) -> tuple[tuple[int, int], str] | None:
    """((bytes per logit with two rows or more, with one row) of transformers' loss at the release the files show, what says so) where
    that differs from today's figure; None where the files date nothing, or the release holds today's figure."""
    if job.runner not in RUNNERS or str(job.get("__upper_bound__") or "").startswith("unsloth"):
        return None
    family, vlm = str(getattr(model, "family", "") or ""), is_vlm(model)
    files = getattr(job, "files", None) or {}
    shown = _shown_release(files)
    if shown is not None:
        got = row(family, shown[0], vlm)
        if got is None or got[:2] == (TRANSFORMERS_LOSS_BYTES_16BIT,) * 2:
            return None
        return (got[0], got[1]), f"{shown[1]}: {got[2]}"
    span = _runner_span(job)
    if span is None:
        return None
    (lo, hi), said = span
    rows = [r for r in (row(family, (4, m), vlm) for m in range(lo[1], hi[1] + 1)) if lo[0] == hi[0] == 4]
    if not rows or any(r is None for r in rows):
        return None
    fewest = min((r for r in rows if r is not None), key=lambda r: r[0])
    if fewest[:2] == (TRANSFORMERS_LOSS_BYTES_16BIT,) * 2:
        return None
    return (fewest[0], fewest[1]), f"{said} (the fewest bytes any of those releases holds: {fewest[2]})"



def newest_major(job) -> tuple[int, str] | None:
    """The newest transformers major release the files allow and what says so: the release they pin or show
    installed, else the top of the range the runner's pinned release declares, else (LLaMA-Factory) the newest
    release of it the files' paths and keys allow when no release up to that one allows transformers 5 (every
    release from v0.9.0 to v0.9.4 caps it at 4.x, profiles/release_pins.py; the earlier ones predate it); None
    where the files date nothing (today's release)."""
    shown = _shown_release(getattr(job, "files", None) or {})
    if shown is not None:
        return shown[0][0], shown[1]
    span = _runner_span(job)
    if span is not None:
        return span[0][1][0], span[1]
    if job.runner != "llamafactory":
        return None
    from rocm_tune.core.runners.llamafactory import newest_release
    from rocm_tune.profiles.release_pins import PINS

    got = newest_release(job)
    if got is None:
        return None
    tops = [_span(dict(pins).get("transformers") or "") for first, _last, pins in PINS.get("llamafactory", ())
            if _rel3(first) <= got[0]]
    majors = {t[1][0] for t in tops if t is not None}
    if not majors or max(majors) >= 5:
        return None
    return max(majors), f"{got[1]} (no LLaMA-Factory release up to it allows transformers 5)"
