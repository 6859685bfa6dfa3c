axolotl train examples/trinity/trinity-nano-preview-qlora.yaml
