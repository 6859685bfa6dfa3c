"""See docs in the package modules."""
