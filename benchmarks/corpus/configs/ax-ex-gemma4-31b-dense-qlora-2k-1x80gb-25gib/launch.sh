axolotl train examples/gemma4/31b-qlora.yaml
