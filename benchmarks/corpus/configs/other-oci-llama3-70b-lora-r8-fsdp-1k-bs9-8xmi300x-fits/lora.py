# lora.py (training part of the OCI MI300X single-node fine-tuning example; mlflow logging and
# the memory tracer left out)
import torch
from dataclasses import dataclass, field
from datasets import load_dataset
from transformers import AutoModelForCausalLM, AutoTokenizer, TrainingArguments, set_seed
from trl.commands.cli_utils import TrlParser
from trl import SFTTrainer
from peft import LoraConfig


@dataclass
class ScriptArguments:
    dataset_path: str = field(default=None, metadata={"help": "Path to the dataset"})
    model_id: str = field(default=None, metadata={"help": "Model ID to use for SFT training"})
    max_seq_length: int = field(default=2048, metadata={"help": "The maximum sequence length for SFT Trainer"})


def training_function(script_args, training_args):
    train_dataset = load_dataset("tau/scrolls", "gov_report", split="train")
    test_dataset = load_dataset("tau/scrolls", "gov_report", split="test")
    tokenizer = AutoTokenizer.from_pretrained(script_args.model_id, use_fast=True)
    tokenizer.pad_token = tokenizer.eos_token
    train_dataset = train_dataset.map(lambda ex: {"text": ex["input"]}, remove_columns=["input"])
    test_dataset = test_dataset.map(lambda ex: {"text": ex["input"]}, remove_columns=["input"])

    model = AutoModelForCausalLM.from_pretrained(
        script_args.model_id,
        attn_implementation="flash_attention_2",
        torch_dtype=torch.bfloat16,
        use_cache=False if training_args.gradient_checkpointing else True,
    )
    if training_args.gradient_checkpointing:
        model.gradient_checkpointing_enable()

    peft_config = LoraConfig(
        lora_alpha=32,
        lora_dropout=0.05,
        r=8,
        bias="none",
        target_modules="all-linear",
        task_type="CAUSAL_LM",
    )
    trainer = SFTTrainer(
        model=model,
        args=training_args,
        train_dataset=train_dataset,
        dataset_text_field="text",
        eval_dataset=test_dataset,
        peft_config=peft_config,
        max_seq_length=script_args.max_seq_length,
        tokenizer=tokenizer,
        packing=True,
        dataset_kwargs={"add_special_tokens": False, "append_concat_token": False},
    )
    trainer.train()
    trainer.evaluate()
    if trainer.is_fsdp_enabled:
        trainer.accelerator.state.fsdp_plugin.set_state_dict_type("FULL_STATE_DICT")


if __name__ == "__main__":
    parser = TrlParser((ScriptArguments, TrainingArguments))
    script_args, training_args = parser.parse_args_and_config()
    if training_args.gradient_checkpointing:
        training_args.gradient_checkpointing_kwargs = {"use_reentrant": True}
    set_seed(training_args.seed)
    training_function(script_args, training_args)
