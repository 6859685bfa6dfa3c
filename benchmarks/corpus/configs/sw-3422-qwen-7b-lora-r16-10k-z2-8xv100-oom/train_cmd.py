cmd = f"""\
NPROC_PER_NODE={int(nproc_per_node)} \
swift \
sft \
--model_id_or_path "/xxxx/Qwen-7B" \
--model_type "{MODEL_TYPE}" \
--sft_type lora \
--lora_rank 16 \
--dataset \
"/xxxx.jsonl" \
--gradient_accumulation_steps {int(128 / nproc_per_node)} \
--num_train_epochs "1" \
--add_output_dir_suffix False \
--deepspeed default-zero2 \
--use_flash_attn false \
--max_length 10000
"""
