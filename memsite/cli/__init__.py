"""The `memsite` command line (click only): each command calls memory/, portal/ or runners/."""

from memsite.cli.main import cli, main

__all__ = ["cli", "main"]
