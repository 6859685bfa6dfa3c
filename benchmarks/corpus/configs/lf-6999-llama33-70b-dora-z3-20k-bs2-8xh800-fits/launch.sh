llamafactory-cli train llama33_70b_dora.yaml
