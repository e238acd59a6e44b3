"""Claude Code's hooks: the session-start context, the stop reminder, pre-compact, failing open,
and merging with the user's own hooks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from memsite.runners.claude import REMIND_INTERVAL, hook_response
from memsite.runners.hooks import HOOK_OUTPUT_MAX, claude_hook_output
from tests.conftest import Invoke, make_entry, write_raw
from tests.runners.conftest import snapshot


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


PROGRAMS = [
    ("memsite",),
    ("/opt/my tools/bin/memsite",),  # shell-quoted: it holds a space
    ("/usr/bin/python3", "-m", "memsite"),
    ("C:\\Tools\\memsite.exe",),
]


@pytest.mark.parametrize("program", PROGRAMS)
def test_hooks_written_with_any_program_are_recognised_as_memsites(
    program: tuple[str, ...],
) -> None:
    from memsite.runners.base import Wiring
    from memsite.runners.claude import hook_commands, is_ours

    wiring = Wiring(Path("/r"), ".memsite", ("conventions",), auto_flush=True, program=program)
    commands = [command for _, command in hook_commands(wiring).values()]
    assert len(commands) == 3 and all(is_ours(c) for c in commands), commands
    assert not is_ours("notmemsite --store x context --format claude-hook")
    assert not is_ours("echo memsite --store x agents hook stop")


def test_install_tells_about_claude_codes_approval_of_project_servers(
    store_root: Path, runner: Invoke
) -> None:
    first = runner("agents", "install", "--runner", "claude")
    assert first.exit_code == 0, first.stderr
    assert "approve" in first.stdout and "pending approval" in first.stdout
    again = runner("agents", "install", "--runner", "claude")  # nothing written: no note
    assert again.exit_code == 0 and "pending approval" not in again.stdout
