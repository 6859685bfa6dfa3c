"""What a job needs: per-GPU training memory itemised (estimate.py), the one meaning of "fits" (fitting.py), and
how big its checkpoints are on disk (checkpoint_size.py)."""
