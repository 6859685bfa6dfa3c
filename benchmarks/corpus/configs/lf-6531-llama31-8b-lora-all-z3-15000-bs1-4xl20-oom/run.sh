# launch line not posted (filled in); 4 x L20 visible
FORCE_TORCHRUN=1 llamafactory-cli train llama31_lora_sft_ds3.yaml
