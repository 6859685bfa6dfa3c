"""torchtitan training configs -> canonical settings (pure): torchtitan's own TOML (`[model] name/flavor`,
`[training]`, `[parallelism]`, `[activation_checkpoint]`) and AMD Primus' torchtitan experiment YAML
(`modules.pre_trainer.framework: torchtitan`, the model file, `overrides` in the same sections). The job is read as
the Megatron-style layout it executes (profiles/torchtitan_configs.py): FSDP2 fully_shard over the data-parallel
ranks (core/runners/megatron.py `--use-torch-fsdp2`), TP / PP / CP / EP, bf16 compute over fp32 sharded weights."""

from __future__ import annotations

import os
import re

from rocm_tune.core.errors import UserError
from rocm_tune.core.runners import megatron
from rocm_tune.core.runners.common import Setting, as_bool, as_int
from rocm_tune.profiles import torchtitan_configs as T


def load_toml(text: str) -> dict | None:
    """A TOML text as data, or None when it is no TOML mapping."""
    import tomllib

    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


def is_config(data) -> bool:
    """torchtitan's job TOML: a [model] table with name or flavor and a [training] or [parallelism] table."""
    if not isinstance(data, dict) or not isinstance(data.get("model"), dict):
        return False
    return bool({"name", "flavor"} & set(data["model"])) and \
        any(isinstance(data.get(k), dict) for k in ("training", "parallelism"))


def primus_module(data) -> dict | None:
    """The torchtitan trainer module of a Primus experiment mapping, or None."""
    mods = data.get("modules") if isinstance(data, dict) else None
    if not isinstance(mods, dict):
        return None
    return next((m for m in mods.values() if isinstance(m, dict) and str(m.get("framework", "")) == "torchtitan"),
                None)


def _section(data: dict, name: str) -> dict:
    v = data.get(name)
    return v if isinstance(v, dict) else {}


def _model_ref(model: dict, primus_file: str | None) -> tuple[str, str] | None:
    """(the model's name as the presets spell it, how) from [model] name + flavor, or a Primus model file's name."""
    name, flavor = str(model.get("name") or ""), str(model.get("flavor") or "")
    if name and flavor:
        pattern = T.MODEL_NAMES.get(name.lower(), name.lower() + "-{flavor}")
        return pattern.format(flavor=flavor.lower()), f"[model] name {name!r}, flavor {flavor!r}"
    if primus_file:
        stem = os.path.splitext(os.path.basename(primus_file))[0]
        return re.sub(r"_(?=\d)", "-", stem).replace("_", "-").lower(), f"Primus model file {primus_file}"
    return None


def _whole(section: str, key: str, value, file: str) -> int:
    n = as_int(value) if not isinstance(value, bool) else None
    if n is None:
        raise UserError(f"{file}: [{section}] {key} = {value!r}: expected a whole number")
    return n


def _flags(data: dict, kind: str, file: str, line) -> tuple[dict[str, tuple[str, int]], list[str]]:
    """The Megatron flags that split and size the job as torchtitan runs it, with notes of the defaults taken."""
    train, par = _section(data, "training"), _section(data, "parallelism")
    notes: list[str] = []
    src = T.PRIMUS_TORCHTITAN_SOURCE if kind == "primus" else T.TORCHTITAN_SOURCE
    flags: dict[str, tuple[str, int]] = {}
    for key, flag in (("local_batch_size", "micro_batch_size"), ("seq_len", "seq_length")):
        value = train.get(key, T.TRAINING_DEFAULTS[key])
        flags[flag] = (str(_whole("training", key, value, file)), line(key))
        if key not in train:
            notes.append(f"[training] {key} not set: {value} ({src})")
    if str(train.get("mixed_precision_param", "bfloat16")).lower() == "bfloat16":
        flags["bf16"] = ("true", line("mixed_precision_param"))
    for key, flag in T.PARALLEL_FLAGS.items():
        value = _whole("parallelism", key, par.get(key, T.PARALLEL_DEFAULTS[key]), file)
        if value > 1:
            flags[flag] = (str(value), line(key))
    shard = _whole("parallelism", "data_parallel_shard_degree", par.get("data_parallel_shard_degree", -1), file)
    if shard != 1:
        flags["use_torch_fsdp2"] = ("true", line("data_parallel_shard_degree"))
        notes.append(f"torchtitan data_parallel_shard_degree {shard}: FSDP2 fully_shard of the weights, gradients and "
                     f"optimizer state over the data-parallel ranks ({src})")
    if _whole("parallelism", "data_parallel_replicate_degree", par.get("data_parallel_replicate_degree", 1), file) > 1:
        notes.append("data_parallel_replicate_degree > 1 (HSDP): the shards counted over every data-parallel rank "
                     "(a lower bound of what each GPU holds)")
    ac = _section(data, "activation_checkpoint")
    mode = str(ac.get("mode", T.AC_DEFAULT[kind])).lower()
    if mode == "full":
        flags["recompute_granularity"] = ("full", line("mode"))
    elif mode == "selective":
        notes.append(f"[activation_checkpoint] mode selective (option {ac.get('selective_ac_option', '2')}): counted "
                     f"as no recomputation (an upper bound)")
    if "mode" not in ac:
        notes.append(f"[activation_checkpoint] mode not set: {T.AC_DEFAULT[kind]} ({src})")
    return flags, notes


def compiled_loss(data: dict, kind: str) -> bool:
    """torchtitan compiles its loss (train.py: `torch.compile(loss_fn)` when compile.enable and "loss" in
    compile.components): build_cross_entropy_loss's `F.cross_entropy(pred.float(), labels)` (torchtitan/components/
    loss.py) is then one fused kernel that never stores the fp32 upcast of the [tokens, vocab] logits nor their fp32
    log-softmax."""
    comp = _section(data, "compile")
    enable = as_bool(comp.get("enable", T.COMPILE_DEFAULT[kind]))
    parts = comp.get("components", list(T.COMPILE_COMPONENTS_DEFAULT))
    return bool(enable) and isinstance(parts, list) and "loss" in [str(p).lower() for p in parts]


def read(data: dict, text: str, file: str, kind: str = "torchtitan") -> tuple[dict[str, Setting], list[str]]:
    """A torchtitan TOML (kind "torchtitan") or a Primus torchtitan experiment (kind "primus") -> settings, notes."""
    primus_file = None
    if kind == "primus":
        mod = primus_module(data) or {}
        used: list[str] = []
        mod = megatron.primus_env(mod, used)
        over = mod.get("overrides")
        data = over if isinstance(over, dict) else {}
        primus_file = str(mod.get("model") or "") or None
    where: dict[str, int] = {}
    for no, t in enumerate(text.splitlines(), 1):
        k = re.split(r"[:=]", t.strip().strip("[]"), maxsplit=1)[0].strip()
        if k and not t.lstrip().startswith("#"):
            where.setdefault(k, no)

    def line(key: str) -> int:
        return where.get(key, 0)

    flags, notes = _flags(data, kind, file, line)
    out, more = megatron.read_flags(flags, file)
    notes = more + notes
    ref = _model_ref(_section(data, "model"), primus_file)
    if ref is not None:
        out["model_name_or_path"] = Setting("model_name_or_path", ref[0], file, line("flavor") or line("model") or None,
                                            "model", "yaml")
        notes.append(f"the model torchtitan builds from {ref[1]}: {ref[0]}")
    if compiled_loss(data, kind):
        out["compiled_loss"] = Setting("compiled_loss", "true", file, line("compile") or None, "compile", "yaml")
        notes.append("[compile] enable with the loss among its components: the cross-entropy compiled, no fp32 copy "
                     "of the logits nor fp32 log-softmax held (torchtitan/components/loss.py)")
    out["finetuning_type"] = Setting("finetuning_type", "full", file, None, "torchtitan trains every weight", "default")
    if "float8" in data or "float8" in str(_section(data, "model").get("converters") or ""):
        notes.append("torchtitan float8 training counted as bf16 (an upper bound)")
    notes.append(f"{'AMD Primus torchtitan experiment' if kind == 'primus' else 'torchtitan job config'} read as "
                 f"the layout it runs ({T.TORCHTITAN_SOURCE})")
    return out, notes
