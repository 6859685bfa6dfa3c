axolotl train examples/kimi-linear/kimi-48b-lora.yaml
