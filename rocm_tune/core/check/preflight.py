"""Preflight, the core side (no torch): what to verify, how to start it as a run, how to show the result.

`rocm-tune preflight` (and the Plan screen's key, through `start_preflight`) checks a plan on the
machine that will run it: device matmul rates per dtype (bf16 emulation), collectives with a hard
timeout and value checks (the IOMMU/P2P hang of field report 000), a few real optimizer steps of the
exact plan at its longest sequence, one eval batch, one checkpoint save, host RAM and disk, then
re-plans (raise the micro-batch where memory leaves room; step down after an OOM) and writes the
adjusted plan. The work itself runs in `python -m rocm_tune.train.preflight` (torch lives in `train`),
detached as a run of kind "preflight"; it writes RUN_DIR/preflight.json (the result, schema in
`rocm_tune/train/preflight/runner.py`) and its human report to stdout.log.

Exit codes of a finished preflight: 0 verified, 1 the plan does not hold on this box, 2 bad input.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from rocm_tune.core import codes as _codes
from rocm_tune.core.errors import UserError
from rocm_tune.core.plan.plan import Plan

RESULT_JSON = "preflight.json"
ADJUSTED_PLAN = "plan.adjusted.json"
DEFAULT_TIMEOUT_S = 60.0
EXIT_VERIFIED, EXIT_DOES_NOT_HOLD, EXIT_BAD_INPUT = 0, 1, 2

# finding code -> (what it means, the fix): a view of the preflight entries of the one registry of codes
# (core/codes.py; `oom` is the catalogue's, core/codebook.py). Stable strings (README "## Codes").
FINDINGS: dict[str, tuple[str, str]] = {c: (_codes.own(c).title, _codes.own(c).fix)
                                        for c in _codes.codes_of("preflight")}


@dataclass(frozen=True)
class PreflightOptions:
    """What a preflight does beyond the plan; every field has a CLI flag of `rocm-tune preflight`."""

    timeout_s: float = DEFAULT_TIMEOUT_S    # hard timeout of the collectives check
    steps: int = 3                          # optimizer steps per attempt (the first is warm-up)
    weights: str | None = None              # real weights dir (default: random init from the config)
    device: str = "auto"                    # auto | cpu
    collective_procs: int | None = None     # None: the plan's GPUs per node (2 on CPU)
    skip: tuple[str, ...] = ()              # of: device, collectives, steps
    output_dir: str | None = None           # where the run writes checkpoints (disk check)
    save_total_limit: int | None = None
    eval_batch: int | None = None
    out: str | None = None                  # where the adjusted plan goes
    force: bool = False                     # overwrite `out`
    bundle: str | None = None               # bundle dir the plan came from (adjusted bundle next to it)
    replan: bool = True
    # test hooks (real code paths, constructed conditions): a simulated OOM in the step runner when the
    # micro-batch exceeds N; a collective peer that never joins
    simulate_oom_above_micro_batch: int | None = None
    absent_rank: int | None = None

    def to_dict(self) -> dict:
        d = asdict(self)
        d["skip"] = list(self.skip)
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "PreflightOptions":
        known = {k: v for k, v in (d or {}).items() if k in cls.__dataclass_fields__}
        if "skip" in known:
            known["skip"] = tuple(known["skip"] or ())
        return cls(**known)

    def validate(self) -> None:
        if not (isinstance(self.timeout_s, (int, float)) and 0.1 <= self.timeout_s <= 3600):
            raise UserError(f"--timeout must be between 0.1 and 3600 seconds, got {self.timeout_s!r}")
        if not (isinstance(self.steps, int) and 1 <= self.steps <= 100):
            raise UserError(f"--steps must be an integer between 1 and 100, got {self.steps!r}")
        if self.device not in ("auto", "cpu"):
            raise UserError(f"--device {self.device!r} is not one of auto, cpu")
        for s in self.skip:
            if s not in ("device", "collectives", "steps"):
                raise UserError(f"--skip {s!r} is not one of device, collectives, steps")
        if self.collective_procs is not None and not 1 <= self.collective_procs <= 64:
            raise UserError(f"--collective-procs must be between 1 and 64, got {self.collective_procs}")
        if self.weights is not None and not os.path.isdir(os.path.expanduser(self.weights)):
            raise UserError(f"--weights {self.weights!r} is not a directory (a local model with config.json "
                            "and weights)")


# ------------------------------------------------------------------------------------------ input


def _check_plan(plan: object, where: str) -> dict:
    if hasattr(plan, "to_dict") and not isinstance(plan, dict):
        plan = plan.to_dict()
    if not isinstance(plan, dict):
        raise UserError(f"{where} is not a rocm-tune plan (not a JSON object)")
    rec = plan.get("recommended")
    if not isinstance(rec, dict):
        raise UserError(f"{where} is not a rocm-tune plan (no \"recommended\" object)")
    model = plan.get("model")
    if not isinstance(model, dict) or not (model.get("ref") or model.get("name")):
        raise UserError(f"{where}: model.ref is missing; the plan must name its model")
    for key, lo, hi in (("cutoff_len", 1, 1_048_576), ("micro_batch", 1, 65_536), ("grad_accum", 1, 1_000_000)):
        v = rec.get(key)
        if v is None and key == "grad_accum":
            continue
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            raise UserError(f"{where}: recommended.{key} must be an integer between {lo} and {hi}, got {v!r}")
    Plan.from_dict(plan)  # every other field, once (one line naming the field)
    return plan


def load_input(path: str) -> tuple[dict, str | None]:
    """(plan dict, bundle dir or None) from a plan.json file or a bundle directory holding plan.json."""
    p = Path(path).expanduser()
    bundle = None
    if p.is_dir():
        if not (p / "plan.json").is_file():
            raise UserError(f"{path!r} is a directory without plan.json; give a plan file or an exported bundle")
        bundle = str(p.resolve())
        p = p / "plan.json"
    elif not p.exists():
        raise UserError(f"{path!r} does not exist; give a plan.json (`rocm-tune plan --json > plan.json`) "
                        "or a bundle directory")
    from rocm_tune.core.files import MAX_STATE_BYTES, load_json, read_text

    # a regular file only (a FIFO or /dev/zero is refused before a byte is read), nesting and numbers bounded
    data = load_json(read_text(p, "plan file", MAX_STATE_BYTES), p, "plan file", lenient=True)
    if data is None:
        raise UserError(f"{str(p)!r} is not valid JSON (a plan.json from `rocm-tune plan --json`)")
    return _check_plan(data, str(p)), bundle


def bundle_settings(bundle: str | None) -> dict:
    """output_dir / save_total_limit / per_device_eval_batch_size from a bundle's llamafactory.yaml."""
    if not bundle:
        return {}
    from rocm_tune.core.files import try_read_yaml

    data = try_read_yaml(Path(bundle) / "llamafactory.yaml")  # never opens a FIFO, never raises
    if not isinstance(data, dict):
        return {}
    return {k: data[k] for k in ("output_dir", "save_total_limit", "per_device_eval_batch_size", "save_only_model")
            if k in data}


def default_out(source_path: str | None, bundle: str | None) -> str:
    if bundle:
        return str(Path(bundle).with_name(Path(bundle).name + ".preflight"))
    if source_path:
        p = Path(source_path).expanduser().resolve()
        return str(p.with_name(p.stem + ".preflight.json"))
    return ADJUSTED_PLAN


def check_out(out: str, force: bool) -> None:
    from rocm_tune.core.files import directory_path, existing

    directory_path(os.path.dirname(os.path.abspath(out)), f"--out {out!r}: its folder")
    there = existing(out)  # a dangling symlink or a symlink loop counts as existing
    if there is not None and not force:
        raise UserError(f"{out!r} exists{'' if there == 'exists' else f' ({there[3:]})'}; the adjusted plan is never "
                        "written over it without --force (or choose --out PATH)")


# ------------------------------------------------------------------------------------------ re-plan


def adjusted_plan(plan: dict, change: dict, result_summary: dict | None = None) -> dict:
    """A copy of `plan` with the re-planned knobs (micro_batch, grad_accum, gradient_checkpointing,
    zero_stage) in `recommended`; the effective batch is kept: micro x accum is unchanged."""
    out = json.loads(json.dumps(plan))
    rec = out["recommended"]
    for k in ("micro_batch", "grad_accum", "gradient_checkpointing", "zero_stage"):
        if k in change and change[k] is not None:
            rec[k] = change[k]
    if result_summary:
        reasons = out.setdefault("reasons", [])
        if isinstance(reasons, list):
            reasons.append("preflight: " + result_summary.get("replan_reason", "adjusted from measured memory"))
    return out


def write_adjusted(plan: dict, out: str, *, bundle: str | None, force: bool) -> str:
    """Write the adjusted plan (a file) or bundle (a directory: a copy of `bundle` with plan.json and the
    LLaMA-Factory YAML's batch keys updated). Never over an existing path without `force`."""
    check_out(out, force)
    if not bundle:
        from rocm_tune.core.files import atomic_write_json

        Path(out).parent.mkdir(parents=True, exist_ok=True)
        atomic_write_json(out, plan)
        return out
    import shutil

    if os.path.lexists(out) and os.path.realpath(out) != os.path.realpath(bundle):
        if os.path.isdir(out) and not os.path.islink(out):
            shutil.rmtree(out)
        else:
            os.unlink(out)
    if os.path.realpath(out) != os.path.realpath(bundle):
        shutil.copytree(bundle, out, symlinks=True)
    from rocm_tune.core.files import atomic_write_json

    atomic_write_json(os.path.join(out, "plan.json"), plan)
    rec = plan["recommended"]
    yaml_path = Path(out) / "llamafactory.yaml"
    if yaml_path.is_file():
        keys = {"per_device_train_batch_size": rec.get("micro_batch"),
                "gradient_accumulation_steps": rec.get("grad_accum")}
        if rec.get("gradient_checkpointing") is not None:
            keys["disable_gradient_checkpointing"] = "false" if rec["gradient_checkpointing"] else "true"
        lines = yaml_path.read_text(encoding="utf-8").splitlines()
        seen = set()
        for i, line in enumerate(lines):
            key = line.split(":", 1)[0].strip()
            if ":" in line and not line.lstrip().startswith("#") and key in keys and keys[key] is not None:
                lines[i] = f"{key}: {keys[key]}"
                seen.add(key)
        for key, value in keys.items():
            if key not in seen and value is not None and key != "disable_gradient_checkpointing":
                lines.append(f"{key}: {value}")
        if "disable_gradient_checkpointing" not in seen and rec.get("gradient_checkpointing") is False:
            lines.append("disable_gradient_checkpointing: true")
        from rocm_tune.core.files import atomic_write_text

        # replaces the file, never the target of a symlink the copied bundle holds
        atomic_write_text(yaml_path, "\n".join(lines) + "\n")
    return out


# ------------------------------------------------------------------------------------------ start


def worker_command(plan_path: str, options: PreflightOptions, python: str | None = None) -> list[str]:
    return [python or sys.executable, "-m", "rocm_tune.train.preflight", str(plan_path),
            "--options-json", json.dumps(options.to_dict(), separators=(",", ":"))]


def start_preflight(plan, *, name: str | None = None, run_dir: str | None = None,
                    options: PreflightOptions | None = None, source_path: str | None = None,
                    env: dict | None = None, cwd: str | None = None):
    """Start a preflight of `plan` (a Plan or plan dict) detached, as a run of kind "preflight".

    Returns the running `RunInfo` (`rocm-tune attach <id>` shows it). The adjusted plan goes to
    `options.out` (default: next to `source_path`, else into the run directory); an existing file there is
    refused unless `options.force`. UserError for a bad plan or options."""
    from rocm_tune.core.runs import rundir as rd
    from rocm_tune.core.runs.launch.launcher import start_run

    plan = _check_plan(plan, "the plan")
    options = options or PreflightOptions()
    options.validate()
    if options.out is None and source_path is not None:
        options = PreflightOptions.from_dict({**options.to_dict(),
                                             "out": default_out(source_path, options.bundle)})
    if options.out is not None:
        out = os.path.abspath(options.out)
        options = PreflightOptions.from_dict({**options.to_dict(), "out": out})
        check_out(out, options.force)
    if options.weights:
        options = PreflightOptions.from_dict({**options.to_dict(),
                                             "weights": os.path.abspath(os.path.expanduser(options.weights))})
    model_name = str((plan.get("model") or {}).get("name") or "plan")
    _, d = rd.create_run_dir(["rocm-tune-preflight"], name=name or f"preflight-{model_name}", run_dir=run_dir,
                             cwd=cwd, env=env, kind="preflight", plan=plan)
    rd.update_run_json(d, command=worker_command(str(d / rd.PLAN_JSON), options))
    return start_run(d)


def read_result(run_dir: str | os.PathLike) -> dict | None:
    try:
        data = json.loads((Path(run_dir) / RESULT_JSON).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


# ------------------------------------------------------------------------------------------ show


def _gib(n) -> str:
    return "-" if not isinstance(n, (int, float)) else f"{n / 2**30:.2f} GiB"


def _num(x, spec: str = ".1f") -> str:
    return "-" if not isinstance(x, (int, float)) else format(x, spec)


def render(result: dict) -> str:
    """The human report of a preflight result (preflight.json)."""
    L: list[str] = []
    status = result.get("status", "?")
    head = {"verified": "VERIFIED: the plan holds on this machine",
            "does-not-hold": "DOES NOT HOLD on this machine",
            "error": "PREFLIGHT FAILED"}.get(status, status)
    L.append(f"Preflight of {result.get('plan_name', 'the plan')}: {head} ({_num(result.get('seconds'))} s)")
    for n in result.get("notes") or ():
        L.append(f"  note: {n}")
    L += _r_device(result)
    L += _r_collectives(result)
    L += _r_steps(result)
    L += _r_memory(result)
    L += _r_results(result)
    L += _r_replan(result)
    return "\n".join(L) + "\n"


def _r_device(result: dict) -> list[str]:
    """Device checks: measured matmul rates (profile)."""
    L: list[str] = []
    dev = result.get("device") or {}
    if dev.get("status") == "skipped":
        L.append("Device: skipped")
    elif dev:
        L.append(f"Device checks ({dev.get('backend')}, {_num(dev.get('seconds'))} s): matmul TFLOPS measured"
                 " (profile)")
        for g in dev.get("gpus") or ():
            rates = g.get("matmul_tflops") or {}
            prof = g.get("profile_tflops") or {}
            cells = []
            for dt in ("fp32", "fp16", "bf16"):
                if dt in rates:
                    p = prof.get(dt)
                    cells.append(f"{dt} {_num(rates[dt], '.3g')}" + (f" ({p:g})" if isinstance(p, (int, float)) else ""))
            L.append(f"  {g.get('name')}: " + ", ".join(cells) + f"; bf16 {g.get('bf16', '?')}")
    return L


def _r_collectives(result: dict) -> list[str]:
    """Collectives: status, bandwidth."""
    L: list[str] = []
    col = result.get("collectives") or {}
    if col:
        if col.get("status") == "skipped":
            L.append(f"Collectives: skipped ({col.get('reason', '')})")
        else:
            bw = col.get("bus_bandwidth_gbs")
            L.append(f"Collectives ({col.get('backend')}, {col.get('procs')} processes, timeout "
                     f"{_num(col.get('timeout_s'), 'g')} s): {col.get('status')} in {_num(col.get('seconds'))} s"
                     + (f", all_reduce bus bandwidth {bw:.3g} GB/s" if isinstance(bw, (int, float)) else ""))
            if col.get("message"):
                L.append(f"  {col['message']}")
    return L


def _r_steps(result: dict) -> list[str]:
    """Real steps: each attempt."""
    L: list[str] = []
    st = result.get("steps") or {}
    if st.get("status") == "skipped":
        L.append("Steps: skipped")
    elif st:
        L.append(f"Real steps ({st.get('model_source')}, {st.get('device')}, precision {st.get('precision')}, "
                 f"cutoff {st.get('cutoff_len')}, runner {st.get('runner')}):")
        for a in st.get("attempts") or ():
            what = (f"micro_batch {a.get('micro_batch')} x accum {a.get('grad_accum')}, "
                    f"checkpointing {'on' if a.get('gradient_checkpointing') else 'off'}, ZeRO {a.get('zero_stage')}")
            if a.get("outcome") == "ok":
                L.append(f"  {what}: ok, {_num(a.get('step_time_s'), '.3g')} s/micro-step, "
                         f"{_num(a.get('tokens_per_s'), ',.0f')} tok/s")
            else:
                L.append(f"  {what}: {a.get('outcome')} ({a.get('message', '')})")
    return L


def _r_memory(result: dict) -> list[str]:
    """Memory per GPU: predicted, measured, adjusted."""
    L: list[str] = []
    mem = result.get("memory") or {}
    if mem:
        pred, meas, adj = mem.get("predicted") or {}, mem.get("measured") or {}, mem.get("adjusted")

        def cell(m: dict, key: str) -> str:
            if m.get("outcome") == "oom":
                return "OOM"
            v = m.get(key)
            if v is None and key == "peak_reserved_bytes" and m.get("reserved_estimate_bytes") is not None:
                return "~" + _gib(m["reserved_estimate_bytes"])
            return _gib(v)

        L.append(f"Memory per GPU (measured by {mem.get('source')}):")
        head = f"  {'':<16}{'predicted':>12}  {'measured':>12}"
        if adj:
            head += f"  {'adjusted (mb ' + str(adj.get('micro_batch')) + ')':>16}"
        L.append(head)
        for label, pk, mk in (("peak allocated", "peak_allocated_bytes", "peak_allocated_bytes"),
                              ("reserved", "reserved_bytes", "peak_reserved_bytes")):
            row = f"  {label:<16}{_gib(pred.get(pk)):>12}  {cell(meas, mk):>12}"
            if adj:
                row += f"  {cell(adj, mk):>16}"
            L.append(row)
        if mem.get("vram_bytes"):
            L.append(f"  of {_gib(mem['vram_bytes'])} per GPU (limit {mem.get('headroom', 0.85):.0%})")
    return L


def _r_results(result: dict) -> list[str]:
    """Speed, eval, save, host RAM and disk."""
    L: list[str] = []
    spd = result.get("speed") or {}
    if spd:
        L.append(f"Speed, predicted vs measured: {_num(spd.get('predicted_tokens_per_s'), ',.0f')} vs "
                 f"{_num(spd.get('measured_tokens_per_s'), ',.0f')} tok/s; "
                 f"{_num(spd.get('predicted_seconds_per_step'), '.3g')} vs "
                 f"{_num(spd.get('measured_seconds_per_step'), '.3g')} s per optimizer step"
                 + (f" ({spd['note']})" if spd.get("note") else ""))
    ev = result.get("eval") or {}
    if ev.get("status") == "ok":
        L.append(f"Eval batch of {ev.get('batch_size')}: peak {_gib(ev.get('peak_allocated_bytes'))}, "
                 f"{_num(ev.get('seconds'), '.3g')} s")
    sv = result.get("save") or {}
    if sv.get("status") == "ok":
        L.append(f"Checkpoint save ({sv.get('kind')}): {_gib(sv.get('bytes'))} in {_num(sv.get('seconds'), '.3g')} s, "
                 f"GPU peak {_gib(sv.get('peak_allocated_bytes'))}, host RSS {_gib(sv.get('host_rss_bytes'))}")
    hr = result.get("host_ram") or {}
    if hr:
        L.append(f"Host RAM per node: predicted {_gib(hr.get('predicted_bytes'))} vs available "
                 f"{_gib(hr.get('available_bytes'))}" + ("" if hr.get("ok", True) else "  SHORT"))
    dk = result.get("disk") or {}
    if dk:
        lim = dk.get("save_total_limit")
        L.append(f"Disk at {dk.get('path')}: checkpoint {_gib(dk.get('checkpoint_bytes'))} x "
                 f"{lim if lim else 'unlimited'} = {_gib(dk.get('needed_bytes'))} vs free {_gib(dk.get('free_bytes'))}"
                 + ("" if dk.get("ok", True) else "  SHORT"))
    return L


def _r_replan(result: dict) -> list[str]:
    """The re-plan and the findings."""
    L: list[str] = []
    rp = result.get("replan") or {}
    if rp.get("changed"):
        L.append(f"Re-plan: {rp.get('reason')}: " + ", ".join(
            f"{k} {rp['from'].get(k)} -> {rp['to'].get(k)}" for k in rp.get("to", {}) if rp["from"].get(k) != rp["to"].get(k)))
        if rp.get("written"):
            L.append(f"  adjusted plan written to {rp['written']}")
        elif rp.get("write_error"):
            L.append(f"  adjusted plan NOT written: {rp['write_error']}")
    for f in result.get("findings") or ():
        L.append(f"[{f.get('code')}] {f.get('message')}")
        if f.get("fix"):
            L.append(f"    fix: {f['fix']}")
    return L


def exit_code(result: dict | None) -> int:
    if not result:
        return EXIT_DOES_NOT_HOLD
    codes: dict[Any, int] = {"verified": EXIT_VERIFIED, "does-not-hold": EXIT_DOES_NOT_HOLD}
    return codes.get(result.get("status"), EXIT_DOES_NOT_HOLD)


def finding(code: str, message: str | None = None, fix: str | None = None) -> dict:
    """A preflight finding: severity, meaning and fix from the registry of codes; message/fix may be specific."""
    if code in FINDINGS:
        entry = _codes.own(code)
    else:  # a catalogue code (oom)
        from rocm_tune.core.codebook import get

        entry = get(code)
        if "preflight" not in entry.sources:
            raise KeyError(f"{code!r} is not a preflight code (rocm_tune/core/codes.py)")
    return {"code": code, "severity": entry.severity, "message": message or entry.title, "fix": fix or entry.fix}
