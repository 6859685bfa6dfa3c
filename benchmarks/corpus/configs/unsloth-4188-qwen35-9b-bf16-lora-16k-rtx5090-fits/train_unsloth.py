import os
os.environ['HF_HUB_OFFLINE'] = '1'

from unsloth import FastLanguageModel
import bitsandbytes as bnb
import torch
from datasets import load_dataset
from trl import SFTTrainer, SFTConfig

max_seq_length = 16384

dataset_path = r"E:\Unsloth\datasets.jsonl"
dataset = load_dataset("json", data_files=dataset_path, split="train")

base_model_path = r"E:\HuggingFace\hub\models--trohrbaugh--Qwen3.5-9B-heretic-v2\snapshots\c242553de7b8c09f95e8613429ab9faeb811eb6e"

model, tokenizer = FastLanguageModel.from_pretrained(
    model_name = base_model_path,
    max_seq_length = max_seq_length,
    load_in_4bit = False,
    local_files_only = True,   # completed: the excerpt is cut at 'local_files_o'
)
# --- cut in the thread here: the get_peft_model(...) and SFTConfig(...) part is not in the excerpt
