axolotl train examples/llama-3/fft-8b.yaml
