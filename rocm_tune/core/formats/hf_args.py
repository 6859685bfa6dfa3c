"""Moved to :mod:`rocm_tune.core.runners.hf` (issue 24: one home per runner); this name stays for old imports."""

import sys

from rocm_tune.core.runners import hf as _home

sys.modules[__name__] = _home
