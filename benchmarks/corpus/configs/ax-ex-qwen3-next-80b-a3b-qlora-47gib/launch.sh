axolotl train examples/qwen3-next/qwen3-next-80b-a3b-qlora.yaml
