accelerate launch -m axolotl.cli.train config.yml
