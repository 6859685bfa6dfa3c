llamafactory-cli train llama3_70b_qlora_z3.yaml
