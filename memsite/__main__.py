"""Allow ``python -m memsite``; git hooks use it when ``memsite`` is not on PATH."""

from memsite.cli import run

run()
