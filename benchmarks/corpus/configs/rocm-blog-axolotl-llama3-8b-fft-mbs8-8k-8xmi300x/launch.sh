# inside the axolotl-rocm container, 8 x MI300X
accelerate launch -m axolotl.cli.train fft-8b-amd.yaml
