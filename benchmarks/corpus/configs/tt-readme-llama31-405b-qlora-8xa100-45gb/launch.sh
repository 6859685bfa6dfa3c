# reconstructed from the README's note on how the table was measured
tune run --nproc_per_node 8 lora_finetune_distributed --config llama3_1/405B_qlora \
    batch_size=2 gradient_accumulation_steps=1 dataset.packed=True tokenizer.max_seq_len=2048 compile=True
