"""Why a run failed or hangs: the root cause from its logs (diagnose.py), the smallest change that fits after an
OOM (oom_advice.py) and one fix text for live alerts (alert_fix.py)."""
