# node: rocm/sgl-dev:miles-rocm720-mi35x
python scripts/amd/run_qwen3_30b_a3b_lora.py --num-rollout 30
