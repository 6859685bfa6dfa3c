# Built from the non-reasoning section of workspace/gpt-oss-finetuning.ipynb
import torch
from transformers import AutoTokenizer, AutoModelForCausalLM, Mxfp4Config
from peft import LoraConfig, get_peft_model, PeftModel
from trl import SFTConfig, SFTTrainer
from datasets import load_dataset

def reset_peak_mem():
    if torch.cuda.is_available():
        torch.cuda.reset_peak_memory_stats()

def report_peak_mem(tag: str = ""):
    if torch.cuda.is_available():
        print(f"Peak training memory{(' ' + tag) if tag else ''}: {torch.cuda.max_memory_allocated()/1e9:.2f} GB")


MODEL = "openai/gpt-oss-20b"
model_name = MODEL.split("/")[-1]

LR = 2e-4
EPOCHS = 1
BATCH_SIZE = 4
MAX_LEN = 2048

# Load and prepare the non-reasoning dataset locally to this section
quotes_ds = load_dataset("Abirate/english_quotes", split="train").shuffle(seed=42).select(range(1000))

def quotes_to_messages(ex):
    return {
        "messages": [
            {"role": "user", "content": f"Give me a quote about: {ex['tags']}"},
            {"role": "assistant", "content": f"{ex['quote']} - {ex['author']}"}
        ]
    }

quotes_ds = quotes_ds.map(quotes_to_messages, remove_columns=quotes_ds.column_names).train_test_split(test_size=0.2)
print(f"Quotes train: {len(quotes_ds['train'])}, test: {len(quotes_ds['test'])}")

# Model and LoRA setup for non-reasoning SFT
quant_quotes = Mxfp4Config(dequantize=True)
model_quotes = AutoModelForCausalLM.from_pretrained(
    MODEL,
    torch_dtype=torch.bfloat16,
    device_map="auto",
    attn_implementation="eager",
    use_cache=False,
    quantization_config=quant_quotes,
)
tokenizer_quotes = AutoTokenizer.from_pretrained(MODEL)

lora_config_quotes = LoraConfig(
    r=8,
    lora_alpha=16,
    target_modules="all-linear",
    target_parameters=[
        "7.mlp.experts.gate_up_proj",
        "7.mlp.experts.down_proj",
        "15.mlp.experts.gate_up_proj",
        "15.mlp.experts.down_proj",
        "23.mlp.experts.gate_up_proj",
        "23.mlp.experts.down_proj"
    ]
)

model_quotes = get_peft_model(model_quotes, lora_config_quotes)
model_quotes.print_trainable_parameters()

# Train on quotes
args_quotes = SFTConfig(
    output_dir=f"out-{model_name}-lora",
    max_length=MAX_LEN,
    packing=False,
    num_train_epochs=EPOCHS,
    per_device_train_batch_size=BATCH_SIZE,
    warmup_ratio=0.03,
    gradient_checkpointing=True,
    gradient_checkpointing_kwargs={"use_reentrant": False},
    learning_rate=LR,
    lr_scheduler_type="cosine_with_min_lr",
    lr_scheduler_kwargs={"min_lr_rate": 0.1},
    logging_steps=10,
    eval_strategy="epoch",
    save_strategy="epoch",
    bf16=True,
    report_to="none",
    save_safetensors=True,
    save_total_limit=1
)

trainer_quotes = SFTTrainer(
    model=model_quotes,
    args=args_quotes,
    train_dataset=quotes_ds['train'],
    eval_dataset=quotes_ds['test'],
    processing_class=tokenizer_quotes
)

reset_peak_mem()
trainer_quotes.train()
report_peak_mem("lora")
trainer_quotes.save_model()
