"""Fixtures of the memory tests: a git project with the store and a file to anchor facts to."""

from __future__ import annotations

from pathlib import Path

import pytest

from memsite.memory import Memory
from memsite.storage.layout import Store
from tests.conftest import Clock, git

DB = "import os\n\ndef connect():\n    return 'postgres'\n\nPORT = 5432\n"


@pytest.fixture
def project(store_root: Path) -> Path:
    """A git repository holding the store and src/db.py, committed."""
    root = store_root.parent
    git(root, "init", "-q", "-b", "main")
    (root / "src").mkdir()
    (root / "src" / "db.py").write_text(DB)
    (root / "README.md").write_text("# app\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "start")
    return root


def memory_at(store_root: Path, clock: Clock | None = None) -> Memory:
    store = Store(store_root)
    return Memory(store, store.load_config(), clock or Clock(), cwd=store_root.parent)
