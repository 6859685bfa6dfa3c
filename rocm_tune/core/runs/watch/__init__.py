"""Following a run: targets and snapshots (watch.py), log sources and parsers, the metric history, alerts, measured
memory and speed, Slurm jobs."""
