"""LLaMA-Factory through rocm-tune: `python lf_launch.py CONFIG.yaml [key=value ...] [--compute-dtype D]`.

Every bundle rocm-tune exports starts LLaMA-Factory through this file (run.sh: `python3 lf_launch.py
llamafactory.yaml`, or torchrun / deepspeed / accelerate with it as the script); it is also
`python -m rocm_tune.train.lf_launch`. It runs LLaMA-Factory's own training
(`llamafactory.train.tuner.run_exp(args, callbacks=[...])`) in this process, so LLaMA-Factory's arguments,
`key=value` overrides after the YAML (read by LLaMA-Factory's own `read_args`), exit codes and signals pass
unchanged, with two additions:

* every rank appends its measured memory (allocated, reserved, peaks), tokens/s and the dtypes of its
  frozen and trainable parameters to `$ROCM_TUNE_RUN_DIR/ranks/<node>-<rank>.jsonl` (else to the run's
  output_dir/ranks/). The writer is `rocm_tune.train.callbacks`, or the bundle's own copy of it
  (`rocm_tune_callbacks.py` beside this file), so a training machine without rocm-tune records it too;
* `--compute-dtype fp32` (or `$ROCM_TUNE_COMPUTE_DTYPE=fp32`) pins LLaMA-Factory's compute and load dtype:
  with `bf16: false, fp16: false` LLaMA-Factory otherwise picks bf16 (fp16) on any GPU through
  `infer_optim_dtype` (torch answers bf16-supported on every ROCm GPU, gfx906 included) and loads the
  checkpoint as stored, so a plan that says fp32 would not train in fp32. A pin that contradicts the
  config's `bf16`/`fp16`/`pure_bf16` switches is refused.

Standard library only at import; llamafactory is imported when the training starts. Without LLaMA-Factory,
or with one whose functions this file hooks are missing, it says so on one line (exit 2).
"""

from __future__ import annotations

import os
import sys

DTYPES = ("fp32", "bf16", "fp16")
_YAML_SWITCH = {"bf16": "bf16", "fp16": "fp16", "pure_bf16": "bf16"}
_TRUE = (True, "true", "True", "1", 1)
USAGE = "usage: python lf_launch.py CONFIG.yaml [key=value ...] [--compute-dtype fp32|bf16|fp16]"
TESTED = "0.9.x (tested with 0.9.5)"


class LaunchError(Exception):
    pass


def split_argv(argv: list[str]) -> tuple[list[str], str | None]:
    """(LLaMA-Factory's arguments, the --compute-dtype value): --compute-dtype and the DeepSpeed launcher's
    --local_rank are ours; everything else goes to LLaMA-Factory in order."""
    dtype = os.environ.get("ROCM_TUNE_COMPUTE_DTYPE") or None
    rest: list[str] = []
    it = iter(argv)
    for a in it:
        if a == "--compute-dtype":
            dtype = next(it, "")
        elif a.startswith("--compute-dtype="):
            dtype = a.split("=", 1)[1]
        elif a.startswith("--local_rank") or a.startswith("--local-rank"):
            if "=" not in a:
                next(it, None)
            continue  # the DeepSpeed launcher's; LOCAL_RANK is in the environment too
        else:
            rest.append(a)
    return rest, dtype


def _config_file(args: list[str]) -> str | None:
    first = args[0] if args else ""
    return first if first.endswith((".yaml", ".yml", ".json")) else None


def read_config(path: str) -> dict:
    """The config file as a dict (one-line LaunchError when it cannot be read), before LLaMA-Factory imports.
    With rocm-tune installed, read by its one LLaMA-Factory reader (rocm_tune.core.runners.llamafactory); a
    bundle copied to a machine without rocm-tune reads it with the same safe YAML loader (the copy cannot import
    the package)."""
    try:
        from rocm_tune.core.errors import UserError
        from rocm_tune.core.runners.llamafactory import load_file
    except ImportError:
        return _read_config_standalone(path)
    try:
        data = load_file(path, "LLaMA-Factory config")
    except UserError as exc:
        raise LaunchError(str(exc)) from None
    if not data:
        raise LaunchError(f"{path!r} is not a YAML mapping of LLaMA-Factory arguments")
    return data


def _read_config_standalone(path: str) -> dict:
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


def switches(args: list[str], config: dict | None) -> dict:
    """The precision switches the run will see: the config file's, then `key=value` / `--key value` overrides."""
    out = {k: config.get(k) for k in _YAML_SWITCH} if config else {}
    it = iter(args[1:] if config is not None else args)
    for a in it:
        key, value = None, None
        if a.startswith("--"):
            key = a[2:].split("=", 1)[0]
            value = a.split("=", 1)[1] if "=" in a else next(it, "true")
        elif "=" in a:
            key, value = a.split("=", 1)
        if key in _YAML_SWITCH:
            out[key] = value
    return out


def check_pin(sw: dict, dtype: str | None) -> str | None:
    """The dtype to pin, or None; LaunchError for an unknown dtype or one the config contradicts."""
    if dtype in (None, ""):
        return None
    if dtype not in DTYPES:
        raise LaunchError(f"--compute-dtype {dtype!r} is not one of {', '.join(DTYPES)}")
    for k, v in sw.items():
        if v in _TRUE and _YAML_SWITCH[k] != dtype:
            raise LaunchError(f"--compute-dtype {dtype} contradicts `{k}: true` in the config; "
                              f"set {k}: false or pin {_YAML_SWITCH[k]}")
    return dtype


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("llamafactory")
    except Exception:  # noqa: BLE001 - a source checkout has no metadata
        return "unknown"


def import_llamafactory(pin: str | None):
    """run_exp and, for a pin, the two functions it replaces; LaunchError naming what is missing."""
    try:
        from llamafactory.train.tuner import run_exp
    except Exception as exc:  # noqa: BLE001 - ImportError or a broken install alike
        detail = str(exc).splitlines()[0] if str(exc) else ""
        raise LaunchError(f"LLaMA-Factory does not import here ({type(exc).__name__}: {detail}); pip install "
                          f"llamafactory ({TESTED}) in this Python ({sys.executable}), or train with the built-in "
                          "trainer") from None
    import inspect

    try:
        takes_callbacks = "callbacks" in inspect.signature(run_exp).parameters
    except (TypeError, ValueError):
        takes_callbacks = False
    if not takes_callbacks:
        raise LaunchError(f"LLaMA-Factory {_version()} is too old: its run_exp takes no callbacks; "
                          f"this launcher needs {TESTED}")
    if pin:
        try:
            from llamafactory.model import loader, patcher
        except Exception as exc:  # noqa: BLE001
            raise LaunchError(f"LLaMA-Factory {_version()}: cannot pin the dtype ({exc}); this launcher needs "
                              f"{TESTED}") from None
        missing = [n for mod, n in ((patcher, "infer_optim_dtype"), (loader, "patch_config")) if not hasattr(mod, n)]
        if missing:
            raise LaunchError(f"LLaMA-Factory {_version()} has no {', '.join(missing)}: cannot pin the dtype; "
                              f"this launcher needs {TESTED}")
    return run_exp


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


def _callbacks_module():
    """rocm-tune's rank callback: the bundle's copy beside this file, else the installed rocm_tune."""
    here = os.path.dirname(os.path.abspath(__file__))
    if not __package__ and os.path.isfile(os.path.join(here, "rocm_tune_callbacks.py")):
        if here not in sys.path:
            sys.path.insert(0, here)
        import rocm_tune_callbacks as mod  # type: ignore[import-not-found]

        return mod
    from rocm_tune.train import callbacks as mod

    return mod


def _output_dir(args) -> str | None:
    if isinstance(args, dict):
        v = args.get("output_dir")
        return str(v) if v else None
    for i, a in enumerate(args):
        if a.startswith("--output_dir="):
            return a.split("=", 1)[1]
        if a == "--output_dir" and i + 1 < len(args):
            return args[i + 1]
    return None


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if any(a in ("-h", "--help") for a in argv):
        print(__doc__)
        return 0
    rest, dtype = split_argv(argv)
    try:
        if not rest:
            raise LaunchError(USAGE)
        path = _config_file(rest)
        config = read_config(path) if path else None
        pin = check_pin(switches(rest, config), dtype)
        run_exp = import_llamafactory(pin)
        from llamafactory.hparams.parser import read_args

        # LLaMA-Factory's own reading of its command line (as llamafactory-cli train does): the YAML/JSON merged
        # with key=value overrides, or --key value flags
        sys.argv = [sys.argv[0], *rest]
        args = read_args()
        if pin:
            pin_compute_dtype(pin)
            print(f"[rocm-tune] LLaMA-Factory compute dtype pinned to {pin}", flush=True)
    except LaunchError as exc:
        print(f"lf_launch: error: {exc}", file=sys.stderr)
        return 2
    cb = None
    try:
        mod = _callbacks_module()
        mod.register_stack_dump()   # `rocm-tune explain RUN` of a hung run: where each rank waits
        cb = mod.make_rank_callback(_output_dir(args))
    except Exception as exc:  # noqa: BLE001 - measuring is a bonus: the training runs without it
        print(f"[rocm-tune] measured memory is not recorded: {type(exc).__name__}: {exc}", file=sys.stderr)
    if isinstance(args, dict):
        # tokens/s for the callback: LLaMA-Factory passes HF TrainingArguments keys through
        args.setdefault("include_num_input_tokens_seen", True)
    callbacks = [cb] if cb is not None else []
    try:  # save at the next step and stop on a Slurm time-limit warning / preemption (slurm.sbatch's trap)
        callbacks.append(_callbacks_module().make_save_on_signal_callback(_output_dir(args)))
    except Exception as exc:  # noqa: BLE001 - an older bundle copy of the callbacks: train without it
        print(f"[rocm-tune] no save-on-signal: {type(exc).__name__}: {exc}", file=sys.stderr)
    try:  # ddp_timeout covers preprocessing; once the Trainer is built a hung collective ends the job sooner
        hang = _callbacks_module().hang_timeout_from_env()
        if hang is not None:
            callbacks.append(_callbacks_module().make_hang_timeout_callback(hang))
    except Exception as exc:  # noqa: BLE001 - an older bundle copy of the callbacks: ddp_timeout alone
        print(f"[rocm-tune] collective timeout stays ddp_timeout: {type(exc).__name__}: {exc}", file=sys.stderr)
    run_exp(args=args, callbacks=callbacks)
    return 0


if __name__ == "__main__":
    code = main()
    try:  # a finished rank of a multi-process job leaves without the interpreter's teardown (callbacks.leave)
        leave = _callbacks_module().leave
    except Exception:  # noqa: BLE001 - an older bundle copy of the callbacks: the plain exit
        raise SystemExit(code) from None
    leave(code)
    raise SystemExit(code)
