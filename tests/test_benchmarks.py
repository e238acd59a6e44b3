"""The benchmark scripts stay in step with the code they measure: no test runs them (they take
minutes), so mypy checks them (a call into another benchmark that lost an argument went unseen
for a stop, and a benchmark importing a function that had moved)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_benchmarks_type_check(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "cache"), "benchmarks"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
