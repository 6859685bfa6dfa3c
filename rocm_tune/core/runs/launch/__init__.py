"""Starting a run: the detached launcher and stop (launcher.py), a plan as a run (plan_launch.py) and the
supervisor that owns one (supervisor.py)."""
