"""Preflight worker: what `rocm-tune preflight` runs on the target machine (torch lives here).

- `device.py`: achieved matmul TFLOPS per dtype per GPU vs the profile; bf16 emulation verdict.
- `collectives.py`: all_reduce + peer copies across processes with a hard timeout and value checks.
- `steps.py`: real optimizer steps of the exact plan, one eval batch, one checkpoint save; OOM step-down.
- `runner.py`: runs them in order, re-plans, writes RUN_DIR/preflight.json and the adjusted plan.
- `__main__.py`: `python -m rocm_tune.train.preflight PLAN_JSON --options-json {...}` (the run's command).
"""
