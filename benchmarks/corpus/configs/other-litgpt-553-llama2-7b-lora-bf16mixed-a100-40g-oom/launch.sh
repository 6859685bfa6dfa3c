#!/bin/bash
# root@autodl-container-4bcd11a7fa-7fca9311:~/autodl-tmp/lit-gpt#
python finetune/lora.py  --checkpoint_dir checkpoints/NousResearch/Llama-2-7b-hf  --data_dir data/lima
# printed by the script:
# Using bfloat16 Automatic Mixed Precision (AMP)
# {'eval_interval': 100, 'save_interval': 100, 'eval_iters': 100, 'eval_max_new_tokens': 100, 'log_interval': 1, 'devices': 1, 'override_max_seq_length': 2048, 'learning_rate': 0.0003, 'batch_size': 4, 'micro_batch_size': 1, 'gradient_accumulation_iters': 4, 'max_iters': 900, 'weight_decay': 0.01, 'lora_r': 8, 'lora_alpha': 16, 'lora_dropout': 0.05, 'lora_query': True, 'lora_key': False, 'lora_value': True, 'lora_projection': False, 'lora_mlp': False, 'lora_head': False, 'warmup_steps': 100}
# Global seed set to 1337
# Loading model 'checkpoints/NousResearch/Llama-2-7b-hf/lit_model.pth' with {'org': 'meta-llama', 'name': 'Llama-2-7b-hf', 'block_size': 4096, 'vocab_size': 32000, 'padding_multiple': 64, 'padded_vocab_size': 32000, 'n_layer': 32, 'n_head': 32, 'n_embd': 4096, ...}
