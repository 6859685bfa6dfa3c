axolotl train examples/archived/code-llama/7b/qlora.yml
