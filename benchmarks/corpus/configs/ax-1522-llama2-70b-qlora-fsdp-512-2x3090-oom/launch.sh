# 2x RTX 3090 (24G per card)
accelerate launch -m axolotl.cli.train qlora-fsdp-70b.yml
