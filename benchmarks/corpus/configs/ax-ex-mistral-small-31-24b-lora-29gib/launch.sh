axolotl train examples/mistral-small/mistral-small-3.1-24B-lora.yml
