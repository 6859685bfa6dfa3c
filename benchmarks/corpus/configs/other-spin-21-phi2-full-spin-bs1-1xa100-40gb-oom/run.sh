accelerate launch spin/run_spin.py configs/config.yaml
