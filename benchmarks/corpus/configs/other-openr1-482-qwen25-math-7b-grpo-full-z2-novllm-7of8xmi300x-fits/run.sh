# 8x MI300X, rocm/vllm:rocm6.3.1_mi300_ubuntu22.04_py3.12_vllm_0.6.6 + torch 2.7 nightly
# run without vLLM generation (the run that trains)
ACCELERATE_LOG_LEVEL=info accelerate launch --config_file recipes/accelerate_configs/zero2.yaml \
    --num_processes=7 src/open_r1/grpo.py \
    --config recipes/Qwen2.5-Math-7B/grpo/config_simple_rl.yaml \
    --use_vllm false \
    --push_to_hub false \
    --report_to none
