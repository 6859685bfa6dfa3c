axolotl train examples/llama-3/qlora-fsdp-70b.yaml
