"""The head a job trains the model with, read from its files (profiles/model_heads.py): a program's model class and
PEFT task type, a trainer's stage, a retrieval trainer's module; and the rows and length such trainers run."""

from __future__ import annotations

from rocm_tune.core.runners.common import Setting, as_int
from rocm_tune.core.runners.values import call_name, py_value
from rocm_tune.profiles import model_heads as P

HEAD_KEY = "__head__"
LABELS_KEY = "__head_labels__"
COUNTS_KEY = "__command_counts__"     # the command's whole-number flags as written (runners/hf.py read_flags)


def _class_head(owner: str) -> str | None:
    return next((head for suffix, head in P.CLASS_HEADS if owner.endswith(suffix)), None)


def program_head(calls: list, names: dict, file: str) -> dict[str, Setting]:
    """A Python program's head: the first `<X>ForSequenceClassification.from_pretrained(..., num_labels=N)` (or
    AutoModelForCausalLMWithValueHead), else a LoraConfig(task_type=SEQ_CLS) on a model loaded elsewhere."""
    out: dict[str, Setting] = {}
    loads = [(c, call_name(c.func.value)) for c in calls
             if call_name(c.func) == "from_pretrained" and hasattr(c.func, "value")]
    if any(owner.endswith(P.LM_CLASSES) for _c, owner in loads):
        # a causal LM is loaded: it is what trains (TRL's PPO loads its reward and value models as classifiers
        # beside the policy), whatever an adapter's task type says
        return out
    for c, owner in loads:
        head = _class_head(owner)
        if head is None:
            continue
        out[HEAD_KEY] = Setting(HEAD_KEY, head, file, c.lineno, f"{owner}.from_pretrained", "flag")
        kw = next((k for k in c.keywords if k.arg == "num_labels"), None)
        n = as_int(py_value(kw.value, names)) if kw is not None else None
        if head == "score":
            out[LABELS_KEY] = Setting(LABELS_KEY, n or P.DEFAULT_LABELS, file, kw.value.lineno if kw else c.lineno,
                                      "num_labels", "flag" if n else "assumed")
        return out
    for c in calls:
        if call_name(c.func) != "LoraConfig":
            continue
        kw = next((k for k in c.keywords if k.arg == "task_type"), None)
        v = kw.value if kw is not None else None
        text = (call_name(v) if v is not None and not isinstance(py_value(v, names), str)
                else str(py_value(v, names) or ""))
        if text.split(".")[-1].upper() == "SEQ_CLS":
            out[HEAD_KEY] = Setting(HEAD_KEY, "score", file, c.lineno, "LoraConfig(task_type=SEQ_CLS)", "flag")
            out[LABELS_KEY] = Setting(LABELS_KEY, P.DEFAULT_LABELS, file, c.lineno, "num_labels", "assumed")
            return out
    return out


def swift_task(key: str, value: str, file: str, line: int | None) -> dict[str, Setting]:
    """ms-swift's --task_type (seq_cls / embedding / reranker: profiles/model_heads.SWIFT_TASK_HEADS) and
    --num_labels -> the head's settings."""
    if key == "num_labels":
        n = as_int(value)
        return {LABELS_KEY: Setting(LABELS_KEY, n, file, line, key, "flag")} if n else {}
    got = P.SWIFT_TASK_HEADS.get(str(value).strip().lower())
    if got is None:
        return {}
    head, n = got
    out = {HEAD_KEY: Setting(HEAD_KEY, head, file, line, f"--task_type {value}", "flag")}
    if n is not None:
        out[LABELS_KEY] = Setting(LABELS_KEY, n, file, line, f"--task_type {value}", "flag")
    return out


def module_head(entry: str) -> tuple[str, str, str] | None:
    """(head, how rows are made, the module) of a retrieval trainer's `python -m` entry, else None."""
    words = str(entry or "").replace("/", ".").split()
    for w in words:
        for module, head, rows in P.MODULE_HEADS:
            if w == module or w.startswith(module + ".") or w.startswith(module + "_"):
                return head, rows, w
    return None


def _flag_int(job, keys: tuple[str, ...], default: int) -> tuple[int, str]:
    """The trainer's whole-number flag under one of its names (a setting, or the command's counts as written)."""
    counts = job.get(COUNTS_KEY)
    counts = counts if isinstance(counts, dict) else {}
    for k in keys:
        v = as_int(job.get(k)) or as_int((counts.get(k) or (None,))[0])
        if v:
            return v, f"--{k} {v}"
    return default, f"{keys[0]} {default} (the trainer's default)"


def _retrieval(job, values: dict, head: str, rows: str, module: str, a: list[str]) -> dict:
    """Rows and length of one micro-batch of a reranker / embedder trainer."""
    group, gsaid = _flag_int(job, (P.GROUP_KEY,), P.RETRIEVAL_DEFAULTS["train_group_size"])
    q, qsaid = _flag_int(job, P.QUERY_LEN_KEYS, P.RETRIEVAL_DEFAULTS["query_max_len"])
    p, psaid = _flag_int(job, P.PASSAGE_LEN_KEYS, P.RETRIEVAL_DEFAULTS["passage_max_len"])
    batch = int(values.get("micro_batch") or 1)
    if rows == "pairs":
        n, length = batch * group, q + p
        a.append(f"{module}: each query's {group} pairs ({gsaid}) are rows of one forward, each query+passage up to "
                 f"{length} tokens ({qsaid} + {psaid}): {batch} x {group} = {n} rows per micro-batch")
    else:
        n, length = batch * (1 + group), max(q, p)
        a.append(f"{module}: the query's row and {group} passage rows ({gsaid}) per query, counted at the longer of "
                 f"{qsaid} and {psaid} ({length} tokens): {batch} x (1 + {group}) = {n} rows per micro-batch")
    return {"micro_batch": n, "cutoff_len": length}


def config_head(job, values: dict, a: list[str]) -> dict:
    """TrainConfig's head / head_labels (and, for a retrieval trainer, its rows and length) of a job."""
    stage = str(job.get("stage", "sft") or "sft").strip().lower()
    mod = module_head(getattr(job, "entry", "") or "")
    if mod is not None:
        head, rows, module = mod
        out = {"head": head, "head_labels": 1 if head == "score" else 0, "fused_ce": False}
        out.update(_retrieval(job, values, head, rows, module, a))
        return out
    if job.runner == "llamafactory" and stage == "rm":
        a.append(P.LF_RM_SOURCE)
        return {"head": "value", "head_labels": 1, "fused_ce": False}
    if stage in P.STAGE_HEADS and job.runner != "llamafactory":
        head, n, said = P.STAGE_HEADS[stage]
        a.append(said)
        return {"head": head, "head_labels": n, "fused_ce": False}
    head = job.get(HEAD_KEY)
    if head in P.HEADS and head != "lm":
        n = as_int(job.get(LABELS_KEY)) or (P.DEFAULT_LABELS if head == "score" else 0)
        s = job.settings.get(HEAD_KEY)
        where = f"{s.native} (line {s.line})" if s is not None and s.line else str(head)
        a.append(f"{where}: the model's head is " + (f"a score Linear(hidden, {n}) over every position, pooled at "
                 f"the last token (transformers *ForSequenceClassification), no lm_head" if head == "score" else
                 "a value head beside the causal LM (trl AutoModelForCausalLMWithValueHead)"))
        return {"head": head, "head_labels": n, "fused_ce": False}
    return {}
