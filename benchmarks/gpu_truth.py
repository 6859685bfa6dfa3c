"""Truth table on a real GPU: measured memory and step time next to the analytic estimate and the probe.

    python benchmarks/gpu_truth.py [--dry-run] [--filter TEXT] [--limit N] [--no-probe] [--out PATH]

For each configuration (>= 30: 0.5B-8B presets, LoRA / full / freeze, fp32 / bf16 / fp16 / pure_bf16,
checkpointing on/off, sdpa and eager, 512-8192 tokens, micro-batch 1-8, single-GPU DeepSpeed ZeRO-2/3
where deepspeed imports) it builds the preset's model with random weights (no download), prepares it as
the runner does (core/runners: the same regime the estimate and the probe use), runs two real training
steps on the GPU and records, for step 2, ``torch.cuda.max_memory_allocated``, ``max_memory_reserved`` and
the step time; next to them the analytic peak/reserved (`rocm_tune.core.memory.estimate.estimate`) and the probe's
peak (`rocm_tune.train.probe`). A configuration that runs out of memory is recorded as OOM (with the
estimate, which should say it does not fit). The table - GPU, driver, torch and transformers versions
first - goes to ``benchmarks/results/gpu_truth-<gpu>.md`` and prints the median/worst errors
(targets, issue 14: peak allocated median <= 3 %, worst <= 8 %; reserved median <= 5 %).

``--dry-run`` touches no GPU: it lists the configurations with their analytic estimates (and the probe
with ``--probe-in-dry-run``) and writes the same table with the measured columns empty. The tests run it.

DeepSpeed rows run each in a fresh process (DeepSpeed keeps its engines alive: in one process a row would also
count the last one's memory). ``--budget-s`` stops starting rows after that many seconds; the table is written
after every row. ``--rescore TABLE`` estimates a measured table's analytic columns again (no GPU), and
``--merge-probes FROM INTO`` copies the probe column of a dry run into a measured table.
Committed: benchmarks/results/gpu_truth-nvidia-h200.md (2026-11-27), scored by tests/test_gpu_truth.py.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from rocm_tune.core.memory.estimate import TrainConfig, estimate  # noqa: E402
from rocm_tune.core.model.architecture import load_model  # noqa: E402

GIB = 2**30
C = TrainConfig

CONFIGS: list[tuple[str, TrainConfig]] = [
    # 0.5B-1B: every precision, both attentions, checkpointing on/off, 512-8192 tokens, micro-batch 1-8
    ("qwen2.5-0.5b", C(method="lora", precision="bf16", cutoff_len=1024, micro_batch=4)),
    ("qwen2.5-0.5b", C(method="lora", precision="fp32", cutoff_len=2048, micro_batch=2)),
    ("qwen2.5-0.5b", C(method="lora", precision="fp16", cutoff_len=512, micro_batch=8, gradient_checkpointing=False)),
    ("qwen2.5-0.5b", C(method="lora", precision="pure_bf16", cutoff_len=4096, micro_batch=1)),
    ("qwen2.5-0.5b", C(method="lora", precision="bf16", attn="eager", cutoff_len=8192)),
    ("qwen2.5-0.5b", C(method="lora", precision="bf16", attn="eager", cutoff_len=4096, gradient_checkpointing=False)),
    ("qwen2.5-0.5b", C(method="full", precision="bf16", cutoff_len=1024, micro_batch=4)),
    ("qwen2.5-0.5b", C(method="full", precision="fp32", cutoff_len=512, micro_batch=2, gradient_checkpointing=False)),
    ("qwen2.5-0.5b", C(method="full", precision="pure_bf16", cutoff_len=2048, micro_batch=2)),
    ("qwen2.5-0.5b", C(method="freeze", precision="bf16", cutoff_len=2048, micro_batch=2)),
    ("qwen3-0.6b", C(method="lora", precision="bf16", cutoff_len=8192, micro_batch=1)),
    ("qwen3-0.6b", C(method="full", precision="bf16", attn="eager", cutoff_len=4096, gradient_checkpointing=False)),
    ("qwen3-0.6b", C(method="full", precision="fp16", cutoff_len=1024, micro_batch=8)),
    ("llama-3.2-1b", C(method="lora", precision="bf16", cutoff_len=2048, micro_batch=4)),
    ("llama-3.2-1b", C(method="lora", precision="bf16", attn="eager", cutoff_len=4096)),
    ("llama-3.2-1b", C(method="full", precision="bf16", cutoff_len=1024, micro_batch=2, gradient_checkpointing=False)),
    ("llama-3.2-1b", C(method="freeze", precision="fp32", cutoff_len=1024, micro_batch=2)),
    ("llama-3.2-1b", C(method="lora", precision="fp32", cutoff_len=1024, runner="llamafactory")),
    # 1.5B-4B
    ("qwen2.5-1.5b", C(method="lora", precision="bf16", cutoff_len=4096, micro_batch=2)),
    ("qwen2.5-1.5b", C(method="full", precision="bf16", cutoff_len=2048, micro_batch=1)),
    ("qwen3-1.7b", C(method="lora", precision="pure_bf16", cutoff_len=2048, micro_batch=4)),
    ("llama-3.2-3b", C(method="lora", precision="bf16", cutoff_len=2048, micro_batch=2)),
    ("llama-3.2-3b", C(method="freeze", precision="bf16", cutoff_len=1024, micro_batch=4, gradient_checkpointing=False)),
    ("qwen3-4b", C(method="lora", precision="bf16", attn="eager", cutoff_len=2048, micro_batch=1)),
    ("gemma-2-2b", C(method="lora", precision="bf16", cutoff_len=1024, micro_batch=2)),
    # 7B-8B
    ("qwen2.5-7b", C(method="lora", precision="bf16", cutoff_len=1024, micro_batch=1)),
    ("qwen2.5-7b", C(method="lora", precision="fp32", attn="eager", cutoff_len=1024, micro_batch=1)),
    ("qwen2.5-7b", C(method="lora", precision="fp32", attn="eager", cutoff_len=1024, runner="llamafactory")),
    ("qwen2.5-7b", C(method="lora", precision="bf16", cutoff_len=4096, micro_batch=2, gradient_checkpointing=False)),
    ("llama-3.1-8b", C(method="lora", precision="bf16", cutoff_len=2048, micro_batch=4)),
    ("llama-3.1-8b", C(method="lora", precision="pure_bf16", cutoff_len=8192, micro_batch=1)),
    ("mistral-7b-v0.3", C(method="lora", precision="fp16", cutoff_len=2048, micro_batch=2)),
    ("qwen3-8b", C(method="freeze", precision="bf16", freeze_trainable_layers=2, cutoff_len=1024, micro_batch=2)),
    # single-GPU DeepSpeed (where deepspeed imports)
    ("qwen2.5-1.5b", C(method="full", precision="bf16", cutoff_len=1024, micro_batch=2, zero_stage=2)),
    ("qwen2.5-1.5b", C(method="full", precision="bf16", cutoff_len=1024, micro_batch=2, zero_stage=3)),
    ("llama-3.2-3b", C(method="lora", precision="bf16", cutoff_len=2048, micro_batch=2, zero_stage=2)),
    # ZeRO-3 with and without offload (the optimizer's state on the host, then the parameters too)
    ("llama-3.2-3b", C(method="full", precision="bf16", cutoff_len=2048, micro_batch=2, zero_stage=3)),
    ("llama-3.2-3b", C(method="full", precision="bf16", cutoff_len=2048, micro_batch=2, zero_stage=3,
                       offload="optimizer")),
    ("llama-3.2-3b", C(method="full", precision="bf16", cutoff_len=2048, micro_batch=2, zero_stage=3, offload="all")),
    ("qwen2.5-1.5b", C(method="full", precision="bf16", cutoff_len=1024, micro_batch=2, zero_stage=3,
                       offload="optimizer")),
]


@dataclass
class Row:
    model: str
    config: TrainConfig
    analytic_peak: int
    analytic_reserved: int
    probe_peak: int | None = None
    measured_peak: int | None = None
    measured_reserved: int | None = None
    step_seconds: float | None = None
    status: str = "dry run"

    def error(self, analytic: int, measured: int | None) -> float | None:
        return None if not measured else analytic / measured - 1


def describe(cfg: TrainConfig) -> str:
    bits = [cfg.method, cfg.precision, f"S{cfg.cutoff_len}", f"b{cfg.micro_batch}", cfg.attn,
            "ckpt" if cfg.gradient_checkpointing else "no-ckpt"]
    if cfg.zero_stage:
        bits.append(f"zero{cfg.zero_stage}" + ("" if cfg.offload == "none" else f"+offload-{cfg.offload}"))
    if cfg.runner != "builtin":
        bits.append(f"[{cfg.runner}]")
    return " ".join(bits)


def environment(dry_run: bool) -> dict:
    env = {"python": platform.python_version(), "host": platform.node() or "?"}
    try:
        import torch

        env["torch"] = torch.__version__
        env["hip"] = getattr(torch.version, "hip", None) or "-"
        env["cuda"] = torch.version.cuda or "-"
        if not dry_run and torch.cuda.is_available():
            env["gpu"] = torch.cuda.get_device_name(0)
            env["vram_gib"] = f"{torch.cuda.get_device_properties(0).total_memory / GIB:.1f}"
            env["driver"] = _driver_version()
    except ImportError:
        env["torch"] = "not installed"
    try:
        import transformers

        env["transformers"] = transformers.__version__
    except ImportError:
        env["transformers"] = "not installed"
    try:
        import deepspeed

        env["deepspeed"] = deepspeed.__version__
    except Exception:  # noqa: BLE001 - any import failure means no DeepSpeed rows
        env["deepspeed"] = "not importable"
    env.setdefault("gpu", "none (dry run)" if dry_run else "none")
    return env


def _driver_version() -> str:
    import subprocess

    for argv in (["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                 ["cat", "/sys/module/amdgpu/version"]):
        try:
            out = subprocess.run(argv, capture_output=True, text=True, timeout=10, check=False)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if out.returncode == 0 and out.stdout.strip():
            return out.stdout.strip().splitlines()[0]
    return "?"


def measure(preset: str, cfg: TrainConfig) -> tuple[int, int, float]:
    """Two real training steps on cuda:0; (max allocated, max reserved, seconds) of step 2."""
    import torch

    from rocm_tune.train.probe import _make_optimizer, _prepare

    config = dict(load_model(preset).config)
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    with torch.device("cuda"):  # random init on the GPU: the same tensors, minutes faster than on the host
        model, _layers, run_as = _prepare(config, cfg)
    model.to("cuda")
    trainable = [p for p in model.parameters() if p.requires_grad]
    opt = _make_optimizer(cfg, trainable)
    engine = _deepspeed(model, opt, cfg, load_model(preset)) if cfg.zero_stage else None
    vocab = int(model.config.vocab_size)
    autocast_dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(run_as.autocast or "")

    def step() -> None:
        ids = torch.randint(0, vocab, (cfg.micro_batch, cfg.cutoff_len), device="cuda")
        with torch.autocast("cuda", dtype=autocast_dtype, enabled=autocast_dtype is not None and engine is None):
            loss = (engine or model)(input_ids=ids, labels=ids).loss
        if engine is not None:
            engine.backward(loss)
            engine.step()
            return
        loss.backward()
        torch.nn.utils.clip_grad_norm_(trainable, 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)

    step()
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    t0 = time.perf_counter()
    step()
    torch.cuda.synchronize()
    seconds = time.perf_counter() - t0
    return torch.cuda.max_memory_allocated(), torch.cuda.max_memory_reserved(), seconds


def _deepspeed(model, opt, cfg: TrainConfig, spec):
    """One-process DeepSpeed engine with exactly the zero_optimization block the exporter writes."""
    import deepspeed
    import torch.distributed as dist

    from rocm_tune.core.runners.deepspeed import zero_settings

    if not dist.is_initialized():
        os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
        os.environ.setdefault("MASTER_PORT", "29533")
        os.environ.setdefault("RANK", "0")
        os.environ.setdefault("LOCAL_RANK", "0")
        os.environ.setdefault("WORLD_SIZE", "1")
        deepspeed.init_distributed()
    ds_config = {"train_micro_batch_size_per_gpu": cfg.micro_batch, "gradient_accumulation_steps": 1,
                 "gradient_clipping": 1.0, "bf16": {"enabled": cfg.precision == "bf16"},
                 "fp16": {"enabled": cfg.precision == "fp16", "loss_scale": 0},
                 "zero_optimization": zero_settings(spec, cfg)}
    if cfg.offload != "none":
        # the step runs the client's torch AdamW on the host copy (DeepSpeedCPUAdam would need a JIT build): the
        # GPU side - what this table measures - is the same; the step time is not DeepSpeed's CPU Adam's
        ds_config["zero_force_ds_cpu_optimizer"] = False
    engine, *_ = deepspeed.initialize(model=model, optimizer=opt, config=ds_config)
    return engine


def run_row(preset: str, cfg: TrainConfig, *, dry_run: bool, probe: bool) -> Row:
    spec = load_model(preset)
    est = estimate(spec, cfg)
    row = Row(preset, cfg, est.per_gpu.peak_allocated_bytes, est.per_gpu.reserved_bytes)
    if probe:
        from rocm_tune.train.probe import probe as run_probe

        res = run_probe(dict(spec.config), cfg)
        row.probe_peak = res.peak_allocated_bytes
    if dry_run:
        return row
    if cfg.zero_stage:
        try:
            import deepspeed  # noqa: F401
        except ImportError:
            row.status = "skipped: deepspeed does not import"
            return row
    if cfg.zero_stage:
        # DeepSpeed keeps its engines alive (hooks, global registries): in this process the next row would count
        # the last engine's memory too. Each DeepSpeed row runs in a fresh process.
        return _measure_isolated(preset, cfg, row)
    import torch

    try:
        row.measured_peak, row.measured_reserved, row.step_seconds = measure(preset, cfg)
        row.status = "ok"
    except torch.cuda.OutOfMemoryError:
        row.status = "OOM"
    except Exception as exc:  # noqa: BLE001 - one configuration's failure is a row, not the end of the table
        row.status = f"error: {type(exc).__name__}: {str(exc).splitlines()[0][:80] if str(exc) else ''}"
    finally:
        import gc

        gc.collect()
        torch.cuda.empty_cache()
    return row


def _read_probes(path: Path) -> dict[tuple[str, str], int]:
    """(model, configuration) -> probe peak bytes, from a table this script wrote."""
    found: dict[tuple[str, str], int] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 11:
            try:
                found[(cells[0], cells[1])] = int(float(cells[3]) * GIB)
            except ValueError:
                continue
    return found


def read_table(path: Path) -> tuple[list[str], list[Row]]:
    """(the header lines before the table, the rows) of a table this script wrote; the analytic columns are
    estimated again now, so an estimator change is scored against the stored measurements (`--rescore`)."""
    by_key = {(m, describe(c)): (m, c) for m, c in CONFIGS}
    header: list[str] = []
    rows: list[Row] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 11:
            if not rows and not line.startswith("|"):
                header.append(line)
            continue
        if (cells[0], cells[1]) not in by_key:
            continue
        preset, cfg = by_key[(cells[0], cells[1])]
        est = estimate(load_model(preset), cfg)

        def num(text: str, scale: float = GIB) -> int | None:
            return None if text in ("-", "") else int(float(text) * scale)

        row = Row(preset, cfg, est.per_gpu.peak_allocated_bytes, est.per_gpu.reserved_bytes,
                  probe_peak=num(cells[3]), measured_peak=num(cells[4]), measured_reserved=num(cells[7]),
                  status=cells[10])
        row.step_seconds = None if cells[9] == "-" else float(cells[9])
        rows.append(row)
    while header and not header[-1].strip():
        header.pop()
    return header, rows


def _rescore(path: Path) -> int:
    header, rows = read_table(path)
    env = {}
    for line in header:
        if line.startswith("- ") and ": " in line:
            key, value = line[2:].split(": ", 1)
            env[key] = value
    path.write_text(render(rows, env), encoding="utf-8")
    print(summary(rows))
    return 0


def _merge_probes(source: Path, into: Path) -> int:
    probes = _read_probes(source)
    lines = []
    for line in into.read_text(encoding="utf-8").splitlines():
        cells = line.strip().strip("|").split("|")
        key = (cells[0].strip(), cells[1].strip()) if len(cells) == 11 else None
        if key in probes:
            cells[3] = f" {_gib(probes[key])} "
            line = "|" + "|".join(cells) + "|"
        lines.append(line)
    into.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"probe column of {len(probes)} configurations from {source} into {into}")
    return 0


def _measure_isolated(preset: str, cfg: TrainConfig, row: Row) -> Row:
    import json
    import subprocess

    index = next(i for i, (m, c) in enumerate(CONFIGS) if m == preset and c == cfg)
    proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--one", str(index)],
                          capture_output=True, text=True, check=False)
    result = next((json.loads(line[len("RESULT "):]) for line in proc.stdout.splitlines()
                   if line.startswith("RESULT ")), None)
    if result is None:
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1][:80]
        row.status = f"error: {tail}"
        return row
    row.measured_peak, row.measured_reserved, row.step_seconds = result["peak"], result["reserved"], result["seconds"]
    row.status = result["status"]
    return row


def _one(index: int) -> int:
    """Measure CONFIGS[index] in this (fresh) process; prints one RESULT line of JSON."""
    import json

    import torch

    preset, cfg = CONFIGS[index]
    try:
        peak, reserved, seconds = measure(preset, cfg)
        result = {"peak": peak, "reserved": reserved, "seconds": seconds, "status": "ok"}
    except torch.cuda.OutOfMemoryError:
        result = {"peak": None, "reserved": None, "seconds": None, "status": "OOM"}
    print("RESULT " + json.dumps(result), flush=True)
    return 0


def _gib(n: int | None) -> str:
    return "-" if n is None else f"{n / GIB:.2f}"


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{x * 100:+.1f}%"


def render(rows: list[Row], env: dict) -> str:
    lines = ["# GPU truth table (benchmarks/gpu_truth.py)", ""]
    lines += [f"- {k}: {v}" for k, v in env.items()]
    lines += ["", "| model | configuration | analytic peak GiB | probe GiB | measured peak GiB | error | "
              "analytic reserved GiB | measured reserved GiB | error | step s | status |",
              "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r.model} | {describe(r.config)} | {_gib(r.analytic_peak)} | {_gib(r.probe_peak)} | "
                     f"{_gib(r.measured_peak)} | {_pct(r.error(r.analytic_peak, r.measured_peak))} | "
                     f"{_gib(r.analytic_reserved)} | {_gib(r.measured_reserved)} | "
                     f"{_pct(r.error(r.analytic_reserved, r.measured_reserved))} | "
                     f"{'-' if r.step_seconds is None else f'{r.step_seconds:.2f}'} | {r.status} |")
    lines += ["", summary(rows)]
    return "\n".join(lines) + "\n"


def summary(rows: list[Row]) -> str:
    peak = [abs(r.error(r.analytic_peak, r.measured_peak)) for r in rows if r.measured_peak]
    reserved = [abs(r.error(r.analytic_reserved, r.measured_reserved)) for r in rows if r.measured_reserved]
    if not peak:
        return f"{len(rows)} configurations, none measured (no GPU / dry run)."
    return (f"{len(peak)} measured of {len(rows)}: peak allocated median |error| "
            f"{statistics.median(peak) * 100:.1f}%, worst {max(peak) * 100:.1f}% (target median <= 3%, worst <= 8%); "
            f"reserved median {statistics.median(reserved) * 100:.1f}% (target <= 5%)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dry-run", action="store_true", help="no GPU: estimates only, same table")
    ap.add_argument("--probe-in-dry-run", action="store_true", help="run the fake-tensor probe in a dry run too")
    ap.add_argument("--no-probe", action="store_true", help="skip the fake-tensor probe on a GPU run")
    ap.add_argument("--filter", default="", help="only configurations whose description contains this")
    ap.add_argument("--limit", type=int, default=0, help="at most this many configurations")
    ap.add_argument("--probe-table", default=None,
                    help="take the probe column from this earlier table (a --probe-in-dry-run on another machine)")
    ap.add_argument("--budget-s", type=float, default=0,
                    help="stop starting configurations after this many seconds (the table keeps what ran)")
    ap.add_argument("--out", default=None, help="table path (default benchmarks/results/gpu_truth-<gpu>.md)")
    ap.add_argument("--merge-probes", nargs=2, metavar=("FROM", "INTO"), default=None,
                    help="copy the probe column of table FROM into the measured table INTO, and stop")
    ap.add_argument("--rescore", default=None, metavar="TABLE",
                    help="estimate again the analytic columns of a measured table (no GPU needed), and stop")
    ap.add_argument("--one", type=int, default=None, help=argparse.SUPPRESS)  # one row in a fresh process
    args = ap.parse_args(argv)
    if args.one is not None:
        return _one(args.one)
    if args.rescore:
        return _rescore(Path(args.rescore))
    if args.merge_probes:
        return _merge_probes(Path(args.merge_probes[0]), Path(args.merge_probes[1]))
    if not args.dry_run:
        import torch

        if not torch.cuda.is_available():
            print("no GPU visible to torch: use --dry-run", file=sys.stderr)
            return 2
    env = environment(args.dry_run)
    todo = [(m, c) for m, c in CONFIGS if args.filter in f"{m} {describe(c)}"]
    if args.limit:
        todo = todo[: args.limit]
    probe = args.probe_in_dry_run if args.dry_run else not args.no_probe
    probes = _read_probes(Path(args.probe_table)) if args.probe_table else {}
    gpu = env.get("gpu", "none").split("(")[0].strip().lower().replace(" ", "-") or "none"
    out = Path(args.out) if args.out else Path(__file__).resolve().parent / "results" / f"gpu_truth-{gpu}.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    rows: list[Row] = []
    t0 = time.monotonic()
    for preset, cfg in todo:
        if args.budget_s and time.monotonic() - t0 > args.budget_s:
            print(f"budget of {args.budget_s:.0f} s spent: {len(todo) - len(rows)} configurations not run", flush=True)
            break
        row = run_row(preset, cfg, dry_run=args.dry_run, probe=probe and not probes)
        if probes:
            row.probe_peak = probes.get((preset, describe(cfg)))
        rows.append(row)
        out.write_text(render(rows, env), encoding="utf-8")  # after every row: a killed run keeps what it measured
        print(f"{preset:<16} {describe(cfg):<44} analytic {_gib(row.analytic_peak):>7} probe {_gib(row.probe_peak):>7} "
              f"measured {_gib(row.measured_peak):>7} reserved {_gib(row.measured_reserved):>7} {row.status}",
              flush=True)
    out.write_text(render(rows, env), encoding="utf-8")
    print(summary(rows))
    print(f"table: {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
