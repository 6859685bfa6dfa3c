axolotl train examples/voxtral/voxtral-mini-qlora.yml
