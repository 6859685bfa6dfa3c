axolotl train examples/glm45/glm-45-air-qlora.yaml
