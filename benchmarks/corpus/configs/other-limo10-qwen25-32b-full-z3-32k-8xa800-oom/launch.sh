# LIMO README: llamafactory-cli train <path to yaml config file>
llamafactory-cli train train_limo.yaml
