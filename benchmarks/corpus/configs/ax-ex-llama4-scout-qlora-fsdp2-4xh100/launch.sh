axolotl train examples/llama-4/scout-qlora-flexattn-fsdp2.yaml
