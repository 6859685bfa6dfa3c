"""Public datasets' longest sample, in tokens, each with where the figure comes from (issue 26). Pure data.

`rocm-tune check` counts a micro-batch at min(length cap, the named data's longest sample) when the collator pads
to the batch's longest sample (no packing): a dataset is here only with a sourced figure (a published length
measurement of the whole set, a dataset card's statistics, the set's own construction); a set without one is not
guessed. The figure is for the tokenizer and prompt format named in `tokenizer`; other tokenizers of the same
vocabulary size give figures of the same order.

Keys are lower case: hub ids (`org/name`), LLaMA-Factory dataset_info.json names, ms-swift --dataset names and
torchtune dataset builders; `aliases` maps other names of the same data onto one entry. Multimodal sets are not
here: their samples' length is mostly image/video tokens, set by the processor's pixel limits, not by the text."""

from __future__ import annotations

# name -> (longest sample in tokens, tokenizer/format the figure is for, source)
DATASETS: dict[str, tuple[int, str, str]] = {
    # Stanford Alpaca's 52k instruction set: tloen/alpaca-lora lengths.ipynb tokenizes every sample of
    # alpaca_data.json in the Alpaca prompt template (LLaMA-1 tokenizer, add_eos_token) and histograms the lengths:
    # the last bin ends at 1305 tokens (42,516 of 52,002 samples under 185)
    "tatsu-lab/alpaca": (1305, "LLaMA-1 tokenizer, Alpaca prompt", "tloen/alpaca-lora lengths.ipynb "
                         "(https://github.com/tloen/alpaca-lora/blob/main/lengths.ipynb): the longest of the 52k "
                         "samples is 1305 tokens"),
    # LitGPT's `--data Alpaca` (litgpt/data/alpaca.py: the cleaned 52k Alpaca, alpaca_data_cleaned_archive.json of
    # gururise/AlpacaDataCleaned, in LitGPT's Alpaca prompt): its resource tables state the longest training example
    # per tokenizer
    "litgpt/alpaca": (1304, "Llama 2 tokenizer, LitGPT's Alpaca prompt", "Lightning-AI/litgpt "
                      "tutorials/resource-tables.md: 'the number of tokens in the longest training example ... "
                      "Llama 2: 1304 tokens' (phi-1.5 1044, StableLM Alpha 1034, Falcon 1079)"),
    # ms-swift's identity set (one-line questions and short answers, {{NAME}}/{{AUTHOR}} filled in by --model_name /
    # --model_author): the 134 rows of swift/llm/data/self_cognition.jsonl, in the repository until it moved to the
    # hub as swift/self-cognition (modelscope/ms-swift e34917465, June 2024); measured like LF_FILES below
    "swift/self-cognition": (549 + 512, "any byte-level BPE tokenizer (upper bound)",
                             "ms-swift swift/llm/data/self_cognition.jsonl (modelscope/ms-swift, before e34917465): "
                             "longest of its 134 rows 549 UTF-8 bytes, an upper bound of its tokens, + 512 for the "
                             "chat template"),
}

# LLaMA-Factory's own demo files (data/ of hiyouga/LLaMA-Factory at ff6d4d12, 2026-08-18), named by a config's
# `dataset` when it runs from LLaMA-Factory's folder: read only for llamafactory configs. Measured from the files:
# the longest sample's UTF-8 bytes (all its text: instruction, input, output, turns, tools; a preference row is the
# prompt with the longer answer), an upper bound of its tokens for byte-level BPE tokenizers (every token is at least
# one byte), plus LF_TEMPLATE_ALLOWANCE tokens for the chat template's own text (role headers, a default system
# prompt, the tool prompt; NAME/AUTHOR filled in in identity.json).
LF_TEMPLATE_ALLOWANCE = 512
_LF_SRC = ("LLaMA-Factory data/{f} (hiyouga/LLaMA-Factory ff6d4d12): longest sample {b} UTF-8 bytes, an upper bound "
           "of its tokens, + {a} for the chat template")
LF_FILES: dict[str, tuple[int, str, str]] = {
    name: (b + LF_TEMPLATE_ALLOWANCE, "any byte-level BPE tokenizer (upper bound)",
           _LF_SRC.format(f=f"{name}.json", b=b, a=LF_TEMPLATE_ALLOWANCE))
    for name, b in (("identity", 358), ("alpaca_en_demo", 2921), ("alpaca_zh_demo", 1436),
                    ("glaive_toolcall_en_demo", 12405), ("glaive_toolcall_zh_demo", 7945),
                    ("dpo_en_demo", 15610), ("dpo_zh_demo", 8458), ("kto_en_demo", 15339))}

# other names of the same data: LLaMA-Factory's dataset_info.json (alpaca_en is the 52k Alpaca file,
# llamafactory/alpaca_en on the hub), torchtune's builder (alpaca_dataset's default source is tatsu-lab/alpaca),
# ms-swift's ModelScope ids
ALIASES: dict[str, str] = {
    "alpaca_en": "tatsu-lab/alpaca", "llamafactory/alpaca_en": "tatsu-lab/alpaca",
    "alpaca_data_en_52k": "tatsu-lab/alpaca", "alpaca_data_en_52k.json": "tatsu-lab/alpaca",
    "torchtune.datasets.alpaca_dataset": "tatsu-lab/alpaca", "alpaca_dataset": "tatsu-lab/alpaca",
    "self-cognition": "swift/self-cognition", "modelscope/self-cognition": "swift/self-cognition",
}


def _key(name: str) -> str:
    """`org/name#N` (N samples of it), `org/name:subset` (a subset), quotes and a hub URL prefix dropped."""
    n = str(name).strip().strip("'\"").lower()
    for prefix in ("https://huggingface.co/datasets/", "hf://datasets/", "ms://", "hf::", "ms::"):
        if n.startswith(prefix):
            n = n[len(prefix):]
    return n.split("#")[0].split(":")[0].rstrip("/")


def longest(name: str, llamafactory: bool = False) -> tuple[int, str, str] | None:
    """(longest sample in tokens, tokenizer/format, source) of a named public dataset, or None when no sourced
    figure is known (a subset or a sample of a set is bounded by the whole set's longest). `llamafactory`: a
    LLaMA-Factory `dataset` name, which may also be one of its demo files (LF_FILES)."""
    k = _key(name)
    if llamafactory and k in LF_FILES:
        return LF_FILES[k]
    return DATASETS.get(ALIASES.get(k, k))


def longest_of(names, llamafactory: bool = False) -> tuple[int, str] | None:
    """(longest sample, sources) over several named datasets when EVERY one has a figure, else None."""
    found = [longest(n, llamafactory) for n in names if str(n).strip()]
    got = [g for g in found if g is not None]
    if not got or len(got) < len(found):
        return None
    top = max(got, key=lambda g: g[0])
    return top[0], top[2]
