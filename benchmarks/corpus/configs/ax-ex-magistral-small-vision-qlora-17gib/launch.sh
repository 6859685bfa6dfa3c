axolotl train examples/magistral/vision/magistral-small-vision-24B-qlora.yml
