axolotl train examples/llama-4/scout-qlora-single-h100-flex.yaml
