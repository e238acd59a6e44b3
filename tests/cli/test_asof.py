"""`--as-of DATE|REF` on list, search, read, context, status and export, and the MCP tools'
as_of: the answer is the past state's, and says which it is."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from memsite.mcp.server import build_server
from memsite.memory import Memory
from tests.cli.helpers import add
from tests.conftest import Invoke, clean_env, git, make_entry, write_raw

COMMANDS = [
    ("list",),
    ("search", "deploy"),
    ("context",),
    ("status",),
    ("export", "--format", "jsonl", "--all"),
]


@pytest.fixture
def released(runner: Invoke, store_root: Path) -> dict[str, Any]:
    """A project whose v1 said "Tuesdays", amended to "Thursdays" since (uncommitted)."""
    project = store_root.parent
    git(project, "init", "-q", "-b", "main")
    first = add(runner, "We deploy on Tuesdays.", "--key", "deploy-day")
    git(project, "add", "-A")
    git(project, "commit", "-qm", "v1")
    git(project, "tag", "v1")
    second = runner("amend", str(first["id"]), "We deploy on Thursdays.", "--json").json()
    return {"first": first["id"], "second": second["id"], "commit": git(project, "rev-parse", "v1")}


@pytest.mark.parametrize("command", COMMANDS, ids=[c[0] for c in COMMANDS])
def test_each_reader_answers_as_of_a_ref(
    runner: Invoke, released: dict[str, Any], command: tuple[str, ...]
) -> None:
    now = runner(*command)
    then = runner(*command, "--as-of", "v1")
    assert now.exit_code == then.exit_code == 0, then.stderr
    assert then.stderr.startswith(f"As of v1 (commit {released['commit'][:12]}, ")
    if command[0] == "status":
        assert "Entries: 1 (1 active, 0 superseded" in then.stdout
        assert "Entries: 2 (1 active, 1 superseded" in now.stdout
    else:
        assert "Tuesdays" in then.stdout and "Thursdays" not in then.stdout
        assert "Thursdays" in now.stdout


def test_json_answers_say_which_past_state(
    runner: Invoke, store_root: Path, released: dict[str, Any]
) -> None:
    point = {"kind": "ref", "given": "v1", "commit": released["commit"]}
    listed = runner("list", "--as-of", "v1", "--json").json()
    assert {k: listed["as_of"][k] for k in point} == point
    assert [e["content"] for e in listed["entries"]] == ["We deploy on Tuesdays."]
    hits = runner("search", "deploy", "--as-of", "v1", "--json").json()
    assert [h["id"] for h in hits["hits"]] == [released["first"]]
    read = runner("read", released["first"][:8], "--as-of", "v1", "--json").json()
    assert read["status"] == "active" and read["as_of"]["commit"] == released["commit"]
    now = runner("read", released["first"][:8], "--json").json()
    assert now["status"] == "superseded" and "as_of" not in now
    context = runner("context", "--as-of", "v1", "--json").json()
    assert context["included"] == [released["first"]] and context["as_of"]["kind"] == "ref"
    status = runner("status", "--as-of", "v1", "--json").json()
    assert status["entries"] == 1 and status["as_of"]["given"] == "v1"
    exported = runner("export", "--format", "jsonl", "--as-of", "v1", "--json").json()
    assert "Tuesdays" in exported["text"] and exported["as_of"]["commit"] == released["commit"]
    # A date: the entries written up to its end (a branch's older fact, planted here).
    old = make_entry("We deployed by hand.", created="2026-01-05T09:00:00.000Z")
    write_raw(store_root, old)
    dated = runner("list", "--all", "--as-of", "2026-01-05", "--json").json()
    assert dated["as_of"] == {"kind": "date", "given": "2026-01-05", "time": "2026-01-05T23:59:59Z"}
    assert [e["id"] for e in dated["entries"]] == [old["id"]]


def test_an_entry_written_later_is_not_found_as_of_before(
    runner: Invoke, released: dict[str, Any]
) -> None:
    result = runner("read", released["second"][:8], "--as-of", "v1")
    assert result.exit_code != 0 and "Traceback" not in result.stderr
    assert result.stderr.count("\n") == 2  # the as-of line, then one error line
    assert "no entry" in result.stderr.splitlines()[-1].lower()


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ("v9", "no git ref or date 'v9'"),
        ("2999-01-01", "is in the future"),
        ("2001-01-01", "no entry had been written by 2001-01-01"),
        ("2026-02-31", "invalid date '2026-02-31'"),
    ],
)
def test_bad_points_are_one_line_and_a_failure(
    runner: Invoke, released: dict[str, Any], value: str, words: str
) -> None:
    for command in COMMANDS:
        result = runner(*command, "--as-of", value)
        assert result.exit_code == 1 and result.stdout == ""
        assert result.stderr.count("\n") == 1 and words in result.stderr, result.stderr


def test_as_of_is_for_reading_not_for_hooks(runner: Invoke, released: dict[str, Any]) -> None:
    result = runner("context", "--format", "claude-hook", "--as-of", "v1")
    assert result.exit_code == 2 and "--as-of is for reading the past" in result.stderr


def test_mcp_tools_read_the_past(store_root: Path, released: dict[str, Any]) -> None:
    server = build_server(Memory.open(str(store_root)))

    async def main() -> list[Any]:
        async with Client(server) as client:
            answers = []
            for tool, arguments in (
                ("memory_list", {"as_of": "v1"}),
                ("memory_search", {"query": "deploy", "as_of": "v1"}),
                ("memory_read", {"id": released["first"], "as_of": "v1"}),
                ("memory_list", {}),
                ("memory_read", {"id": released["second"], "as_of": "v1"}),
            ):
                answers.append(await client.call_tool(tool, arguments))
            return answers

    listed, found, read, today, missing = anyio.run(main)
    for result in (listed, found, read):
        assert not result.is_error and result.structured_content is not None
        assert result.structured_content["as_of"]["commit"] == released["commit"]
    assert listed.structured_content is not None and found.structured_content is not None
    assert [e["content"] for e in listed.structured_content["entries"]] == [
        "We deploy on Tuesdays."
    ]
    assert [e["id"] for e in found.structured_content["entries"]] == [released["first"]]
    assert read.structured_content is not None and read.structured_content["status"] == "active"
    assert today.structured_content is not None and "as_of" not in today.structured_content
    assert missing.is_error
    assert "no entry" in json.dumps([c.model_dump() for c in missing.content]).lower()


def test_a_damaged_past_state_is_rebuilt_with_one_line(
    store_root: Path, released: dict[str, Any]
) -> None:
    def listed() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "memsite", "list", "--as-of", "v1"],
            cwd=store_root.parent,
            env=clean_env(),
            capture_output=True,
            text=True,
        )

    assert listed().returncode == 0
    (past,) = (store_root / "cache" / "as-of").glob("c-*")
    for name in ("index.sqlite3", "index.sqlite3-wal", "index.sqlite3-shm"):
        (past / "cache" / name).unlink(missing_ok=True)
    garbage = random.Random(0).randbytes(4000)  # after the header: not a database
    (past / "cache" / "index.sqlite3").write_bytes(b"SQLite format 3\x00" + garbage)
    result = listed()
    assert result.returncode == 0, result.stderr
    assert "Tuesdays" in result.stdout and "Traceback" not in result.stderr
    (notice,) = [line for line in result.stderr.splitlines() if "rebuilding" in line]
    assert "as-of/c-" in notice and "rebuilding it from entries/" in notice
