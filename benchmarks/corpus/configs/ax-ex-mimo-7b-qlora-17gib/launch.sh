axolotl train examples/mimo/mimo-7b-qlora.yaml
