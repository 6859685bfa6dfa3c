"""Textual terminal app. Imported only when the TUI is opened."""
