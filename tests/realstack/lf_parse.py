"""Parse exported llamafactory.yaml files with LLaMA-Factory's own `get_train_args` (runs in the venv).

Started by tests/realstack/test_realstack.py under the real `torch.distributed.run --nproc_per_node 2`
(gloo on CPU), because LLaMA-Factory refuses DeepSpeed outside a distributed launch and transformers'
DeepSpeed integration checks the JSON's batch sizes against the real world size.
Usage: lf_parse.py OUT.json CASES.json, CASES = [{"name", "yaml", "overrides"}]; the YAML is read
from its bundle directory as `llamafactory-cli train llamafactory.yaml key=value ...` does
(OmegaConf merge of the overrides).

The only thing changed is the device check: this machine has no GPU, so the bf16 availability test
of transformers' TrainingArguments and of LLaMA-Factory's parser answers "yes" (what they would say
on the bf16 GPU the plan is for). No key, value or other check is touched.
"""

from __future__ import annotations

import json
import math
import os
import sys
import traceback

os.environ.setdefault("DS_ACCELERATOR", "cpu")


def plain(v):
    if hasattr(v, "value") and not isinstance(v, (int, float, str)):
        return v.value
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    if isinstance(v, (int, float, str, bool)) or v is None:
        return v
    return str(v)


def main() -> int:
    out_path, cases_path = sys.argv[1], sys.argv[2]
    import transformers
    import transformers.training_args as ta
    import yaml
    from omegaconf import OmegaConf

    ta.is_torch_bf16_gpu_available = lambda *a, **k: True
    import llamafactory.hparams.parser as lfp

    lfp.is_torch_bf16_gpu_available = lambda *a, **k: True
    from llamafactory.hparams import get_train_args

    with open(cases_path, encoding="utf-8") as fh:
        cases = json.load(fh)
    results = {}
    start = os.getcwd()
    for case in cases:
        bundle = os.path.dirname(os.path.abspath(case["yaml"]))
        os.chdir(bundle)  # run.sh runs from the bundle: relative names resolve there
        try:
            with open(case["yaml"], encoding="utf-8") as fh:
                d = yaml.safe_load(fh)
            if case.get("overrides"):
                d = OmegaConf.to_container(OmegaConf.merge(OmegaConf.create(d),
                                                           OmegaConf.from_cli(case["overrides"])))
            m, da, t, f, _g = get_train_args(dict(d))
            where = {}
            for key in d:
                for label, obj in (("model", m), ("data", da), ("training", t), ("finetuning", f)):
                    if hasattr(obj, key):
                        where[key] = [label, plain(getattr(obj, key))]
                        break
                else:
                    where[key] = None
            ds = getattr(t, "hf_deepspeed_config", None)
            res = {
                "ok": True,
                "transformers": transformers.__version__,
                "keys": where,
                "world_size": t.world_size,
                "parallel_mode": plain(t.parallel_mode),
                "per_device_train_batch_size": t.per_device_train_batch_size,
                "gradient_accumulation_steps": t.gradient_accumulation_steps,
                "learning_rate": t.learning_rate,
                "max_grad_norm": t.max_grad_norm,
                "warmup_steps_of": {str(n): t.get_warmup_steps(n) for n in (10, 37, 100, 1000)},
                "lr_scheduler_type": plain(t.lr_scheduler_type),
                "bf16": t.bf16, "fp16": t.fp16, "pure_bf16": f.pure_bf16,
                "compute_dtype": str(m.compute_dtype),
                "deepspeed": t.deepspeed if isinstance(t.deepspeed, str) else None,
                "ds_config": json.loads(json.dumps(ds.config, default=str)) if ds is not None else None,
                "output_dir": os.path.abspath(t.output_dir),
                "dataset_dir": os.path.abspath(da.dataset_dir),
                "dataset_info_exists": os.path.isfile(os.path.join(da.dataset_dir, "dataset_info.json")),
            }
            if ds is not None:
                # what Trainer.deepspeed_init does next: raise on any explicit value that contradicts the
                # trainer's arguments; then DeepSpeed's own config classes read the filled config at this
                # world size (the launcher's real one: dist is initialised by transformers)
                ds.trainer_config_finalize(t, None, 100)
                from deepspeed.runtime.config import DeepSpeedConfig

                dsc = DeepSpeedConfig(json.loads(json.dumps(ds.config)))
                res["ds_checked"] = {
                    "train_batch_size": dsc.train_batch_size,
                    "train_micro_batch_size_per_gpu": dsc.train_micro_batch_size_per_gpu,
                    "gradient_accumulation_steps": dsc.gradient_accumulation_steps,
                    "gradient_clipping": dsc.gradient_clipping,
                    "fp16": bool(dsc.float16_config.enabled), "bf16": bool(dsc.bfloat16_config.enabled),
                    "zero_stage": int(dsc.zero_optimization_stage),
                    "optimizer": dsc.optimizer_name, "optimizer_params": dsc.optimizer_params,
                    "world_size": dsc.world_size,
                }
            for v in res["warmup_steps_of"].values():
                assert isinstance(v, int) and math.isfinite(v)
        except BaseException as exc:  # noqa: BLE001 - reported to the test, which fails naming it
            res = {"ok": False, "error": f"{type(exc).__name__}: {exc}",
                   "trace": traceback.format_exc()[-3000:]}
        finally:
            os.chdir(start)
        results[case["name"]] = res
    if int(os.environ.get("RANK", "0")) == 0:
        with open(out_path, "w", encoding="utf-8") as fh:
            json.dump(results, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
