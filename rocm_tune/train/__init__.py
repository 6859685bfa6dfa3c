"""The built-in trainer and the fake-tensor memory probe (torch imported lazily)."""
