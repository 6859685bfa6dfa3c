"""Overhead of rocm-tune's trainer (NaN guard, metrics callback, metrics.jsonl) over a plain `Trainer`.

Same tiny model (random Qwen2), same data, collator and TrainingArguments; the only difference is
`RocmTuneTrainer` + `MetricsCallback` writing metrics.jsonl versus `transformers.Trainer`. Runs are
interleaved (plain, rocm-tune, plain, ...) and the median time per optimizer step is compared.

    python benchmarks/trainer_overhead.py [--steps 60] [--repeats 5] [--hidden 256] [--logging-steps 1]

Prints the figure; the target is < 3 %.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--hidden", type=int, default=256, help="hidden size of the tiny model (default 256)")
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--logging-steps", type=int, default=1, help="1 = a metrics record every step (worst case)")
    ap.add_argument("--clock", choices=("cpu", "wall"), default="cpu",
                    help="process CPU time (default; robust on a shared machine) or wall time")
    ap.add_argument("--threads", type=int, default=1, help="torch CPU threads (default 1)")
    a = ap.parse_args()

    import warnings

    warnings.filterwarnings("ignore")
    import torch
    from transformers import AutoModelForCausalLM, Trainer, TrainerCallback, TrainingArguments

    from rocm_tune.train import trainer as T
    from rocm_tune.train.config import config_from_dict
    from rocm_tune.train.data import Collator, build_datasets
    from rocm_tune.train.tiny import make_tiny_dataset, make_tiny_model

    torch.set_num_threads(a.threads)
    work = Path(tempfile.mkdtemp(prefix="rt-overhead-"))
    data = make_tiny_dataset(work / "data.json", n=512)
    model_dir = make_tiny_model(work / "model", data, hidden=a.hidden, layers=a.layers)
    cfg = config_from_dict({"model_name_or_path": str(model_dir), "train_file": str(data), "cutoff_len": 64,
                            "output_dir": str(work / "out")})
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(model_dir)
    train_ds, _, _ = build_datasets(cfg, tok)

    clock = time.process_time if a.clock == "cpu" else time.perf_counter

    class StepTimer(TrainerCallback):
        """Step-to-step intervals (everything between two optimizer steps: data, forward, backward,
        optimizer, callbacks, logging, metrics writing). Median per run: robust to bursts of load
        from other processes on a shared machine."""

        def __init__(self):
            self.last = None
            self.intervals: list[float] = []

        def on_step_begin(self, args, state, control, **kw):
            now = clock()
            if self.last is not None:
                self.intervals.append(now - self.last)
            self.last = now

    def args_for(out: str) -> TrainingArguments:
        return TrainingArguments(
            output_dir=out, per_device_train_batch_size=a.batch, max_steps=a.steps, learning_rate=1e-3,
            logging_steps=a.logging_steps, save_strategy="no", report_to=[], use_cpu=True, disable_tqdm=True,
            remove_unused_columns=False, seed=0, data_seed=0, logging_nan_inf_filter=False,
            dataloader_num_workers=0)

    def run_once(kind: str, i: int) -> float:
        torch.manual_seed(0)
        model = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32)
        collator = Collator(tok.pad_token_id)
        timer = StepTimer()
        out = str(work / f"{kind}-{i}")
        if kind == "plain":
            tr = Trainer(model=model, args=args_for(out), train_dataset=train_ds, data_collator=collator,
                         callbacks=[timer])
        else:
            RT, MCB = T._make_classes()
            writer = T.MetricsWriter(Path(out) / "metrics.jsonl")
            cb = MCB(writer, collator, T.StopRequest(), cfg.to_dict(), 1)
            tr = RT(model=model, args=args_for(out), train_dataset=train_ds, data_collator=collator,
                    callbacks=[cb, timer])
            tr.rt_writer = writer
            cb.trainer = tr
        tr.remove_callback(__import__("transformers").PrinterCallback)  # no stdout in both cases
        tr.train()
        if kind != "plain":
            writer.close()
        return statistics.median(timer.intervals[1:])

    run_once("plain", -1)  # warm-up (allocators, kernels)
    times: dict[str, list[float]] = {"plain": [], "rocm-tune": []}
    for i in range(a.repeats):
        order = ("plain", "rocm-tune") if i % 2 == 0 else ("rocm-tune", "plain")
        for kind in order:
            times[kind].append(run_once(kind, i))
    p = statistics.median(times["plain"])
    r = statistics.median(times["rocm-tune"])
    overhead = 100.0 * (r - p) / p
    print(f"tiny Qwen2 hidden {a.hidden} x {a.layers} layers, batch {a.batch}, {a.steps} steps, "
          f"logging every {a.logging_steps} step(s), {a.repeats} interleaved repeats, CPU "
          f"{torch.get_num_threads()} thread(s), {a.clock} clock, median step-to-step interval")
    print(f"plain Trainer      : {1000 * p:8.2f} ms/step   (runs: {', '.join(f'{1000 * x:.1f}' for x in times['plain'])})")
    print(f"rocm-tune trainer  : {1000 * r:8.2f} ms/step   (runs: {', '.join(f'{1000 * x:.1f}' for x in times['rocm-tune'])})")
    print(f"overhead           : {overhead:+.2f} %   (target < 3 %)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
