"""Sessions: one daily log per session (branches never conflict), and the carry-over of the
last session's open tasks and decisions into the next session's context."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from memsite.core.estimate import estimate_tokens
from memsite.memory import Memory
from memsite.storage.layout import Store
from tests.conftest import Clock, Invoke, clean_env


def open_memory(root: Path, clock: Clock) -> Memory:
    store = Store(root)
    return Memory(store, store.load_config(), clock)


def test_the_next_session_starts_with_the_last_ones_open_work(
    store_root: Path, clock: Clock
) -> None:
    memory = open_memory(store_root, clock)
    memory.add("Use pnpm", "conventions")
    memory.log("Wire the login page", "feature-a", kind="task")
    memory.log("Fix the flaky checkout test", "feature-a", kind="task")
    memory.log("Sessions live in signed cookies", "feature-a", kind="decision")
    memory.log("Fix the flaky checkout test", "feature-a", kind="done")
    memory.log("a plain note, not carried", "feature-a")
    text = open_memory(store_root, clock).context(session="feature-b")
    assert text.endswith(
        "\n## Last session (feature-a, 2026-03-07)\n"
        "- [task] Wire the login page\n"
        "- [decision] Sessions live in signed cookies\n"
    )
    assert "- Use pnpm" in text and "flaky" not in text and "plain note" not in text
    # the session itself does not get its own lines back
    assert "Last session" not in open_memory(store_root, clock).context(session="feature-a")


def test_carry_over_stays_within_its_share_and_the_budget(store_root: Path, clock: Clock) -> None:
    memory = open_memory(store_root, clock)
    for i in range(40):
        memory.add(f"Fact number {i} about the deployment of service {i}", "operations")
        memory.log(f"Task {i}: migrate service {i} to the new queue", "old", kind="task")
    text = open_memory(store_root, clock).context(budget=500, session="new")
    carry = text[text.index("\n## Last session") :]
    assert estimate_tokens(carry) <= 300
    assert "Task 39" in carry  # the newest open work first
    assert estimate_tokens(text) <= 500


def test_carry_over_can_be_turned_off(store_root: Path, clock: Clock) -> None:
    (store_root / "config.json").write_text(
        json.dumps({"memory": {"sessionCarryover": False}}), encoding="utf-8"
    )
    memory = open_memory(store_root, clock)
    memory.log("Wire the login page", "feature-a", kind="task")
    assert "Last session" not in open_memory(store_root, clock).context(session="feature-b")


def test_sessions_list_and_show(store_root: Path, runner: Invoke) -> None:
    env = {"MEMSITE_SESSION": "feature-a"}
    assert runner("log", "Wire the login page", "--kind", "task", env=env).exit_code == 0
    runner("log", "Looked at the router", env=env)
    runner("log", "Another branch's work", "--session", "Feature B")
    listed = runner("sessions", "list", "--json").json()
    assert {row["session"] for row in listed} == {"feature-a", "feature-b"}
    row = next(r for r in listed if r["session"] == "feature-a")
    assert row["lines"] == 2 and row["open"] == ["[task] Wire the login page"]
    shown = runner("sessions", "show", "feature-a")
    assert shown.exit_code == 0 and "[task] Wire the login page" in shown.stdout
    missing = runner("sessions", "show", "nope")
    assert missing.exit_code == 1 and missing.stderr.count("\n") == 1
    assert "memsite sessions list" in missing.stderr


def test_the_claude_hook_payload_names_the_current_session(
    store_root: Path, runner: Invoke
) -> None:
    runner("add", "Use pnpm", "-c", "conventions")
    runner("log", "Wire the login page", "--kind", "task", "--session", "abc-123")
    mine = runner("context", "--format", "claude-hook", input='{"session_id": "ABC-123"}')
    other = runner("context", "--format", "claude-hook", input='{"session_id": "def-456"}')
    assert "Last session" not in mine.stdout
    assert (
        "Last session (abc-123"
        in json.loads(other.stdout)["hookSpecificOutput"]["additionalContext"]
    )
    odd = runner("context", "--format", "claude-hook", input='{"session_id": "!!!"}')
    assert odd.exit_code == 0  # hooks fail open: an unusable id is ignored


def test_two_branches_logging_the_same_day_merge_without_conflict(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()

    def run(*args: str, env: dict[str, str] | None = None) -> None:
        subprocess.run(
            args,
            cwd=repo,
            check=True,
            capture_output=True,
            env={**clean_env(), **(env or {})},
        )

    git = ("git", "-c", "user.name=t", "-c", "user.email=t@e")
    memsite = (sys.executable, "-m", "memsite")
    run(*git, "init", "-q", "-b", "main")
    run(*memsite, "init")
    (repo / ".memsite" / "config.json").write_text(
        json.dumps({"memory": {"trackDaily": True}}), encoding="utf-8"
    )
    (repo / ".memsite" / ".gitignore").unlink()
    run(*memsite, "init")  # writes .gitignore again, now sharing daily/ in git
    run(*git, "add", "-A")
    run(*git, "commit", "-q", "-m", "store")
    for branch in ("left", "right"):
        run(*git, "checkout", "-q", "-b", branch, "main")
        run(*memsite, "log", f"work on {branch}", "--kind", "task", env={"MEMSITE_SESSION": branch})
        run(*git, "add", "-A")
        run(*git, "commit", "-q", "-m", branch)
    run(*git, "checkout", "-q", "main")
    run(*git, "merge", "-q", "--no-edit", "left")
    run(*git, "merge", "-q", "--no-edit", "right")  # check=True: a conflict would fail here
    logs = sorted(p.name for p in (repo / ".memsite" / "daily").glob("*.md"))
    assert [name.split("-", 3)[-1] for name in logs] == ["left.md", "right.md"]


def test_a_log_without_a_session_draws_one_and_never_writes_default(
    store_root: Path, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`Memory.log` with no session names it as the CLI does (MEMSITE_SESSION, else this
    terminal's session): two branches must not append to one shared file."""
    memory = Memory.open(str(store_root), {}, store_root.parent, clock)
    monkeypatch.delenv("MEMSITE_SESSION", raising=False)
    drawn = memory.log("first note")
    assert drawn["session"].startswith("cli-") and "default" not in drawn["path"]
    assert memory.log("second note")["session"] == drawn["session"]
    monkeypatch.setenv("MEMSITE_SESSION", "Feature Login")
    assert memory.log("third note")["session"] == "feature-login"
    names = sorted(p.name for p in (store_root / "daily").iterdir())
    assert not any("-default." in name for name in names)
    assert len(names) == 2


def test_a_done_line_names_the_task_it_closes(store_root: Path, clock: Clock) -> None:
    from memsite.memory.sessions import closed_task

    memory = open_memory(store_root, clock)
    memory.log("Wire the login page", "s-0", kind="task")
    memory.log("Fix  the build", "s-1", kind="task")
    assert closed_task(memory, "s-1", "Fix the build") == {
        "session": "s-1",
        "task": "Fix the build",
    }
    # a new session: the last session's open tasks are the ones its context carried
    assert closed_task(memory, "s-2", "Fix the build") == {
        "session": "s-1",
        "task": "Fix the build",
    }
    assert closed_task(memory, "s-2", "Wire the login page") is None  # s-0's: not carried
    answer = memory.log("Fix the build", "s-1", kind="done")
    assert answer["closed"] == {"session": "s-1", "task": "Fix the build"}
    assert memory.log("Fix the build", "s-1", kind="done")["closed"] is None  # closed already
    assert "closed" not in memory.log("a note", "s-1")


def test_a_terminal_session_is_named_from_the_host_as_socket_names_it() -> None:
    """The host part comes from ``uname`` (no socket import at every start): the same name
    ``socket.gethostname`` gives, so names drawn before and after the change are one."""
    import os
    import socket
    import zlib

    from memsite.memory.sessions import current_session

    with open("/proc/sys/kernel/random/boot_id", encoding="ascii") as handle:
        boot = handle.read().strip()
    seed = f"{socket.gethostname()}:{boot}:{os.getsid(0)}".encode()
    assert current_session(env={}) == f"cli-{zlib.crc32(seed):08x}"
