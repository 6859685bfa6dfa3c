axolotl train examples/gpt-oss/gpt-oss-20b-fft-fsdp2.yaml
