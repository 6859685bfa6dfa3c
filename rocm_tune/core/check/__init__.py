"""Judging a config before it trains: `rocm-tune check` on paper (check.py, gpu.py) and `rocm-tune preflight` on
the machine (preflight.py; preflight_plan.py joins the two)."""
