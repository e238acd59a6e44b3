"""Which memsite the runners start: install warns when the PATH a runner sees does not find the
running memsite, and --absolute writes a command that works without it (real subprocesses)."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from memsite.runners.program import running_program
from tests.conftest import clean_env
from tests.runners.conftest import snapshot


def path_without_memsite() -> str:
    """This PATH without the folders that hold a `memsite` (git and sh stay reachable)."""
    parts = os.environ.get("PATH", "").split(os.pathsep)
    return os.pathsep.join(p for p in parts if p and not (Path(p) / "memsite").exists())


def memsite(root: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memsite", *args],
        cwd=root,
        env={**clean_env(), "VIRTUAL_ENV": "", **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def session_start(root: Path, path: str) -> subprocess.CompletedProcess[str]:
    """Run memsite's Claude Code SessionStart hook as Claude Code does: a shell command line."""
    settings = json.loads((root / ".claude" / "settings.json").read_text(encoding="utf-8"))
    (command,) = [g["hooks"][0]["command"] for g in settings["hooks"]["SessionStart"]]
    return subprocess.run(
        command,
        shell=True,
        input=json.dumps({"hook_event_name": "SessionStart", "source": "startup"}),
        cwd=root,
        env={**clean_env(), "PATH": path, "CLAUDE_PROJECT_DIR": str(root)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def outside_store(files: dict[str, bytes]) -> dict[str, bytes]:
    return {rel: data for rel, data in files.items() if not rel.startswith(".memsite/")}


def warnings(done: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in done.stderr.splitlines() if line.startswith("Warning:")]


def test_install_warns_once_when_the_runners_path_lacks_memsite(store_root: Path) -> None:
    root, path = store_root.parent, path_without_memsite()
    done = memsite(root, "agents", "install", "--runner", "claude", "--json", PATH=path)
    assert done.returncode == 0, done.stderr
    answer: dict[str, Any] = json.loads(done.stdout)
    (message,) = answer["warnings"]
    assert "not on the PATH" in message and "--absolute" in message
    assert warnings(done) == [f"Warning: {message}"]
    assert answer["program"] == ["memsite"]
    # What the warning is about: the hook install wrote cannot start there (127: not found).
    assert session_start(root, path).returncode == 127


def test_install_warns_when_memsite_is_only_in_the_active_virtualenv(store_root: Path) -> None:
    program = running_program()
    if len(program) > 1:
        pytest.skip("this memsite has no console script")
    bin_dir = Path(program[0]).parent
    path = str(bin_dir) + os.pathsep + path_without_memsite()
    env = {"PATH": path, "VIRTUAL_ENV": str(bin_dir.parent)}
    done = memsite(store_root.parent, "agents", "install", "--runner", "codex", **env)
    assert done.returncode == 0, done.stderr
    (line,) = warnings(done)
    assert "--absolute" in line


def test_install_is_quiet_when_the_runners_path_finds_this_memsite(
    store_root: Path, tmp_path: Path
) -> None:
    program = running_program()
    if len(program) > 1:
        pytest.skip("this memsite has no console script")
    shelf = tmp_path / "shelf"  # a folder on PATH holding a link to this memsite, as pipx makes
    shelf.mkdir()
    (shelf / "memsite").symlink_to(program[0])
    path = str(shelf) + os.pathsep + path_without_memsite()
    done = memsite(store_root.parent, "agents", "install", "--runner", "claude", PATH=path)
    assert done.returncode == 0, done.stderr
    assert warnings(done) == []
    assert "pending approval" in done.stdout  # Claude Code's approval of .mcp.json servers


def test_absolute_writes_this_memsite_and_its_hooks_run_without_it_on_path(
    store_root: Path,
) -> None:
    root, path = store_root.parent, path_without_memsite()
    program = running_program()
    before = snapshot(root)
    done = memsite(root, "agents", "install", "--absolute", "--runner", "all", "--json", PATH=path)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["warnings"] == [] and warnings(done) == []
    assert answer["program"] == list(program)
    server = json.loads((root / ".mcp.json").read_text(encoding="utf-8"))["mcpServers"]["memsite"]
    assert [server["command"], *server["args"]] == [*program, "mcp"]
    assert f"command = {json.dumps(program[0])}" in (root / ".codex/config.toml").read_text()
    cursor = json.loads((root / ".cursor" / "hooks.json").read_text(encoding="utf-8"))
    assert cursor["hooks"]["sessionStart"] == [
        {"command": f"{shlex.join(program)} context --format cursor-hook"}
    ]
    started = session_start(root, path)
    assert started.returncode == 0, started.stderr
    assert "hookSpecificOutput" in json.loads(started.stdout)
    # Uninstall, from the manifest, takes out what --absolute wrote (the hook built the index).
    gone = memsite(root, "agents", "uninstall", PATH=path)
    assert gone.returncode == 0, gone.stderr
    assert outside_store(snapshot(root)) == outside_store(before)
    assert not (store_root / "agents.json").exists()


def test_absolute_dry_run_shows_the_command_and_writes_nothing(store_root: Path) -> None:
    root = store_root.parent
    before = snapshot(root)
    done = memsite(
        root, "agents", "install", "--absolute", "--dry-run", PATH=path_without_memsite()
    )
    assert done.returncode == 0, done.stderr
    assert f"Would start memsite as {' '.join(running_program())}" in done.stdout
    assert snapshot(root) == before


def test_running_program_is_the_console_script_next_to_the_interpreter() -> None:
    program = running_program()
    script = Path(sys.executable).parent / "memsite"
    assert program == ((str(script),) if script.is_file() else (sys.executable, "-m", "memsite"))
