"""LLaMA-Factory through rocm-tune: `python -m rocm_tune.train.lf_launch CONFIG.yaml [--compute-dtype D]`.

Runs LLaMA-Factory's own training (`llamafactory.train.tuner.run_exp(args, callbacks=[...])`) with
rocm-tune's per-rank memory callback added, so every rank of the run writes its measured memory,
tokens/s and GPU telemetry into `$ROCM_TUNE_RUN_DIR/ranks/` (see `rocm_tune.train.callbacks`).
Works under torchrun (`torchrun ... -m rocm_tune.train.lf_launch CONFIG.yaml`) like `llamafactory-cli train`.

`--compute-dtype fp32` (or `$ROCM_TUNE_COMPUTE_DTYPE=fp32`) pins LLaMA-Factory's compute dtype: with
`bf16: false, fp16: false` LLaMA-Factory otherwise picks bf16 (fp16) on any GPU through
`infer_optim_dtype` (torch answers bf16-supported on every ROCm GPU, gfx906 included), so a plan that
says fp32 would not train in fp32. The pin replaces the function where `model/patcher.py` calls it.
A pin that contradicts the YAML's `bf16`/`fp16`/`pure_bf16` switches is refused.

llamafactory is imported lazily; without it the launcher says so on one line (exit 2).
"""

from __future__ import annotations

import os
import sys

DTYPES = ("fp32", "bf16", "fp16")
_YAML_SWITCH = {"bf16": "bf16", "fp16": "fp16", "pure_bf16": "bf16"}


class LaunchError(Exception):
    pass


def read_config(path: str) -> dict:
    import yaml

    try:
        with open(path, encoding="utf-8") as fh:
            data = yaml.safe_load(fh)
    except OSError as exc:
        raise LaunchError(f"cannot read {path!r}: {exc.strerror}") from None
    except yaml.YAMLError as exc:
        raise LaunchError(f"{path!r} is not valid YAML: {str(exc).splitlines()[0]}") from None
    if not isinstance(data, dict):
        raise LaunchError(f"{path!r} is not a YAML mapping of LLaMA-Factory arguments")
    return data


def check_pin(args: dict, dtype: str | None) -> str | None:
    """The dtype to pin, or None; LaunchError for an unknown dtype or one the YAML contradicts."""
    if dtype in (None, ""):
        return None
    if dtype not in DTYPES:
        raise LaunchError(f"--compute-dtype {dtype!r} is not one of {', '.join(DTYPES)}")
    on = [k for k in _YAML_SWITCH if args.get(k) in (True, "true", "True", 1)]
    for k in on:
        if _YAML_SWITCH[k] != dtype:
            raise LaunchError(f"--compute-dtype {dtype} contradicts `{k}: true` in the config; "
                              f"set {k}: false or pin {_YAML_SWITCH[k]}")
    return dtype


def pin_compute_dtype(dtype: str) -> None:
    """Make LLaMA-Factory compute and load the model in `dtype`.

    Two places decide it (read in llamafactory 0.9.5 and ff6d4d12): `model/patcher.py` `patch_config` sets
    `model_args.compute_dtype` from `infer_optim_dtype` (bf16 on any ROCm GPU), and `model/loader.py`
    loads with `torch_dtype="auto"`, i.e. the config's dtype (bfloat16 for most current models). The pin
    answers `infer_optim_dtype` with `dtype` and, after `patch_config`, sets the config's dtype to it, so
    `from_pretrained` loads the weights in `dtype` too."""
    import torch
    from llamafactory.model import loader, patcher

    want = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}[dtype]

    def infer_optim_dtype(model_dtype=None):  # noqa: ARG001 - same signature as LLaMA-Factory's
        return want

    patcher.infer_optim_dtype = infer_optim_dtype
    original = loader.patch_config

    def patch_config(config, tokenizer, model_args, init_kwargs, is_trainable):
        original(config, tokenizer, model_args, init_kwargs, is_trainable)
        model_args.compute_dtype = want
        for attr in ("dtype", "torch_dtype"):  # transformers 5 reads `dtype`, 4.x `torch_dtype`
            try:
                setattr(config, attr, want)
            except Exception:  # noqa: BLE001 - a config that refuses one spelling takes the other
                pass

    loader.patch_config = patch_config


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    dtype = os.environ.get("ROCM_TUNE_COMPUTE_DTYPE") or None
    paths = []
    it = iter(argv)
    for a in it:
        if a == "--compute-dtype":
            dtype = next(it, "")
        elif a.startswith("--compute-dtype="):
            dtype = a.split("=", 1)[1]
        elif a.startswith("--local_rank") or a.startswith("--local-rank"):
            continue  # the DeepSpeed launcher's; LOCAL_RANK is in the environment too
        elif a in ("-h", "--help"):
            print(__doc__)
            return 0
        else:
            paths.append(a)
    try:
        if len(paths) != 1:
            raise LaunchError("usage: python -m rocm_tune.train.lf_launch CONFIG.yaml [--compute-dtype fp32|bf16|fp16]")
        args = read_config(paths[0])
        pin = check_pin(args, dtype)
        try:
            from llamafactory.train.tuner import run_exp
        except Exception as exc:  # noqa: BLE001 - ImportError or a broken install alike
            raise LaunchError(f"LLaMA-Factory does not import here ({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}); "
                              "pip install llamafactory, or train with the built-in trainer") from None
        if pin:
            pin_compute_dtype(pin)
            print(f"[rocm-tune] LLaMA-Factory compute dtype pinned to {pin}", flush=True)
    except LaunchError as exc:
        print(f"rocm_tune.train.lf_launch: error: {exc}", file=sys.stderr)
        return 2
    from rocm_tune.train.callbacks import make_rank_callback

    cb = make_rank_callback(args.get("output_dir"))
    # tokens/s for the callback: LLaMA-Factory passes HF TrainingArguments keys through
    args.setdefault("include_num_input_tokens_seen", True)
    run_exp(args=args, callbacks=[cb])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
