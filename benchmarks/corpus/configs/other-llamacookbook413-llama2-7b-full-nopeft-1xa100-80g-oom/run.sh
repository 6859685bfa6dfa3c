# torch 2.2.1, cuda 12.0, gpu NVIDIA A100-SXM4-80GB
# llama-recipes/recipes/finetuning
cd ~/llama2_finetuning/llama-recipes/recipes/finetuning
python3 finetuning.py --model_name ../../../llama/llama-2-7b-hf --output_dir ./finetuned_model/
