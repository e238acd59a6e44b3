"""The `memsite` command line (click only): each command calls memsite.memory, portal/ or
runners/."""

from memsite.cli.main import cli, main, run

__all__ = ["cli", "main", "run"]
