"""Issue 24 item 2: `export --format swift` is accepted by the real ms-swift (tests/swiftstack/envsetup.py).

1. ms-swift's own argument classes (SftArguments / PretrainArguments / RLHFArguments, swift.utils.parse_args, the
   parser `swift sft|pt|rlhf` runs) take the arguments swift_sft.sh passes and give back the plan's values: tuner
   type, dtype and the mixed precision ms-swift derives from it, lengths, batches, LoRA, quantisation, DeepSpeed
   (its named configs and the bundle's deepspeed.json), dataset, schedule; NPROC_PER_NODE/NNODES as exported.
2. The exported script itself runs one optimizer step of `swift sft` on CPU (a tiny random Qwen2, rocm_tune/train/
   tiny.py), started as written: `bash swift_sft.sh --model_type qwen2 --template qwen --max_steps 1 ...` (a local
   folder has no model_type ms-swift can match by name: two Qwen2 types and seven templates fit it).
Without the venv (no network) both skip with the reason."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from rocm_tune.core.export import ExportOptions, write_bundle
from rocm_tune.core.model.architecture import load_model
from rocm_tune.core.plan.planner import PlanRequest, plan
from rocm_tune.profiles.gpu_profiles import get_gpu_profile

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]
LOCAL = ["--model_type", "qwen2", "--template", "qwen"]   # what a local folder needs (see the docstring)

# the captured command: a `swift` first on PATH that records its argv and the launch environment
STUB = """#!{python}
import json, os, sys
with open(os.environ["SWIFT_CAPTURE"], "w") as fh:
    json.dump({{"argv": sys.argv[1:], "env": {{k: os.environ.get(k) for k in ("NPROC_PER_NODE", "NNODES")}}}}, fh)
"""
PROBE = textwrap.dedent("""
    import json, sys
    from swift.arguments import PretrainArguments, RLHFArguments, SftArguments
    from swift.utils import parse_args
    out = []
    for argv in json.load(open(sys.argv[1])):
        cls = {"sft": SftArguments, "pt": PretrainArguments, "rlhf": RLHFArguments}[argv[0]]
        a, rest = parse_args(cls, argv[1:])
        ds = a.deepspeed or {}
        z = ds.get("zero_optimization", {}) if isinstance(ds, dict) else {}
        out.append({"rest": rest, "class": type(a).__name__, "tuner_type": a.tuner_type,
                    "torch_dtype": str(a.torch_dtype), "bf16": a.bf16, "fp16": a.fp16, "max_length": a.max_length,
                    "micro_batch": a.per_device_train_batch_size, "grad_accum": a.gradient_accumulation_steps,
                    "gradient_checkpointing": a.gradient_checkpointing, "attn_impl": a.attn_impl,
                    "lora_rank": a.lora_rank, "lora_alpha": a.lora_alpha, "target_modules": a.target_modules,
                    "use_dora": a.use_dora, "quant_method": a.quant_method, "quant_bits": a.quant_bits,
                    "double_quant": a.bnb_4bit_use_double_quant, "zero_stage": z.get("stage", 0),
                    "offload_optimizer": (z.get("offload_optimizer") or {}).get("device", "none") != "none",
                    "offload_param": (z.get("offload_param") or {}).get("device", "none") != "none",
                    "model": a.model, "dataset": a.dataset, "learning_rate": a.learning_rate,
                    "epochs": a.num_train_epochs, "optim": str(a.optim), "output_dir": a.output_dir,
                    "rlhf_type": getattr(a, "rlhf_type", None)})
    print(json.dumps(out))
""")
# (method, precision, gpus, nodes, zero, offload, stage, lora targets): LoRA on the named ZeRO-2 config; full fp16
# under ZeRO-3 with optimizer offload (no named config: the bundle's deepspeed.json) over 2 nodes; QLoRA without
# double quantisation as continued pre-training in fp32; DPO on ms-swift's zero3_offload
CASES = [("lora", "bf16", 2, 1, 2, "none", "sft", ("q_proj", "v_proj")),
         ("full", "fp16", 4, 2, 3, "optimizer", "sft", None),
         ("qlora", "fp32", 1, 1, 0, "none", "pt", None),
         ("lora", "bf16", 8, 1, 3, "all", "dpo", None)]


@pytest.fixture(scope="session")
def swiftenv():
    from tests.swiftstack.envsetup import ensure_env

    env, why = ensure_env()
    if env is None:
        pytest.skip(f"ms-swift venv not available: {why}")
    return env


@pytest.fixture(scope="session")
def tiny(tmp_path_factory):
    from rocm_tune.train.tiny import make_tiny_dataset, make_tiny_model

    d = tmp_path_factory.mktemp("swiftdata")
    data = make_tiny_dataset(d / "tiny.json", n=48)
    return make_tiny_model(d / "model", data), data


def _export(tmp_path, name, model_dir, data, method, precision, gpus, nodes, zero, offload, stage, targets):
    res = plan(PlanRequest(model=load_model("qwen2.5-0.5b"), gpu=get_gpu_profile("mi300x"), gpus=gpus, nodes=nodes,
                           method=method, precision=precision, zero_stage=zero, offload=offload, stage=stage,
                           model_ref="qwen2.5-0.5b", lora_targets=targets, double_quant=False if method == "qlora"
                           else None, optim="adamw"))
    out = str(tmp_path / name)
    write_bundle(res.plan, "swift", out, opts=ExportOptions(model=str(model_dir), bundle_dir=out), dataset=str(data))
    return res.plan, out


def _captured(tmp_path, bundle: str, name: str, extra: list[str]) -> dict:
    stub_dir = tmp_path / "stub"
    stub_dir.mkdir(exist_ok=True)
    (stub_dir / "swift").write_text(STUB.format(python=sys.executable), encoding="utf-8")
    (stub_dir / "swift").chmod(0o755)
    cap = tmp_path / f"{name}.json"
    env = dict(os.environ, PATH=f"{stub_dir}:{os.environ['PATH']}", SWIFT_CAPTURE=str(cap), NODE_RANK="0",
               MASTER_ADDR="127.0.0.1")
    r = subprocess.run(["bash", os.path.join(bundle, "swift_sft.sh"), *extra], env=env, capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return json.loads(cap.read_text())


def test_ms_swift_parses_the_exported_arguments_as_the_plan(swiftenv, tiny, tmp_path):
    model_dir, data = tiny
    plans, argvs = [], []
    for i, case in enumerate(CASES):
        p, out = _export(tmp_path, f"b{i}", model_dir, data, *case)
        # --use_cpu: transformers refuses bf16/fp16 TrainingArguments where no GPU is found
        cap = _captured(tmp_path, out, f"b{i}", LOCAL + ["--use_cpu", "true"])
        hw = p.hardware
        assert cap["env"] == {"NPROC_PER_NODE": str(hw.gpus), "NNODES": str(hw.nodes) if hw.nodes > 1 else None}
        plans.append((p, out))
        argvs.append(cap["argv"])
    (tmp_path / "argvs.json").write_text(json.dumps(argvs))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    r = subprocess.run([swiftenv.python, "-c", PROBE, str(tmp_path / "argvs.json")], capture_output=True, text=True,
                       env=dict(env, HF_HUB_OFFLINE="1"), timeout=600, cwd=tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    parsed = json.loads(r.stdout.strip().splitlines()[-1])
    for (p, out), a in zip(plans, parsed):
        s = p.recommended
        lora = s.method in ("lora", "qlora")
        assert a["rest"] == [] and a["class"] == {"sft": "SftArguments", "pt": "PretrainArguments",
                                                  "dpo": "RLHFArguments"}[p.goal.stage]
        assert a["rlhf_type"] == ("dpo" if p.goal.stage == "dpo" else None)
        assert a["tuner_type"] == ("lora" if lora else "full")
        # ms-swift's own mixed precision (ModelArguments._init_mixed_precision) is the plan's
        assert (a["bf16"], a["fp16"]) == (s.precision == "bf16", s.precision == "fp16"), (s.precision, a)
        assert a["torch_dtype"] == ("torch.float32" if s.precision == "fp32" or not lora else
                                    {"bf16": "torch.bfloat16", "fp16": "torch.float16"}[s.precision])
        assert (a["max_length"], a["micro_batch"], a["grad_accum"], a["gradient_checkpointing"]) == \
            (s.cutoff_len, s.micro_batch, s.grad_accum, s.gradient_checkpointing)
        assert a["attn_impl"] == {"eager": "eager", "sdpa": "sdpa", "fa2": "flash_attn"}[s.attn]
        if lora:
            assert (a["lora_rank"], a["lora_alpha"]) == (s.lora_rank, s.lora_alpha)
            want = ["all-linear"] if tuple(s.lora_targets or ("all",)) == ("all",) else list(s.lora_targets)
            assert a["target_modules"] == want
        if s.method == "qlora":
            assert (a["quant_method"], a["quant_bits"], a["double_quant"]) == ("bnb", s.quant_bits, s.double_quant)
        else:
            assert a["quant_method"] is None
        assert (a["zero_stage"], a["offload_optimizer"], a["offload_param"]) == \
            (s.zero_stage, s.offload in ("optimizer", "all"), s.offload == "all")
        assert (a["model"], a["dataset"]) == (str(model_dir), [str(data)])
        assert (a["learning_rate"], a["epochs"], a["optim"]) == (s.learning_rate, s.epochs, "adamw_torch")
        assert a["output_dir"].startswith(os.path.join(out, "output"))   # ms-swift adds a v0-<time> folder


def test_the_exported_script_trains_one_cpu_step(swiftenv, tiny, tmp_path):
    model_dir, data = tiny
    _p, out = _export(tmp_path, "run", model_dir, data, "lora", "fp32", 1, 1, 0, "none", "sft", None)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(PATH=f"{swiftenv.bin_dir}:{os.environ['PATH']}", HF_HUB_OFFLINE="1")
    r = subprocess.run(["bash", os.path.join(out, "swift_sft.sh"), *LOCAL, "--max_steps", "1", "--save_strategy",
                        "no", "--dataloader_num_workers", "0"], capture_output=True, text=True, env=env, timeout=900,
                       cwd=tmp_path)
    assert r.returncode == 0, (r.stdout[-2000:], r.stderr[-3000:])
    logs = [os.path.join(d, "logging.jsonl") for d, _s, files in os.walk(os.path.join(out, "output"))
            if "logging.jsonl" in files]
    assert len(logs) == 1, logs
    with open(logs[0], encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh if line.strip()]
    steps = [row for row in rows if "loss" in row]
    assert steps and steps[0]["global_step/max_steps"] == "1/1" and float(steps[0]["loss"]) > 0, rows
