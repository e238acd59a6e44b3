"""Fixtures and helpers of the runner tests: a repository holding user content in every file a
runner reads."""

from __future__ import annotations

from pathlib import Path

import pytest

USER_AGENTS = "# Agents\n\nUse tabs, not spaces.\n"

USER_CLAUDE = "# Notes for Claude\nBe terse."  # no trailing newline

USER_SETTINGS = (
    "{\n"
    '    "permissions": {"allow": ["Bash(ls:*)"]},\n'
    '    "hooks": {\n'
    '        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],\n'
    '        "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", '
    '"command": "cat TODO.md"}]}]\n'
    "    }\n"
    "}\n"
)

USER_MCP = '{"mcpServers": {"github": {"command": "gh-mcp", "args": []}}}\n'


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under root (the store's derived folders aside), by relative path."""
    files = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_file() and not rel.startswith((".memsite/cache/", ".memsite/entries/")):
            files[rel] = path.read_bytes()
        elif path.is_dir():
            files[rel + "/"] = b""
    return files


@pytest.fixture
def repo(store_root: Path) -> Path:
    """A repository holding user content in AGENTS.md, CLAUDE.md, settings.json and .mcp.json."""
    root = store_root.parent
    (root / "AGENTS.md").write_text(USER_AGENTS, encoding="utf-8")
    (root / "CLAUDE.md").write_text(USER_CLAUDE, encoding="utf-8")
    (root / ".claude").mkdir()
    (root / ".claude" / "settings.json").write_text(USER_SETTINGS, encoding="utf-8")
    (root / ".mcp.json").write_text(USER_MCP, encoding="utf-8")
    return root
