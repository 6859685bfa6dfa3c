axolotl train examples/glm47-flash/qlora.yaml
