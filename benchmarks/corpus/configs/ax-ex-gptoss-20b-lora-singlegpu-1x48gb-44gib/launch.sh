axolotl train examples/gpt-oss/gpt-oss-20b-sft-lora-singlegpu.yaml
