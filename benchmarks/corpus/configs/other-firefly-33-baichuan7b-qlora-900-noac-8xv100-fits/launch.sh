torchrun --nproc_per_node=8 train_qlora.py --train_args_file train_args/sft-qlora.json
