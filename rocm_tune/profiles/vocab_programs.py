"""Training programs that resize the model's vocabulary to their own tokenizer before training (issue 26, helper
c-under7): the embedding and the output layer the job trains are tokenizer-sized, not the base checkpoint's. Pure
data; read by core/runners/hf.py read_vocab_program, applied to the model by core/check/check.py.

ymcui/Chinese-LLaMA-Alpaca scripts/training/run_clm_sft_with_peft.py: `if (len(tokenizer))!=49954: raise
ValueError("The vocab size of the tokenizer must be 49954 ...")` then `if len(tokenizer) != embedding_size:
model.resize_token_embeddings(len(tokenizer))`; run_clm_pt_with_peft.py accepts only the pairs (base 32000, tokenizer
49953) / (32000, 32000) / (49953, 49953) / (49954, 49954) ("Pre-training Chinese LLaMA based on original LLaMA:
32000 / 49953") and calls model.resize_token_embeddings(len(tokenizer)). ymcui/Chinese-LLaMA-Alpaca-2 (Llama-2 bases)
ships both programs under the same names: `if tokenizer_vocab_size != 55296: raise ValueError(... "Please use
Chinese-LLaMA-2 tokenizer.")`, then resize_token_embeddings. Both take --tokenizer_name_or_path (the Chinese
tokenizer). A base whose vocabulary is not LLaMA's 32000 (an already-merged Chinese model, a Llama-3 of
Chinese-LLaMA-Alpaca-3) is left as its config says."""

from __future__ import annotations

# program file name -> (flag that names the tokenizer, vocab on a LLaMA-1 base, vocab on a Llama-2 base)
RESIZING_PROGRAMS: dict[str, tuple[str, int, int]] = {
    "run_clm_sft_with_peft.py": ("tokenizer_name_or_path", 49954, 55296),
    "run_clm_pt_with_peft.py": ("tokenizer_name_or_path", 49953, 55296),
}
BASE_VOCAB = 32000            # LLaMA-1 / Llama-2's own tokenizer: the only base the programs resize
LLAMA2_CONTEXT = 4096         # max_position_embeddings of Llama-2 (LLaMA-1: 2048): which repository's program it is
SOURCE = ("ymcui/Chinese-LLaMA-Alpaca(-2) scripts/training/run_clm_{sft,pt}_with_peft.py: a tokenizer of 49953/49954 "
          "(LLaMA) or 55296 (Llama-2) tokens is required, then model.resize_token_embeddings(len(tokenizer))")
# Chinese-LLaMA-Alpaca-2's programs quantize the base with `--load_in_kbits 4|8` (TrainingArguments field, default 16):
# BitsAndBytesConfig(load_in_4bit=kbits == 4, load_in_8bit=kbits == 8, bnb_4bit_compute_dtype=torch_dtype,
# bnb_4bit_use_double_quant=double_quant, bnb_4bit_quant_type=quant_type (nf4)), then prepare_model_for_kbit_training
KBITS_FLAG = "load_in_kbits"
KBITS = (4, 8)
