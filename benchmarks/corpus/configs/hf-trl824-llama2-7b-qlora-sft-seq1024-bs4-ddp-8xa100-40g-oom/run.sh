accelerate launch --config_file multi_gpu.yaml sft_llama2.py --output_dir=XXX
