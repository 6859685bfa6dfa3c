"""Pure domain logic. Never imports torch, transformers, textual or rich at import time."""
