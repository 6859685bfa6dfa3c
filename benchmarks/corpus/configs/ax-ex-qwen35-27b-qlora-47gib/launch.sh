axolotl train examples/qwen3.5/27b-qlora.yaml
