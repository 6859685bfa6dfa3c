axolotl train examples/ministral/ministral-small-qlora.yaml
