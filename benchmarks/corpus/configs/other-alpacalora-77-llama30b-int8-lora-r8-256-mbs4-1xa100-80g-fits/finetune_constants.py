# alpaca-lora finetune.py as of 2023-03-19 (tloen/alpaca-lora @ 3cdbfe5): hyperparameters are module constants;
# the only edit for this run is the base model (decapoda-research/llama-30b-hf) - shown here as the constants block
MICRO_BATCH_SIZE = 4  # this could actually be 5 but i like powers of 2
BATCH_SIZE = 128
GRADIENT_ACCUMULATION_STEPS = BATCH_SIZE // MICRO_BATCH_SIZE
EPOCHS = 3  # we don't always need 3 tbh
LEARNING_RATE = 3e-4  # the Karpathy constant
CUTOFF_LEN = 256  # 256 accounts for about 96% of the data
LORA_R = 8
LORA_ALPHA = 16
LORA_DROPOUT = 0.05
VAL_SET_SIZE = 2000
TARGET_MODULES = [
    "q_proj",
    "v_proj",
]
DATA_PATH = "alpaca_data_cleaned.json"
OUTPUT_DIR = "lora-alpaca"
BASE_MODEL = "decapoda-research/llama-30b-hf"   # from_pretrained(BASE_MODEL, load_in_8bit=True, device_map="auto")
# prepare_model_for_int8_training(model)  -> gradient checkpointing; TrainingArguments(fp16=True, ...)
