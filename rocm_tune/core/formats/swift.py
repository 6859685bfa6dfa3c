"""Moved to :mod:`rocm_tune.core.runners.ms_swift` (issue 24: one home per runner); this name stays for old imports."""

import sys

from rocm_tune.core.runners import ms_swift as _home

sys.modules[__name__] = _home
