#!/bin/bash
# axolotl @ a4a5bf05 (PR #1742, 2024-07-13), 2x RTX 4090
accelerate launch -m axolotl.cli.train examples/llama-3/qlora-fsdp-70b.yaml
