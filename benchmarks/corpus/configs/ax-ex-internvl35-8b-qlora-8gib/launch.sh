axolotl train examples/internvl3_5/internvl3_5-8b-qlora.yml
