"""Run a whole preflight of one plan: `run_preflight(plan, options, run_dir=...) -> result dict`.

Order: device checks, collectives, real steps (with OOM step-down / micro-batch raise), memory predicted vs
measured, host RAM, disk, re-plan. The result is written to RUN_DIR/preflight.json; every measured rank
sample also goes to RUN_DIR/ranks/ (so `attach` and the monitor show it like any run's).

Result keys (all byte counts ints): version, status ("verified" | "does-not-hold" | "error"), exit_code,
plan_name, seconds, notes, device, collectives, steps {attempts, ...}, memory {source, predicted, measured,
vram_bytes, headroom}, speed, eval, save, host_ram, disk, replan {changed, reason, from, to, written},
findings [{code, severity, message, fix}].
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

from rocm_tune.core.memory import fitting
from rocm_tune.core.check import preflight as core
from rocm_tune.core import vocabulary as V
from rocm_tune.core.errors import UserError
from rocm_tune.core.plan.answers import meminfo_bytes

VERSION = 1
MAX_RAISES = 2


def _model_config(plan: dict, weights: str | None) -> tuple[dict, object | None]:
    """(raw config.json, ModelSpec or None) of the plan's model; weights dir wins."""
    import json

    from rocm_tune.core.model.architecture import load_model, model_from_config

    if weights:
        try:
            config = json.loads((Path(weights) / "config.json").read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise UserError(f"--weights {weights!r}: cannot read config.json ({exc})") from None
        return config, model_from_config(config, name=Path(weights).name, location=weights)
    model = plan.get("model") or {}
    spec = load_model(str(model.get("ref") or model.get("name")))
    return dict(spec.config), spec


def _train_config(plan: dict, attempt=None):
    """The estimator's TrainConfig of the plan (core.plan.plan.Plan.train_config), with an attempt's knobs."""
    from dataclasses import replace

    from rocm_tune.core.plan.plan import Plan

    cfg = Plan.from_dict(plan).train_config()
    if attempt is not None:
        cfg = replace(cfg, micro_batch=attempt.micro_batch, gradient_checkpointing=attempt.gradient_checkpointing,
                      zero_stage=attempt.zero_stage)
    return cfg


def _smaller(mb: int, product: int) -> int | None:
    """The largest micro-batch <= mb/2 that divides micro x accum (same effective batch); None at 1."""
    if mb <= 1:
        return None
    for d in range(mb // 2, 0, -1):
        if product % d == 0:
            return d
    return 1


def _larger(mb: int, product: int) -> int | None:
    d = mb * 2
    return d if d <= product and product % d == 0 else None


class _Log:
    def __init__(self, out=None):
        self.out = out

    def __call__(self, text: str) -> None:
        print(text, flush=True)


class _Run:
    """One preflight in progress: the plan, the options and what has been found so far."""

    def __init__(self, plan: dict, options: core.PreflightOptions, run_dir: str | None, log) -> None:
        import torch

        self.plan, self.options, self.run_dir, self.log = plan, options, run_dir, log or _Log()
        self.rec = plan["recommended"]
        hw = self.hw = plan.get("hardware") or {}
        self.notes: list[str] = []
        self.findings: list[dict] = []
        self.result: dict = {"version": VERSION, "plan_name": (plan.get("model") or {}).get("name") or "plan",
                             "options": options.to_dict(), "notes": self.notes, "findings": self.findings}
        self.use_gpu = torch.cuda.is_available() and options.device != "cpu"
        self.world = int(hw.get("gpus") or 1) * int(hw.get("nodes") or 1)
        self.gpus_per_node = int(hw.get("gpus") or 1)
        self.replan: dict = {"changed": False}
        if not self.use_gpu:
            self.notes.append("no GPU here: the device check times the CPU, collectives run on gloo across processes, "
                              "the real steps run a scaled-down stand-in of the model, and GPU memory comes from the "
                              "fake-tensor probe (rocm_tune.train.probe), not from a GPU")
        self.profile = None
        try:
            from rocm_tune.profiles.gpu_profiles import get_gpu_profile

            if hw.get("gpu"):
                self.profile = get_gpu_profile(str(hw["gpu"]))
        except Exception:  # noqa: BLE001 - an unknown profile only loses the comparison
            self.notes.append(f"GPU profile {hw.get('gpu')!r} unknown: rates are not compared with a profile")

    def device(self) -> None:
        """1. device: matmul rates per dtype; bf16 emulation is an error when the plan trains in bf16."""
        if "device" in self.options.skip:
            self.result["device"] = {"status": "skipped"}
            return
        self.log("[preflight] device checks: matmul TFLOPS per dtype ...")
        from rocm_tune.train.preflight.device import check_devices

        dev = check_devices(self.profile, force_cpu=not self.use_gpu)
        for f in dev.pop("findings"):
            if f["code"] == "bf16-emulated" and self.rec.get("precision") in ("bf16", "pure_bf16"):
                # the plan trains in the emulated dtype: its own code (an error, one severity per code)
                f = core.finding("bf16-emulated-planned",
                                 f["message"] + "; the plan trains in " + str(self.rec.get("precision")))
            self.findings.append(f)
        dev["status"] = "ok"
        self.result["device"] = dev
        for g in dev["gpus"]:
            self.log(f"[preflight]   {g['name']}: "
                     + ", ".join(f"{k} {v:.3g} TFLOPS" for k, v in g["matmul_tflops"].items()))

    def collectives(self) -> None:
        """2. collectives across this node's processes (gloo on the CPU)."""
        import torch

        options, use_gpu = self.options, self.use_gpu
        procs = options.collective_procs
        if procs is None:
            procs = min(self.gpus_per_node, torch.cuda.device_count()) if use_gpu else 2
            if use_gpu and torch.cuda.device_count() < self.gpus_per_node:
                self.notes.append(f"the plan uses {self.gpus_per_node} GPUs per node but "
                                  f"{torch.cuda.device_count()} are visible: collectives checked across {procs}")
        if "collectives" in options.skip:
            self.result["collectives"] = {"status": "skipped", "reason": "--skip collectives"}
            return
        if procs < 2:
            self.result["collectives"] = {"status": "skipped", "reason": "one GPU: no collectives in this plan"}
            return
        self.log(f"[preflight] collectives across {procs} processes (timeout {options.timeout_s:g} s) ...")
        from rocm_tune.train.preflight.collectives import check_collectives

        link = getattr(self.profile, "interconnect_gbs", None) if self.profile is not None else None
        col = check_collectives(procs, options.timeout_s, use_gpu=use_gpu, link_gbs=link,
                                absent_rank=options.absent_rank)
        self.findings.extend(col.pop("findings"))
        if not use_gpu:
            col["note"] = "gloo on CPU: checks the collective path and the hang detection, not a GPU link"
        self.result["collectives"] = col
        self.log(f"[preflight]   collectives: {col['status']}" + (f" - {col['message']}" if col.get("message") else ""))
        if self.world > self.gpus_per_node:
            self.notes.append("multi-node plan: collectives were checked across this node's processes only")

    def finish(self) -> dict:
        """The re-plan written, the status and the exit code."""
        result, replan, run_dir, options = self.result, self.replan, self.run_dir, self.options
        result["replan"] = replan
        if replan.get("changed"):
            new_plan = core.adjusted_plan(self.plan, replan["to"], {"replan_reason": replan["reason"]})
            mine = os.path.join(run_dir, core.ADJUSTED_PLAN) if run_dir else None
            if mine:
                from rocm_tune.core.files import atomic_write_json

                atomic_write_json(mine, new_plan)
            target = options.out or mine
            if target and (not mine or os.path.abspath(target) != os.path.abspath(mine)):
                try:
                    replan["written"] = core.write_adjusted(new_plan, target, bundle=options.bundle,
                                                            force=options.force)
                except (UserError, OSError) as exc:
                    replan["write_error"] = str(exc)
                    replan["written"] = None
            else:
                replan["written"] = target
        errors = [f for f in self.findings if f.get("severity") == "error"]
        result["status"] = "does-not-hold" if errors else "verified"
        result["exit_code"] = core.exit_code(result)
        return result


def run_preflight(plan: dict, options: core.PreflightOptions, *, run_dir: str | None = None, log=None) -> dict:
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    t_start = time.perf_counter()
    run = _Run(plan, options, run_dir, log)
    run.device()
    run.collectives()
    if "steps" in options.skip:
        run.result["steps"] = {"status": "skipped"}
    else:
        _Steps(run).execute()
    result = run.finish()
    result["seconds"] = round(time.perf_counter() - t_start, 3)
    if run_dir:
        from rocm_tune.core.files import atomic_write_json

        atomic_write_json(os.path.join(run_dir, core.RESULT_JSON), result)
    return result


class _Steps:
    """3. real steps at the planned micro-batch, stepped down on OOM or raised while memory leaves room; then
    memory predicted vs measured, speed, rank samples, host RAM and disk."""

    def __init__(self, run: _Run) -> None:
        self.run = run
        plan, options, rec, hw = run.plan, run.options, run.rec, run.hw
        mem_plan = plan.get("memory") or {}
        self.predicted = {"peak_allocated_bytes": mem_plan.get("peak_allocated_bytes"),
                          "reserved_bytes": mem_plan.get("reserved_bytes")}
        profile = run.profile
        self.vram = hw.get("vram_bytes") or (getattr(profile, "vram_bytes", None) if profile is not None else None)
        self.headroom = float(hw.get("headroom") or V.DEFAULT_HEADROOM)
        self.in_use = int(hw.get("vram_in_use_bytes") or 0)
        self.ratio = 1.0
        if self.predicted["peak_allocated_bytes"] and self.predicted["reserved_bytes"]:
            self.ratio = max(1.0, self.predicted["reserved_bytes"] / self.predicted["peak_allocated_bytes"])
        settings = core.bundle_settings(options.bundle)
        self.save_total_limit = options.save_total_limit or settings.get("save_total_limit")
        self.out_dir = options.output_dir or settings.get("output_dir") or os.getcwd()
        self.eval_batch = int(options.eval_batch or settings.get("per_device_eval_batch_size") or rec["micro_batch"])
        self.zero = int(rec.get("zero_stage") or 0)
        self.config, self.spec_model = _model_config(plan, options.weights)
        self.attempts: list[dict] = []

    def notes(self) -> None:
        run, rec, zero = self.run, self.run.rec, self.zero
        if rec.get("method") == "qlora" or rec.get("quant_bits"):
            run.notes.append("QLoRA: the steps run 16-bit LoRA (bitsandbytes 4-bit is not exercised): memory is an "
                             "upper bound")
        try:
            import deepspeed  # noqa: F401

            have_ds = True
        except Exception:  # noqa: BLE001
            have_ds = False
        if zero > 0:
            why = "DeepSpeed is installed but preflight does not shard yet" if have_ds else "DeepSpeed is not installed"
            run.findings.append(core.finding(
                "zero-not-exercised", f"ZeRO-{zero} planned; the steps ran un-sharded in one process ({why}): "
                "the measured peak is an upper bound per GPU"))
        if run.world > 1 and zero == 0:
            run.notes.append(f"DDP over {run.world} GPUs: the steps ran on one GPU; DDP's gradient buckets (about the "
                             "size of the trainable gradients) come on top of the measured peak")
        if rec.get("runner") == "llamafactory" and rec.get("precision") == "fp32" and run.use_gpu:
            run.notes.append("runner llamafactory with precision fp32: LLaMA-Factory alone would compute in bf16/fp16 "
                             "on a GPU; start it through `python -m rocm_tune.train.lf_launch CONFIG --compute-dtype "
                             "fp32` to train in fp32 as measured here")

    def step_spec(self):
        from rocm_tune.train.preflight.steps import StepSpec

        run, rec, options = self.run, self.run.rec, self.run.options
        save_dir = self.out_dir if self.out_dir and os.path.isdir(self.out_dir) else run.run_dir
        spec = StepSpec(
            config=self.config, method=rec.get("method") or "lora", precision=rec.get("precision") or "bf16",
            cutoff_len=int(rec["cutoff_len"]), attn=rec.get("attn") or "sdpa", optim=rec.get("optim") or "adamw",
            lora_rank=int(rec.get("lora_rank") or 8), lora_alpha=rec.get("lora_alpha"),
            lora_targets=tuple(rec.get("lora_targets") or ("all",)), dora=bool(rec.get("dora", False)),
            freeze_trainable_layers=int(rec.get("freeze_trainable_layers") or 2),
            weights=options.weights, device="cuda" if run.use_gpu else "cpu",
            scaled_down=not run.use_gpu and not options.weights, steps=options.steps, eval_batch=self.eval_batch,
            save_dir=save_dir, simulate_oom_above_micro_batch=options.simulate_oom_above_micro_batch)
        if spec.precision == "fp16" and not run.use_gpu:
            run.notes.append("fp16 autocast on the CPU stand-in")
        return spec

    def measure(self, att) -> dict:
        from rocm_tune.train.preflight.steps import run_attempt

        run = self.run
        run.log(f"[preflight] steps: micro_batch {att.micro_batch} x accum {att.grad_accum}, checkpointing "
                f"{'on' if att.gradient_checkpointing else 'off'} ...")
        r = run_attempt(self.spec, att)
        if r["outcome"] == "ok" and not run.use_gpu:
            r.update(_probe_memory(self.config, _train_config(run.plan, att), self.ratio))
        ok = None
        if r["outcome"] == "ok" and self.vram:
            reserved = r.get("peak_reserved_bytes")
            if reserved is None and r.get("peak_allocated_bytes") is not None:
                reserved = int(r["peak_allocated_bytes"] * self.ratio)
            if reserved is not None:  # the one meaning of "fits" (core.memory.fitting)
                ok = fitting.fits(reserved, self.vram, self.headroom, self.in_use)
                r["reserved_for_fit_bytes"] = reserved
        r["fits"] = ok
        run.log(f"[preflight]   {r['outcome']}" + (f" ({r.get('message')})" if r.get("message") else "")
                + (f", peak {r['peak_allocated_bytes'] / 2**30:.2f} GiB" if r.get("peak_allocated_bytes") else ""))
        self.attempts.append(r)
        return r

    def search(self):
        """(first, chosen, chosen result, failed_first): step down on OOM, raise while it fits."""
        from rocm_tune.train.preflight.steps import Attempt

        rec, options = self.run.rec, self.run.options
        product = int(rec["micro_batch"]) * int(rec.get("grad_accum") or 1)
        first = Attempt(int(rec["micro_batch"]), int(rec.get("grad_accum") or 1),
                        bool(rec.get("gradient_checkpointing", True)), self.zero)
        r = self.measure(first)
        failed_first = r["outcome"] == "oom" or r.get("fits") is False
        if r["outcome"] == "error":
            self.run.findings.append(core.finding("steps-error", r.get("message", "")))
            return first, first, None, failed_first
        if failed_first:
            return (first, *self._step_down(first, product), failed_first) if options.replan else \
                (first, first, None, failed_first)
        chosen, chosen_r = first, r
        if options.replan and r.get("fits") is True:
            att = first
            for _ in range(MAX_RAISES):
                bigger = _larger(att.micro_batch, product)
                if bigger is None:
                    break
                cand = Attempt(bigger, product // bigger, att.gradient_checkpointing, att.zero_stage)
                r = self.measure(cand)
                if r["outcome"] != "ok" or r.get("fits") is not True:
                    break
                chosen, chosen_r, att = cand, r, cand
        return first, chosen, chosen_r, failed_first

    def _step_down(self, att, product: int):
        from rocm_tune.train.preflight.steps import Attempt

        while True:
            smaller = _smaller(att.micro_batch, product)
            if smaller is not None:
                att = Attempt(smaller, product // smaller, att.gradient_checkpointing, att.zero_stage)
            elif not att.gradient_checkpointing:
                att = Attempt(att.micro_batch, att.grad_accum, True, att.zero_stage)
            else:
                return None, None  # a higher ZeRO stage cannot be measured here (see zero-not-exercised)
            r = self.measure(att)
            if r["outcome"] == "ok" and r.get("fits") is not False:
                return att, r
            if r["outcome"] == "error":
                return None, None

    def execute(self) -> None:
        run, options = self.run, self.run.options
        self.notes()
        self.spec = spec = self.step_spec()
        first, chosen, chosen_r, failed_first = self.search()
        attempts = self.attempts
        run.result["steps"] = {
            "status": "ok" if chosen_r is not None else "failed",
            "model_source": (f"weights {options.weights}" if options.weights else
                             ("scaled-down stand-in of the model's config (CPU)" if spec.scaled_down
                              else "random init from the model's config")),
            "device": spec.device, "runner": run.rec.get("runner") or "-", "precision": spec.precision,
            "cutoff_len": spec.cutoff_len, "seq_len": attempts[0].get("seq_len"), "zero_stage": self.zero,
            "zero_exercised": False, "steps_per_attempt": options.steps, "attempts": attempts,
        }
        if spec.scaled_down:
            run.result["steps"]["note"] = (f"the CPU stand-in (2 layers, hidden 64) runs at sequence length "
                                           f"{attempts[0].get('seq_len')}; its time is not the plan's")
        self.memory(chosen_r)
        if chosen_r is not None:
            self.speed(chosen_r)
        self.replanned(first, chosen, chosen_r, failed_first)
        self.samples(chosen_r)
        base = attempts[0]
        run.result["host_ram"] = _host_ram(run.plan, chosen_r or base, run.gpus_per_node)
        if run.result["host_ram"]["ok"] is False:
            run.findings.append(core.finding("host-ram-short", run.result["host_ram"]["message"]))
        run.result["disk"] = _disk(run.plan, self.spec_model, chosen_r or base, self.out_dir, self.save_total_limit,
                                   run.use_gpu, options.weights)
        if run.result["disk"]["ok"] is False:
            run.findings.append(core.finding("disk-short", run.result["disk"]["message"]))

    def memory(self, chosen_r) -> None:
        """Predicted vs measured, of the plan as given and of the chosen configuration."""
        run, base = self.run, self.attempts[0]
        run.result["memory"] = {
            "source": "torch.cuda max_memory_allocated/reserved" if run.use_gpu else "fake-tensor probe (no GPU here)",
            "predicted": self.predicted,
            "measured": {"outcome": base["outcome"], "peak_allocated_bytes": base.get("peak_allocated_bytes"),
                         "peak_reserved_bytes": base.get("peak_reserved_bytes"),
                         "reserved_estimate_bytes": base.get("reserved_estimate_bytes")},
            "vram_bytes": self.vram, "headroom": self.headroom,
        }
        if chosen_r is not None and chosen_r is not base:
            run.result["memory"]["adjusted"] = {"micro_batch": chosen_r["micro_batch"],
                                                "peak_allocated_bytes": chosen_r.get("peak_allocated_bytes"),
                                                "peak_reserved_bytes": chosen_r.get("peak_reserved_bytes"),
                                                "reserved_estimate_bytes": chosen_r.get("reserved_estimate_bytes")}
        pa, ma = self.predicted.get("peak_allocated_bytes"), base.get("peak_allocated_bytes")
        if isinstance(pa, int) and isinstance(ma, int) and ma > 1.15 * pa:
            run.findings.append(core.finding("memory-above-prediction",
                                             f"measured peak {ma / 2**30:.2f} GiB vs predicted {pa / 2**30:.2f} GiB"))

    def speed(self, chosen_r: dict) -> None:
        run = self.run
        thr_plan = run.plan.get("throughput") or {}
        spd = {"predicted_tokens_per_s": thr_plan.get("tokens_per_s"),
               "predicted_seconds_per_step": thr_plan.get("seconds_per_step"),
               "measured_micro_step_s": chosen_r.get("step_time_s")}
        if run.use_gpu:
            spd["measured_tokens_per_s"] = round(chosen_r["tokens_per_s"] * run.world, 1)
            spd["measured_seconds_per_step"] = chosen_r.get("seconds_per_step")
            spd["note"] = (f"one GPU's rate x {run.world} GPUs; communication not included" if run.world > 1 else "")
        else:
            spd["measured_tokens_per_s"] = None
            spd["measured_seconds_per_step"] = None
            spd["note"] = "no GPU here: the stand-in's speed is not the plan's"
            spd["stand_in_tokens_per_s"] = chosen_r.get("tokens_per_s")
        run.result["speed"] = spd
        run.result["eval"] = chosen_r.get("eval") or {}
        run.result["save"] = chosen_r.get("save") or {}

    def replanned(self, first, chosen, chosen_r, failed_first: bool) -> None:
        run = self.run
        if chosen is not None and chosen_r is not None and chosen != first:
            reason = ("out of memory at the planned micro-batch: stepped down" if failed_first
                      else "measured memory leaves room: raised the micro-batch")
            run.replan = {"changed": True, "reason": reason, "from": first.to_dict(), "to": chosen.to_dict()}
            run.findings.append(core.finding(
                "oom-stepped-down" if failed_first else "micro-batch-raised",
                f"{reason}: micro_batch {first.micro_batch} x accum {first.grad_accum} -> "
                f"{chosen.micro_batch} x {chosen.grad_accum}"
                + (", gradient checkpointing on" if chosen.gradient_checkpointing and
                   not first.gradient_checkpointing else "")))
        elif chosen_r is None and failed_first:
            last = self.attempts[-1]
            run.findings.append(core.finding(
                "oom", f"no configuration fitted: last try micro_batch {last['micro_batch']}, checkpointing "
                       f"{'on' if last['gradient_checkpointing'] else 'off'}: "
                       f"{last.get('message') or 'over the memory limit'}"))

    def samples(self, chosen_r) -> None:
        """Rank samples for attach / the monitor."""
        run = self.run
        if not run.run_dir or chosen_r is None:
            return
        from rocm_tune.train.callbacks import RankSampler

        sampler = RankSampler(run.run_dir, telemetry=run.use_gpu)
        sampler.write(step=run.options.steps, tokens_per_s=chosen_r.get("tokens_per_s"),
                      step_time_s=chosen_r.get("step_time_s"),
                      memory={"allocated_bytes": None, "reserved_bytes": None,
                              "peak_allocated_bytes": chosen_r.get("peak_allocated_bytes"),
                              "peak_reserved_bytes": chosen_r.get("peak_reserved_bytes")},
                      source="torch.cuda" if run.use_gpu else "fake-tensor probe")


def _probe_memory(config: dict, cfg, ratio: float) -> dict:
    """GPU memory of the planned model from the fake-tensor probe (CPU runs)."""
    from rocm_tune.train.probe import probe

    try:
        pr = probe(config, cfg)
    except Exception as exc:  # noqa: BLE001 - the probe's own failure is a note, not a crash
        return {"probe_reason": f"{type(exc).__name__}: {exc}"[:300]}
    if pr.peak_allocated_bytes is None:
        return {"probe_reason": pr.reason}
    return {"peak_allocated_bytes": int(pr.peak_allocated_bytes),
            "peak_reserved_bytes": None, "probe_seconds": round(pr.seconds, 3),
            "probe_params_trainable": pr.params_trainable, "probe_params_total": pr.params_total,
            "reserved_estimate_bytes": int(pr.peak_allocated_bytes * ratio)}


def _host_ram(plan: dict, r: dict, ranks_per_node: int) -> dict:
    mem = plan.get("memory") or {}
    offload = int(mem.get("cpu_offload_bytes") or 0)
    per_rank = int(r.get("rss_bytes") or 0)
    predicted = offload + ranks_per_node * per_rank
    available = meminfo_bytes("MemAvailable")
    ok = None if available is None else predicted <= available
    msg = (f"{ranks_per_node} rank(s) x {per_rank / 2**30:.2f} GiB process RSS (measured) + "
           f"{offload / 2**30:.2f} GiB offloaded states = {predicted / 2**30:.2f} GiB vs "
           f"{(available or 0) / 2**30:.2f} GiB available")
    return {"predicted_bytes": predicted, "available_bytes": available, "per_rank_rss_bytes": per_rank,
            "offload_bytes": offload, "ranks_per_node": ranks_per_node, "ok": ok, "message": msg}


def _disk(plan: dict, spec_model, r: dict, out_dir: str, limit: int | None, measured_real: bool,
          weights: str | None) -> dict:
    rec = plan["recommended"]
    save = r.get("save") or {}
    if measured_real and save.get("bytes"):
        ckpt, how = int(save["bytes"]), "measured save"
    else:
        ckpt, how = _checkpoint_bytes(plan, spec_model, r), "computed for the planned model (the CPU stand-in's save is not its size)"
    probe_dir = out_dir
    while probe_dir and not os.path.exists(probe_dir):
        probe_dir = os.path.dirname(probe_dir.rstrip("/")) or "/"
    try:
        free = shutil.disk_usage(probe_dir or ".").free
    except OSError:
        free = None
    count = limit if limit else 1
    needed = ckpt * count
    ok = None if free is None else needed <= free
    msg = (f"checkpoint {ckpt / 2**30:.2f} GiB ({how}) x {limit if limit else '1 (save_total_limit unset: grows with every save)'}"
           f" = {needed / 2**30:.2f} GiB vs {(free or 0) / 2**30:.2f} GiB free at {out_dir}")
    _ = rec, weights
    return {"path": out_dir, "checkpoint_bytes": ckpt, "how": how, "save_total_limit": limit,
            "needed_bytes": needed, "free_bytes": free, "ok": ok, "message": msg}


def _checkpoint_bytes(plan: dict, spec_model, r: dict) -> int:
    """A Trainer checkpoint of the planned model: weights saved + AdamW states (2 x fp32 per trainable)."""
    rec = plan["recommended"]
    trainable = r.get("probe_params_trainable")
    total = r.get("probe_params_total") or (plan.get("model") or {}).get("params_total")
    if trainable is None and spec_model is not None:
        try:
            from rocm_tune.core.memory.estimate import estimate

            est = estimate(spec_model, _train_config(plan))
            trainable, total = est.params_trainable, est.params_total
        except Exception:  # noqa: BLE001
            trainable = None
    trainable = int(trainable or 0)
    total = int(total or 0)
    method = rec.get("method") or "lora"
    prec = rec.get("precision") or "bf16"
    if method in ("lora", "qlora"):
        weights = trainable * (2 if prec == "pure_bf16" else 4)
    else:
        weights = total * (4 if prec == "fp32" else 2)
    return weights + trainable * 8
