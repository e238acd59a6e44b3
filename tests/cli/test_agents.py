"""`agents install` as a person meets it: it ends with the files to commit."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import Invoke

CLAUDE_FILES = ".mcp.json CLAUDE.md .claude/settings.json .memsite/agents.json"


def test_install_ends_with_the_files_to_commit(store_root: Path, runner: Invoke) -> None:
    done = runner("agents", "install", "--runner", "claude")
    assert done.exit_code == 0, done.stderr
    assert done.stdout.splitlines()[-1] == (
        f"Commit them, so that every clone is wired: git add {CLAUDE_FILES}"
    )
    again = runner("agents", "install", "--runner", "claude")  # nothing new: nothing to commit
    assert "git add" not in again.stdout


def test_a_dry_run_names_them_too(store_root: Path, runner: Invoke) -> None:
    done = runner("agents", "install", "--runner", "claude", "--dry-run")
    assert done.stdout.splitlines()[-1] == (
        f"Then commit them, so that every clone is wired: git add {CLAUDE_FILES}"
    )


def test_from_another_folder_the_command_names_the_repository(
    store_root: Path, runner: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = store_root.parent
    monkeypatch.chdir(store_root)
    done = runner("agents", "install", "--runner", "codex")
    assert done.exit_code == 0, done.stderr
    line = done.stdout.splitlines()[-1]
    assert line.endswith(
        f"git -C {root} add .codex/config.toml AGENTS.md .codex/hooks.json .memsite/agents.json"
    )
    assert os.path.isfile(root / "AGENTS.md")
