"""Screens of the rocm-tune app, opened by name through `rocm_tune.tui.navigation` (lazily)."""
