"""Calls by which a Python training program reads its settings from a YAML/JSON file (data, no logic).

(module, function) pairs: PyYAML's loaders (yaml/__init__.py: load, safe_load, full_load, unsafe_load),
json.load / json.loads of an open file, OmegaConf.load (omegaconf/omegaconf.py). A program's own helper whose
body returns one of these (`def load_yaml(path): with open(path) as f: return yaml.safe_load(f)`) reads the same.
"""

from __future__ import annotations

CONFIG_LOADERS: frozenset[tuple[str, str]] = frozenset({
    ("yaml", "load"), ("yaml", "safe_load"), ("yaml", "full_load"), ("yaml", "unsafe_load"),
    ("json", "load"), ("OmegaConf", "load"),
})

# file name endings of a settings file a program may load
CONFIG_SUFFIXES: tuple[str, ...] = (".yaml", ".yml", ".json")
