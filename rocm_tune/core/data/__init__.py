"""The user's dataset: token-length statistics (dataset.py) and the sequence lengths the collators really feed the
model (seqlen.py)."""
