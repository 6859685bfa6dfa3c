axolotl train examples/jamba/qlora.yaml
