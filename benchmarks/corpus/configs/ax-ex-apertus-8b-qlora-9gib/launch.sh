axolotl train examples/apertus/apertus-8b-qlora.yaml
