#!/bin/bash
# notebook cell (train-axolotl-llama3-8b.hotaisle2.ipynb), 8x MI300X, ROCm 6.2 / torch 2.5
time accelerate launch -m axolotl.cli.train mi300x-llama3.1-8b-fft.dsz3.yaml
