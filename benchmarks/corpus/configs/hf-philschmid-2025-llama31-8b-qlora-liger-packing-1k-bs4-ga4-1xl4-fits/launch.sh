# single GPU (1x L4 24GB), from the notebook
python scripts/run_sft.py --config receipes/llama-3-1-8b-qlora.yaml
