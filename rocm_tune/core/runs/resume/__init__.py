"""Continuing a run: from its newest checkpoint (resume.py), after an OOM (retry.py), at another world size through
DeepSpeed's universal checkpoint (zero_convert.py)."""
