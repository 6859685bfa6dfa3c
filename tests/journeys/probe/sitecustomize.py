"""Journey probe: what really executes inside a training process (tests/journeys/).

Put this folder first on PYTHONPATH of a training process; Python imports `sitecustomize` at start-up. It does
nothing unless one of these is set, and imports nothing heavy itself (hooks run when the process imports the
module anyway):

* JOURNEY_BF16_GPU=1 — `transformers.utils.is_torch_bf16_gpu_available` (and the same name in
  `transformers.utils.import_utils`) answer True: LLaMA-Factory then sees what it sees on any ROCm GPU, where
  `torch.cuda.is_bf16_supported()` is True even on gfx906 (/work/shared/knowledge/runners.md, "Seeing what
  really executes, on CPU"). Nothing else is changed.
* JOURNEY_PROBE_OUT=DIR — `transformers.Trainer.training_step` is wrapped: after the first step of each process
  it writes DIR/probe-<RANK>-<pid>.json with the element counts per dtype of the frozen and the trainable
  parameters, the global step, and every call of `torch.utils.checkpoint.checkpoint` during that step (with its
  `use_reentrant`), i.e. whether gradient checkpointing really ran and how, the optimizer (and the one DeepSpeed
  wraps) and how many parameters DeepSpeed ZeRO-3 partitioned.
* JOURNEY_CPU_CHECKPOINTS=1 — `torch.load` restores storages tagged `cpu:N`. A rank on CPU (LLaMA-Factory's
  device there is `cpu:0`) saves its optimizer state with that tag, which torch cannot restore ("don't know how
  to restore data location ... tagged with cpu:0"), so resuming a CPU stand-in run would fail where a GPU run
  (tagged `cuda:N`) resumes. Only that tag is added; nothing else about loading changes.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import json
import os
import sys

_BF16 = os.environ.get("JOURNEY_BF16_GPU") == "1"
_OUT = os.environ.get("JOURNEY_PROBE_OUT")
_CPU_CKPT = os.environ.get("JOURNEY_CPU_CHECKPOINTS") == "1"
_CKPT_CALLS: list = []


def _yes(*_a, **_k) -> bool:
    return True


def _patch_import_utils(mod) -> None:
    mod.is_torch_bf16_gpu_available = _yes


def _patch_utils(mod) -> None:
    mod.is_torch_bf16_gpu_available = _yes


def _patch_checkpoint(mod) -> None:
    orig = mod.checkpoint

    def checkpoint(function, *args, **kwargs):
        _CKPT_CALLS.append(kwargs.get("use_reentrant"))
        return orig(function, *args, **kwargs)

    mod.checkpoint = checkpoint


def _patch_serialization(mod) -> None:
    def restore_cpu_n(obj, location):
        return obj if isinstance(location, str) and location.startswith("cpu:") else None

    mod.register_package(100, lambda _obj: None, restore_cpu_n)


def _dtype_counts(model) -> tuple[dict, dict]:
    frozen: dict = {}
    trainable: dict = {}
    for p in model.parameters():
        d = trainable if p.requires_grad else frozen
        key = str(p.dtype).replace("torch.", "")
        d[key] = d.get(key, 0) + int(getattr(p, "ds_numel", 0) or p.numel())  # ZeRO-3: the full size
    return frozen, trainable


def _patch_trainer(mod) -> None:
    orig = mod.Trainer.training_step
    state = {"done": False}

    def training_step(self, model, *args, **kwargs):
        before = len(_CKPT_CALLS)
        out = orig(self, model, *args, **kwargs)
        if not state["done"]:
            state["done"] = True
            calls = _CKPT_CALLS[before:]
            frozen, trainable = _dtype_counts(model)
            chain, opt = [], getattr(self, "optimizer", None)
            while opt is not None and len(chain) < 4:  # DeepSpeed wraps: ZeRO optimizer -> its inner optimizer
                chain.append(type(opt).__name__)
                opt = getattr(opt, "optimizer", None)
            rec = {"rank": int(os.environ.get("RANK", "0")), "pid": os.getpid(),
                   "trainer": type(self).__name__, "global_step": int(self.state.global_step),
                   "frozen_dtypes": frozen, "trainable_dtypes": trainable,
                   "zero3_params": sum(1 for p in model.parameters() if hasattr(p, "ds_id")),
                   "optimizer": chain,
                   "checkpoint_calls": len(calls), "use_reentrant": sorted({str(c) for c in calls}),
                   "bf16_gpu_patched": _BF16}
            os.makedirs(_OUT, exist_ok=True)
            path = os.path.join(_OUT, f"probe-{rec['rank']}-{os.getpid()}.json")
            with open(path, "w", encoding="utf-8") as fh:
                json.dump(rec, fh)
        return out

    mod.Trainer.training_step = training_step


_HOOKS = {}
if _BF16:
    _HOOKS["transformers.utils.import_utils"] = _patch_import_utils
    _HOOKS["transformers.utils"] = _patch_utils
if _CPU_CKPT:
    _HOOKS["torch.serialization"] = _patch_serialization
if _OUT:
    _HOOKS["torch.utils.checkpoint"] = _patch_checkpoint
    _HOOKS["transformers.trainer"] = _patch_trainer


class _Loader(importlib.abc.Loader):
    def __init__(self, inner, hook):
        self.inner, self.hook = inner, hook

    def create_module(self, spec):
        return self.inner.create_module(spec)

    def exec_module(self, module):
        self.inner.exec_module(module)
        self.hook(module)


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        hook = _HOOKS.get(name)
        if hook is None:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None and spec.loader is not None and hasattr(spec.loader, "exec_module"):
                spec.loader = _Loader(spec.loader, hook)
                return spec
        return None


if _HOOKS:
    sys.meta_path.insert(0, _Finder())
