"""Local datasets for the built-in trainer: alpaca and sharegpt/messages, chat-templated, prompt-masked.

Records are read by `rocm_tune.core.data.dataset.read_samples` (the loader `rocm-tune dataset` uses too, strict
mode: a record that cannot be read is a UserError naming the file and record) and rendered with the tokenizer's chat template (a simple fallback template when it has none),
tokenised segment by segment so that labels are -100 on everything except assistant replies
(unless `train_on_prompt`), truncated to cutoff_len, optionally packed into cutoff_len blocks.
torch is imported inside functions only.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rocm_tune.core.data import dataset
from rocm_tune.core.errors import UserError

IGNORE_INDEX = -100

FALLBACK_ROLES = {"system": "### System:\n", "user": "### User:\n", "assistant": "### Assistant:\n"}

# roles of core.data.dataset's normalized turns -> chat-template roles (observations go in as user turns)
_CHAT_ROLE = {"system": "system", "user": "user", "assistant": "assistant", "tool": "user", "text": "text"}


# ----------------------------------------------------------------------------------------------
# reading: core.data.dataset is the one loader (formats, dataset_info.json, one-line errors)


def _chat(turns: list) -> list[dict]:
    """Normalized turns -> [{"role", "content"}]; leading system turns (tools + system) become one."""
    msgs: list[dict] = []
    for role, text in turns:
        r = _CHAT_ROLE[role]
        if r == "system" and len(msgs) == 1 and msgs[0]["role"] == "system":
            msgs[0] = {"role": "system", "content": msgs[0]["content"] + "\n\n" + text}
        else:
            msgs.append({"role": r, "content": text})
    return msgs


def to_messages(rec: dict, fmt: str, columns: dict | None = None, tags: dict | None = None) -> list[dict]:
    """One record of format alpaca | sharegpt | messages | text -> [{"role", "content"}, ...]."""
    cols = {"system": "system", "history": "history"} if fmt == "alpaca" else {"system": "system"}
    if fmt == "messages":
        cols["messages"] = "messages"
    elif fmt == "text":
        cols = {"prompt": "text"}
    entry = {"formatting": "sharegpt" if fmt in ("sharegpt", "messages") else "alpaca",
             "columns": {**cols, **(columns or {})},
             "tags": {**(dataset.OPENAI_TAGS if fmt == "messages" else {}), **(tags or {})}}
    turns, _ = dataset.record_turns(rec, dataset.entry_format(entry, fmt), strict=True)
    return _chat(turns)


def resolve_dataset_files(dataset_names: str, dataset_dir: str) -> list[tuple[tuple[Path, ...], Any, str]]:
    """LLaMA-Factory `dataset` names -> [(files, dataset_info entry or None = detect, label)].

    A name is looked up in dataset_dir/dataset_info.json, else taken as a file in dataset_dir."""
    out: list[tuple[tuple[Path, ...], Any, str]] = []
    d = Path(dataset_dir)
    info_path = d / "dataset_info.json"
    info = dataset.read_dataset_info(info_path) if info_path.is_file() else {}
    for name in [x.strip() for x in dataset_names.split(",") if x.strip()]:
        if name in info:
            attr = dataset.entry_attr(d, info_path, name, info[name])
            out.append((attr.files, attr, f"{d} ({name})"))
            continue
        for cand in (d / name, d / f"{name}.json", d / f"{name}.jsonl", Path(name)):
            if cand.is_file():
                out.append(((cand,), None, str(cand)))
                break
        else:
            raise UserError(
                f"dataset {name!r} is neither in {info_path} nor a file in {str(d)!r}; "
                "use train_file: PATH for a local JSON/JSONL file"
            )
    return out


def load_conversations(cfg) -> list[list[dict]]:
    """All conversations of a TrainerConfig's dataset(s), as message lists (at most max_samples)."""
    sources: list[tuple[tuple[Path, ...], Any, str]] = []
    if cfg.train_file:
        sources.append(((Path(cfg.train_file),), None, str(cfg.train_file)))
    if cfg.dataset:
        sources += resolve_dataset_files(cfg.dataset, cfg.dataset_dir)
    convs: list[list[dict]] = []
    for files, attr, label in sources:
        limit = cfg.max_samples - len(convs) if cfg.max_samples else None
        if limit is not None and limit <= 0:
            break
        samples, _, _ = dataset.read_samples(files, attr, label=label, strict=True, limit=limit)
        for turns, rejected in samples:
            if rejected is not None:
                raise UserError(
                    f"dataset {label} is preference data (chosen/rejected); rocm-tune train runs stage sft/pt "
                    "only (DPO/RM need LLaMA-Factory: llamafactory-cli train)"
                )
            convs.append(_chat(turns))
    return convs


# ----------------------------------------------------------------------------------------------
# rendering and tokenising


def _render(tokenizer, msgs: list[dict], add_generation_prompt: bool) -> str:
    return tokenizer.apply_chat_template(msgs, tokenize=False, add_generation_prompt=add_generation_prompt)


def _fallback_segments(tokenizer, msgs: list[dict]) -> list[tuple[str, bool]]:
    eos = tokenizer.eos_token or ""
    segs: list[tuple[str, bool]] = []
    for m in msgs:
        if m["role"] == "assistant":
            segs.append((FALLBACK_ROLES["assistant"], False))
            segs.append((m["content"] + eos, True))
            segs.append(("\n\n", False))
        else:
            segs.append((FALLBACK_ROLES.get(m["role"], "### User:\n") + m["content"] + "\n\n", False))
    return segs


def segments(tokenizer, msgs: list[dict]) -> list[tuple[str, bool]]:
    """[(text, trainable)] whose concatenation is the rendered conversation."""
    if msgs and msgs[0]["role"] == "text":  # pretraining text: everything is trainable
        return [(msgs[0]["content"] + (tokenizer.eos_token or ""), True)]
    if not getattr(tokenizer, "chat_template", None):
        return _fallback_segments(tokenizer, msgs)
    try:
        segs: list[tuple[str, bool]] = []
        prev = ""
        for k, m in enumerate(msgs):
            if m["role"] == "assistant":
                before = _render(tokenizer, msgs[:k], add_generation_prompt=True) if k else ""
                after = _render(tokenizer, msgs[: k + 1], add_generation_prompt=False)
                if not before.startswith(prev) or not after.startswith(before):
                    return _fallback_segments(tokenizer, msgs)
                if before[len(prev):]:
                    segs.append((before[len(prev):], False))
                segs.append((after[len(before):], True))
                prev = after
        full = _render(tokenizer, msgs, add_generation_prompt=False)
        if not full.startswith(prev):
            return _fallback_segments(tokenizer, msgs)
        if full[len(prev):]:
            segs.append((full[len(prev):], False))
        return segs
    except Exception:  # a template that cannot render these roles
        return _fallback_segments(tokenizer, msgs)


@dataclass
class Example:
    input_ids: list[int]
    labels: list[int]


# ----------------------------------------------------------------------------------------------
# LLaMA-Factory's own templates: the YAML's `template:` rendered as LLaMA-Factory renders it, so the built-in
# trainer on an exported YAML trains on the same tokens. Read in llamafactory 0.9.5:
# data/template.py (register_template "qwen"; Template._encode: turn 0 = prefix + system block + user, the
# template's default_system when the sample has none; every element tokenised on its own with
# add_special_tokens=False), data/processor/supervised.py (_encode_data_example: (source, target) pairs,
# source masked unless train_on_prompt) and data/processor/processor_utils.py (infer_seqlen: the cutoff
# is shared between source and target). Templates not listed here are rendered with the tokenizer's chat
# template instead, and the trainer says so.
LF_TEMPLATES: dict[str, dict[str, str]] = {
    "qwen": {
        "system": "<|im_start|>system\n{content}<|im_end|>\n",
        "user": "<|im_start|>user\n{content}<|im_end|>\n<|im_start|>assistant\n",
        "assistant": "{content}<|im_end|>\n",
        "default_system": "You are Qwen, created by Alibaba Cloud. You are a helpful assistant.",
    },
}


def infer_seqlen(source_len: int, target_len: int, cutoff_len: int) -> tuple[int, int]:
    """LLaMA-Factory's split of the remaining cutoff between a turn's prompt and response."""
    if target_len * 2 < cutoff_len:
        max_target_len = cutoff_len
    elif source_len * 2 < cutoff_len:
        max_target_len = cutoff_len - source_len
    else:
        max_target_len = int(cutoff_len * (target_len / (source_len + target_len)))
    new_target_len = min(max_target_len, target_len)
    new_source_len = min(max(cutoff_len - new_target_len, 0), source_len)
    return new_source_len, new_target_len


def lf_pairs(tokenizer, name: str, msgs: list[dict]) -> list[tuple[list[int], list[int]]] | None:
    """[(prompt ids, response ids)] per turn as LLaMA-Factory's template `name` encodes them; None when the
    conversation is not user/assistant turns (the caller then uses the chat template)."""
    t = LF_TEMPLATES[name]
    system = None
    if msgs and msgs[0]["role"] == "system":
        system, msgs = msgs[0]["content"], msgs[1:]
    if not msgs or len(msgs) % 2 or any(m["role"] != ("user" if i % 2 == 0 else "assistant")
                                        for i, m in enumerate(msgs)):
        return None
    system = system or t["default_system"]

    def ids(text: str) -> list[int]:
        return tokenizer.encode(text, add_special_tokens=False) if text else []

    pairs = []
    for i in range(0, len(msgs), 2):
        source = ids(t["system"].replace("{content}", system)) if i == 0 and system else []
        source += ids(t["user"].replace("{content}", msgs[i]["content"]))
        pairs.append((source, ids(t["assistant"].replace("{content}", msgs[i + 1]["content"]))))
    return pairs


def encode_lf(pairs: list[tuple[list[int], list[int]]], cutoff_len: int,
              train_on_prompt: bool = False) -> Example | None:
    ids: list[int] = []
    labels: list[int] = []
    total = 0
    for source, target in pairs:
        if total >= cutoff_len:
            break
        s_len, t_len = infer_seqlen(len(source), len(target), cutoff_len - total)
        source, target = source[:s_len], target[:t_len]
        total += s_len + t_len
        ids += source + target
        labels += (source if train_on_prompt else [IGNORE_INDEX] * s_len) + target
    if not ids or all(x == IGNORE_INDEX for x in labels):
        return None
    return Example(ids, labels)


def encode(tokenizer, msgs: list[dict], cutoff_len: int, train_on_prompt: bool = False) -> Example | None:
    ids: list[int] = []
    labels: list[int] = []
    for text, trainable in segments(tokenizer, msgs):
        if not text:
            continue
        tok = tokenizer(text, add_special_tokens=False)["input_ids"]
        ids += tok
        labels += tok if (trainable or train_on_prompt) else [IGNORE_INDEX] * len(tok)
    if len(ids) > cutoff_len:
        ids, labels = ids[:cutoff_len], labels[:cutoff_len]
    if not ids or all(x == IGNORE_INDEX for x in labels):
        return None
    return Example(ids, labels)


def pack(examples: Iterable[Example], block: int) -> list[Example]:
    """Concatenate examples into blocks of `block` tokens (the last partial block is kept)."""
    out: list[Example] = []
    cur_ids: list[int] = []
    cur_lab: list[int] = []
    for ex in examples:
        cur_ids += ex.input_ids
        cur_lab += ex.labels
        while len(cur_ids) >= block:
            out.append(Example(cur_ids[:block], cur_lab[:block]))
            cur_ids, cur_lab = cur_ids[block:], cur_lab[block:]
    if cur_ids and any(x != IGNORE_INDEX for x in cur_lab):
        out.append(Example(cur_ids, cur_lab))
    return out


class ListDataset:
    """A torch-compatible map-style dataset over encoded examples."""

    def __init__(self, examples: list[Example]):
        self.examples = examples

    def __len__(self) -> int:
        return len(self.examples)

    def __getitem__(self, i: int) -> dict:
        ex = self.examples[i]
        return {"input_ids": ex.input_ids, "labels": ex.labels}


def build_datasets(cfg, tokenizer) -> tuple[ListDataset, ListDataset | None, dict]:
    """(train, eval or None, stats) for a TrainerConfig."""
    import random

    convs = load_conversations(cfg)
    examples: list[Example] = []
    dropped = truncated = 0
    lf_name = cfg.template if cfg.template in LF_TEMPLATES else None
    rendered_lf = rendered_chat = 0
    for msgs in convs:
        pairs = lf_pairs(tokenizer, lf_name, msgs) if lf_name and msgs and msgs[0]["role"] != "text" else None
        if pairs is not None:
            rendered_lf += 1
            ex = encode_lf(pairs, 10**9, cfg.train_on_prompt)
            if ex is None:
                dropped += 1
                continue
            if len(ex.input_ids) > cfg.cutoff_len:
                truncated += 1
                if not cfg.packing:  # LLaMA-Factory's truncation: the cutoff shared by prompt and response
                    ex = encode_lf(pairs, cfg.cutoff_len, cfg.train_on_prompt)
                    if ex is None:
                        dropped += 1
                        continue
            examples.append(ex)
            continue
        rendered_chat += 1
        ex = encode(tokenizer, msgs, 10**9, cfg.train_on_prompt)
        if ex is None:
            dropped += 1
            continue
        if len(ex.input_ids) > cfg.cutoff_len:
            truncated += 1
            if not cfg.packing:
                ex = Example(ex.input_ids[: cfg.cutoff_len], ex.labels[: cfg.cutoff_len])
                if all(x == IGNORE_INDEX for x in ex.labels):
                    dropped += 1
                    continue
        examples.append(ex)
    if not examples:
        raise UserError(
            f"no usable training samples (all {len(convs)} empty or without an assistant reply within cutoff_len "
            f"{cfg.cutoff_len})"
        )
    eval_examples: list[Example] = []
    if cfg.val_size and len(examples) > 1:
        rng = random.Random(cfg.seed)
        idx = list(range(len(examples)))
        rng.shuffle(idx)
        n_eval = max(1, int(round(cfg.val_size * len(examples)))) if cfg.val_size < 1 else int(cfg.val_size)
        n_eval = min(n_eval, len(examples) - 1)
        eval_set = set(idx[:n_eval])
        eval_examples = [e for i, e in enumerate(examples) if i in eval_set]
        examples = [e for i, e in enumerate(examples) if i not in eval_set]
    if cfg.packing:
        examples = pack(examples, cfg.cutoff_len)
        if eval_examples:
            eval_examples = pack(eval_examples, cfg.cutoff_len)
    stats = {
        "conversations": len(convs), "train_samples": len(examples), "eval_samples": len(eval_examples),
        "dropped": dropped, "truncated": truncated,
        "train_tokens": sum(len(e.input_ids) for e in examples),
        "rendering": _rendering_note(cfg.template, lf_name, rendered_lf, rendered_chat),
    }
    return ListDataset(examples), (ListDataset(eval_examples) if eval_examples else None), stats


def _rendering_note(template: str | None, lf_name: str | None, n_lf: int, n_chat: int) -> str:
    """How the samples were turned into tokens, in words (the trainer prints it)."""
    if lf_name and not n_chat:
        return f"LLaMA-Factory's template {lf_name!r} (the same tokens as llamafactory-cli)"
    chat = "the tokenizer's chat template (a plain fallback when it has none)"
    if template and not lf_name:
        return (f"{chat}, NOT LLaMA-Factory's template {template!r} (not implemented by the built-in trainer): "
                "the tokens and the loss differ from llamafactory-cli's")
    if lf_name:
        return f"LLaMA-Factory's template {lf_name!r} for {n_lf} sample(s), {chat} for {n_chat} (not user/assistant turns)"
    return chat


class Collator:
    """Right-pads a batch; labels padded with -100; counts real tokens for tokens/s (CPU side)."""

    def __init__(self, pad_id: int):
        self.pad_id = pad_id
        self.tokens = 0       # real (non-pad) tokens handed out so far
        self.samples = 0

    def __call__(self, features: list[dict]) -> dict:
        import torch

        n = max(len(f["input_ids"]) for f in features)
        ids = torch.full((len(features), n), self.pad_id, dtype=torch.long)
        labels = torch.full((len(features), n), IGNORE_INDEX, dtype=torch.long)
        mask = torch.zeros((len(features), n), dtype=torch.long)
        for i, f in enumerate(features):
            L = len(f["input_ids"])
            ids[i, :L] = torch.tensor(f["input_ids"], dtype=torch.long)
            labels[i, :L] = torch.tensor(f["labels"], dtype=torch.long)
            mask[i, :L] = 1
            self.tokens += L
        self.samples += len(features)
        return {"input_ids": ids, "labels": labels, "attention_mask": mask}
