"""The .memsite folder on disk: its layout (LeanSpec too), atomic writes, caches and git."""
