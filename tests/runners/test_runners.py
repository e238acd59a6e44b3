"""`memsite agents install|uninstall|hook`: wiring that keeps user content and undoes itself."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

from memsite.blocks import add_block, remove_block
from memsite.runners.claude import (
    HOOK_OUTPUT_MAX,
    REMIND_INTERVAL,
    SESSION_MATCHER,
    claude_hook_output,
    hook_response,
)
from memsite.runners.targets import BEGIN, END
from tests.conftest import Invoke, make_entry, write_raw

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


# --- the hooks, run as Claude Code runs them ------------------------------------------------


def run_hooks(
    root: Path, event: str, payload: dict[str, Any]
) -> list[subprocess.CompletedProcess[str]]:
    """Run every command memsite registered for ``event``, as a shell command line."""
    settings = json.loads((root / ".claude" / "settings.json").read_text(encoding="utf-8"))
    commands = [
        h["command"]
        for group in settings["hooks"].get(event, [])
        for h in group["hooks"]
        if h["command"].startswith("memsite ")
    ]
    assert commands, f"no memsite hook for {event}"
    env = {**os.environ, "CLAUDE_PROJECT_DIR": str(root)}
    env.pop("MEMSITE_STORE", None)
    bin_dir = str(Path(sys.executable).parent)
    env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")
    return [
        subprocess.run(
            command,
            shell=True,
            input=json.dumps({"hook_event_name": event, **payload}),
            capture_output=True,
            text=True,
            cwd=root.parent,  # not the repository: the hook must find the store by itself
            env=env,
            timeout=60,
        )
        for command in commands
    ]


def test_session_start_hook_prints_the_documented_json_under_10000_characters(
    repo: Path, runner: Invoke
) -> None:
    config = repo / ".memsite" / "config.json"
    config.write_text(json.dumps({"memory": {"autoInjectTokenBudget": 100000}}), encoding="utf-8")
    for i in range(300):
        content = f'Rule {i}: quote "this" and escape \\ that, ' + "detail " * 20
        created = f"2026-03-07T10:{i // 60:02d}:{i % 60:02d}.000Z"
        write_raw(repo / ".memsite", make_entry(content, created=created))
    assert runner("agents", "install", "--runner", "claude").exit_code == 0
    for source in ("startup", "resume", "clear", "compact"):
        (done,) = run_hooks(repo, "SessionStart", {"session_id": "s1", "source": source})
        assert done.returncode == 0, done.stderr
        assert len(done.stdout) < HOOK_OUTPUT_MAX
        output = json.loads(done.stdout)
        assert set(output) == {"hookSpecificOutput"}
        specific = output["hookSpecificOutput"]
        assert specific["hookEventName"] == "SessionStart"
        assert "Rule 299:" in specific["additionalContext"]
        assert "truncated" in specific["additionalContext"]


def test_stop_hook_blocks_once_and_never_when_stop_hook_active(repo: Path, runner: Invoke) -> None:
    assert runner("agents", "install", "--runner", "claude").exit_code == 0
    (active,) = run_hooks(repo, "Stop", {"session_id": "a", "stop_hook_active": True})
    assert active.returncode == 0 and active.stdout == ""
    (first,) = run_hooks(repo, "Stop", {"session_id": "b", "stop_hook_active": False})
    assert first.returncode == 0, first.stderr
    answer = json.loads(first.stdout)
    assert answer["decision"] == "block" and "memory_write" in answer["reason"]
    # the agent records (or not) and stops again: the flag is set, so it may stop
    (second,) = run_hooks(repo, "Stop", {"session_id": "b", "stop_hook_active": True})
    assert second.stdout == ""
    # a later turn of the same session is not reminded again right away
    (later,) = run_hooks(repo, "Stop", {"session_id": "b", "stop_hook_active": False})
    assert later.returncode == 0 and later.stdout == ""


def test_pre_compact_hook_shows_a_reminder(repo: Path, runner: Invoke) -> None:
    assert runner("agents", "install", "--runner", "claude").exit_code == 0
    (done,) = run_hooks(repo, "PreCompact", {"session_id": "s", "trigger": "auto"})
    assert done.returncode == 0, done.stderr
    output = json.loads(done.stdout)
    assert set(output) == {"systemMessage"} and "memsite add" in output["systemMessage"]


def test_hooks_fail_open(tmp_path: Path, runner: Invoke) -> None:
    # no store anywhere: nothing printed, exit 0, the session goes on
    env = {k: v for k, v in os.environ.items() if k != "MEMSITE_STORE"}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "memsite",
            "--store",
            str(tmp_path / "none"),
            "agents",
            "hook",
            "stop",
        ],
        input="not json",
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 0 and done.stdout == ""


# --- the pure parts -----------------------------------------------------------------------------


def test_hook_response_rules(tmp_path: Path) -> None:
    state = tmp_path / "cache" / "state.json"
    stop = {"session_id": "s", "stop_hook_active": False}

    def respond(event: str, payload: dict[str, Any], now: float, flush: bool = True) -> Any:
        return hook_response(event, payload, auto_flush=flush, state_path=state, now=now)

    assert respond("stop", stop, 0.0, flush=False) is None
    assert respond("pre-compact", {}, 0.0, flush=False) is None
    assert respond("stop", {**stop, "stop_hook_active": True}, 0.0) is None
    assert respond("stop", stop, 1000.0)["decision"] == "block"
    assert respond("stop", stop, 1000.0 + REMIND_INTERVAL - 1) is None
    assert respond("stop", {**stop, "session_id": "t"}, 1001.0)["decision"] == "block"
    assert respond("stop", stop, 1000.0 + REMIND_INTERVAL)["decision"] == "block"
    state.write_text("garbage", encoding="utf-8")
    assert respond("stop", stop, 99999.0)["decision"] == "block"


@pytest.mark.parametrize("text", ['"\\' * 6000, "\n" * 9500, "é" * 20000, "\x01" * 3000])
def test_claude_hook_output_stays_under_the_limit(text: str) -> None:
    output = claude_hook_output(text)
    assert len(json.dumps(output, indent=2, ensure_ascii=False)) < HOOK_OUTPUT_MAX
    assert output["hookSpecificOutput"]["hookEventName"] == "SessionStart"


@pytest.mark.parametrize(
    "original", ["", "one line", "one line\n", "two\n\n", "crlf\r\n", "x\n\n\n"]
)
def test_block_round_trip_restores_bytes(original: str) -> None:
    block = f"{BEGIN}\nhello\n{END}"
    added, separator = add_block(original, block, BEGIN, END)
    assert added.count(BEGIN) == 1
    assert add_block(added, block, BEGIN, END)[0] == added
    assert remove_block(added, BEGIN, END, separator) == original


def test_instruction_block_documents_the_workflow_compaction_and_branches() -> None:
    import bpe_openai

    from memsite.core.estimate import estimate_tokens
    from memsite.runners.targets import instruction_block

    block = instruction_block(
        ("conventions", "architecture", "operations", "decisions"), ".memsite"
    )
    assert "memory_search" in block and "memory_write" in block  # reading and writing
    assert "supersedes" in block and "key" in block and "compact" in block  # what is current
    assert "merges never conflict" in block  # the branching strategy
    # It is read at every session start, in every runner: keep it within its budget.
    real = max(len(bpe_openai.get_encoding(n).encode(block)) for n in ("cl100k_base", "o200k_base"))
    assert real <= 450 and estimate_tokens(block) <= 700, (real, estimate_tokens(block))


def test_hooks_merge_into_the_users_own_and_leave_them_on_uninstall(
    store_root: Path, runner: Invoke
) -> None:
    root = store_root.parent
    (root / ".cursor").mkdir()
    user_cursor = {"version": 1, "hooks": {"afterFileEdit": [{"command": "./format.sh"}]}}
    (root / ".cursor" / "hooks.json").write_text(json.dumps(user_cursor), encoding="utf-8")
    (root / ".gemini").mkdir()
    user_gemini = {
        "theme": "dark",
        "hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "echo hi"}]}]},
    }
    (root / ".gemini" / "settings.json").write_text(json.dumps(user_gemini), encoding="utf-8")
    before = snapshot(root)
    assert runner("agents", "install", "--runner", "cursor,gemini").exit_code == 0
    cursor = json.loads((root / ".cursor" / "hooks.json").read_text(encoding="utf-8"))
    assert cursor["hooks"]["afterFileEdit"] == [{"command": "./format.sh"}]
    assert cursor["hooks"]["sessionStart"] == [{"command": "memsite context --format cursor-hook"}]
    gemini = json.loads((root / ".gemini" / "settings.json").read_text(encoding="utf-8"))
    assert gemini["theme"] == "dark"
    assert [g["hooks"][0]["command"] for g in gemini["hooks"]["SessionStart"]] == [
        "echo hi",
        "memsite context --format gemini-hook",
    ]
    assert runner("agents", "uninstall").exit_code == 0
    assert snapshot(root) == before


@pytest.mark.parametrize(
    ("fmt", "payload", "shape"),
    [
        ("codex-hook", {"session_id": "s-1"}, "hookSpecificOutput"),
        ("gemini-hook", {"session_id": "s-1"}, "hookSpecificOutput"),
        ("copilot-hook", {"sessionId": "s-1"}, "additionalContext"),
        ("cursor-hook", {"conversation_id": "s-1"}, "additional_context"),
    ],
)
def test_each_runner_hook_prints_its_own_shape_and_reads_its_session(
    store_root: Path, runner: Invoke, fmt: str, payload: dict[str, str], shape: str
) -> None:
    runner("add", "Use pnpm", "-c", "conventions")
    runner("log", "Wire the login page", "--kind", "task", "--session", "s-1")
    runner("log", "Review the API", "--kind", "task", "--session", "s-0")
    done = runner("context", "--format", fmt, input=json.dumps(payload))
    assert done.exit_code == 0, done.stderr
    printed = json.loads(done.stdout)
    if shape == "hookSpecificOutput":
        assert printed["hookSpecificOutput"]["hookEventName"] == "SessionStart"
        text = printed["hookSpecificOutput"]["additionalContext"]
    else:
        text = printed[shape]
    if fmt == "cursor-hook":
        assert printed["continue"] is True
    assert "- Use pnpm" in text
    assert "Review the API" in text and "Wire the login page" not in text  # s-1 is current


def test_the_cli_offers_every_runners_hook_format() -> None:
    from memsite.cli.upkeep import HOOK_FORMATS
    from memsite.runners.hooks import FORMATS

    assert HOOK_FORMATS == FORMATS
