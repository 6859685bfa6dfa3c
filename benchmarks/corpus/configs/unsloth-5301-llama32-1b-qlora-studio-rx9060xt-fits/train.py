# Unsloth Studio training job (the run behind the PR comment); Studio's form fields written out as the script it runs.
# Posted: model, dataset, QLoRA 4 bit, learning_rate 2e-05, GPU AMD ROCm (gfx1200) on Windows.
# Filled in (Studio defaults, not in the comment): max_seq_length, batch size, accumulation, LoRA rank.
from unsloth import FastLanguageModel
from datasets import load_dataset
from trl import SFTTrainer, SFTConfig

max_seq_length = 2048          # filled in (Studio default)
model, tokenizer = FastLanguageModel.from_pretrained(
    model_name = "unsloth/Llama-3.2-1B-Instruct",
    max_seq_length = max_seq_length,
    load_in_4bit = True,       # QLoRa (4 bit)
)
model = FastLanguageModel.get_peft_model(
    model,
    r = 16,                    # filled in (Studio default)
    lora_alpha = 16,
    lora_dropout = 0,
    target_modules = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"],
    use_gradient_checkpointing = "unsloth",
)
dataset = load_dataset("unsloth/alpaca-cleaned", split = "train")

trainer = SFTTrainer(
    model = model,
    tokenizer = tokenizer,
    train_dataset = dataset,
    args = SFTConfig(
        per_device_train_batch_size = 2,     # filled in (Studio default)
        gradient_accumulation_steps = 4,     # filled in (Studio default)
        learning_rate = 2e-05,               # "[DEBUG] learning_rate from training_args: 2e-05"
        max_steps = 60,
        logging_steps = 1,
        optim = "adamw_8bit",
        output_dir = "outputs",
        report_to = "none",
    ),
)
trainer.train()
