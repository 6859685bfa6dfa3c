axolotl train examples/seed-oss/seed-oss-36b-qlora.yaml
