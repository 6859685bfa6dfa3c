"""`rocm-tune export --format axolotl` accepted by the real Axolotl (0.19.0, its own venv: axolotl_env.py).

1. Axolotl's own config loader (`axolotl.cli.config.load_cfg`: the pydantic schema with its validators, then
   normalize_config; for a ZeRO config its steps without `prepare_optim_env`, which starts DeepSpeed's NCCL
   process group, impossible on a CPU) takes every exported axolotl.yaml; the values it ends with are the plan's:
   method, quantisation, LoRA, sequence length, batch, precision (and the dtype Axolotl loads the model in), gradient
   checkpointing, attention, ZeRO stage of the deepspeed.json it loads, optimizer, schedule, stage.
2. One optimizer step on the CPU through Axolotl's trainer (`python -m axolotl.cli.train axolotl.yaml`) on a tiny
   random model: the file trains as written, with three overrides the CPU needs: `--max_steps 1`, and the fused
   LoRA kernels Axolotl auto-enables for LoRA (`lora_mlp/qkv/o_kernel`: Triton GPU kernels) off. A bf16 plan cannot
   take a step here: transformers refuses bf16 without a GPU ("Your setup doesn't support bf16/gpu"), so the
   step runs an fp32 plan.
"""

from __future__ import annotations

import json
import os
import subprocess
import time

import pytest

from rocm_tune.core.export import ExportOptions, write_bundle
from rocm_tune.core.model.architecture import load_model
from rocm_tune.core.plan.planner import PlanRequest, plan
from rocm_tune.profiles.gpu_profiles import get_gpu_profile

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1200)]
ENV = {"AXOLOTL_DO_NOT_TRACK": "1", "DO_NOT_TRACK": "1", "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
       "CUDA_VISIBLE_DEVICES": "", "WANDB_MODE": "disabled", "TOKENIZERS_PARALLELISM": "false"}
LOAD = r'''
import json, sys
import yaml
from axolotl.cli.config import gpu_capabilities, load_cfg
from axolotl.utils.config import normalize_cfg_datasets, normalize_config, validate_config
from axolotl.utils.dict import DictDefault
out = {}
for path in sys.argv[1:]:
    raw = yaml.safe_load(open(path, encoding="utf-8"))
    if raw.get("deepspeed"):
        # load_cfg's own steps without prepare_optim_env, which starts DeepSpeed's NCCL process group
        c = validate_config(DictDefault(raw), *gpu_capabilities())
        normalize_config(c)
        normalize_cfg_datasets(c)
    else:
        c = load_cfg(path)
    ds = c.deepspeed if isinstance(c.deepspeed, dict) else {}
    out[path] = {k: (str(v) if k == "torch_dtype" else v) for k, v in c.items() if k in (
        "base_model", "adapter", "load_in_4bit", "load_in_8bit", "lora_r", "lora_alpha", "lora_target_linear",
        "lora_target_modules", "peft_use_dora", "unfrozen_parameters", "sequence_len", "micro_batch_size",
        "gradient_accumulation_steps", "bf16", "fp16", "tf32", "torch_dtype", "gradient_checkpointing",
        "attn_implementation", "optimizer", "learning_rate", "num_epochs", "lr_scheduler", "sample_packing", "rl",
        "excess_length_strategy", "output_dir")}
    out[path]["zero_stage"] = (ds.get("zero_optimization") or {}).get("stage", 0)
    out[path]["datasets"] = [dict(d) for d in c.datasets]
print("AXOLOTL_CFG=" + json.dumps(out, default=str))
'''
# (name, method, precision, gpus, zero, stage, extra request fields)
CASES = [
    ("lora-bf16", "lora", "bf16", 1, None, "sft", {"lora_targets": ("q_proj", "v_proj"), "dora": True}),
    ("qlora-zero2", "qlora", "bf16", 2, 2, "sft", {"gradient_checkpointing": True}),
    ("full-fp16-zero3", "full", "fp16", 4, 3, "sft", {"attn": "eager"}),
    ("freeze-fp32", "freeze", "fp32", 1, None, "sft", {"freeze_trainable_layers": 1}),
    ("lora-pt", "lora", "bf16", 1, None, "pt", {}),
]


@pytest.fixture(scope="module")
def axolotl_env():
    from tests.realstack.axolotl_env import ensure_env
    from tests.realstack.conftest import note

    t0 = time.monotonic()
    env, why = ensure_env()
    if env is None:
        note(f"axolotl skipped: {why}")
        pytest.skip(f"Axolotl venv not available: {why}")
    note(f"axolotl venv {why} (ready after {time.monotonic() - t0:.0f} s)")
    return env


def _export(tiny, data_file, out, method, precision, gpus, zero, stage, extra) -> dict:
    req = PlanRequest(model=load_model(str(tiny)), gpu=get_gpu_profile("mi300x"), gpus=gpus, method=method,
                      precision=precision, zero_stage=zero, stage=stage, model_ref=str(tiny), **extra)
    p = plan(req).plan
    write_bundle(p, "axolotl", str(out), opts=ExportOptions(bundle_dir=str(out)), dataset=str(data_file))
    return p.to_dict()


def _run(env, args, cwd, timeout=900):
    return subprocess.run([env.python, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **ENV}, check=False)


def test_axolotl_loader_takes_every_export_with_the_plans_values(axolotl_env, tiny, data_file, tmp_path):
    plans, paths = {}, []
    for name, method, precision, gpus, zero, stage, extra in CASES:
        plans[name] = _export(tiny, data_file, tmp_path / name, method, precision, gpus, zero, stage, extra)
        paths.append(str(tmp_path / name / "axolotl.yaml"))
    r = _run(axolotl_env, ["-c", LOAD, *paths], str(tmp_path))
    line = [x for x in r.stdout.splitlines() if x.startswith("AXOLOTL_CFG=")]
    assert r.returncode == 0 and line, (r.stdout[-3000:], r.stderr[-3000:])
    got = json.loads(line[0][len("AXOLOTL_CFG="):])
    for name, *_ in CASES:
        rec, c = plans[name]["recommended"], got[str(tmp_path / name / "axolotl.yaml")]
        lora = rec["method"] in ("lora", "qlora")
        assert c["base_model"] == str(tiny)
        assert c.get("adapter") == ({"lora": "lora", "qlora": "qlora"}.get(rec["method"]))
        assert bool(c.get("load_in_4bit")) is (rec["method"] == "qlora")
        if lora:
            assert (c["lora_r"], c["lora_alpha"]) == (rec["lora_rank"], rec["lora_alpha"])
            targets = rec["lora_targets"]
            assert (c.get("lora_target_linear") is True) if targets == ["all"] else c["lora_target_modules"] == targets
            assert bool(c.get("peft_use_dora")) is bool(rec["dora"])
        if rec["method"] == "freeze":   # the last N of the tiny model's 2 layers
            assert c["unfrozen_parameters"] == [r"^model\.layers\.(1)\."]
        assert (c["sequence_len"], c["micro_batch_size"], c["gradient_accumulation_steps"]) == \
            (rec["cutoff_len"], rec["micro_batch"], rec["grad_accum"])
        assert c["excess_length_strategy"] == "truncate"
        assert (c["bf16"], c["fp16"]) == (rec["precision"] == "bf16", rec["precision"] == "fp16")
        assert c["torch_dtype"] == {"bf16": "torch.bfloat16", "fp16": "torch.float16", "fp32": "torch.float32"}[
            rec["precision"]]
        assert bool(c["gradient_checkpointing"]) is rec["gradient_checkpointing"]
        assert c["attn_implementation"] == {"sdpa": "sdpa", "eager": "eager", "fa2": "flash_attention_2"}[rec["attn"]]
        assert c["zero_stage"] == rec["zero_stage"]
        assert c["optimizer"] == {"adamw": "adamw_torch"}.get(rec["optim"], rec["optim"])
        assert (c["learning_rate"], c["num_epochs"]) == (rec["learning_rate"], rec["epochs"])
        stage = plans[name]["goal"]["stage"]
        assert bool(c.get("sample_packing")) is (stage == "pt")
        assert c["datasets"][0]["path"] == str(data_file)
        assert c["datasets"][0]["type"] == ("completion" if stage == "pt" else "alpaca")
        assert c["output_dir"] == str(tmp_path / name / "output")


def test_axolotl_trains_one_step_on_cpu(axolotl_env, tiny, data_file, tmp_path):
    out = tmp_path / "b"
    rec = _export(tiny, data_file, out, "lora", "fp32", 1, None, "sft", {"micro_batch": 4})["recommended"]
    t0 = time.monotonic()
    r = _run(axolotl_env, ["-m", "axolotl.cli.train", "axolotl.yaml", "--max_steps", "1", "--save_steps", "1",
                           "--lora_mlp_kernel", "false", "--lora_qkv_kernel", "false", "--lora_o_kernel", "false"],
             str(out))
    assert r.returncode == 0, (r.stdout[-3000:], r.stderr[-4000:])
    state = json.loads((out / "output" / "checkpoint-1" / "trainer_state.json").read_text())
    assert state["global_step"] == 1 and state["max_steps"] == 1
    assert (out / "output" / "adapter_model.safetensors").is_file()
    assert json.loads((out / "output" / "adapter_config.json").read_text())["r"] == rec["lora_rank"]
    from tests.realstack.conftest import note

    note(f"axolotl one CPU step: {time.monotonic() - t0:.0f} s")
