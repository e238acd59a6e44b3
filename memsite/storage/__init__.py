"""The .memsite folder on disk: its layout (LeanSpec too), entry files and the one locked write,
the indexed read model (``readmodel``), caches, daily logs, the project's files and git.
Only ``memsite.memory`` uses it."""
