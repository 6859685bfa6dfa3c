"""AutoTrain Advanced's LLM fine-tuning (huggingface/autotrain-advanced): `autotrain llm --train ...` in the 2023 and
the later spelling, and `autotrain --config X.yml` (task: llm-*), read into check's canonical settings with the
defaults of the release that spelling (or a `autotrain-advanced==X` pin) names (profiles/autotrain.py). Pure.

What the source does for memory (per release in profiles/autotrain.RELEASES):
- LoRA only under peft; quantization int4 -> bitsandbytes nf4 with fp16 compute, int8 -> 8-bit, only under peft;
- the PEFT load dtype: float16 up to 0.6.51; none from 0.6.52 (transformers' fp32; bitsandbytes' float16 when
  quantized); a full fine-tune never passes one (fp32);
- mixed_precision None -> the Trainer's fp32; fp16/bf16 -> TrainingArguments fp16/bf16 (autocast);
- gradient checkpointing: up to 0.6.51 only prepare_model_for_int8_training (quantized); from 0.6.52
  TrainingArguments(gradient_checkpointing=not disable_gradient_checkpointing);
- sequence: block_size, -1 -> min(tokenizer max, 1024); sft/default trainers pack the texts into blocks (every row
  is block_size tokens);
- launch: one process with device_map="auto" up to 0.6.20; from 0.6.21 `accelerate launch --multi_gpu
  --num_processes <visible GPUs>` (DDP, a whole model per GPU); distributed_backend deepspeed: ZeRO-3.
"""
from __future__ import annotations

import re
from collections.abc import Mapping

from rocm_tune.core.runners.common import Default, Setting, as_bool, as_int
from rocm_tune.profiles import autotrain as P

ENTRY = "autotrain llm"
PIN = re.compile(r"autotrain-advanced\s*==\s*(\d+)\.(\d+)\.(\d+)")


def entry(argv: list[str]) -> int | None:
    """Index of `llm` in `autotrain llm ...` (the LLM fine-tuning command of run_llm.py), else None."""
    for i, w in enumerate(argv[:-1]):
        if w.lstrip("!").rsplit("/", 1)[-1] == "autotrain" and argv[i + 1] == "llm":
            rest = argv[i + 2:]
            # run_llm.py trains only under --train; --deploy / --inference alone do not train
            if "--train" not in rest and any(a in rest for a in ("--deploy", "--inference")):
                return None
            return i + 1
    return None


def config_entry(argv: list[str]) -> tuple[int, str] | None:
    """`autotrain --config X.yml` (src/autotrain/cli/autotrain.py: the config parser runs the task it names):
    (index of the word before the file, the file), else None."""
    for i, w in enumerate(argv):
        if w.lstrip("!").rsplit("/", 1)[-1] != "autotrain":
            continue
        rest = argv[i + 1:]
        for j, r in enumerate(rest):
            if r == "--config" and j + 1 < len(rest):
                return i + j + 1, rest[j + 1]          # the program's words start with the file
            if r.startswith("--config="):
                return i + j, r.split("=", 1)[1]
    return None


def is_config(data) -> bool:
    """An AutoTrain YAML of an LLM task: `task: llm-*` with `base_model` (parser.py AutoTrainConfigParser)."""
    return isinstance(data, dict) and str(data.get("task", "")).lower() in P.LLM_TASKS and "base_model" in data


def release_of(texts: Mapping[str, str], old_spelling: bool) -> tuple[dict, str]:
    """The release whose behaviour is modelled: a `autotrain-advanced==X.Y.Z` pin in the files, else by spelling."""
    for text in texts.values():
        m = PIN.search(text)
        if m:
            v = tuple(int(x) for x in m.groups())
            for r in P.RELEASES:
                if r["first"] <= v <= r["last"]:
                    return r, f"autotrain-advanced=={'.'.join(m.groups())} pinned: read as release {r['name']}"
    name = P.OLD_CLI_RELEASE if old_spelling else P.NEW_CLI_RELEASE
    r = next(x for x in P.RELEASES if x["name"] == name)
    why = ("the 2023 spelling (--use_peft/--use_int4/--fp16, autotrain-advanced 0.6.3-0.6.51) without a version "
           "pin: read as 0.6.21-0.6.51, one DDP rank per GPU (0.6.3-0.6.20 split the model over the GPUs in one "
           "process instead)") if old_spelling else (
           "no autotrain-advanced version pinned: read with the newest releases' defaults (0.7.32+)")
    return r, why


def fields_of_flags(flags: Mapping[str, tuple[str, int | None]]) -> tuple[dict[str, tuple[object, int | None]], bool]:
    """Command flags ({name as written: (value, line)}) -> ({LLMTrainingParams field: (value, line)}, old spelling)."""
    out: dict[str, tuple[object, int | None]] = {}
    old = False
    for raw, (value, line) in flags.items():
        name = raw.replace("-", "_")
        if name in P.OLD_ONLY or raw in P.OLD_ONLY_RAW:     # the 2023 CLI's own (--use_int4, --fp16, --use_peft)
            old = True
        if name in P.OLD_SWITCHES:
            field, v = P.OLD_SWITCHES[name]
            if as_bool(value) is not False:
                out[field] = (v, line)
        elif name in P.FLAG_FIELDS:
            out[P.FLAG_FIELDS[name]] = (value, line)
    return out, old


def fields_of_config(data: dict, lines: Mapping[str, int]) -> dict[str, tuple[object, int | None]]:
    """An AutoTrain YAML -> {field: (value, line)}: base_model, params:, the task's trainer (parser.py)."""
    out: dict[str, tuple[object, int | None]] = {"model": (data.get("base_model"), lines.get("base_model"))}
    task = str(data.get("task", "llm")).lower()
    if "-" in task:
        out["trainer"] = (task.split("-", 1)[1], lines.get("task"))
    raw = data.get("params")
    params: dict = raw if isinstance(raw, dict) else {}
    for k, v in params.items():
        field = P.FLAG_FIELDS.get(str(k), str(k))
        out[field] = (v, lines.get(str(k)))
    return out


def _none(v) -> bool:
    return v is None or str(v).strip().lower() in ("none", "null", "")


def read(fields: Mapping[str, tuple[object, int | None]], file: str | None, release: dict
         ) -> tuple[dict[str, Setting], list[str]]:
    """LLMTrainingParams fields -> (canonical settings, notes), with the release's defaults where unset."""
    d = release["defaults"]
    src = f"{P.REPO}:{release['src']} at {release['commit']}"
    out: dict[str, Setting] = {}
    notes = [f"AutoTrain Advanced LLM fine-tuning, release {release['name']}: its parameters read with its defaults "
             f"({src})"]

    def put(key, value, native, line, kind="flag"):
        out[key] = Setting(key, value, file, line, native, kind)

    def get(name, default=None):
        v = fields.get(name)
        return (default, None) if v is None or _none(v[0]) else v

    model, ml = get("model")
    if model:
        put("model_name_or_path", str(model), "model", ml)
    peft, pl = get("peft", False)
    peft = bool(as_bool(peft))
    quant, ql = get("quantization", d["quantization"])
    if "quantization" in fields and _none(fields["quantization"][0]):   # `quantization: null` / none: unquantized
        quant, ql = None, fields["quantization"][1]
    if peft:
        put("finetuning_type", "lora", "peft", pl)
        r, rl = get("lora_r", 16)
        put("lora_rank", as_int(r) or 16, "lora_r", rl, "flag" if rl else "default")
        a, al = get("lora_alpha", 32)
        put("lora_alpha", as_int(a) or 32, "lora_alpha", al, "flag" if al else "default")
        t, tl = get("target_modules", d["target_modules"])
        put("lora_target", "__peft_default__" if t is None else str(t).replace(" ", ""), "target_modules", tl,
            "flag" if tl else "default")
        bits = {"int4": 4, "int8": 8}.get(str(quant).lower()) if quant else None
        if bits:
            put("quantization_bit", bits, "quantization", ql, "flag" if ql else "default")
            put("double_quantization", False, "bnb_4bit_use_double_quant", None, "default")
            notes.append(f"quantization {quant}" + ("" if ql else " (the release's default)") + ": bitsandbytes "
                         f"{'nf4 with float16 compute' if bits == 4 else '8-bit'} base weights (get_model)")
    else:
        put("finetuning_type", "full", "peft", pl, "flag" if pl else "default")
        if quant and ql:
            notes.append(f"quantization {quant} without peft: not applied (AutoTrain quantizes only under peft)")
        quant = None
    _precision(get, put, notes, peft, quant, release)
    _sequence(get, put, notes, d)
    b, bl = get("batch_size", d["batch_size"])
    put("per_device_train_batch_size", as_int(b) or d["batch_size"], "batch_size", bl, "flag" if bl else "default")
    g, gl = get("gradient_accumulation", d["gradient_accumulation"])
    put("gradient_accumulation_steps", as_int(g) or 1, "gradient_accumulation", gl, "flag" if gl else "default")
    _checkpointing(get, put, notes, d, peft, quant)
    if as_bool(get("use_flash_attention_2", False)[0]) or str(get("attn_implementation")[0]) == "flash_attention_2":
        put("flash_attn", "fa2", "use_flash_attention_2", get("use_flash_attention_2")[1])
    opt, ol = get("optimizer")
    if opt:
        put("optim", str(opt), "optimizer", ol)
    trainer, tl = get("trainer", "default")
    stage = P.TRAINER_STAGES.get(str(trainer).lower(), "sft")
    put("stage", stage, "trainer", tl, "flag" if tl else "default")
    if as_bool(get("unsloth", False)[0]):
        notes.append("unsloth: AutoTrain loads through Unsloth's FastLanguageModel (its kernels and "
                     "use_gradient_checkpointing=\"unsloth\" are not counted here: an upper bound)")
    if str(trainer).lower() == "reward":
        notes.append("trainer reward: AutoModelForSequenceClassification on chosen and rejected, estimated as an SFT "
                     "step")
    return out, notes


def _precision(get, put, notes: list, peft: bool, quant, release: dict) -> None:
    mp, ml = get("mixed_precision")
    if str(mp).lower() in ("fp16", "bf16"):
        put(str(mp).lower(), True, "mixed_precision", ml)
    if peft and release["peft_dtype"]:
        put("load_dtype", release["peft_dtype"], "torch_dtype", None, "default")
        notes.append(f"PEFT load in {release['peft_dtype']} (from_pretrained(torch_dtype=torch.float16), "
                     f"release {release['name']})")
    elif peft and quant:
        put("load_dtype", "fp16", "torch_dtype", None, "default")
        notes.append("from_pretrained without torch_dtype under bitsandbytes: transformers loads the unquantized "
                     "modules in float16")
    else:
        put("load_dtype", "fp32", "torch_dtype", None, "default")
        notes.append("from_pretrained without torch_dtype: the weights load in fp32 (transformers' default)")


def _sequence(get, put, notes: list, d: dict) -> None:
    bs, bl = get("block_size", -1)
    mml, mll = get("model_max_length", d["model_max_length"])
    block = as_int(bs)
    cap = as_int(mml) or d["model_max_length"]
    if block is None or block <= 0:
        put("cutoff_len", min(P.BLOCK_DEFAULT_CAP, cap), "block_size", bl, "default")
        notes.append(f"block_size -1 (default): the tokenizer's length, at most {P.BLOCK_DEFAULT_CAP} "
                     f"(configure_block_size)")
    else:
        put("cutoff_len", min(block, cap), "block_size", bl or mll)
        if block > cap:
            notes.append(f"block_size {block} over model_max_length {cap}: the tokenizer's length is cut to "
                         f"model_max_length when it states more than {P.TOKENIZER_CAP_ABOVE} (most LLMs), so "
                         f"block_size {cap}")
    put("packing", True, "trainer", None, "default")


def _checkpointing(get, put, notes: list, d: dict, peft: bool, quant) -> None:
    dg, dl = get("disable_gradient_checkpointing", False)
    if d["gc"] == "on":
        put("disable_gradient_checkpointing", bool(as_bool(dg)), "disable_gradient_checkpointing", dl,
            "flag" if dl else "default")
        return
    on = peft and bool(quant)      # 2023 releases: only prepare_model_for_int8_training turns it on
    put("disable_gradient_checkpointing", not on, "prepare_model_for_int8_training", None, "default")
    notes.append("gradient checkpointing " + ("on: prepare_model_for_int8_training (quantized PEFT)" if on else
                 "off: the 2023 releases turn it on only for a quantized PEFT model"))


def launch(fields: Mapping[str, tuple[object, int | None]], release: dict) -> tuple[str, int | None]:
    """("device_map" | "ddp" | "deepspeed", ZeRO stage or None): how the release starts the training."""
    db = fields.get("distributed_backend")
    if db is not None and str(db[0]).lower() == "deepspeed" and release["launch"] == "ddp":
        return "deepspeed", P.DEEPSPEED_STAGE
    return release["launch"], None


DEFAULTS = {
    "cutoff_len": Default(P.BLOCK_DEFAULT_CAP, f"{P.REPO}:src/autotrain/trainers/clm/utils.py (configure_block_size)"),
}
