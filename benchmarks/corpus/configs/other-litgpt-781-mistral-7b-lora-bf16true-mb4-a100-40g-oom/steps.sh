python scripts/download.py --repo_id mistralai/Mistral-7B-Instruct-v0.1 \
	--checkpoint_dir /pretrained/checkpoints
python scripts/convert_hf_checkpoint.py --checkpoint_dir \
	/pretrained/checkpoints/mistralai/Mistral-7B-Instruct-v0.1
python scripts/prepare_alpaca.py --checkpoint_dir \
	/pretrained/checkpoints/mistralai/Mistral-7B-Instruct-v0.1 \
	--destination_path /pretrained/data/alpaca
python finetune/lora.py \
  --checkpoint_dir /pretrained/checkpoints/mistralai/Mistral-7B-Instruct-v0.1/ \
  --data_dir /pretrained/data/alpaca \
  --out_dir /results/lit \
  --precision bf16-true
