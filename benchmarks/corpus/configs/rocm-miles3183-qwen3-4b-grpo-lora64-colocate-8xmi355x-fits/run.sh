# node: rocm/sgl-dev:miles-rocm720-mi35x
python scripts/amd/run_qwen3_4b_lora.py full-train --hardware MI355X --wandb-team my-entity
