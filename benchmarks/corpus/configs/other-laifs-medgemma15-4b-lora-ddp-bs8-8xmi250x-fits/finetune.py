import argparse
import os
import sys
import time
import torch
import mlflow
import pandas as pd

from datasets import Dataset
from peft import LoraConfig, get_peft_model
from transformers import (
    AutoModelForCausalLM,
    AutoTokenizer,
    DataCollatorForSeq2Seq,
    Trainer,
    TrainingArguments,
    AutoProcessor
)
from functools import partial


def preprocess(examples, tokenizer, max_tokens=2048):
    """
    Convert chat examples into tokenized causal-LM training examples.
    (system prompt + dialogue + structured note through the chat template, truncated at max_tokens,
    prompt tokens masked with -100; samples whose answer is fully truncated are skipped)
    """
    input_ids_list, attention_mask_list, labels_list = [], [], []
    for conversation, structured_note in zip(examples["conversation"], examples["structured_note"]):
        messages = [
            {"role": "system", "content": "You are a medical clinical documentation assistant. ..."},
            {"role": "user", "content": conversation},
            {"role": "assistant", "content": structured_note},
        ]
        full_text = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=False)
        prompt_text = tokenizer.apply_chat_template(messages[:-1], tokenize=False, add_generation_prompt=True)
        full_enc = tokenizer(full_text, truncation=True, max_length=max_tokens, padding=False, add_special_tokens=False)
        prompt_enc = tokenizer(prompt_text, truncation=True, max_length=max_tokens, padding=False, add_special_tokens=False)
        input_ids = full_enc["input_ids"]
        prompt_len = min(len(prompt_enc["input_ids"]), len(input_ids))
        if prompt_len >= len(input_ids):
            continue
        labels = [-100] * prompt_len + input_ids[prompt_len:]
        input_ids_list.append(input_ids)
        attention_mask_list.append(full_enc["attention_mask"])
        labels_list.append(labels)
    return {"input_ids": input_ids_list, "attention_mask": attention_mask_list, "labels": labels_list}

def load_split(data_dir: str, split: str) -> Dataset:
    """Load one split (JSON Lines) created by data_mod.py."""
    path = os.path.join(data_dir, f"{split}.jsonl")
    if not os.path.exists(path):
        raise FileNotFoundError(f"{path} not found. Run data_mod.py first.")
    # dtype=False keeps every value exactly as written by data_mod.py
    df = pd.read_json(path, lines=True, dtype=False)
    return Dataset.from_pandas(df, preserve_index=False)

    
if __name__ == "__main__":

    parser = argparse.ArgumentParser()
    parser.add_argument("--input-model", type=str, default="Qwen/Qwen3-4B-Instruct-2507")
    parser.add_argument("--output-path", type=str, required=True)
    parser.add_argument("--model_output_name", type=str, required=True)
    parser.add_argument("--data-dir", type=str, required=True,
                        help="Directory with train.jsonl and validation.jsonl created by data_mod.py")
    parser.add_argument("--mlflow_tracking_uri", type=str, required=True)
    parser.add_argument("--mlflow_experiment", type=str, required=True)
    parser.add_argument("--batch_size", "-b", type=int, default=1)
    parser.add_argument("--num-workers", type=int, default=1)
    parser.add_argument("--resume", default=False, action="store_true")
    parser.add_argument("--max-steps", type=int, default=-1)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--max-tokens", type=int, default=2048)
    parser.add_argument("--peft", action="store_true")
    args, _ = parser.parse_known_args()

    rank            = int(os.environ["RANK"])
    local_rank      = int(os.environ["LOCAL_RANK"])
    world_size      = int(os.environ["WORLD_SIZE"])
    local_world_size = int(os.environ["LOCAL_WORLD_SIZE"])


    mlflow_tracking_uri = args.mlflow_tracking_uri
    if rank == 0:
        mlflow.set_tracking_uri(mlflow_tracking_uri)
        mlflow.set_experiment(args.mlflow_experiment)
        print(f"MLflow tracking URI: {mlflow_tracking_uri}")
        print(f"MLflow Experiment name: {args.mlflow_experiment}")


    output_model_dir = os.path.join(args.output_path, args.model_output_name)

    if rank == 0:
        print(f"Using {world_size} GPUs")
        print(f"Output dir: {output_model_dir}")

    # Device setup
    if torch.cuda.is_available():
        device = torch.device("cuda", local_rank)
        if rank == 0:
            print(f"Using GPU {local_rank}: {torch.cuda.get_device_name(device)}")
    else:
        device = torch.device("cpu")
        if rank == 0:
            print("No GPU found, using CPU")

    if rank == 0 and args.batch_size % world_size != 0:
        print(f"ERROR: batch_size={args.batch_size} must be a multiple of num GPUs={world_size}")
        sys.exit(1)

    # ── Load tokenizer and model ──────────────────────────────

    start = time.time()

    if rank == 0:
        print(f"Loading model: {args.input_model}")

    tokenizer = AutoTokenizer.from_pretrained(args.input_model, use_fast=True)

    #download processor -> needed for finetuned model usage (medgemma is multimodal)
    processor = AutoProcessor.from_pretrained(args.input_model)

    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token

    model = AutoModelForCausalLM.from_pretrained(
        args.input_model,
        dtype=torch.bfloat16,
        device_map=device,
    )

    if args.peft:
        peft_config = LoraConfig(
            lora_alpha=8,
            lora_dropout=0.05,
            r=16,
            bias="none",
            target_modules="all-linear",
            task_type="CAUSAL_LM",
        )
        model = get_peft_model(model, peft_config)
        if rank == 0:
            print("Using LoRA (PEFT)")
            model.print_trainable_parameters()

    stop = time.time()
    if rank == 0:
        print(f"Loading model took: {stop - start:.2f}s")

    raw_train = load_split(args.data_dir, "train")
    raw_val = load_split(args.data_dir, "validation")

    preprocess_fn = partial(preprocess, tokenizer=tokenizer, max_tokens=args.max_tokens)

    tokenized_train = raw_train.map(preprocess_fn, batched=True, remove_columns=raw_train.column_names, num_proc=args.num_workers)
    tokenized_val = raw_val.map(preprocess_fn, batched=True, remove_columns=raw_val.column_names, num_proc=args.num_workers)

    # ── Training arguments ────────────────────────────────────

    training_args = TrainingArguments(
        disable_tqdm=True,
        output_dir=output_model_dir,
        save_strategy="steps",
        save_steps=1000,
        save_total_limit=3,
        learning_rate=2e-5,
        weight_decay=0.01,
        bf16=True,
        load_best_model_at_end=False,
        per_device_train_batch_size=args.batch_size // world_size,
        per_device_eval_batch_size=args.batch_size // world_size,
        dataloader_num_workers=args.num_workers,
        #ddp_find_unused_parameters=False,
        ddp_find_unused_parameters=True,
        dataloader_pin_memory=True,
        metric_for_best_model="eval_loss",
        eval_strategy="steps",
        eval_steps=1000,
        num_train_epochs=args.epochs,
        max_steps=args.max_steps,
        report_to=["mlflow"],
        logging_steps=100,
        logging_strategy="steps",
        run_name=f"{args.model_output_name}_{os.environ.get('SLURM_JOB_ID', 'local')}",
    )

    # Use DataCollatorForSeq2Seq to handle labels padding correctly
    data_collator = DataCollatorForSeq2Seq(
        tokenizer=tokenizer,
        model=model,
        padding=True,
        pad_to_multiple_of=8,
    )

    trainer = Trainer(
        model=model,
        args=training_args,
        train_dataset=tokenized_train,
        eval_dataset=tokenized_val,
        processing_class=tokenizer,
        data_collator=data_collator,
    )

    # ── Train ─────────────────────────────────────────────────

    start_train = time.time()
    if rank == 0:
        print("Training starting...")

    trainer.train(resume_from_checkpoint=args.resume)

    stop_train = time.time()
    if rank == 0:
        elapsed = stop_train - start_train
        print(f"Training took: {int(elapsed // 3600)}h {int((elapsed % 3600) // 60)}m {int(elapsed % 60)}s")

    trainer.save_model(output_model_dir)
    tokenizer.save_pretrained(output_model_dir)
    processor.save_pretrained(output_model_dir)

    if args.peft and rank == 0:
        merged_output_dir = os.path.join(args.output_path, f"{args.model_output_name}_merged")
        merged_model = model.merge_and_unload()
        merged_model.save_pretrained(merged_output_dir)
        tokenizer.save_pretrained(merged_output_dir)
        processor.save_pretrained(merged_output_dir)
        print("Merged model saved successfully.")
