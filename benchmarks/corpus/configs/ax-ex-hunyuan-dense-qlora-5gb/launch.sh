axolotl train examples/hunyuan/hunyuan-v1-dense-qlora.yaml
