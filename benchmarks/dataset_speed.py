"""Speed of `analyze_dataset` on a synthetic 100k-sample dataset (approximation path, and a real
word-level tokenizer with a chat template). Prints one line per case.

    python3 benchmarks/dataset_speed.py [N]
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
import time
from pathlib import Path

from rocm_tune.core.data.dataset import analyze_dataset

WORDS = ["the", "gpu", "memory", "of", "lora", "depends", "on", "rank", "cutoff", "length", "batch", "and", "precision", "训练", "模型", "显存", "batch", "size", "gradient", "checkpointing", "12345", "(a,", "b)", "=", "f(x);"]


def make(path: Path, n: int, fmt: str) -> None:
    rnd = random.Random(0)
    with path.open("w", encoding="utf-8") as fh:
        for _ in range(n):
            q = " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(5, 120)))
            a = " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(10, 600)))
            if fmt == "alpaca":
                rec = {"instruction": q, "input": "", "output": a}
            else:
                rec = {"conversations": [{"from": "human", "value": q}, {"from": "gpt", "value": a}]}
            fh.write(json.dumps(rec, ensure_ascii=False) + "\n")


def tokenizer_dir(d: Path) -> Path:
    from tokenizers import AddedToken, Tokenizer, models, pre_tokenizers

    vocab = {"[UNK]": 0}
    for w in WORDS + ["user", "assistant", "system"]:
        vocab.setdefault(w, len(vocab))
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.add_special_tokens([AddedToken("<|im_start|>", special=True), AddedToken("<|im_end|>", special=True)])
    d.mkdir(parents=True, exist_ok=True)
    tok.save(str(d / "tokenizer.json"))
    tpl = "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
    (d / "tokenizer_config.json").write_text(json.dumps({"name_or_path": "bench-wordlevel", "chat_template": tpl}))
    return d


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        tok = tokenizer_dir(tmp / "tok")
        for fmt in ("alpaca", "sharegpt"):
            path = tmp / f"{fmt}.jsonl"
            make(path, n, fmt)
            size = path.stat().st_size / 2**20
            for label, model in (("approx", None), ("tokenizer+template", str(tok))):
                t0 = time.perf_counter()
                stats = analyze_dataset(str(path), model=model)
                dt = time.perf_counter() - t0
                print(f"{fmt:9s} {label:19s} {stats.count:>7,} samples {size:6.1f} MiB  {dt:6.2f} s  "
                      f"{stats.count / dt:9,.0f} samples/s  p95 {stats.percentile(95)}")


if __name__ == "__main__":
    main()
