axolotl train examples/arcee/afm-4.5b-qlora.yaml
