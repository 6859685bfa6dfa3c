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

from rocm_tune.core import preflight as core
from rocm_tune.core.errors import UserError
from rocm_tune.core.request import meminfo_bytes

VERSION = 1
MAX_RAISES = 2


def _model_config(plan: dict, weights: str | None) -> tuple[dict, object | None]:
    """(raw config.json, ModelSpec or None) of the plan's model; weights dir wins."""
    import json

    from rocm_tune.core.model import load_model, model_from_config

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
    """The estimator's TrainConfig of the plan (core.plan.Plan.train_config), with an attempt's knobs."""
    from dataclasses import replace

    from rocm_tune.core.plan import Plan

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


def run_preflight(plan: dict, options: core.PreflightOptions, *, run_dir: str | None = None, log=None) -> dict:
    import torch

    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    log = log or _Log()
    t_start = time.perf_counter()
    rec = plan["recommended"]
    hw = plan.get("hardware") or {}
    goal = plan.get("goal") or {}
    mem_plan = plan.get("memory") or {}
    thr_plan = plan.get("throughput") or {}
    notes: list[str] = []
    findings: list[dict] = []
    result: dict = {"version": VERSION, "plan_name": (plan.get("model") or {}).get("name") or "plan",
                    "options": options.to_dict(), "notes": notes, "findings": findings}
    use_gpu = torch.cuda.is_available() and options.device != "cpu"
    world = int(hw.get("gpus") or 1) * int(hw.get("nodes") or 1)
    gpus_per_node = int(hw.get("gpus") or 1)
    if not use_gpu:
        notes.append("no GPU here: the device check times the CPU, collectives run on gloo across processes, the "
                     "real steps run a scaled-down stand-in of the model, and GPU memory comes from the "
                     "fake-tensor probe (rocm_tune.train.probe), not from a GPU")
    profile = None
    try:
        from rocm_tune.profiles.gpu_profiles import get_gpu_profile

        if hw.get("gpu"):
            profile = get_gpu_profile(str(hw["gpu"]))
    except Exception:  # noqa: BLE001 - an unknown profile only loses the comparison
        notes.append(f"GPU profile {hw.get('gpu')!r} unknown: rates are not compared with a profile")

    # 1. device
    if "device" in options.skip:
        result["device"] = {"status": "skipped"}
    else:
        log("[preflight] device checks: matmul TFLOPS per dtype ...")
        from rocm_tune.train.preflight.device import check_devices

        dev = check_devices(profile, force_cpu=not use_gpu)
        for f in dev.pop("findings"):
            if f["code"] == "bf16-emulated":
                planned_bf16 = rec.get("precision") in ("bf16", "pure_bf16")
                f["severity"] = "error" if planned_bf16 else "warning"
                if planned_bf16:
                    f["message"] += "; the plan trains in " + str(rec.get("precision"))
            findings.append(f)
        dev["status"] = "ok"
        result["device"] = dev
        for g in dev["gpus"]:
            log(f"[preflight]   {g['name']}: " + ", ".join(f"{k} {v:.3g} TFLOPS" for k, v in g["matmul_tflops"].items()))

    # 2. collectives
    procs = options.collective_procs
    if procs is None:
        procs = min(gpus_per_node, torch.cuda.device_count()) if use_gpu else 2
        if use_gpu and torch.cuda.device_count() < gpus_per_node:
            notes.append(f"the plan uses {gpus_per_node} GPUs per node but {torch.cuda.device_count()} are visible: "
                         f"collectives checked across {procs}")
    if "collectives" in options.skip:
        result["collectives"] = {"status": "skipped", "reason": "--skip collectives"}
    elif procs < 2:
        result["collectives"] = {"status": "skipped", "reason": "one GPU: no collectives in this plan"}
    else:
        log(f"[preflight] collectives across {procs} processes (timeout {options.timeout_s:g} s) ...")
        from rocm_tune.train.preflight.collectives import check_collectives

        link = getattr(profile, "interconnect_gbs", None) if profile is not None else None
        col = check_collectives(procs, options.timeout_s, use_gpu=use_gpu, link_gbs=link,
                                absent_rank=options.absent_rank)
        findings.extend(col.pop("findings"))
        if not use_gpu:
            col["note"] = "gloo on CPU: checks the collective path and the hang detection, not a GPU link"
        result["collectives"] = col
        log(f"[preflight]   collectives: {col['status']}" + (f" - {col['message']}" if col.get("message") else ""))
        if world > gpus_per_node:
            notes.append("multi-node plan: collectives were checked across this node's processes only")

    # 3. real steps
    predicted = {"peak_allocated_bytes": mem_plan.get("peak_allocated_bytes"),
                 "reserved_bytes": mem_plan.get("reserved_bytes")}
    vram = hw.get("vram_bytes") or (getattr(profile, "vram_bytes", None) if profile is not None else None)
    headroom = float(hw.get("headroom") or 0.85)
    in_use = int(hw.get("vram_in_use_bytes") or 0)
    ratio = 1.0
    if predicted["peak_allocated_bytes"] and predicted["reserved_bytes"]:
        ratio = max(1.0, predicted["reserved_bytes"] / predicted["peak_allocated_bytes"])
    settings = core.bundle_settings(options.bundle)
    save_total_limit = options.save_total_limit or settings.get("save_total_limit")
    out_dir = options.output_dir or settings.get("output_dir") or os.getcwd()
    eval_batch = int(options.eval_batch or settings.get("per_device_eval_batch_size") or rec["micro_batch"])
    replan = {"changed": False}
    if "steps" in options.skip:
        result["steps"] = {"status": "skipped"}
    else:
        config, spec_model = _model_config(plan, options.weights)
        from rocm_tune.train.preflight.steps import Attempt, StepSpec, run_attempt

        if rec.get("method") == "qlora" or rec.get("quant_bits"):
            notes.append("QLoRA: the steps run 16-bit LoRA (bitsandbytes 4-bit is not exercised): memory is an "
                         "upper bound")
        zero = int(rec.get("zero_stage") or 0)
        try:
            import deepspeed  # noqa: F401

            have_ds = True
        except Exception:  # noqa: BLE001
            have_ds = False
        if zero > 0:
            findings.append(core.finding(
                "zero-not-exercised",
                f"ZeRO-{zero} planned; the steps ran un-sharded in one process "
                f"({'DeepSpeed is installed but preflight does not shard yet' if have_ds else 'DeepSpeed is not installed'}): "
                "the measured peak is an upper bound per GPU", severity="warning"))
        if world > 1 and zero == 0:
            notes.append(f"DDP over {world} GPUs: the steps ran on one GPU; DDP's gradient buckets (about the size of "
                         "the trainable gradients) come on top of the measured peak")
        if (rec.get("runner") == "llamafactory" and rec.get("precision") == "fp32" and use_gpu):
            notes.append("runner llamafactory with precision fp32: LLaMA-Factory alone would compute in bf16/fp16 "
                         "on a GPU; start it through `python -m rocm_tune.train.lf_launch CONFIG --compute-dtype fp32` "
                         "to train in fp32 as measured here")
        save_dir = None
        if out_dir and os.path.isdir(out_dir):
            save_dir = out_dir
        elif run_dir:
            save_dir = run_dir
        spec = StepSpec(
            config=config, method=rec.get("method") or "lora", precision=rec.get("precision") or "bf16",
            cutoff_len=int(rec["cutoff_len"]), attn=rec.get("attn") or "sdpa", optim=rec.get("optim") or "adamw",
            lora_rank=int(rec.get("lora_rank") or 8), lora_alpha=rec.get("lora_alpha"),
            lora_targets=tuple(rec.get("lora_targets") or ("all",)), dora=bool(rec.get("dora", False)),
            freeze_trainable_layers=int(rec.get("freeze_trainable_layers") or 2),
            weights=options.weights, device="cuda" if use_gpu else "cpu",
            scaled_down=not use_gpu and not options.weights, steps=options.steps, eval_batch=eval_batch,
            save_dir=save_dir, simulate_oom_above_micro_batch=options.simulate_oom_above_micro_batch)
        if spec.precision == "fp16" and not use_gpu:
            notes.append("fp16 autocast on the CPU stand-in")

        def measure(att: Attempt) -> dict:
            log(f"[preflight] steps: micro_batch {att.micro_batch} x accum {att.grad_accum}, checkpointing "
                f"{'on' if att.gradient_checkpointing else 'off'} ...")
            r = run_attempt(spec, att)
            if r["outcome"] == "ok" and not use_gpu:
                r.update(_probe_memory(config, _train_config(plan, att), ratio))
            fits = None
            if r["outcome"] == "ok" and vram:
                reserved = r.get("peak_reserved_bytes")
                if reserved is None and r.get("peak_allocated_bytes") is not None:
                    reserved = int(r["peak_allocated_bytes"] * ratio)
                if reserved is not None:  # the plan's one meaning of "fits": reserved + in use <= headroom x VRAM
                    fits = reserved + in_use <= headroom * vram
                    r["reserved_for_fit_bytes"] = reserved
            r["fits"] = fits
            log(f"[preflight]   {r['outcome']}" + (f" ({r.get('message')})" if r.get("message") else "")
                + (f", peak {r['peak_allocated_bytes'] / 2**30:.2f} GiB" if r.get("peak_allocated_bytes") else ""))
            return r

        product = int(rec["micro_batch"]) * int(rec.get("grad_accum") or 1)
        first = Attempt(int(rec["micro_batch"]), int(rec.get("grad_accum") or 1),
                        bool(rec.get("gradient_checkpointing", True)), zero)
        attempts = []
        r = measure(first)
        attempts.append(r)
        chosen, chosen_r = first, r
        failed_first = r["outcome"] == "oom" or r.get("fits") is False
        if r["outcome"] == "error":
            findings.append(core.finding("steps-error", r.get("message", "")))
            chosen_r = None
        elif failed_first and options.replan:
            chosen, chosen_r = None, None
            att = first
            while True:
                smaller = _smaller(att.micro_batch, product)
                if smaller is not None:
                    att = Attempt(smaller, product // smaller, att.gradient_checkpointing, att.zero_stage)
                elif not att.gradient_checkpointing:
                    att = Attempt(att.micro_batch, att.grad_accum, True, att.zero_stage)
                else:
                    break  # a higher ZeRO stage cannot be measured here (see zero-not-exercised)
                r = measure(att)
                attempts.append(r)
                if r["outcome"] == "ok" and r.get("fits") is not False:
                    chosen, chosen_r = att, r
                    break
                if r["outcome"] == "error":
                    break
        elif failed_first:
            chosen_r = None
        elif options.replan and r.get("fits") is True:
            att = first
            for _ in range(MAX_RAISES):
                bigger = _larger(att.micro_batch, product)
                if bigger is None:
                    break
                cand = Attempt(bigger, product // bigger, att.gradient_checkpointing, att.zero_stage)
                r = measure(cand)
                attempts.append(r)
                if r["outcome"] == "ok" and r.get("fits") is True:
                    chosen, chosen_r, att = cand, r, cand
                else:
                    break
        result["steps"] = {
            "status": "ok" if chosen_r is not None else "failed",
            "model_source": (f"weights {options.weights}" if options.weights else
                             ("scaled-down stand-in of the model's config (CPU)" if spec.scaled_down
                              else "random init from the model's config")),
            "device": spec.device, "runner": rec.get("runner") or "-", "precision": spec.precision,
            "cutoff_len": spec.cutoff_len, "seq_len": attempts[0].get("seq_len"), "zero_stage": zero,
            "zero_exercised": False, "steps_per_attempt": options.steps, "attempts": attempts,
        }
        if spec.scaled_down:
            result["steps"]["note"] = (f"the CPU stand-in (2 layers, hidden 64) runs at sequence length "
                                       f"{attempts[0].get('seq_len')}; its time is not the plan's")
        # memory: predicted vs measured (of the plan as given, and of the chosen configuration)
        base = attempts[0]
        result["memory"] = {
            "source": "torch.cuda max_memory_allocated/reserved" if use_gpu else "fake-tensor probe (no GPU here)",
            "predicted": predicted,
            "measured": {"outcome": base["outcome"], "peak_allocated_bytes": base.get("peak_allocated_bytes"),
                         "peak_reserved_bytes": base.get("peak_reserved_bytes"),
                         "reserved_estimate_bytes": base.get("reserved_estimate_bytes")},
            "vram_bytes": vram, "headroom": headroom,
        }
        if chosen_r is not None and chosen_r is not base:
            result["memory"]["adjusted"] = {"micro_batch": chosen_r["micro_batch"],
                                            "peak_allocated_bytes": chosen_r.get("peak_allocated_bytes"),
                                            "peak_reserved_bytes": chosen_r.get("peak_reserved_bytes"),
                                            "reserved_estimate_bytes": chosen_r.get("reserved_estimate_bytes")}
        pa, ma = predicted.get("peak_allocated_bytes"), base.get("peak_allocated_bytes")
        if isinstance(pa, int) and isinstance(ma, int) and ma > 1.15 * pa:
            findings.append(core.finding("memory-above-prediction",
                                         f"measured peak {ma / 2**30:.2f} GiB vs predicted {pa / 2**30:.2f} GiB",
                                         severity="warning"))
        if chosen_r is not None:
            spd = {"predicted_tokens_per_s": thr_plan.get("tokens_per_s"),
                   "predicted_seconds_per_step": thr_plan.get("seconds_per_step"),
                   "measured_micro_step_s": chosen_r.get("step_time_s")}
            if use_gpu:
                spd["measured_tokens_per_s"] = round(chosen_r["tokens_per_s"] * world, 1)
                spd["measured_seconds_per_step"] = chosen_r.get("seconds_per_step")
                spd["note"] = (f"one GPU's rate x {world} GPUs; communication not included" if world > 1 else "")
            else:
                spd["measured_tokens_per_s"] = None
                spd["measured_seconds_per_step"] = None
                spd["note"] = "no GPU here: the stand-in's speed is not the plan's"
                spd["stand_in_tokens_per_s"] = chosen_r.get("tokens_per_s")
            result["speed"] = spd
            result["eval"] = chosen_r.get("eval") or {}
            result["save"] = chosen_r.get("save") or {}
        # re-plan
        if chosen is not None and chosen != first:
            reason = ("out of memory at the planned micro-batch: stepped down" if failed_first
                      else "measured memory leaves room: raised the micro-batch")
            replan = {"changed": True, "reason": reason, "from": first.to_dict(), "to": chosen.to_dict()}
            findings.append(core.finding("oom-stepped-down" if failed_first else "micro-batch-raised",
                                         f"{reason}: micro_batch {first.micro_batch} x accum {first.grad_accum} -> "
                                         f"{chosen.micro_batch} x {chosen.grad_accum}"
                                         + (", gradient checkpointing on" if chosen.gradient_checkpointing and
                                            not first.gradient_checkpointing else ""),
                                         severity="error" if failed_first else "info"))
        elif chosen_r is None and failed_first:
            last = attempts[-1]
            findings.append(core.finding(
                "oom", f"no configuration fitted: last try micro_batch {last['micro_batch']}, checkpointing "
                       f"{'on' if last['gradient_checkpointing'] else 'off'}: {last.get('message') or 'over the memory limit'}"))
        # rank samples for attach / the monitor
        if run_dir and chosen_r is not None:
            from rocm_tune.train.callbacks import RankSampler

            sampler = RankSampler(run_dir, telemetry=use_gpu)
            sampler.write(step=options.steps, tokens_per_s=chosen_r.get("tokens_per_s"),
                          step_time_s=chosen_r.get("step_time_s"),
                          memory={"allocated_bytes": None, "reserved_bytes": None,
                                  "peak_allocated_bytes": chosen_r.get("peak_allocated_bytes"),
                                  "peak_reserved_bytes": chosen_r.get("peak_reserved_bytes")},
                          source="torch.cuda" if use_gpu else "fake-tensor probe")
        # host RAM and disk
        result["host_ram"] = _host_ram(plan, chosen_r or base, gpus_per_node)
        if result["host_ram"]["ok"] is False:
            findings.append(core.finding("host-ram-short", result["host_ram"]["message"]))
        result["disk"] = _disk(plan, spec_model, chosen_r or base, out_dir, save_total_limit, use_gpu, options.weights)
        if result["disk"]["ok"] is False:
            findings.append(core.finding("disk-short", result["disk"]["message"]))
    result["replan"] = replan
    # write the adjusted plan
    if replan.get("changed"):
        new_plan = core.adjusted_plan(plan, replan["to"], {"replan_reason": replan["reason"]})
        if run_dir:
            from rocm_tune.core.files import atomic_write_json

            atomic_write_json(os.path.join(run_dir, core.ADJUSTED_PLAN), new_plan)
        target = options.out or (os.path.join(run_dir, core.ADJUSTED_PLAN) if run_dir else None)
        if target and (not run_dir or os.path.abspath(target) != os.path.abspath(os.path.join(run_dir, core.ADJUSTED_PLAN))):
            try:
                replan["written"] = core.write_adjusted(new_plan, target, bundle=options.bundle, force=options.force)
            except (UserError, OSError) as exc:
                replan["write_error"] = str(exc)
                replan["written"] = None
        else:
            replan["written"] = target
    errors = [f for f in findings if f.get("severity") == "error"]
    result["status"] = "does-not-hold" if errors else "verified"
    result["exit_code"] = core.exit_code(result)
    result["seconds"] = round(time.perf_counter() - t_start, 3)
    if run_dir:
        from rocm_tune.core.files import atomic_write_json

        atomic_write_json(os.path.join(run_dir, core.RESULT_JSON), result)
    return result


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
            from rocm_tune.core.memory import estimate

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
