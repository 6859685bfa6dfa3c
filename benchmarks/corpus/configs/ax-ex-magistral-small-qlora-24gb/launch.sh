axolotl train examples/magistral/magistral-small-qlora.yaml
