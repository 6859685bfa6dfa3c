llamafactory-cli train example.yaml
