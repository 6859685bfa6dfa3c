"""GPU and model profiles: data files plus small loaders."""
