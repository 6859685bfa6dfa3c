"""Local datasets for the built-in trainer: alpaca and sharegpt/messages, chat-templated, prompt-masked.

Records are rendered with the tokenizer's chat template (a simple fallback template when it has none),
tokenised segment by segment so that labels are -100 on everything except assistant replies
(unless `train_on_prompt`), truncated to cutoff_len, optionally packed into cutoff_len blocks.
torch is imported inside functions only.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rocm_tune.core.errors import UserError

IGNORE_INDEX = -100

_ROLE_MAP = {
    "human": "user", "user": "user", "gpt": "assistant", "assistant": "assistant", "model": "assistant",
    "system": "system", "observation": "user", "function_call": "assistant", "tool": "user",
}

FALLBACK_ROLES = {"system": "### System:\n", "user": "### User:\n", "assistant": "### Assistant:\n"}


# ----------------------------------------------------------------------------------------------
# reading


def read_records(path: str | os.PathLike) -> list[dict]:
    """A JSON list or JSONL file of objects; UserError naming the file and line when malformed."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UserError(f"dataset file {str(p)!r} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"cannot read dataset file {str(p)!r}: {exc}") from None
    stripped = text.lstrip()
    if not stripped:
        raise UserError(f"dataset file {str(p)!r} is empty")
    records: Any
    if stripped[0] == "[":
        try:
            records = json.loads(text)
        except ValueError as exc:
            raise UserError(f"dataset file {str(p)!r} is not valid JSON: {exc}") from None
    else:
        records = []
        for n, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                records.append(json.loads(line))
            except ValueError:
                raise UserError(f"dataset file {str(p)!r} line {n} is not valid JSON") from None
    if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
        raise UserError(f"dataset file {str(p)!r} must hold a list of JSON objects")
    if not records:
        raise UserError(f"dataset file {str(p)!r} holds no records")
    return records


def detect_format(rec: dict) -> str:
    if "messages" in rec and isinstance(rec["messages"], list):
        return "messages"
    if "conversations" in rec and isinstance(rec["conversations"], list):
        return "sharegpt"
    if "instruction" in rec or "output" in rec:
        return "alpaca"
    if "text" in rec:
        return "text"
    raise UserError(
        "cannot tell the dataset format: records need instruction/input/output (alpaca), "
        f"conversations (sharegpt) or messages; got keys {sorted(rec)[:6]}"
    )


def to_messages(rec: dict, fmt: str, columns: dict | None = None, tags: dict | None = None) -> list[dict]:
    """One record -> [{"role", "content"}, ...] (roles system/user/assistant)."""
    cols = columns or {}
    if fmt == "alpaca":
        prompt = rec.get(cols.get("prompt", "instruction")) or ""
        query = rec.get(cols.get("query", "input")) or ""
        response = rec.get(cols.get("response", "output"))
        system = rec.get(cols.get("system", "system"))
        history = rec.get(cols.get("history", "history")) or []
        if response is None:
            raise UserError("an alpaca record has no output")
        msgs: list[dict] = []
        if system:
            msgs.append({"role": "system", "content": str(system)})
        for pair in history if isinstance(history, list) else []:
            if isinstance(pair, (list, tuple)) and len(pair) == 2:
                msgs += [{"role": "user", "content": str(pair[0])}, {"role": "assistant", "content": str(pair[1])}]
        user = "\n".join(x for x in (str(prompt), str(query)) if x)
        msgs += [{"role": "user", "content": user}, {"role": "assistant", "content": str(response)}]
        return msgs
    if fmt == "text":
        return [{"role": "text", "content": str(rec["text"])}]
    t = tags or {}
    key = cols.get("messages", "messages" if fmt == "messages" else "conversations")
    role_tag = t.get("role_tag", "role" if fmt == "messages" else "from")
    content_tag = t.get("content_tag", "content" if fmt == "messages" else "value")
    turns = rec.get(key)
    if not isinstance(turns, list) or not turns:
        raise UserError(f"a {fmt} record has no {key!r} list")
    remap = dict(_ROLE_MAP)
    for std, tag_key in (("user", "user_tag"), ("assistant", "assistant_tag"), ("system", "system_tag"),
                         ("user", "observation_tag"), ("assistant", "function_tag")):
        if t.get(tag_key):
            remap[str(t[tag_key])] = std
    msgs = []
    system = rec.get(cols.get("system", "system"))
    if system:
        msgs.append({"role": "system", "content": str(system)})
    for turn in turns:
        if not isinstance(turn, dict):
            raise UserError(f"a {fmt} turn is not an object: {turn!r:.60}")
        role = remap.get(str(turn.get(role_tag, "")).lower())
        if role is None:
            raise UserError(f"a {fmt} turn has unknown role {turn.get(role_tag)!r}; expected user/assistant/system")
        content = turn.get(content_tag)
        msgs.append({"role": role, "content": "" if content is None else str(content)})
    return msgs


def resolve_dataset_files(dataset: str, dataset_dir: str) -> list[tuple[Path, str | None, dict, dict]]:
    """LLaMA-Factory `dataset` names -> [(file, formatting, columns, tags)] via dataset_info.json."""
    out = []
    d = Path(dataset_dir)
    info_path = d / "dataset_info.json"
    info: dict = {}
    if info_path.is_file():
        try:
            info = json.loads(info_path.read_text(encoding="utf-8"))
        except ValueError as exc:
            raise UserError(f"{info_path} is not valid JSON: {exc}") from None
    for name in [x.strip() for x in dataset.split(",") if x.strip()]:
        entry = info.get(name) if isinstance(info, dict) else None
        if isinstance(entry, dict):
            fname = entry.get("file_name")
            if not fname:
                raise UserError(
                    f"dataset {name!r} in {info_path} has no local file_name (hub datasets are not downloaded)"
                )
            f = d / fname
            if not f.is_file():
                raise UserError(f"dataset {name!r}: file {str(f)!r} does not exist")
            out.append((f, entry.get("formatting") or "alpaca", entry.get("columns") or {}, entry.get("tags") or {}))
            continue
        for cand in (d / name, d / f"{name}.json", d / f"{name}.jsonl", Path(name)):
            if cand.is_file():
                out.append((cand, None, {}, {}))
                break
        else:
            raise UserError(
                f"dataset {name!r} is neither in {info_path} nor a file in {str(d)!r}; "
                "use train_file: PATH for a local JSON/JSONL file"
            )
    return out


def load_conversations(cfg) -> list[list[dict]]:
    """All conversations of a TrainerConfig's dataset(s), as message lists."""
    sources: list[tuple[Path, str | None, dict, dict]] = []
    if cfg.train_file:
        sources.append((Path(cfg.train_file), None, {}, {}))
    if cfg.dataset:
        sources += resolve_dataset_files(cfg.dataset, cfg.dataset_dir)
    convs: list[list[dict]] = []
    for path, formatting, cols, tags in sources:
        records = read_records(path)
        for i, rec in enumerate(records):
            if formatting == "alpaca":
                f = "alpaca"
            elif formatting == "sharegpt":
                f = "messages" if "messages" in rec and "conversations" not in rec and not cols else "sharegpt"
            else:
                f = detect_format(rec)
            try:
                convs.append(to_messages(rec, f, cols, tags))
            except UserError as exc:
                raise UserError(f"{path.name} record {i}: {exc}") from None
            if cfg.max_samples and len(convs) >= cfg.max_samples:
                return convs
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
    for msgs in convs:
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
    }
    return ListDataset(examples), (ListDataset(eval_examples) if eval_examples else None), stats


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
