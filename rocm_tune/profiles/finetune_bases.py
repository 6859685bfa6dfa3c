"""Fine-tune families named without their base model, and the base whose shape they keep (data; the logic is in
core/model/architecture.py ``_finetune_base``).

Key: (``NameParts.series``, size in billions as the name says it). Value: (preset name, words that, among the name's
other words, mean another base: the family then left to the other readings, source). Each entry is a family of
checkpoints, not one string: every spelling its publishers use parses to the key (
``miqu-1-70b``, ``152334H/miqu-1-70b-sf`` ...).
"""

from __future__ import annotations

FINETUNE_BASES: dict[tuple[str, float], tuple[str, frozenset[str], str]] = {
    # HuggingFaceH4 / alignment-handbook zephyr-7b-* (alpha, beta, sft-full, dpo-full): fine-tunes of Mistral-7B-v0.1
    # (their config.json: MistralForCausalLM, 32 layers of 4096, 32 heads / 8 KV groups, intermediate 14336, vocab
    # 32000); zephyr-7b-gemma is Gemma-7B's (its "gemma" word leaves it to the other readings); zephyr-orpo-141b-A35b
    # is Mixtral-8x22B's (config.json MixtralForCausalLM, 56 layers of 6144, 8 experts)
    ("zephyr", 7.0): ("mistral-7b-v0.1", frozenset({"gemma"}),
                      "HuggingFaceH4 zephyr-7b-*: Mistral-7B-v0.1's shape (its config.json)"),
    ("zephyrorpo", 141.0): ("mixtral-8x22b", frozenset(),
                            "HuggingFaceH4 zephyr-orpo-141b-A35b: Mixtral-8x22B's shape (its config.json)"),
    # miqu-1-70b (the leaked Mistral checkpoint; 152334H/miqu-1-70b-sf is its dequantized fp16 PyTorch conversion):
    # a Llama-2-70B fine-tune, config.json LlamaForCausalLM with Llama-2-70B's sizes (80 layers of 8192, 64 heads /
    # 8 KV groups, intermediate 28672, vocab 32000); rope_theta 1e6 and a 32k context change no weight
    # Google's MedGemma (model cards, 2025-26: "built on Gemma 3"): medgemma-4b-it / medgemma-1.5-4b-it are
    # Gemma3ForConditionalGeneration with Gemma 3 4B's sizes and its SigLIP tower (34 layers of 2560, vocab 262208);
    # medgemma-27b-text-it / medgemma-27b-it Gemma 3 27B's (62 layers of 5376)
    # Google's CodeGemma (google/codegemma-2b, -7b, -7b-it, codegemma-1.1-*; the CodeGemma report: "built on Gemma"):
    # config.json GemmaForCausalLM with Gemma 1's sizes: 7B 28 layers of 3072, 16 heads, intermediate 24576; 2B 18
    # layers of 2048, 8 heads / 1 KV head, intermediate 16384; both vocab 256000 (unsloth/codegemma-2b's config.json,
    # fine-tunes of google/codegemma-7b)
    ("codegemma", 7.0): ("gemma-7b", frozenset(), "google/codegemma-7b*: Gemma 7B's shape (its config.json)"),
    ("codegemma1.1", 7.0): ("gemma-7b", frozenset(), "google/codegemma-1.1-7b-it: Gemma 7B's shape (its config.json)"),
    ("codegemma", 2.0): ("gemma-2b", frozenset(), "google/codegemma-2b: Gemma 2B's shape (its config.json)"),
    ("codegemma1.1", 2.0): ("gemma-2b", frozenset(), "google/codegemma-1.1-2b: Gemma 2B's shape (its config.json)"),
    ("medgemma", 4.0): ("gemma-3-4b", frozenset(), "google/medgemma-4b-it: Gemma 3 4B's shape (its config.json)"),
    ("medgemma1.5", 4.0): ("gemma-3-4b", frozenset(),
                           "google/medgemma-1.5-4b-it: Gemma 3 4B's shape (its config.json)"),
    ("medgemma", 27.0): ("gemma-3-27b", frozenset(), "google/medgemma-27b-*: Gemma 3 27B's shape (its config.json)"),
    ("miqu1", 70.0): ("llama-2-70b", frozenset(),
                      "miqu-1-70b (152334H/miqu-1-70b-sf): Llama-2-70B's shape (its config.json)"),
}
