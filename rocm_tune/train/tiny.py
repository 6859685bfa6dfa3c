"""A tiny random model and a tiny learnable dataset, built locally (nothing is downloaded).

`make_tiny_dataset(path)` writes an alpaca JSON with simple patterns (copy, count, fixed facts) so the
loss visibly falls within a few dozen steps; `make_tiny_model(dir, dataset)` builds a word-level
tokenizer from that text with the `tokenizers` library (plus a ChatML chat template) and a 2-layer
Qwen2 (or Llama) model with hidden size 64 and random weights, saved with save_pretrained.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)
SPECIAL = ["<pad>", "<unk>", "<|im_start|>", "<|im_end|>", "<|endoftext|>"]

WORDS = ["red", "green", "blue", "cat", "dog", "sun", "moon", "tree", "river", "stone", "bird", "fish", "apple", "bread", "cloud", "rain", "star", "wind", "fire", "snow"]
FACTS = {"cat": "meow", "dog": "woof", "sun": "hot", "snow": "cold", "fish": "swim", "bird": "fly",
         "fire": "burn", "rain": "wet"}
NUMS = [str(i) for i in range(30)]


def tiny_records(n: int = 256, seed: int = 0) -> list[dict]:
    """Alpaca records with three learnable patterns."""
    rng = random.Random(seed)
    recs: list[dict] = []
    for i in range(n):
        kind = i % 3
        if kind == 0:
            words = [rng.choice(WORDS) for _ in range(rng.randint(2, 5))]
            recs.append({"instruction": "repeat the words", "input": " ".join(words), "output": " ".join(words)})
        elif kind == 1:
            start = rng.randint(0, 20)
            recs.append({"instruction": "count from", "input": str(start),
                         "output": " ".join(NUMS[start: start + 6])})
        else:
            word = rng.choice(sorted(FACTS))
            recs.append({"instruction": "what does it do", "input": word, "output": f"a {word} is {FACTS[word]}"})
    return recs


def make_tiny_dataset(path: str | os.PathLike, n: int = 256, seed: int = 0) -> Path:
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(tiny_records(n, seed), indent=1), encoding="utf-8")
    return p


def build_tokenizer(records: list[dict], vocab_size: int = 400):
    """A byte-level BPE PreTrainedTokenizerFast trained on the dataset text, with a ChatML chat template."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tk = Tokenizer(models.BPE())
    tk.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tk.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, special_tokens=SPECIAL, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    texts = [" ".join(str(v) for v in r.values()) for r in records]
    texts += ["user assistant system " + " ".join(NUMS + WORDS)]
    tk.train_from_iterator(texts, trainer=trainer)
    tok = PreTrainedTokenizerFast(
        tokenizer_object=tk, unk_token="<unk>", pad_token="<pad>", eos_token="<|im_end|>",
        additional_special_tokens=["<|im_start|>", "<|endoftext|>"],
    )
    tok.chat_template = CHAT_TEMPLATE
    return tok


def tiny_config(vocab_size: int, arch: str = "qwen2", hidden: int = 64, layers: int = 2) -> dict:
    common = {
        "vocab_size": vocab_size, "hidden_size": hidden, "intermediate_size": hidden * 2,
        "num_hidden_layers": layers, "num_attention_heads": 4, "num_key_value_heads": 2,
        "max_position_embeddings": 512, "rms_norm_eps": 1e-6, "tie_word_embeddings": True,
        "hidden_act": "silu", "rope_theta": 10000.0, "torch_dtype": "float32",
        "pad_token_id": 0, "eos_token_id": 3, "bos_token_id": None,
    }
    if arch == "qwen2":
        return {"model_type": "qwen2", "architectures": ["Qwen2ForCausalLM"], **common}
    if arch == "llama":
        return {"model_type": "llama", "architectures": ["LlamaForCausalLM"], **common}
    raise ValueError(f"tiny arch {arch!r} is not qwen2 or llama")


def make_tiny_model(out_dir: str | os.PathLike, dataset: str | os.PathLike | None = None, *,
                    arch: str = "qwen2", hidden: int = 64, layers: int = 2, seed: int = 0) -> Path:
    """Build and save a tiny random causal LM + tokenizer under `out_dir`; returns the directory."""
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    records = json.loads(Path(dataset).read_text(encoding="utf-8")) if dataset else tiny_records()
    tok = build_tokenizer(records)
    cfg_dict = tiny_config(len(tok), arch, hidden, layers)
    cfg_dict["pad_token_id"] = tok.pad_token_id
    cfg_dict["eos_token_id"] = tok.eos_token_id
    model_type = cfg_dict.pop("model_type")
    config = AutoConfig.for_model(model_type, **{k: v for k, v in cfg_dict.items() if k != "torch_dtype"})
    torch.manual_seed(seed)
    model = AutoModelForCausalLM.from_config(config)
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # no "Writing model shards" bar in the demo's output
    model.save_pretrained(out)
    tok.save_pretrained(out)
    return out
