"""Public datasets' longest sample, in tokens, each with where the figure comes from (issue 26). Pure data.

`rocm-tune check` counts a micro-batch at min(length cap, the named data's longest sample) when the collator pads
to the batch's longest sample (no packing): a dataset is here only with a sourced figure (a published length
measurement of the whole set, a dataset card's statistics, the set's own construction); a set without one is not
guessed. The figure is for the tokenizer and prompt format named in `tokenizer`; other tokenizers of the same
vocabulary size give figures of the same order.

Keys are lower case: hub ids (`org/name`), LLaMA-Factory dataset_info.json names, ms-swift --dataset names and
torchtune dataset builders; `aliases` maps other names of the same data onto one entry. LARGE_VOCAB_DATASETS holds
figures counted with a ~150k-token vocabulary (ms-swift's own whole-set statistics): check uses them only for a
model whose vocabulary has LARGE_VOCAB tokens or more. Multimodal sets are not
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


# ms-swift's own measurement of its registered datasets (issue 26): scripts/utils/run_dataset_info.py of ms-swift 2.x
# (modelscope/ms-swift 9efe7ddd3 .. 62f7bd4ba, Nov 2023 - Jun 2024) encodes EVERY row of a dataset's train split, as
# ms-swift loads and preprocesses it, with the qwen-7b-chat template (Qwen tokenizer, 151,851 tokens, ChatML with
# the default system prompt; get_template without max_length: nothing truncated or dropped) and writes mean, min and
# max to the "Statistic (token)" column of docs/source/LLM/支持的模型和数据集.md. The figure below is that max, as
# first written at the commit named (a row keeps its figure once written). ms-swift 3.x's table is not used: it
# encodes the first 5000 rows (b40f31df7) or a 100,000-row sample, except where a set is smaller (gsm8k below).
# Left out: sets whose 2.x preprocessing dropped text or rows another loader keeps (no-robots: rows with a system
# turn deleted; lawyer-llama-zh: its history column dropped; codefuse-python-en, guanaco: rows dropped or a part
# of the hub set), preference sets (only the chosen answer is encoded), multimodal sets.
# The count is for a ~150k-token vocabulary: it holds for tokenizers of 100k tokens or more (Llama 3, Qwen, Gemma,
# GLM-4, DeepSeek, Mistral-Nemo), which split text into about as many tokens or fewer; a 32k-64k vocabulary (Llama 2,
# Mistral 7B, Baichuan, ChatGLM, Yi) may need two or three times as many on Chinese text, so it gets no bound from
# these. SWIFT_TEMPLATE_ALLOWANCE covers another chat template's role headers and default system prompt.
LARGE_VOCAB = 100_000
SWIFT_TEMPLATE_ALLOWANCE = 256
_SWIFT_SRC = ("ms-swift {doc} 'Statistic (token)' (modelscope/ms-swift {c}, scripts/utils/run_dataset_info.py: all "
              "{n} rows of {ms} encoded with the {tpl} template, none truncated): longest {m} tokens, + {a} for "
              "another chat template")
_V2_DOC = "docs/source/LLM/支持的模型和数据集.md"
# ModelScope id (as ms-swift writes it) -> (longest in Qwen tokens, rows, commit where the figure was first written)
SWIFT_STATS: dict[str, tuple[int, int, str]] = {
    "AI-ModelScope/alpaca-gpt4-data-en": (740, 52002, "9efe7ddd3"),
    "AI-ModelScope/alpaca-gpt4-data-zh": (856, 48818, "9efe7ddd3"),
    "AI-ModelScope/alpaca-cleaned": (1044, 51760, "5818a85ed"),
    "wyj123456/code_alpaca_en": (1776, 20016, "9dc41ab06"),
    "AI-ModelScope/CodeAlpaca-20k": (1776, 20016, "5818a85ed"),
    "AI-ModelScope/databricks-dolly-15k": (8615, 15011, "5818a85ed"),
    "swift/SlimOrca": (8756, 517982, "5818a85ed"),
    "swift/ultrachat_200k": (4470, 207865, "5818a85ed"),
    "AI-ModelScope/firefly-train-1.1M": (12516, 1649399, "5818a85ed"),
    "AI-ModelScope/train_0.5M_CN": (6507, 519255, "5818a85ed"),
    "AI-ModelScope/generated_chat_0.4M": (873, 396004, "67625b574"),
    "AI-ModelScope/school_math_0.25M": (3450, 248480, "9dc41ab06"),
    "AI-ModelScope/blossom-math-v2": (563, 10000, "9efe7ddd3"),
    "lvjianjin/AdvertiseGen": (241, 98399, "9dc41ab06"),
    "AI-ModelScope/Open-Platypus": (3951, 24926, "67625b574"),
    "AI-ModelScope/LongAlpaca-12k": (78925, 11998, "939a22139"),
    "AI-ModelScope/sharegpt_gpt4": (66412, 72684, "9dc41ab06"),
    "swift/cosmopedia-100k": (2981, 100000, "5818a85ed"),
    "AI-ModelScope/leetcode-solutions-python": (2146, 2359, "9dc41ab06"),
    "codefuse-ai/Evol-instruction-66k": (2983, 66862, "9efe7ddd3"),
    "AI-ModelScope/sql-create-context": (456, 78577, "9efe7ddd3"),
    "AI-ModelScope/texttosqlv2_25000_v2": (1975, 25000, "9efe7ddd3"),
    "wyj123456/finance_en": (3525, 68911, "9efe7ddd3"),
    # issue 26 (c-data2): more rows of the same 2.x table, read at 4b72dc834 (docs/source_en/Instruction/
    # Supported-models-datasets.md, the last 2.x table, whose script still encodes every row); each row's size is the
    # hub set's (no row dropped): MathInstruct (TIGER-Lab), MATH-plus (TIGER-Lab, MATH + MetaMath-style rewrites),
    # Magpie-Qwen2-Pro (Magpie-Align), LongWriter-6k (THUDM; 3.x's table, all 6000 rows, gives the same 30354),
    # multi-alpaca (damo PolyLM, ModelScope only). Left out: tagengo-gpt4 (2.x 78057 rows, max 3521; 3.x 76437 rows,
    # max 1726: the loaders disagree on the rows, and the hub set's size was not checked)
    "AI-ModelScope/MathInstruct": (4383, 262283, "5818a85ed"),
    "TIGER-Lab/MATH-plus": (2919, 893929, "5818a85ed"),
    "AI-ModelScope/Magpie-Qwen2-Pro-200K-English": (4267, 200000, "dd923eb26"),
    "AI-ModelScope/Magpie-Qwen2-Pro-300K-Filtered": (4267, 300000, "dd923eb26"),
    "AI-ModelScope/Magpie-Qwen2-Pro-200K-Chinese": (4101, 200000, "dd923eb26"),
    "ZhipuAI/LongWriter-6k": (30354, 6000, "3d78a3ec8"),
    "damo/nlp_polylm_multialpaca_sft": (1226, 131867, "9dc41ab06"),
    # COIG-CQIA, its 13 subsets (ModelScope only in 2.x's registry; 3.x's table, all 44694 rows, gives the same max)
    "AI-ModelScope/COIG-CQIA": (19288, 44694, "9dc41ab06"),
}
LARGE_VOCAB_DATASETS: dict[str, tuple[int, str, str]] = {
    ms.lower(): (m + SWIFT_TEMPLATE_ALLOWANCE, "Qwen tokenizer (151k vocabulary), ChatML; for vocabularies >= 100k",
         _SWIFT_SRC.format(doc=_V2_DOC, c=c, n=n, ms=ms, tpl="qwen-7b-chat", m=m, a=SWIFT_TEMPLATE_ALLOWANCE))
    for ms, (m, n, c) in SWIFT_STATS.items()}
# GSM8K (main): ms-swift 3.x's table, whose script (ab719678a) encodes min(rows, 100,000) rows, so all 7473 train rows
# of modelscope/gsm8k (= openai/gsm8k main train) with Qwen2.5-7B-Instruct's template
LARGE_VOCAB_DATASETS["openai/gsm8k"] = (
    241 + SWIFT_TEMPLATE_ALLOWANCE, "Qwen2.5 tokenizer (151k vocabulary), ChatML; for vocabularies >= 100k",
    _SWIFT_SRC.format(doc="docs/source/Instruction/Supported-models-and-datasets.md", c="ab719678a", n=7473,
                      ms="modelscope/gsm8k", tpl="Qwen2.5-7B-Instruct", m=241, a=SWIFT_TEMPLATE_ALLOWANCE))
# GSM8K for any tokenizer: openai/grade-school-math (3101c7d5) grade_school_math/data/train.jsonl (7473 rows) and
# test.jsonl (1319): the longest question + answer is 1691 UTF-8 bytes, an upper bound of byte-level BPE tokens
DATASETS["openai/gsm8k"] = (1691 + LF_TEMPLATE_ALLOWANCE, "any byte-level BPE tokenizer (upper bound)",
                            "openai/grade-school-math 3101c7d5 grade_school_math/data/{train,test}.jsonl (the main "
                            f"subset): longest question + answer 1691 UTF-8 bytes, + {LF_TEMPLATE_ALLOWANCE} for the "
                            "chat template")
# Looked for and NOT here (issue 26, c-data9: no published whole-set maximum, no copy in git to measure):
# simplescaling/s1K and s1K-1.1 (the s1 paper says only that a 32768 block "avoids cutting off samples" and that
# 4096 cuts 74 % of them: an upper bound equal to the cap); HuggingFaceH4/ultrafeedback_binarized; allenai/
# tulu-3-sft-mixture; Search-R1's nq_hotpotqa_train prompts; wikitext-103-v1 rows (AMD-AIG-AIMA/pytorch-training-
# benchmark dataset.py writes each row of the hub set as one sample); the original ADGEN (114,599 train rows, the
# file shuxueslpi/chatGLM-6B-QLoRA's README names: the repos that ship it keep train.json out of git; ms-swift's
# 98,399-row ModelScope copy below is another row set, so its 241 bounds only itself)
# stages that generate their completions (GRPO, PPO, RLOO, online DPO, GKD, ...): the data holds only the prompts, so
# the named data's longest sample bounds no sequence of theirs
GENERATING_STAGES = ("grpo", "ppo", "rloo", "online_dpo", "gkd", "xpo", "nash_md", "reinforce_plus_plus", "remax",
                     "dapo", "gspo")
# a figure measured on some subsets only: another subset named (`name:subset`, --dataset_config_name) gets none
SUBSETS: dict[str, tuple[str, ...]] = {"openai/gsm8k": ("main",)}

# other names of the same data (issue 26): ms-swift 2.x --dataset names; the hub ids ms-swift's registry maps them to
# where the hub set has the rows measured (its train split's size); LLaMA-Factory dataset_info.json names
# (hf_hub_url); torchtune's builder alpaca_cleaned_dataset (its default source is yahma/alpaca-cleaned) - mapped from
# the source although a corpus record (tt-856, 8k) names it in a reconstructed recipe whose run used other data
LARGE_VOCAB_ALIASES: dict[str, str] = {
    "alpaca-en": "ai-modelscope/alpaca-gpt4-data-en", "vicgalle/alpaca-gpt4": "ai-modelscope/alpaca-gpt4-data-en",
    "alpaca_gpt4_en": "ai-modelscope/alpaca-gpt4-data-en",
    "llamafactory/alpaca_gpt4_en": "ai-modelscope/alpaca-gpt4-data-en",
    "alpaca-zh": "ai-modelscope/alpaca-gpt4-data-zh", "llm-wizard/alpaca-gpt4-data-zh": "ai-modelscope/alpaca-gpt4-data-zh",
    "alpaca_gpt4_zh": "ai-modelscope/alpaca-gpt4-data-zh",
    "llamafactory/alpaca_gpt4_zh": "ai-modelscope/alpaca-gpt4-data-zh",
    "alpaca-cleaned": "ai-modelscope/alpaca-cleaned", "yahma/alpaca-cleaned": "ai-modelscope/alpaca-cleaned",
    "torchtune.datasets.alpaca_cleaned_dataset": "ai-modelscope/alpaca-cleaned",
    "alpaca_cleaned_dataset": "ai-modelscope/alpaca-cleaned",
    "code-alpaca-en": "wyj123456/code_alpaca_en", "sahil2801/codealpaca-20k": "wyj123456/code_alpaca_en",
    "codealpaca": "wyj123456/code_alpaca_en",
    "codealpaca-20k": "ai-modelscope/codealpaca-20k", "huggingfaceh4/codealpaca_20k": "ai-modelscope/codealpaca-20k",
    "dolly-15k": "ai-modelscope/databricks-dolly-15k",
    "databricks/databricks-dolly-15k": "ai-modelscope/databricks-dolly-15k",
    "slim-orca": "swift/slimorca", "open-orca/slimorca": "swift/slimorca", "slimorca": "swift/slimorca",
    "ultrachat-200k": "swift/ultrachat_200k", "huggingfaceh4/ultrachat_200k": "swift/ultrachat_200k",
    "ultrachat_200k": "swift/ultrachat_200k", "ai-modelscope/ultrachat_200k": "swift/ultrachat_200k",
    "firefly-zh": "ai-modelscope/firefly-train-1.1m", "yeungnlp/firefly-train-1.1m": "ai-modelscope/firefly-train-1.1m",
    "firefly": "ai-modelscope/firefly-train-1.1m",
    "belle-train-0.5m-cn": "ai-modelscope/train_0.5m_cn", "bellegroup/train_0.5m_cn": "ai-modelscope/train_0.5m_cn",
    "belle_0.5m": "ai-modelscope/train_0.5m_cn",
    "generated-chat-zh": "ai-modelscope/generated_chat_0.4m",
    "belle-generated-chat-0.4m": "ai-modelscope/generated_chat_0.4m",
    "bellegroup/generated_chat_0.4m": "ai-modelscope/generated_chat_0.4m", "belle_dialog": "ai-modelscope/generated_chat_0.4m",
    "school-math-zh": "ai-modelscope/school_math_0.25m", "belle-math-0.25m": "ai-modelscope/school_math_0.25m",
    "bellegroup/school_math_0.25m": "ai-modelscope/school_math_0.25m", "belle_math": "ai-modelscope/school_math_0.25m",
    "blossom-math-zh": "ai-modelscope/blossom-math-v2", "azure99/blossom-math-v2": "ai-modelscope/blossom-math-v2",
    "advertise-gen-zh": "lvjianjin/advertisegen",
    "open-platypus-en": "ai-modelscope/open-platypus", "garage-baind/open-platypus": "ai-modelscope/open-platypus",
    "open_platypus": "ai-modelscope/open-platypus",
    "long-alpaca-12k": "ai-modelscope/longalpaca-12k", "sharegpt-gpt4": "ai-modelscope/sharegpt_gpt4",
    "cosmopedia-100k": "swift/cosmopedia-100k", "huggingfacetb/cosmopedia-100k": "swift/cosmopedia-100k",
    "leetcode-python-en": "ai-modelscope/leetcode-solutions-python",
    "codefuse-evol-instruction-zh": "codefuse-ai/evol-instruction-66k",
    "sql-create-context-en": "ai-modelscope/sql-create-context",
    "text2sql-en": "ai-modelscope/texttosqlv2_25000_v2", "finance-en": "wyj123456/finance_en",
    # c-data2: the 2.x names and hub ids of the rows added above (ms-swift 2.x swift/llm/utils/dataset.py
    # register_dataset: hf_dataset_id)
    "math-instruct": "ai-modelscope/mathinstruct", "tiger-lab/mathinstruct": "ai-modelscope/mathinstruct",
    "math-plus": "tiger-lab/math-plus",
    "qwen2-pro-en": "ai-modelscope/magpie-qwen2-pro-200k-english",
    "magpie-align/magpie-qwen2-pro-200k-english": "ai-modelscope/magpie-qwen2-pro-200k-english",
    "qwen2-pro-filtered": "ai-modelscope/magpie-qwen2-pro-300k-filtered",
    "magpie-align/magpie-qwen2-pro-300k-filtered": "ai-modelscope/magpie-qwen2-pro-300k-filtered",
    "qwen2-pro-zh": "ai-modelscope/magpie-qwen2-pro-200k-chinese",
    "magpie-align/magpie-qwen2-pro-200k-chinese": "ai-modelscope/magpie-qwen2-pro-200k-chinese",
    "longwriter-6k": "zhipuai/longwriter-6k", "thudm/longwriter-6k": "zhipuai/longwriter-6k",
    "multi-alpaca": "damo/nlp_polylm_multialpaca_sft", "coig-cqia": "ai-modelscope/coig-cqia",
}
ALIASES.update({"gsm8k": "openai/gsm8k", "modelscope/gsm8k": "openai/gsm8k", "ai-modelscope/gsm8k": "openai/gsm8k"})


def _subset(name: str) -> str:
    """The subset a name carries (`org/name:subset`, `org/name:subset#N`), lower case, or ''."""
    n = str(name).strip().strip("'\"").lower()
    for prefix in ("https://", "hf://", "ms://", "hf::", "ms::"):
        if n.startswith(prefix):
            n = n[len(prefix):]
    head = n.split("#")[0]
    return head.split(":", 1)[1].strip() if ":" in head else ""


def _key(name: str) -> str:
    """`org/name#N` (N samples of it), `org/name:subset` (a subset), quotes and a hub URL prefix dropped."""
    n = str(name).strip().strip("'\"").lower()
    for prefix in ("https://huggingface.co/datasets/", "hf://datasets/", "ms://", "hf::", "ms::"):
        if n.startswith(prefix):
            n = n[len(prefix):]
    return n.split("#")[0].split(":")[0].rstrip("/")


def longest(name: str, llamafactory: bool = False, vocab: int = 0) -> tuple[int, str, str] | None:
    """(longest sample in tokens, tokenizer/format, source) of a named public dataset, or None when no sourced
    figure is known (a subset or a sample of a set is bounded by the whole set's longest, unless the figure covers
    only some subsets: SUBSETS). `llamafactory`: a LLaMA-Factory `dataset` name, which may also be one of its demo
    files (LF_FILES). `vocab`: the model's vocabulary size; from LARGE_VOCAB tokens on, the figures counted with
    Qwen's tokenizer apply too (the smaller figure wins); 0 (unknown) or smaller: only the others."""
    k = _key(name)
    if llamafactory and k in LF_FILES:
        return LF_FILES[k]
    k = ALIASES.get(k, LARGE_VOCAB_ALIASES.get(k, k))
    sub = _subset(name)
    if sub and k in SUBSETS and sub not in SUBSETS[k]:
        return None
    got = [g for g in (DATASETS.get(k), LARGE_VOCAB_DATASETS.get(k) if vocab >= LARGE_VOCAB else None) if g]
    return min(got, key=lambda g: g[0]) if got else None


def longest_of(names, llamafactory: bool = False, vocab: int = 0) -> tuple[int, str] | None:
    """(longest sample, sources) over several named datasets when EVERY one has a figure, else None."""
    found = [longest(n, llamafactory, vocab) for n in names if str(n).strip()]
    got = [g for g in found if g is not None]
    if not got or len(got) < len(found):
        return None
    top = max(got, key=lambda g: g[0])
    return top[0], top[2]
