llamafactory-cli train healthbench_lora.yaml
