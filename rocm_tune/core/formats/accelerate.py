"""Moved to :mod:`rocm_tune.core.runners.accelerate` (issue 24: one home per runner); this name stays for old imports."""

import sys

from rocm_tune.core.runners import accelerate as _home

sys.modules[__name__] = _home
