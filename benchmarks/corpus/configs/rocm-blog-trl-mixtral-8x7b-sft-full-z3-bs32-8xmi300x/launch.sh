# alignment-handbook @205b88 in rocm/pytorch-training:v25.5, one 8 x MI300X node
ACCELERATE_LOG_LEVEL=info accelerate launch --config_file recipes/accelerate_configs/deepspeed_zero3.yaml scripts/run_sft.py sft_config_full.yaml
