axolotl train examples/glm47-flash/lora.yaml
