axolotl train examples/magistral/think/magistral-small-think-qlora.yaml
