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


def flavor_entry(model: dict) -> tuple[str, str] | None:
    """([model] name, flavor) as the FLAVORS table keys them (lower case, attention-kernel suffixes dropped)."""
    name, flavor = str(model.get("name") or "").lower(), str(model.get("flavor") or "").lower()
    for suffix in T.FLAVOR_SUFFIXES:
        flavor = flavor.removesuffix(suffix)
    return (name, flavor) if name and flavor else None


def _model_ref(model: dict, primus_file: str | None) -> tuple[str | dict, str] | None:
    """(the model: a preset name, or config.json keys from torchtitan's flavor; how) from [model] name + flavor, or
    a Primus model file's name."""
    name, flavor = str(model.get("name") or ""), str(model.get("flavor") or "")
    key = flavor_entry(model)
    how = f"[model] name {name!r}, flavor {flavor!r}"
    if key is not None and key in T.FLAVOR_SHAPES:
        return dict(T.FLAVOR_SHAPES[key]), how + f" (torchtitan/models/{key[0]}/__init__.py)"
    if key is not None and key in T.FLAVORS:
        return T.FLAVORS[key][0], how
    if name and flavor:
        pattern = T.MODEL_NAMES.get(name.lower(), name.lower() + "-{flavor}")
        return pattern.format(flavor=flavor.lower()), how
    if primus_file:
        stem = os.path.splitext(os.path.basename(primus_file))[0]
        return re.sub(r"_(?=\d)", "-", stem).replace("_", "-").lower(), f"Primus model file {primus_file}"
    return None


def _whole(section: str, key: str, value, file: str) -> int:
    n = as_int(value) if not isinstance(value, bool) else None
    if n is None:
        raise UserError(f"{file}: [{section}] {key} = {value!r}: expected a whole number")
    return n


def lookup(data: dict, key: str, default=None) -> tuple[object, str, str, bool]:
    """(value, section, native key, set?) of a torchtitan setting under any release's spelling (T.SPELLINGS)."""
    places = T.SPELLINGS.get(key, (("training", key),))
    for section, native in places:
        sec = data.get(section)
        if isinstance(sec, dict) and native in sec:
            return sec[native], section, native, True
    return default, places[0][0], places[0][1], False


def _degree(data: dict, key: str, file: str) -> tuple[int, str]:
    value, section, native, _set = lookup(data, key, T.PARALLEL_DEFAULTS[key])
    return _whole(section, native, value, file), native


def _batch_flags(data: dict, notes: list[str], src: str, file: str, line) -> dict[str, tuple[str, int]]:
    flags: dict[str, tuple[str, int]] = {}
    for key, flag in (("local_batch_size", "micro_batch_size"), ("seq_len", "seq_length")):
        value, section, native, given = lookup(data, key, T.TRAINING_DEFAULTS[key])
        flags[flag] = (str(_whole(section, native, value, file)), line(native))
        if not given:
            notes.append(f"[training] {key} not set: {value} ({src})")
    gbs, _s, native, given = lookup(data, "global_batch_size")
    if given and (as_int(gbs) or 0) > 0:
        notes.append(f"[training] global_batch_size {gbs}: gradient accumulation up to it (one micro-batch of "
                     f"local_batch_size in memory at a time)")
    prec, _s, native, _g = lookup(data, "mixed_precision_param", "bfloat16")
    if str(prec).lower() == "bfloat16":
        flags["bf16"] = ("true", line(native))
    return flags


def _flags(data: dict, kind: str, file: str, line) -> tuple[dict[str, tuple[str, int]], list[str]]:
    """The Megatron flags that split and size the job as torchtitan runs it, with notes of the defaults taken."""
    notes: list[str] = []
    src = T.PRIMUS_TORCHTITAN_SOURCE if kind == "primus" else T.TORCHTITAN_SOURCE
    flags = _batch_flags(data, notes, src, file, line)
    for key, flag in T.PARALLEL_FLAGS.items():
        value, native = _degree(data, key, file)
        if value > 1:
            flags[flag] = (str(value), line(native))
    tp = _degree(data, "tensor_parallel_degree", file)[0]
    if tp > 1:
        # torchtitan's apply_tp (torchtitan/models/llama3/infra/parallelize.py): SequenceParallel on the norms,
        # the blocks' outputs Shard(1) over the sequence and the logits Shard(-1) (loss parallel)
        flags["sequence_parallel"] = ("true", line("tensor_parallel_degree"))
        notes.append(f"tensor_parallel_degree {tp}: torchtitan's TP shards the norms' and blocks' outputs over the "
                     f"sequence (SequenceParallel) and the logits over the vocabulary (loss parallel)")
    shard, snative = _degree(data, "data_parallel_shard_degree", file)
    dp_type = str(lookup(data, "data_parallel_type", "fsdp")[0]).lower()
    if shard != 1 and dp_type != "ddp":
        flags["use_torch_fsdp2"] = ("true", line(snative))
        notes.append(f"torchtitan {snative} {shard}: FSDP2 fully_shard of the weights, gradients and optimizer state "
                     f"over the data-parallel ranks ({src})")
    replicate, rnative = _degree(data, "data_parallel_replicate_degree", file)
    if replicate > 1 and "use_torch_fsdp2" in flags:
        flags["dp_replicate"] = (str(replicate), line(rnative))
        notes.append(f"{rnative} {replicate} (HSDP): each replica group of data_parallel_shard_degree ranks holds a "
                     f"whole sharded copy; the shards are 1/{shard if shard > 0 else 'dp_shard'} each "
                     f"(torchtitan/distributed/parallel_dims.py, the dp_replicate x dp_shard mesh)")
    if as_bool(lookup(data, "enable_cpu_offload", False)[0]):
        flags["optimizer_cpu_offload"] = ("true", line("enable_cpu_offload"))
        notes.append("[training] enable_cpu_offload: FSDP2's CPUOffloadPolicy keeps the sharded weights, gradients "
                     "and optimizer state in host RAM (counted: the optimizer state; an upper bound)")
    _ac_flags(data, kind, src, flags, notes, line)
    # torchtitan's blocks are plain torch (torchtitan/models/llama3/model/model.py: nn.RMSNorm, FeedForward
    # `w2(F.silu(w1(x)) * w3(x))`): no Transformer Engine norm nor fused SwiGLU kernel keeps less
    flags["transformer_impl"] = ("local", 0)
    flags["no_bias_swiglu_fusion"] = ("true", 0)
    flags["attention_backend"] = ("sdpa", 0)   # its Attention calls F.scaled_dot_product_attention (model.py)
    return flags, notes


def _ac_flags(data: dict, kind: str, src: str, flags: dict, notes: list[str], line) -> None:
    """[activation_checkpoint] mode: full recomputes every block; selective with a number N wraps every N-th block
    (torchtitan/distributed/activation_checkpoint.py _apply_layer_sac: layer_id % N == 0); selective "op" keeps the
    matmul outputs (counted as no recomputation, an upper bound)."""
    ac = _section(data, "activation_checkpoint")
    mode = str(ac.get("mode", T.AC_DEFAULT[kind])).lower()
    option = str(ac.get("selective_ac_option", "2")).strip().lower()
    if mode == "full":
        flags["recompute_granularity"] = ("full", line("mode"))
    elif mode == "selective" and option.isdigit() and int(option) > 0:
        layers = _layers(data)
        pp = as_int(flags.get("pipeline_model_parallel_size", ("1", 0))[0]) or 1
        if layers:
            stage = max(1, layers // pp)
            every = int(option)
            flags["recompute_granularity"] = ("full", line("mode"))
            flags["recompute_method"] = ("block", line("selective_ac_option"))
            flags["recompute_num_layers"] = (str(stage // every), line("selective_ac_option"))
            notes.append(f"[activation_checkpoint] mode selective, selective_ac_option {option}: every {every}th of "
                         f"the {layers} blocks recomputed ({stage // every} of {stage} per stage)")
        else:
            notes.append(f"[activation_checkpoint] mode selective (option {option}): the model's layer count is not "
                         f"known here: counted as no recomputation (an upper bound)")
    elif mode == "selective":
        notes.append(f"[activation_checkpoint] mode selective (option {option}): counted as no recomputation (an "
                     f"upper bound)")
    if "mode" not in ac:
        notes.append(f"[activation_checkpoint] mode not set: {T.AC_DEFAULT[kind]} ({src})")


def _layers(data: dict) -> int | None:
    key = flavor_entry(_section(data, "model"))
    return T.FLAVORS[key][1] if key is not None and key in T.FLAVORS else None


def compiled_loss(data: dict, kind: str) -> bool:
    """torchtitan compiles its loss (train.py: `torch.compile(loss_fn)` when compile.enable and "loss" in
    compile.components; before the [compile] section, `[training] compile = true` compiled the loss too: e10cb9494
    "Move output .float() to loss fn and compile it if compiling", torchtitan/components/loss.py
    build_cross_entropy_loss): build_cross_entropy_loss's `F.cross_entropy(pred.float(), labels)` is then one fused
    kernel that never stores the fp32 upcast of the [tokens, vocab] logits nor their fp32 log-softmax."""
    comp = _section(data, "compile")
    if not comp and "compile" in _section(data, "training"):
        return as_bool(_section(data, "training")["compile"]) is True
    enable = as_bool(comp.get("enable", T.COMPILE_DEFAULT[kind]))
    parts = comp.get("components", list(T.COMPILE_COMPONENTS_DEFAULT))
    return bool(enable) and isinstance(parts, list) and "loss" in [str(p).lower() for p in parts]


def apply_overrides(data: dict, overrides: list[tuple[str, object]]) -> dict:
    """`--section.key value` command-line words over the TOML's data (torchtitan's ConfigManager: the CLI wins over
    the file); `--job.config_file` itself is no override."""
    out = {k: (dict(v) if isinstance(v, dict) else v) for k, v in data.items()}
    for dotted, value in overrides:
        section, _, key = dotted.partition(".")
        if not key or dotted.replace("-", "_") == "job.config_file":
            continue
        sec = out.get(section)
        if not isinstance(sec, dict):
            sec = out[section] = {}
        sec[key.replace("-", "_")] = value
    return out


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
    for key, setting in list(out.items()):
        if setting.native in T.NATIVE_KEYS:
            canon = T.NATIVE_KEYS[setting.native]
            native = lookup(data, canon)[2] if canon in T.SPELLINGS else canon
            # a TOML line (kind "toml": a fix edits `key = value` there); a Primus YAML's keys stay Megatron flags
            how = "toml" if kind == "torchtitan" and setting.line else setting.kind
            out[key] = Setting(key, setting.value, setting.file, setting.line, native, how, setting.invert)
    if "dp_replicate" in flags:
        out["__dp_replicate__"] = Setting("__dp_replicate__", int(flags["dp_replicate"][0]), file,
                                          flags["dp_replicate"][1] or None, "data_parallel_replicate_degree", "yaml")
    if "use_torch_fsdp2" in flags:
        # torchtitan's FSDP mesh is dp_shard x cp (parallel_dims.py "dp_shard_cp"): the context-parallel ranks
        # hold shards too
        out["__fsdp_cp__"] = Setting("__fsdp_cp__", True, file, None, "dp_shard_cp", "default")
    ref = _model_ref(_section(data, "model"), primus_file)
    if ref is not None:
        out["model_name_or_path"] = Setting("model_name_or_path", ref[0], file, line("flavor") or line("model") or None,
                                            "model", "yaml")
        shown = ref[0] if isinstance(ref[0], str) else (f"{ref[0]['num_hidden_layers']} layers x "
                                                         f"{ref[0]['hidden_size']}, vocab {ref[0]['vocab_size']}")
        notes.append(f"the model torchtitan builds from {ref[1]}: {shown}")
    if compiled_loss(data, kind):
        out["compiled_loss"] = Setting("compiled_loss", "true", file, line("compile") or None, "compile", "yaml")
        notes.append("[compile] enable with the loss among its components: the cross-entropy compiled, no fp32 copy "
                     "of the logits nor fp32 log-softmax held (torchtitan/components/loss.py)")
    opt = str(_section(data, "optimizer").get("name") or "AdamW")
    if opt.lower() not in ("adamw", "adam"):
        notes.append(f"[optimizer] name {opt!r}: its state counted as AdamW's two fp32 moments per weight (torchtitan "
                     f"components/optimizer.py builds Adam / AdamW)")
    out["finetuning_type"] = Setting("finetuning_type", "full", file, None, "torchtitan trains every weight", "default")
    if as_bool(_section(data, "float8").get("enable_float8_linear")) or \
            "float8" in str(_section(data, "model").get("converters") or ""):
        notes.append("torchtitan float8 training counted as bf16 (an upper bound)")
    notes.append(f"{'AMD Primus torchtitan experiment' if kind == 'primus' else 'torchtitan job config'} read as "
                 f"the layout it runs ({T.TORCHTITAN_SOURCE})")
    return out, notes
