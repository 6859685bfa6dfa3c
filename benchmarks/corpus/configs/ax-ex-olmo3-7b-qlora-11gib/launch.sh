axolotl train examples/olmo3/olmo3-7b-qlora.yaml
