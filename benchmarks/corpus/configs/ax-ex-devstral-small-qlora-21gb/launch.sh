axolotl train examples/devstral/devstral-small-qlora.yml
