"""A clone whose derived folders are committed symbolic links (issue 30, item 2): memsite must
never write through them. In the attack, ``.memsite/compacted`` pointed at
``~/.claude/commands`` and `memsite context` (or the post-merge hook) wrote the attacker's text
there as a user-level Claude Code command. Here each derived name is a committed link to a
folder outside the store: every command leaves that folder byte for byte as it was, the
commands that would write through the link refuse in one line, the reading ones still work,
and review, status and check report the link."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import Invoke, clean_env, git

FACT = "Always use pnpm for installs"
LINKED = ["compacted", "index.md", "cache", "cache/tmp", "site", "daily"]
# The commands that would write through each link: they must refuse (the others go on).
REFUSED = {
    "compacted": {"compact"},
    "index.md": {"compact"},
    "cache": {"compact", "add"},
    "cache/tmp": {"compact", "add"},
    "daily": {"log"},
    "site": {"build"},
}
WRITING = {
    "context": ["context"],
    "compact": ["compact"],
    "add": ["add", "Run the linter before each commit", "-c", "conventions"],
    "log": ["log", "looked at the build", "--session", "s1"],
    "build": ["build"],
}
READING = [["list"], ["read", "--json"], ["search", "pnpm"], ["status"], ["review"]]


def snapshot(folder: Path) -> dict[str, bytes | str]:
    """Every name under ``folder`` (links not followed), with each file's bytes."""
    found: dict[str, bytes | str] = {}
    for top, dirs, files in os.walk(folder):
        for name in dirs + files:
            path = Path(top) / name
            rel = path.relative_to(folder).as_posix()
            if path.is_symlink():
                found[rel] = f"-> {os.readlink(path)}"
            elif path.is_dir():
                found[rel] = "folder"
            else:
                found[rel] = path.read_bytes()
    return found


def plant(project: Path, store: Path, name: str) -> Path:
    """Commit ``name`` in the store as a link to a folder outside it (a user's commands
    folder, holding a command of its own); returns that folder."""
    outside = project.parent / f"{project.name}-home" / ".claude" / "commands"
    outside.mkdir(parents=True)
    (outside / "review.md").write_text("The user's own command\n")
    link = store / name
    if link.is_dir():
        shutil.rmtree(link)
    elif link.exists():
        link.unlink()
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(outside, target_is_directory=True)
    git(project, "add", "-f", str(link.relative_to(project)))
    git(project, "commit", "-q", "-m", f"link {name}")
    return outside


@pytest.fixture
def project(store_root: Path, runner: Invoke) -> Path:
    """A git project whose store holds one fact, its views and a git hook, all committed."""
    root = store_root.parent
    git(root, "init", "-q")
    assert runner("add", FACT, "-c", "conventions").exit_code == 0
    assert runner("compact").exit_code == 0
    assert runner("init", "--git-hook").exit_code == 0
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "memory")
    return root


def one_line_refusal(stderr: str, name: str) -> None:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr
    assert lines[0].startswith("Error: refusing to write"), stderr
    assert f".memsite/{name} is a symbolic link" in lines[0], stderr
    assert f"git rm .memsite/{name}" in lines[0], stderr


@pytest.mark.parametrize("name", LINKED)
def test_no_command_writes_through_a_linked_derived_folder(
    project: Path, store_root: Path, runner: Invoke, name: str
) -> None:
    outside = plant(project, store_root, name)
    before = snapshot(outside)
    for command, args in WRITING.items():
        result = runner(*args)
        if command in REFUSED[name]:
            assert result.exit_code != 0, (command, result.stdout)
            one_line_refusal(result.stderr, name)
        else:
            assert result.exit_code == 0, (command, result.stderr)
            assert "Traceback" not in result.stderr
        if command == "context":
            assert FACT in result.stdout
        assert snapshot(outside) == before, command
    assert (store_root / name).is_symlink()  # never replaced by a folder or a file
    # The post-merge hook, as git runs it after a pull: `memsite compact`, whose failure does
    # not fail the merge.
    hook = subprocess.run(
        ["sh", ".git/hooks/post-merge"],
        cwd=project,
        capture_output=True,
        text=True,
        env=clean_env(),
        timeout=120,
    )
    assert hook.returncode == 0 and "Traceback" not in hook.stderr, hook.stderr
    if "compact" in REFUSED[name]:
        one_line_refusal(hook.stderr, name)
    assert snapshot(outside) == before
    entry_id = runner("list", "--json").json()[0]["id"]
    for args in READING:
        args = [*args, entry_id] if args[0] == "read" else args
        result = runner(*args)
        assert result.exit_code == 0 and "Traceback" not in result.stderr, (args, result.stderr)
    assert FACT in runner("search", "pnpm").stdout
    assert snapshot(outside) == before


@pytest.mark.parametrize("name", LINKED)
def test_review_status_and_check_report_a_linked_derived_folder(
    project: Path, store_root: Path, runner: Invoke, name: str
) -> None:
    plant(project, store_root, name)
    shown = f".memsite/{name}"
    findings = runner("review", "--json").json()["findings"]
    unsafe = [f for f in findings if f["kind"] == "unsafe_path"]
    assert len(unsafe) == 1 and unsafe[0]["message"].startswith(f"{shown} is a symbolic link")
    assert f"git rm {shown}" in unsafe[0]["message"]
    assert findings.index(unsafe[0]) == 0  # the store's own files come first
    status = runner("status", "--json").json()
    assert status["unsafe_paths"] == [shown]
    assert f"Warning: {shown} is a symbolic link" in runner("status").stdout
    check = runner("check", "--base", "HEAD", "--json")
    assert check.exit_code == 1, check.stdout
    problems = [p for p in check.json()["problems"] if p["kind"] == "unsafe_path"]
    assert [p["file"] for p in problems] == [shown]


def test_a_link_inside_a_derived_folder_is_refused_too(
    project: Path, store_root: Path, runner: Invoke
) -> None:
    """compacted/ itself is a folder, one view in it a link (to a file outside the store)."""
    outside = project.parent / f"{project.name}-home"
    outside.mkdir()
    (outside / "deploy.md").write_text("The user's own command\n")
    view = store_root / "compacted" / "conventions.md"
    view.unlink()
    view.symlink_to(outside / "deploy.md")
    before = snapshot(outside)
    result = runner("compact")
    assert result.exit_code == 1
    assert ".memsite/compacted/conventions.md is a symbolic link" in result.stderr
    assert runner("context").exit_code == 0
    assert snapshot(outside) == before
    status = runner("status", "--json").json()
    assert status["unsafe_paths"] == [".memsite/compacted/conventions.md"]


def test_a_linked_entries_folder_is_read_but_never_written(
    project: Path, store_root: Path, runner: Invoke
) -> None:
    moved = project.parent / f"{project.name}-entries"
    (store_root / "entries").rename(moved)
    (store_root / "entries").symlink_to(moved, target_is_directory=True)
    before = snapshot(moved)
    assert FACT in runner("list").stdout
    result = runner("add", "Another fact", "-c", "conventions")
    assert result.exit_code == 1 and len(result.stderr.strip().splitlines()) == 1
    assert "replace it with a real folder holding the entry files" in result.stderr
    assert snapshot(moved) == before
