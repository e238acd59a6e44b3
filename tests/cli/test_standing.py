"""The standing commands as a person reads them: counts in the singular where there is one."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import Invoke


def test_reconcile_counts_one_anchored_fact_in_the_singular(
    store_root: Path, runner: Invoke
) -> None:
    (store_root.parent / "db.py").write_text("PORT = 5432\n", encoding="utf-8")
    runner("add", "The service listens on 5432", "-c", "architecture", "--anchor", "db.py:1")
    done = runner("reconcile")
    assert done.exit_code == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "1 anchored fact, 0 drifted."
