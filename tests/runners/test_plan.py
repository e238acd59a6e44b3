"""Install and uninstall as plans: user content kept, idempotent, byte-for-byte restores, dry runs,
refusals before anything is written."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import yaml

from memsite.runners.claude import (
    SESSION_MATCHER,
)
from memsite.runners.targets import BEGIN, END
from tests.conftest import Invoke
from tests.runners.conftest import USER_AGENTS, USER_CLAUDE, snapshot


def test_install_keeps_user_content_is_idempotent_and_uninstall_restores_bytes(
    repo: Path, runner: Invoke
) -> None:
    before = snapshot(repo)
    result = runner("agents", "install", "--json")
    assert result.exit_code == 0, result.stderr
    answer = result.json()
    assert answer["runners"] == ["claude", "codex"]  # detected from .claude/, CLAUDE.md, AGENTS.md
    assert set(answer["written"]) == {
        ".mcp.json",
        "CLAUDE.md",
        ".claude/settings.json",
        ".codex/config.toml",
        "AGENTS.md",
        ".codex/hooks.json",
        ".memsite/agents.json",
    }

    agents_md = (repo / "AGENTS.md").read_text(encoding="utf-8")
    claude_md = (repo / "CLAUDE.md").read_text(encoding="utf-8")
    assert agents_md.startswith(USER_AGENTS) and claude_md.startswith(USER_CLAUDE)
    for text in (agents_md, claude_md):
        assert text.count(BEGIN) == 1 and text.count(END) == 1
        assert ".memsite/index.md" in text and "memory_write" in text and "memsite add" in text
        assert "`conventions`, `architecture`, `operations`, `decisions`" in text

    settings = json.loads((repo / ".claude" / "settings.json").read_text(encoding="utf-8"))
    assert settings["permissions"] == {"allow": ["Bash(ls:*)"]}
    user_stop = {"hooks": [{"type": "command", "command": "notify-send done"}]}
    assert settings["hooks"]["Stop"][0] == user_stop
    assert settings["hooks"]["SessionStart"][0]["hooks"][0]["command"] == "cat TODO.md"
    ours = settings["hooks"]["SessionStart"][1]
    assert ours["matcher"] == SESSION_MATCHER == "startup|resume|clear|compact"
    assert ours["hooks"][0]["command"].endswith(" context --format claude-hook")
    assert settings["hooks"]["PreCompact"][0]["hooks"][0]["command"].endswith(
        " agents hook pre-compact"
    )
    assert settings["hooks"]["Stop"][1]["hooks"][0]["command"].endswith(" agents hook stop")

    servers = json.loads((repo / ".mcp.json").read_text(encoding="utf-8"))["mcpServers"]
    assert servers["github"] == {"command": "gh-mcp", "args": []}
    assert servers["memsite"] == {"type": "stdio", "command": "memsite", "args": ["mcp"]}
    codex = tomllib.loads((repo / ".codex" / "config.toml").read_text(encoding="utf-8"))
    assert codex["mcp_servers"]["memsite"] == {"command": "memsite", "args": ["mcp"]}
    for path in (".mcp.json", ".claude/settings.json"):
        assert (repo / path).read_text(encoding="utf-8").endswith("}\n")

    installed = snapshot(repo)
    again = runner("agents", "install", "--json")
    assert again.exit_code == 0 and again.json()["written"] == []
    assert snapshot(repo) == installed  # byte-identical

    removed = runner("agents", "uninstall", "--json")
    assert removed.exit_code == 0, removed.stderr
    assert set(removed.json()["removed"]) == {
        ".codex/config.toml",
        ".codex/hooks.json",
        ".memsite/agents.json",
        ".codex/",
    }
    assert snapshot(repo) == before  # original bytes, created files and folders gone
    assert runner("agents", "uninstall", "--json").json()["written"] == []


def hook_files(root: Path) -> dict[str, object]:
    names = (".codex/hooks.json", ".gemini/settings.json", ".github/hooks/memsite.json")
    return {
        name: json.loads((root / name).read_text(encoding="utf-8"))
        for name in (*names, ".cursor/hooks.json")
    }


def test_all_runners_on_an_empty_repository(store_root: Path, runner: Invoke) -> None:
    root = store_root.parent
    before = snapshot(root)
    result = runner("agents", "install", "--json")  # nothing to detect: every runner
    assert result.exit_code == 0, result.stderr
    assert result.json()["runners"] == ["claude", "codex", "copilot", "cursor", "gemini"]
    vscode = json.loads((root / ".vscode" / "mcp.json").read_text(encoding="utf-8"))
    assert vscode == {
        "servers": {
            "memsite": {
                "type": "stdio",
                "command": "memsite",
                "args": ["--store", "${workspaceFolder}/.memsite", "mcp"],
            }
        }
    }
    cursor = json.loads((root / ".cursor" / "mcp.json").read_text(encoding="utf-8"))
    assert cursor["mcpServers"]["memsite"]["args"] == [
        "--store",
        "${workspaceFolder}/.memsite",
        "mcp",
    ]
    rule = (root / ".cursor" / "rules" / "memsite.mdc").read_text(encoding="utf-8")
    assert rule.startswith("---\ndescription: ") and "alwaysApply: true\n---\n" in rule
    front = yaml.safe_load(rule.split("---\n")[1])
    assert front["alwaysApply"] is True and "memsite" in front["description"]
    assert rule.count(BEGIN) == 1
    copilot = (root / ".github" / "copilot-instructions.md").read_text(encoding="utf-8")
    assert copilot.startswith(BEGIN) and copilot.endswith(END + "\n")
    for name in ("AGENTS.md", "CLAUDE.md", "GEMINI.md"):
        assert (root / name).read_text(encoding="utf-8").startswith(BEGIN)
    assert hook_files(root) == {
        ".codex/hooks.json": {
            "hooks": {
                "SessionStart": [
                    {
                        "matcher": "startup|resume|clear|compact",
                        "hooks": [
                            {"type": "command", "command": "memsite context --format codex-hook"}
                        ],
                    }
                ]
            }
        },
        ".gemini/settings.json": {
            "mcpServers": {"memsite": {"command": "memsite", "args": ["mcp"]}},
            "hooks": {
                "SessionStart": [
                    {
                        "matcher": "*",
                        "hooks": [
                            {"type": "command", "command": "memsite context --format gemini-hook"}
                        ],
                    }
                ]
            },
        },
        ".github/hooks/memsite.json": {
            "version": 1,
            "hooks": {
                "sessionStart": [
                    {
                        "type": "command",
                        "bash": "memsite context --format copilot-hook",
                        "timeoutSec": 30,
                    }
                ]
            },
        },
        ".cursor/hooks.json": {
            "version": 1,
            "hooks": {"sessionStart": [{"command": "memsite context --format cursor-hook"}]},
        },
    }
    installed = snapshot(root)
    assert runner("agents", "install", "--runner", "all").exit_code == 0
    assert snapshot(root) == installed
    assert runner("agents", "uninstall").exit_code == 0
    assert snapshot(root) == before


def test_dry_run_writes_nothing(repo: Path, runner: Invoke) -> None:
    before = snapshot(repo)
    result = runner("agents", "install", "--dry-run", "--json")
    assert result.exit_code == 0 and result.json()["dry_run"] is True
    assert ".claude/settings.json" in result.json()["written"]
    assert snapshot(repo) == before
    text = runner("agents", "install", "--dry-run")
    assert "Would write CLAUDE.md" in text.stdout


def test_block_is_replaced_not_repeated_and_user_edits_survive_uninstall(
    repo: Path, runner: Invoke
) -> None:
    assert runner("agents", "install", "--runner", "codex").exit_code == 0
    config = repo / ".memsite" / "config.json"
    config.write_text(json.dumps({"memory": {"categories": {"runbooks": 1}}}), encoding="utf-8")
    assert runner("agents", "install", "--runner", "codex").exit_code == 0
    text = (repo / "AGENTS.md").read_text(encoding="utf-8")
    assert text.count(BEGIN) == 1 and "`runbooks`" in text and "`conventions`" not in text
    with open(repo / "AGENTS.md", "a", encoding="utf-8") as handle:
        handle.write("\nDeploy on Fridays? Never.\n")
    assert runner("agents", "uninstall", "--runner", "codex").exit_code == 0
    assert (repo / "AGENTS.md").read_text(
        encoding="utf-8"
    ) == USER_AGENTS + "\nDeploy on Fridays? Never.\n"


def test_json_with_comments_is_refused_before_anything_is_written(
    store_root: Path, runner: Invoke
) -> None:
    root = store_root.parent
    (root / ".vscode").mkdir()
    (root / ".vscode" / "mcp.json").write_text(
        '{\n  // mine\n  "servers": {}\n}\n', encoding="utf-8"
    )
    before = snapshot(root)
    result = runner("agents", "install", "--runner", "claude,copilot", "--json")
    assert result.exit_code == 1
    assert ".vscode/mcp.json is not plain JSON" in result.json()["error"]
    assert snapshot(root) == before


def test_auto_flush_off_means_session_start_only(repo: Path, runner: Invoke) -> None:
    assert runner("agents", "install", "--runner", "claude").exit_code == 0
    config = repo / ".memsite" / "config.json"
    config.write_text(json.dumps({"memory": {"autoFlush": False}}), encoding="utf-8")
    assert runner("agents", "install", "--runner", "claude").exit_code == 0
    settings = json.loads((repo / ".claude" / "settings.json").read_text(encoding="utf-8"))
    assert "PreCompact" not in settings["hooks"]
    assert settings["hooks"]["Stop"] == [
        {"hooks": [{"type": "command", "command": "notify-send done"}]}
    ]
    assert len(settings["hooks"]["SessionStart"]) == 2


def test_a_non_default_store_location_is_passed_explicitly(tmp_path: Path, runner: Invoke) -> None:
    from memsite.storage.layout import Store

    store, _ = Store.init(tmp_path / "repo" / "memory")
    result = runner("--store", str(store.root), "agents", "install", "--runner", "claude,codex")
    assert result.exit_code == 0, result.stderr
    root = tmp_path / "repo"
    servers = json.loads((root / ".mcp.json").read_text(encoding="utf-8"))["mcpServers"]
    assert servers["memsite"]["args"] == ["--store", "memory", "mcp"]
    settings = (root / ".claude" / "settings.json").read_text(encoding="utf-8")
    assert '\\"${CLAUDE_PROJECT_DIR:-.}\\"/memory context' in settings
    assert "memory/index.md" in (root / "AGENTS.md").read_text(encoding="utf-8")


def test_absolute_and_plain_installs_replace_each_other_and_uninstall_restores_bytes(
    repo: Path, runner: Invoke
) -> None:
    from memsite.runners.program import running_program

    before = snapshot(repo)
    absolute = runner("agents", "install", "--absolute", "--json")
    assert absolute.exit_code == 0, absolute.stderr
    assert absolute.json()["warnings"] == []
    servers = json.loads((repo / ".mcp.json").read_text(encoding="utf-8"))["mcpServers"]
    assert servers["memsite"]["command"] == running_program()[0]
    plain = runner("agents", "install")  # back to `memsite`: the same hooks, not a second set
    assert plain.exit_code == 0, plain.stderr
    settings = json.loads((repo / ".claude" / "settings.json").read_text(encoding="utf-8"))
    ours = [h["command"] for g in settings["hooks"]["SessionStart"] for h in g["hooks"]]
    assert ours == ["cat TODO.md", ours[1]] and ours[1].startswith("memsite ")
    assert runner("agents", "install", "--absolute").exit_code == 0
    assert runner("agents", "uninstall").exit_code == 0
    assert snapshot(repo) == before


# --- --per-prompt ---------------------------------------------------------------------------

USER_PROMPT_GROUP = {"hooks": [{"type": "command", "command": "./check-prompt.sh"}]}


def prompt_hooks(root: Path) -> dict[str, list[object]]:
    """Each runner's prompt-event hook groups, by file."""
    claude = json.loads((root / ".claude/settings.json").read_text(encoding="utf-8"))
    codex = json.loads((root / ".codex/hooks.json").read_text(encoding="utf-8"))
    gemini = json.loads((root / ".gemini/settings.json").read_text(encoding="utf-8"))
    return {
        "claude": claude["hooks"].get("UserPromptSubmit", []),
        "codex": codex["hooks"].get("UserPromptSubmit", []),
        "gemini": gemini["hooks"].get("BeforeAgent", []),
    }


def ours(command: str) -> dict[str, object]:
    return {"hooks": [{"type": "command", "command": command}]}


def test_per_prompt_hooks_sit_next_to_the_users_and_uninstall_restores_bytes(
    repo: Path, runner: Invoke
) -> None:
    # the user's own prompt hooks, in files with their own formatting
    settings = json.loads((repo / ".claude/settings.json").read_text(encoding="utf-8"))
    settings["hooks"]["UserPromptSubmit"] = [USER_PROMPT_GROUP]
    (repo / ".claude/settings.json").write_text(json.dumps(settings, indent=4), encoding="utf-8")
    (repo / ".codex").mkdir()
    codex = {"hooks": {"UserPromptSubmit": [USER_PROMPT_GROUP]}}
    (repo / ".codex/hooks.json").write_text(json.dumps(codex), encoding="utf-8")
    (repo / ".gemini").mkdir()
    gemini = {"ui": {"theme": "dark"}, "hooks": {"BeforeAgent": [USER_PROMPT_GROUP]}}
    (repo / ".gemini/settings.json").write_text(json.dumps(gemini, indent=1), encoding="utf-8")
    before = snapshot(repo)
    runners = ("--runner", "claude,codex,gemini")

    done = runner("agents", "install", *runners, "--per-prompt", "--json")
    assert done.exit_code == 0, done.stderr
    assert done.json()["per_prompt"] is True and done.json()["no_prompt_hook"] == {}
    claude_command = (
        'memsite --store "${CLAUDE_PROJECT_DIR:-.}"/.memsite prompt --format claude-hook || exit 0'
    )
    with_ours = {
        "claude": [USER_PROMPT_GROUP, ours(claude_command)],
        "codex": [USER_PROMPT_GROUP, ours("memsite prompt --format codex-hook || exit 0")],
        "gemini": [USER_PROMPT_GROUP, ours("memsite prompt --format gemini-hook || exit 0")],
    }
    assert prompt_hooks(repo) == with_ours
    settings = json.loads((repo / ".claude/settings.json").read_text(encoding="utf-8"))
    assert settings["hooks"]["Stop"][0]["hooks"][0]["command"] == "notify-send done"
    assert len(settings["hooks"]["SessionStart"]) == 2  # the user's and memsite's
    installed = snapshot(repo)
    again = runner("agents", "install", *runners, "--per-prompt", "--json")
    assert again.exit_code == 0 and again.json()["written"] == []
    assert snapshot(repo) == installed  # byte-identical

    plain = runner("agents", "install", *runners)  # without --per-prompt: ours go, theirs stay
    assert plain.exit_code == 0, plain.stderr
    assert prompt_hooks(repo) == {name: [USER_PROMPT_GROUP] for name in with_ours}
    assert runner("agents", "install", *runners, "--per-prompt").exit_code == 0
    assert snapshot(repo) == installed

    assert runner("agents", "uninstall").exit_code == 0
    assert snapshot(repo) == before


def test_per_prompt_on_an_empty_repository_and_the_runners_without_a_prompt_hook(
    store_root: Path, runner: Invoke
) -> None:
    root = store_root.parent
    before = snapshot(root)
    assert runner("agents", "install").exit_code == 0
    session_start_only = hook_files(root)
    done = runner("agents", "install", "--per-prompt", "--json")
    assert done.exit_code == 0, done.stderr
    answer = done.json()
    assert answer["per_prompt"] is True
    assert sorted(answer["written"]) == [
        ".claude/settings.json",
        ".codex/hooks.json",
        ".gemini/settings.json",
        ".memsite/agents.json",  # the event lists install created, for uninstall
    ]
    assert set(answer["no_prompt_hook"]) == {"copilot", "cursor"}
    assert "userPromptSubmitted" in answer["no_prompt_hook"]["copilot"]
    assert "beforeSubmitPrompt" in answer["no_prompt_hook"]["cursor"]
    files = hook_files(root)
    for name in (".github/hooks/memsite.json", ".cursor/hooks.json"):
        assert files[name] == session_start_only[name]  # no hook that could not add context
    codex = files[".codex/hooks.json"]
    assert isinstance(codex, dict) and list(codex["hooks"]) == ["SessionStart", "UserPromptSubmit"]
    assert codex["hooks"]["UserPromptSubmit"] == [
        ours("memsite prompt --format codex-hook || exit 0")
    ]
    gemini = files[".gemini/settings.json"]
    assert isinstance(gemini, dict) and list(gemini["hooks"]) == ["SessionStart", "BeforeAgent"]
    assert gemini["hooks"]["BeforeAgent"] == [ours("memsite prompt --format gemini-hook || exit 0")]

    text = runner("agents", "install", "--per-prompt").stdout
    assert "Note: no per-prompt hook for GitHub Copilot: Copilot CLI drops" in text
    assert "Note: no per-prompt hook for Cursor: " in text
    assert (
        "per-prompt" not in runner("agents", "install", "--per-prompt", "--runner", "codex").stdout
    )
    plain = runner("agents", "install", "--json").json()
    assert plain["per_prompt"] is False and plain["no_prompt_hook"] == {}
    assert hook_files(root) == session_start_only  # the prompt hooks went again
    assert runner("agents", "install", "--per-prompt").exit_code == 0
    assert runner("agents", "uninstall").exit_code == 0
    assert snapshot(root) == before


def test_a_per_prompt_dry_run_writes_nothing(repo: Path, runner: Invoke) -> None:
    before = snapshot(repo)
    done = runner("agents", "install", "--per-prompt", "--dry-run", "--json")
    assert done.exit_code == 0 and done.json()["dry_run"] is True
    assert done.json()["per_prompt"] is True
    assert snapshot(repo) == before
