"""What the offline workflow linters say of a GitHub Actions workflow memsite writes:
check-jsonschema (GitHub's workflow schema) and zizmor (security audits)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

LINTERS = [
    ("check-jsonschema", ["--builtin-schema", "vendor.github-workflows"]),
    ("zizmor", ["--offline", "--no-progress"]),
]


def lint_workflow(path: Path) -> list[str]:
    """Each linter's output where it fails on ``path`` ([] when both pass). A missing linter
    fails the test: both are test dependencies."""
    problems = []
    for tool, args in LINTERS:
        if shutil.which(tool) is None:
            pytest.fail(f"{tool} is a test dependency: pip install -e '.[test]'")
        done = subprocess.run([tool, *args, str(path)], capture_output=True, text=True)
        if done.returncode != 0:
            problems.append(f"{tool}: {done.stdout}{done.stderr}")
    return problems
