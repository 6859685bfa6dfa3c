axolotl train examples/granite4/granite-4.0-tiny-fft.yaml
