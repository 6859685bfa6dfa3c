"""Token-length statistics of a local fine-tuning dataset (LLaMA-Factory formats).

Reads what LLaMA-Factory reads from disk (see its data/README.md):

* **alpaca**: ``instruction`` / ``input`` / ``output`` (+ optional ``system`` and ``history``
  ``[[q, r], ...]``); preference data with ``chosen`` / ``rejected``; pre-training ``text``.
* **sharegpt**: ``conversations`` = ``[{"from": "human"|"gpt"|"observation"|"function_call"|"system",
  "value": ...}]`` (+ optional ``system`` / ``tools`` columns).
* **messages** (OpenAI style, a special case of sharegpt): ``messages`` = ``[{"role", "content"}]``.

Files are a JSON array or JSON Lines. A directory with a ``dataset_info.json`` plus a dataset name
resolves ``file_name`` (a file or a folder of files), ``formatting``, ``ranking``, ``columns`` and
``tags`` exactly as LLaMA-Factory documents them.

``read_samples`` is the one loader: the statistics here and the built-in trainer
(``rocm_tune.train.data``, with ``strict=True``) both turn records into the same normalized samples,
``(turns, rejected turns or None)`` with turns ``[(role, text)]`` (roles system/user/assistant/tool, and
``text`` for pre-training documents).

Token counts, per sample = the whole training sequence (system + every prompt and response turn,
chat template included):

* with a tokenizer found next to the model (``tokenizer.json`` read with the ``tokenizers`` library;
  ``tokenizer.model`` and friends through ``transformers.AutoTokenizer``), the conversation is
  rendered with the model's chat template (``tokenizer_config.json`` ``chat_template`` or
  ``chat_template.jinja``, rendered with jinja2 like transformers does) and tokenized. Without a chat
  template, contents are tokenized and ``TURN_OVERHEAD`` tokens are added per turn;
* without one, ``approx:chars-v1``: per-script character weights (CJK/kana/hangul 1 token per char,
  other non-ASCII 0.5, ASCII letters and spaces 0.25 i.e. ~4 chars per token, digits and ASCII
  punctuation 0.5), rounded up, plus ``TURN_OVERHEAD`` tokens per turn and ``SAMPLE_OVERHEAD`` per
  sample (ChatML-like framing: ``<|im_start|>role\\n ... <|im_end|>\\n``). It errs on the long side
  for English prose with modern 100k+ vocabularies, which is the safe side for choosing cutoff_len.

Imports only the standard library at module import time.
"""

from __future__ import annotations

import bisect
import json
import math
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from rocm_tune.core.errors import UserError
from rocm_tune.core.files import MAX_CONFIG_BYTES, read_json, read_text, try_read_json

FORMATS = ("alpaca", "sharegpt", "messages")
CUTOFFS = (256, 512, 1024, 2048, 4096, 8192, 16384)
TURN_OVERHEAD = 5  # <|im_start|> role \n ... <|im_end|> \n
SAMPLE_OVERHEAD = 2  # bos/eos-like framing
APPROX_METHOD = "approx:chars-v1"

# dataset_info.json defaults (LLaMA-Factory data/README.md)
_DEFAULT_COLUMNS = {
    "prompt": "instruction",
    "query": "input",
    "response": "output",
    "history": None,
    "messages": "conversations",
    "system": None,
    "tools": None,
    "chosen": None,
    "rejected": None,
}
_SHAREGPT_TAGS = {
    "role_tag": "from",
    "content_tag": "value",
    "user_tag": "human",
    "assistant_tag": "gpt",
    "observation_tag": "observation",
    "function_tag": "function_call",
    "system_tag": "system",
}
OPENAI_TAGS = {
    "role_tag": "role",
    "content_tag": "content",
    "user_tag": "user",
    "assistant_tag": "assistant",
    "observation_tag": "tool",
    "function_tag": "function_call",
    "system_tag": "system",
}

# ---------------------------------------------------------------------------------------------
# statistics


@dataclass(frozen=True)
class DatasetStats:
    path: str
    format: str  # "alpaca" | "sharegpt" | "messages"
    count: int
    tokenizer: str  # tokenizer name or "approx:<method>"
    lengths: tuple[int, ...]  # sorted token lengths per sample (prompt + response, template included)
    skipped: int = 0  # records that held no usable text (LLaMA-Factory drops them too)
    notes: tuple[str, ...] = field(default=())
    name: str | None = None  # the dataset_info.json entry when one was used

    @property
    def label(self) -> str:
        return f"{self.path} ({self.name})" if self.name else self.path

    def percentile(self, q: float) -> int:
        """Nearest-rank percentile: the smallest length that at least q% of samples do not exceed."""
        if not 0 <= q <= 100 or q != q:
            raise UserError(f"percentile must be between 0 and 100, got {q}")
        if not self.lengths:
            return 0
        if q == 0:
            return self.lengths[0]
        rank = math.ceil(q / 100.0 * len(self.lengths))
        return self.lengths[max(0, min(len(self.lengths), rank) - 1)]

    def truncated_at(self, cutoff_len: int) -> int:
        """Number of samples longer than cutoff_len tokens (LLaMA-Factory would cut them)."""
        return len(self.lengths) - bisect.bisect_right(self.lengths, int(cutoff_len))

    def mean(self) -> float:
        return sum(self.lengths) / len(self.lengths) if self.lengths else 0.0

    def histogram(self, bins: int = 20) -> list[tuple[int, int, int]]:
        """Equal-width bins with a round width: (lo, hi, count) counts lo <= length < hi."""
        if not self.lengths:
            return []
        bins = max(1, int(bins))
        lo_v, hi_v = self.lengths[0], self.lengths[-1]
        width = _nice_width((hi_v - lo_v + 1) / bins)
        start = (lo_v // width) * width
        while start + width * bins <= hi_v:  # nice rounding can leave the max outside
            width = _nice_width(width * 1.01 + 1)
            start = (lo_v // width) * width
        out = []
        edge = start
        while edge <= hi_v:
            a = bisect.bisect_left(self.lengths, edge)
            b = bisect.bisect_left(self.lengths, edge + width)
            out.append((edge, edge + width, b - a))
            edge += width
        return out

    def suggested_cutoff(self, q: float = 95.0) -> int:
        """cutoff_len covering the q-th percentile, rounded up to 128 (<= 1024) or 256 (above)."""
        return round_cutoff(self.percentile(q))

    def to_dict(self) -> dict:
        n = len(self.lengths)
        return {
            "path": self.path,
            "name": self.name,
            "format": self.format,
            "count": self.count,
            "skipped": self.skipped,
            "tokenizer": self.tokenizer,
            "tokens_total": int(sum(self.lengths)),
            "percentiles": {
                "min": self.lengths[0] if n else 0,
                "p50": self.percentile(50),
                "p90": self.percentile(90),
                "p95": self.percentile(95),
                "p99": self.percentile(99),
                "max": self.lengths[-1] if n else 0,
                "mean": round(self.mean(), 1),
            },
            "truncated": [
                {
                    "cutoff_len": c,
                    "samples": self.truncated_at(c),
                    "fraction": round(self.truncated_at(c) / n, 6) if n else 0.0,
                }
                for c in CUTOFFS
            ],
            "histogram": [{"lo": a, "hi": b, "count": k} for a, b, k in self.histogram()],
            "suggested_cutoff_len": self.suggested_cutoff(95),
            "notes": list(self.notes),
        }


def round_cutoff(tokens: int) -> int:
    step = 128 if tokens <= 1024 else 256
    return max(step, int(math.ceil(max(1, tokens) / step) * step))


def _nice_width(raw: float) -> int:
    raw = max(1.0, raw)
    exp = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 2.5, 5, 10):
        if m * exp >= raw:
            return max(1, int(math.ceil(m * exp)))
    return int(10 * exp)


# ---------------------------------------------------------------------------------------------
# reading files


def read_records(path: Path) -> list:
    """Records of one JSON-array or JSON-Lines file. UserError with the line number when malformed."""
    text = read_text(path, "dataset file")
    stripped = text.lstrip()
    if not stripped:
        return []
    jsonl = path.suffix.lower() == ".jsonl"
    if not jsonl:
        try:
            data = json.loads(text)
        except RecursionError:
            raise UserError(f"malformed JSON in {path}: nested too deeply (at most a few hundred levels)") from None
        except json.JSONDecodeError as exc:
            if stripped[0] == "{" and exc.msg == "Extra data":
                jsonl = True  # several objects: JSON Lines in a .json file
            else:
                raise UserError(
                    f"malformed JSON in {path} at line {exc.lineno} column {exc.colno}: {exc.msg}"
                ) from None
        except ValueError as exc:  # an integer of more than 4300 digits
            raise UserError(f"malformed JSON in {path}: {str(exc)[:100]}") from None
        else:
            if isinstance(data, list):
                return data
            if isinstance(data, dict):
                if data and all(isinstance(v, dict) and ("file_name" in v or "hf_hub_url" in v) for v in data.values()):
                    raise UserError(
                        f"{path} looks like a dataset_info.json; pass its directory and --name "
                        f"(one of: {', '.join(sorted(data))})"
                    )
                return [data]
            raise UserError(f"{path} holds a JSON {type(data).__name__}, expected an array of samples or JSON Lines")
    out = []
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            out.append(json.loads(line))
        except RecursionError:
            raise UserError(f"malformed JSON Lines in {path} on line {lineno}: nested too deeply") from None
        except json.JSONDecodeError as exc:
            raise UserError(f"malformed JSON Lines in {path} on line {lineno} column {exc.colno}: {exc.msg}") from None
        except ValueError as exc:  # an integer of more than 4300 digits
            raise UserError(f"malformed JSON Lines in {path} on line {lineno}: {str(exc)[:100]}") from None
    return out


_DATA_SUFFIXES = (".json", ".jsonl")


_MAX_WALK_DEPTH = 16
_MAX_WALK_FILES = 100_000


def _walk_files(folder: Path) -> list[Path]:
    """Regular files under folder (symlinked directories are not followed; depth and count bounded)."""
    out: list[Path] = []
    base = len(folder.parts)
    for root, dirs, names in os.walk(folder, followlinks=False):
        if len(Path(root).parts) - base >= _MAX_WALK_DEPTH:
            dirs[:] = []
        for n in names:
            p = Path(root) / n
            try:
                if p.is_file():
                    out.append(p)
            except OSError:
                continue
            if len(out) >= _MAX_WALK_FILES:
                return out
    return out


def _files_in(folder: Path) -> list[Path]:
    every = _walk_files(folder)
    files = sorted(p for p in every if p.suffix.lower() in _DATA_SUFFIXES and p.name != "dataset_info.json")
    if not files:
        others = sorted(p.suffix for p in every)
        extra = f" (found {', '.join(sorted(set(others))[:5])})" if others else ""
        raise UserError(f"no .json or .jsonl files in {folder}{extra}; only local JSON/JSONL datasets are read")
    return files


# ---------------------------------------------------------------------------------------------
# dataset_info.json


@dataclass(frozen=True)
class _Attr:
    formatting: str  # alpaca | sharegpt
    ranking: bool
    columns: dict
    tags: dict
    files: tuple[Path, ...]
    name: str | None = None


def read_dataset_info(info_path: Path) -> dict:
    """The entries of a dataset_info.json (a non-empty JSON object); one-line UserError otherwise."""
    info = read_json(info_path, "dataset list", hint=" of dataset entries", max_bytes=MAX_CONFIG_BYTES)
    if not info:
        raise UserError(f"{info_path} lists no datasets; it must be a JSON object of dataset entries")
    return info


def entry_format(entry: dict, name: str) -> _Attr:
    """formatting / ranking / columns / tags of one dataset_info.json entry, LLaMA-Factory defaults
    filled in (no files resolved)."""
    formatting = str(entry.get("formatting", "alpaca"))
    if formatting not in ("alpaca", "sharegpt"):
        raise UserError(f"formatting {formatting!r} of dataset {name!r} is not supported; expected alpaca or sharegpt")
    columns = dict(_DEFAULT_COLUMNS)
    if formatting == "sharegpt":
        columns.update({"prompt": None, "query": None, "response": None})
    else:
        columns["messages"] = None
    user_cols = entry.get("columns") or {}
    if not isinstance(user_cols, dict):
        raise UserError(f"columns of dataset {name!r} must be an object")
    columns.update({k: v for k, v in user_cols.items()})
    tags = dict(_SHAREGPT_TAGS)
    user_tags = entry.get("tags") or {}
    if not isinstance(user_tags, dict):
        raise UserError(f"tags of dataset {name!r} must be an object")
    tags.update(user_tags)
    return _Attr(formatting, bool(entry.get("ranking", False)), columns, tags, (), name)


def entry_attr(dir_: Path, info_path: Path, name: str, entry: Any) -> _Attr:
    """One dataset_info.json entry with its local file(s) resolved under dir_."""
    if not isinstance(entry, dict):
        raise UserError(f"entry {name!r} in {info_path} must be an object")
    file_name = entry.get("file_name")
    if not file_name:
        hub = entry.get("hf_hub_url") or entry.get("ms_hub_url") or entry.get("om_hub_url") or entry.get("script_url")
        raise UserError(
            f"dataset {name!r} in {info_path} has no local file_name (it points to {hub!r}); only local files are read"
        )
    target = (dir_ / str(file_name))
    if target.is_dir():
        files = tuple(_files_in(target))
    elif target.is_file():
        files = (target,)
    else:
        raise UserError(f"file_name {file_name!r} of dataset {name!r} does not exist under {dir_}")
    return replace(entry_format(entry, name), files=files)


def _dataset_info(dir_: Path, name: str | None) -> _Attr:
    info_path = dir_ / "dataset_info.json"
    info = read_dataset_info(info_path)
    if name is None:
        if len(info) == 1:
            name = next(iter(info))
        else:
            raise UserError(f"{info_path} lists several datasets; choose one with --name: {', '.join(sorted(info))}")
    if name not in info:
        raise UserError(f"dataset {name!r} is not in {info_path}; known: {', '.join(sorted(info)) or 'none'}")
    return entry_attr(dir_, info_path, name, info[name])


# ---------------------------------------------------------------------------------------------
# format detection and conversion to turns


def _text(value: Any) -> str:
    """Content as text: strings as they are, OpenAI content parts joined, others as JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        parts = []
        for p in value:
            if isinstance(p, dict):
                t = p.get("text")
                if isinstance(t, str):
                    parts.append(t)
            elif isinstance(p, str):
                parts.append(p)
        return "\n".join(parts)
    if isinstance(value, (int, float, bool)):
        return str(value)
    return json.dumps(value, ensure_ascii=False)


def sample_keys(records: list, limit: int = 1000) -> set:
    """Union of the keys of the first `limit` records (optional columns such as system/history)."""
    keys: set = set()
    for rec in records[:limit]:
        if isinstance(rec, dict):
            keys.update(rec)
    return keys


def detect(record: Any, where: str, keys_hint: set | None = None) -> _Attr:
    """Guess the format from the first record (no dataset_info.json); optional columns from keys_hint."""
    if not isinstance(record, dict):
        raise UserError(f"first sample of {where} is a JSON {type(record).__name__}, expected an object")
    keys = set(record) | set(keys_hint or ())
    for msg_key in ("conversations", "messages"):
        msgs = record.get(msg_key)
        if isinstance(msgs, list):
            first = next((m for m in msgs if isinstance(m, dict)), {})
            if "from" in first or "value" in first:
                tags = dict(_SHAREGPT_TAGS)
            elif "role" in first or "content" in first:
                tags = dict(OPENAI_TAGS)  # OpenAI style = sharegpt formatting with role/content tags
            else:
                raise UserError(
                    f"unknown message format in {where}: {msg_key!r} items have keys "
                    f"{sorted(first) or '[]'}; expected from/value (sharegpt) or role/content (messages)"
                )
            columns = dict(_DEFAULT_COLUMNS, prompt=None, query=None, response=None, messages=msg_key,
                           system="system" if "system" in keys else None,
                           tools="tools" if "tools" in keys else None)
            ranking = "chosen" in keys and "rejected" in keys
            if ranking:
                columns.update(chosen="chosen", rejected="rejected")
            return _Attr("sharegpt", ranking, columns, tags, ())
    if "instruction" in keys or "output" in keys or "text" in keys or ("prompt" in keys and ("chosen" in keys or "response" in keys)):
        columns = dict(_DEFAULT_COLUMNS, messages=None)
        if "instruction" not in keys and "prompt" in keys:
            columns["prompt"] = "prompt"
        elif "instruction" not in keys and "text" in keys:
            columns["prompt"] = "text"
        if "response" in keys and "output" not in keys:
            columns["response"] = "response"
        columns["system"] = "system" if "system" in keys else None
        columns["history"] = "history" if "history" in keys else None
        ranking = "chosen" in keys and "rejected" in keys
        if ranking:
            columns.update(chosen="chosen", rejected="rejected")
        return _Attr("alpaca", ranking, columns, dict(_SHAREGPT_TAGS), ())
    raise UserError(
        f"unknown dataset format in {where}: first sample has keys {sorted(keys)}; expected alpaca "
        "(instruction/input/output), sharegpt (conversations with from/value) or messages (role/content)"
    )


Turns = list  # list[tuple[role, text]]; roles: system, user, assistant, tool, text (pre-training text)


def _alpaca_turns(rec: dict, a: _Attr, strict: bool) -> tuple[Turns, Turns | None]:
    c = a.columns
    turns: Turns = []
    if c.get("system") and rec.get(c["system"]):
        turns.append(("system", _text(rec[c["system"]])))
    hist = rec.get(c["history"]) if c.get("history") else None
    if isinstance(hist, list):
        for pair in hist:
            if isinstance(pair, (list, tuple)) and len(pair) >= 2:
                turns.append(("user", _text(pair[0])))
                turns.append(("assistant", _text(pair[1])))
    parts = []
    for key in ("prompt", "query"):
        col = c.get(key)
        if col and rec.get(col):
            parts.append(_text(rec[col]))
    prompt = "\n".join(parts)
    if a.ranking and c.get("chosen") and c.get("rejected"):
        chosen, rejected = _text(rec.get(c["chosen"])), _text(rec.get(c["rejected"]))
        base = turns + [("user", prompt)]
        return base + [("assistant", chosen)], base + [("assistant", rejected)]
    resp_col = c.get("response")
    resp = rec.get(resp_col) if resp_col else None
    if isinstance(resp, list):  # KTO/ranking lists: take the first
        resp = resp[0] if resp else ""
    if resp_col and resp_col in rec:
        turns += [("user", prompt), ("assistant", _text(resp))]
    elif strict and resp_col and c.get("prompt") != "text":
        raise UserError(f"the record has no {resp_col!r} (response) field; keys: {sorted(rec)[:8]}")
    else:  # pre-training text
        turns.append(("text", prompt))
    return turns, None


def _msg_turns(msgs: Any, t: dict, strict: bool, col: str = "messages") -> Turns:
    out: Turns = []
    if not isinstance(msgs, list):
        if strict:
            raise UserError(f"the record has no {col!r} list")
        return out
    user = {t.get("user_tag"), t.get("observation_tag")}
    assistant = {t.get("assistant_tag"), t.get("function_tag")}
    for m in msgs:
        if not isinstance(m, dict):
            if strict:
                raise UserError(f"a message in {col!r} is not an object: {m!r:.60}")
            continue
        role = m.get(t.get("role_tag", "from"))
        content = _text(m.get(t.get("content_tag", "value")))
        if role == t.get("system_tag"):
            out.append(("system", content))
        elif role == t.get("observation_tag"):
            out.append(("tool", content))
        elif role in assistant:
            out.append(("assistant", content))
        elif role in user:
            out.append(("user", content))
        elif strict:
            known = sorted(str(x) for x in user | assistant | {t.get("system_tag")} if x)
            raise UserError(f"a message has unknown role {role!r}; expected one of {', '.join(known)}")
        else:
            out.append(("user", content))  # unknown role: still counts as tokens
    return out


def _sharegpt_turns(rec: dict, a: _Attr, strict: bool) -> tuple[Turns, Turns | None]:
    c, t = a.columns, a.tags
    turns: Turns = []
    if c.get("system") and rec.get(c["system"]):
        turns.append(("system", _text(rec[c["system"]])))
    col = c.get("messages") or "conversations"
    turns += _msg_turns(rec.get(col), t, strict, col)
    if c.get("tools") and rec.get(c["tools"]):
        turns.insert(0, ("system", _text(rec[c["tools"]])))
    if a.ranking and c.get("chosen") and c.get("rejected"):
        ch = _msg_turns([rec.get(c["chosen"])], t, False) or [("assistant", "")]
        rj = _msg_turns([rec.get(c["rejected"])], t, False) or [("assistant", "")]
        return turns + ch, turns + rj
    return turns, None


def record_turns(rec: Any, a: _Attr, strict: bool = False) -> tuple[Turns, Turns | None]:
    """One record -> (turns, None), or (turns ending in the chosen answer, turns ending in the rejected
    one) for preference data. Lenient (statistics): what cannot be read yields no or `user` turns;
    strict (training): a UserError naming the missing column or unknown role."""
    if not isinstance(rec, dict):
        if strict:
            raise UserError(f"the record is a JSON {type(rec).__name__}, expected an object")
        return [], None
    if a.formatting == "alpaca":
        return _alpaca_turns(rec, a, strict)
    return _sharegpt_turns(rec, a, strict)


Sample = tuple  # (turns, rejected turns or None)


def read_samples(
    files: Iterable[Path], attr: _Attr | None = None, *, label: str, strict: bool = False, limit: int | None = None,
) -> tuple[list[Sample], int, _Attr]:
    """The one dataset loader: records of `files` (JSON / JSON Lines) as normalized samples.

    attr: the dataset_info.json entry (None: the format is detected from each file's records).
    Returns (samples, records skipped for holding no text, the format of the first file). At most
    `limit` samples. UserError when there are no records or none with text (label names the dataset);
    with strict=True also on a record that cannot be read (naming the file and record index)."""
    samples: list[Sample] = []
    skipped = total = 0
    first: _Attr | None = None
    for f in files:
        records = read_records(f)
        if not records:
            continue
        a = attr or detect(records[0], str(f), sample_keys(records))
        first = first or a
        for i, rec in enumerate(records):
            total += 1
            try:
                turns, alt = record_turns(rec, a, strict)
            except UserError as exc:
                raise UserError(f"{f} record {i}: {exc}") from None
            if not turns or not any(c for _, c in turns):
                skipped += 1
                continue
            samples.append((turns, alt))
            if limit and len(samples) >= limit:
                return samples, skipped, first
    if total == 0 or first is None:
        raise UserError(f"dataset {label} has no samples")
    if not samples:
        raise UserError(f"dataset {label} has {total} records but none with text in the expected fields")
    return samples, skipped, first


# ---------------------------------------------------------------------------------------------
# token counting


_CJK = re.compile(
    "[\u1100-\u11ff\u2e80-\u2fdf\u3040-\u30ff\u3100-\u31ff\u3400-\u4dbf\u4e00-\u9fff"
    "\uac00-\ud7af\uf900-\ufaff\uff00-\uffef\U00020000-\U0003134f]"
)
_DIGITS = b"0123456789"
_PUNCT = b"!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"
_HIGH = bytes(range(128, 256))


def approx_tokens(text: str) -> float:
    """Tokens of one text by the per-script weights described in the module docstring.

    Counting runs on the UTF-8 bytes (ASCII bytes never occur inside multi-byte characters), so it is
    a few C passes per text."""
    n = len(text)
    if not n:
        return 0.0
    b = text.encode("utf-8", "surrogatepass")
    nb = len(b)
    digits = nb - len(b.translate(None, _DIGITS))
    punct = nb - len(b.translate(None, _PUNCT))
    if nb == n:  # pure ASCII
        return (n - digits - punct) * 0.25 + (digits + punct) * 0.5
    ascii_n = len(b.translate(None, _HIGH))
    non_ascii = n - ascii_n
    cjk = len(_CJK.findall(text))
    rest = ascii_n - digits - punct
    return rest * 0.25 + (digits + punct) * 0.5 + cjk * 1.0 + (non_ascii - cjk) * 0.5


def _approx_len(turns: Turns) -> int:
    return int(math.ceil(sum(approx_tokens(t) for _, t in turns))) + TURN_OVERHEAD * len(turns) + SAMPLE_OVERHEAD


class _TokCounter:
    """A real tokenizer (+ chat template when there is one)."""

    def __init__(self, name: str, encode_batch, template=None, special: dict | None = None):
        self.name = name
        self._encode_batch = encode_batch
        self._template = template
        self._special = special or {}
        self.template_failures = 0

    @property
    def label(self) -> str:
        if self._template is not None:
            return f"{self.name} (chat template)"
        return f"{self.name} (no chat template: +{TURN_OVERHEAD} tokens/turn)"

    def _render(self, turns: Turns) -> str | None:
        msgs = [{"role": "user" if r == "text" else r, "content": c} for r, c in turns]
        try:
            return self._template.render(messages=msgs, add_generation_prompt=False, tools=None, **self._special)
        except Exception:  # noqa: BLE001 - templates raise on unusual role orders; count and fall back
            self.template_failures += 1
            return None

    def lengths(self, samples: list[Turns]) -> list[int]:
        out: list[int] = []
        chunk = 2048
        for i in range(0, len(samples), chunk):
            part = samples[i:i + chunk]
            if self._template is not None:
                texts: list[str] = []
                extra: list[int] = []
                fallback: list[int] = []
                for turns in part:
                    r = self._render(turns)
                    if r is None:
                        fallback.append(len(texts))
                        texts.append("\n".join(c for _, c in turns))
                        extra.append(TURN_OVERHEAD * len(turns) + SAMPLE_OVERHEAD)
                    else:
                        texts.append(r)
                        extra.append(0)
                counts = self._encode_batch(texts)
                out += [c + e for c, e in zip(counts, extra)]
            else:
                flat, owners = [], []
                for j, turns in enumerate(part):
                    for _, c in turns:
                        flat.append(c)
                        owners.append(j)
                counts = self._encode_batch(flat) if flat else []
                sums = [TURN_OVERHEAD * len(t) + SAMPLE_OVERHEAD for t in part]
                for j, c in zip(owners, counts):
                    sums[j] += c
                out += sums
        return out


def _model_dir(model: Any) -> Path | None:
    if model is None:
        return None
    loc = getattr(model, "location", None) if not isinstance(model, (str, os.PathLike)) else model
    if not loc:
        return None
    p = Path(loc)
    if p.is_file():
        p = p.parent
    return p if p.is_dir() else None


_TOKENIZER_FILES = ("tokenizer.json", "tokenizer.model", "vocab.json", "tokenizer_config.json")


def has_tokenizer(model_dir: Path | None) -> bool:
    if not model_dir:
        return False
    return any((model_dir / f).is_file() for f in _TOKENIZER_FILES[:3])


def _special_tokens(cfg: dict) -> dict:
    out = {}
    for key in ("bos_token", "eos_token", "unk_token", "pad_token", "sep_token", "cls_token", "mask_token"):
        v = cfg.get(key)
        if isinstance(v, dict):
            v = v.get("content")
        if isinstance(v, str):
            out[key] = v
    return out


def _chat_template_text(model_dir: Path, cfg: dict) -> str | None:
    for fname in ("chat_template.jinja",):
        p = model_dir / fname
        if p.is_file():
            try:
                return read_text(p, "chat template", MAX_CONFIG_BYTES)
            except UserError:
                return None
    tpl = cfg.get("chat_template")
    if tpl is None and (model_dir / "chat_template.json").is_file():
        try:
            tpl = try_read_json(model_dir / "chat_template.json", {}).get("chat_template")
        except (OSError, ValueError, AttributeError):
            tpl = None
    if isinstance(tpl, list):  # [{"name": "default", "template": ...}, ...]
        named = {d.get("name"): d.get("template") for d in tpl if isinstance(d, dict)}
        tpl = named.get("default") or next(iter(named.values()), None)
    return tpl if isinstance(tpl, str) and tpl.strip() else None


def _compile_template(text: str):
    """Compile a chat template the way transformers does (sandboxed jinja2, trim/lstrip blocks)."""
    try:
        import jinja2
        from jinja2.ext import Extension, loopcontrols
        from jinja2.sandbox import ImmutableSandboxedEnvironment
    except ImportError:
        return None

    class _Generation(Extension):  # `{% generation %}...{% endgeneration %}` used by some templates
        tags = {"generation"}

        def parse(self, parser):
            lineno = next(parser.stream).lineno
            body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
            return jinja2.nodes.Scope(body, lineno=lineno)

    def raise_exception(message):
        raise jinja2.exceptions.TemplateError(message)

    def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)

    def strftime_now(fmt):
        import datetime

        return datetime.datetime.now().strftime(fmt)

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[_Generation, loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    try:
        return env.from_string(text)
    except Exception:  # noqa: BLE001 - a template we cannot compile: count without it
        return None


def load_counter(model_dir: Path) -> tuple[_TokCounter | None, str | None]:
    """A token counter from the tokenizer files in model_dir, or (None, reason)."""
    cfg: dict = {}
    cfg_path = model_dir / "tokenizer_config.json"
    if cfg_path.is_file():
        try:
            loaded = try_read_json(cfg_path, {})  # core/files: a regular file, bounded, depth/number limits
            cfg = loaded if isinstance(loaded, dict) else {}
        except (OSError, ValueError):
            cfg = {}
    name = str(cfg.get("name_or_path") or model_dir.name)
    if name in ("", "."):
        name = model_dir.resolve().name
    encode_batch = None
    reason = None
    tj = model_dir / "tokenizer.json"
    if tj.is_file():
        try:
            from tokenizers import Tokenizer

            tok = Tokenizer.from_file(str(tj))
            tok.no_truncation()
            tok.no_padding()

            fast = getattr(tok, "encode_batch_fast", None)  # tokenizers >= 0.21: no offsets, faster

            def encode_batch(texts, _enc=fast or tok.encode_batch):
                return [len(e.ids) for e in _enc(texts, add_special_tokens=False)]
        except ImportError:
            reason = "the tokenizers package is not installed"
        except Exception as exc:  # noqa: BLE001 - a corrupt tokenizer.json: say so, fall back
            reason = f"cannot load {tj.name}: {str(exc).splitlines()[0][:120]}"
    if encode_batch is None and any((model_dir / f).is_file() for f in ("tokenizer.model", "vocab.json")):
        try:
            from transformers import AutoTokenizer

            hf = AutoTokenizer.from_pretrained(str(model_dir), local_files_only=True)

            def encode_batch(texts, _hf=hf):
                return [len(ids) for ids in _hf(texts, add_special_tokens=False)["input_ids"]]
            reason = None
        except Exception as exc:  # noqa: BLE001 - missing sentencepiece etc.
            reason = reason or f"cannot load the tokenizer in {model_dir}: {str(exc).splitlines()[0][:120]}"
    if encode_batch is None:
        return None, reason or f"no tokenizer files in {model_dir}"
    tpl_text = _chat_template_text(model_dir, cfg)
    template = _compile_template(tpl_text) if tpl_text else None
    return _TokCounter(name, encode_batch, template, _special_tokens(cfg)), None


# ---------------------------------------------------------------------------------------------
# entry point


def _resolve(path: str, dataset_name: str | None) -> tuple[_Attr | None, tuple[Path, ...], str]:
    p = Path(os.path.expanduser(str(path)))
    if not p.exists():
        raise UserError(f"dataset path {path!r} does not exist")
    if p.is_dir():
        if (p / "dataset_info.json").is_file():
            a = _dataset_info(p, dataset_name)
            return a, a.files, str(p)
        if dataset_name:
            raise UserError(f"{p} has no dataset_info.json, so --name {dataset_name!r} cannot be looked up")
        return None, tuple(_files_in(p)), str(p)
    if p.name == "dataset_info.json":
        a = _dataset_info(p.parent, dataset_name)
        return a, a.files, str(p.parent)
    if dataset_name and (p.parent / "dataset_info.json").is_file():
        a = _dataset_info(p.parent, dataset_name)
        return a, a.files, str(p.parent)
    return None, (p,), str(p)


def _format_label(a: _Attr) -> str:
    if a.formatting == "alpaca":
        return "alpaca"
    return "messages" if a.tags.get("role_tag") == "role" else "sharegpt"


def iter_samples(path: str, dataset_name: str | None = None) -> tuple[str, str, list, int, list[int], str | None]:
    """(path, format, samples as turns, skipped records, indexes where a preference pair starts, entry name)."""
    attr, files, shown = _resolve(path, dataset_name)
    entry_name = attr.name if attr is not None else None
    where = f"{shown} ({entry_name})" if entry_name else shown
    read, skipped, first = read_samples(files, attr, label=where)
    samples: list[Turns] = []
    pairs: list[int] = []
    for turns, alt in read:
        samples.append(turns)
        if alt is not None:
            samples.append(alt)
            pairs.append(len(samples) - 2)
    return shown, _format_label(first), samples, skipped, pairs, entry_name


def analyze_dataset(path: str, model: Any = None, dataset_name: str | None = None) -> DatasetStats:
    """Token-length distribution of a local dataset. `model`: a ModelSpec (its `location` is searched
    for tokenizer files) or a directory path; None = the documented approximation."""
    shown, fmt, samples, skipped, pairs, entry_name = iter_samples(path, dataset_name)
    notes: list[str] = []
    counter = None
    mdir = _model_dir(model)
    if model is not None:
        if mdir is None:
            notes.append("model has no local directory: token counts are approximated")
        else:
            counter, why = load_counter(mdir)
            if counter is None:
                notes.append(f"{why}: token counts are approximated")
    if counter is not None:
        lengths = counter.lengths(samples)
        label = counter.label
        if counter.template_failures:
            notes.append(
                f"chat template failed on {counter.template_failures} samples; counted them without it "
                f"(+{TURN_OVERHEAD} tokens/turn)"
            )
    else:
        lengths = [_approx_len(t) for t in samples]
        label = APPROX_METHOD
    if pairs:  # preference data: one sample = prompt + the longer answer
        merged = []
        pair_starts = set(pairs)
        i = 0
        while i < len(lengths):
            if i in pair_starts:
                merged.append(max(lengths[i], lengths[i + 1]))
                i += 2
            else:
                merged.append(lengths[i])
                i += 1
        lengths = merged
        notes.append("preference data: each sample counts prompt + the longer of chosen/rejected")
    if skipped:
        notes.append(f"{skipped} records without text were skipped")
    return DatasetStats(
        path=shown, format=fmt, count=len(lengths), tokenizer=label, lengths=tuple(sorted(lengths)),
        skipped=skipped, notes=tuple(notes), name=entry_name,
    )


def iter_cutoffs(stats: DatasetStats) -> Iterable[tuple[int, int]]:
    return ((c, stats.truncated_at(c)) for c in CUTOFFS)
