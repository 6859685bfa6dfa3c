axolotl train examples/archived/yi-34B-chat/qlora.yml
