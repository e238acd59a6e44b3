"""The runner registry: which runners a repository shows signs of, and naming them on the command
line."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import Invoke


@pytest.mark.parametrize(
    ("markers", "expected"),
    [
        ([".cursor/"], ["cursor"]),
        ([".github/copilot-instructions.md"], ["copilot"]),
        ([".vscode/", ".codex/"], ["codex", "copilot"]),
        (["CLAUDE.md"], ["claude"]),
        ([".gemini/"], ["gemini"]),
        ([], ["claude", "codex", "copilot", "cursor", "gemini"]),
    ],
)
def test_runner_detection(
    store_root: Path, runner: Invoke, markers: list[str], expected: list[str]
) -> None:
    root = store_root.parent
    for marker in markers:
        path = root / marker
        if marker.endswith("/"):
            path.mkdir(parents=True)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("# mine\n", encoding="utf-8")
    result = runner("agents", "install", "--dry-run", "--json")
    assert result.exit_code == 0, result.stderr
    assert result.json()["runners"] == expected


def test_runner_option_repeats_and_takes_commas(store_root: Path, runner: Invoke) -> None:
    root = store_root.parent
    result = runner(
        "agents", "install", "--runner", "cursor,copilot", "--runner", "cursor", "--json"
    )
    assert result.json()["runners"] == ["copilot", "cursor"]
    assert not (root / "AGENTS.md").exists() and not (root / ".claude").exists()
    bad = runner("agents", "install", "--runner", "emacs", "--json")
    assert bad.exit_code == 1 and "unknown runner 'emacs'" in bad.json()["error"]
    # uninstalling one runner leaves the other in place
    assert runner("agents", "uninstall", "--runner", "cursor").exit_code == 0
    assert not (root / ".cursor").exists() and (root / ".vscode" / "mcp.json").exists()
