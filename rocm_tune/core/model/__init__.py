"""The model: its architecture and exact parameter counts from config.json (architecture.py), the names users give
it, where its config is cached, which layers LoRA wraps and which parameters train."""
