"""Reusable widgets of the rocm-tune app."""
