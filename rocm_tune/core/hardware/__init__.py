"""The machine: GPU detection and live samples (devices/), what each architecture can do (rules.py) and the system
checks of `rocm-tune doctor` (doctor.py)."""
