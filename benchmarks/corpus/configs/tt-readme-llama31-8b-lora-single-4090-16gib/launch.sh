# reconstructed from the README's note on how the table was measured
tune run lora_finetune_single_device --config llama3_1/8B_lora_single_device \
    batch_size=2 gradient_accumulation_steps=1 dataset.packed=True tokenizer.max_seq_len=2048 compile=True
