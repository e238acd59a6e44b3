"""memsite's version: one place, read by the package face, the caches' stamps and the CLI."""

__version__ = "0.1.0"
