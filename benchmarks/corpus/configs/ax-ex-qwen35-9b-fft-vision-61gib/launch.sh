axolotl train examples/qwen3.5/9b-fft-vision.yaml
