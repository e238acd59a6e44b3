"""Numbers and files past what a command can take (issue 30, item 13): every integer option and
MCP argument is bounded with a clear message, never a traceback or a bare error; an anchor is a
regular file, never a FIFO that `add` (or an MCP worker) would wait on forever.

Each command runs as a subprocess with a deadline: a hang fails the test instead of blocking."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import Client

from memsite.memory import Memory
from tests.conftest import clean_env
from tests.mcp.test_server import call, fail, session

HUGE = "99999999999999999999"  # over sys.maxsize, and over SQLite's integers
DEADLINE = 120  # seconds: far beyond what a working command takes


def memsite(store_root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memsite", "--store", str(store_root), *args],
        cwd=store_root.parent,
        capture_output=True,
        text=True,
        env=clean_env(),
        timeout=DEADLINE,
    )


@pytest.mark.parametrize(
    "args",
    [
        ["list", "--limit", HUGE],
        ["list", "--all", "--limit", HUGE],
        ["search", "pnpm", "--limit", HUGE],
    ],
)
def test_a_limit_out_of_range_is_one_clear_line(store_root: Path, args: list[str]) -> None:
    memsite(store_root, "add", "Use pnpm", "-c", "conventions")
    done = memsite(store_root, *args)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith("Error: Invalid value for '--limit'") and "range" in line


def test_the_service_takes_any_limit(store_root: Path) -> None:
    memory = Memory.open(str(store_root))
    memory.add("Use pnpm", "conventions")
    for include_all in (False, True):
        listed = memory.list_entries(include_all=include_all, limit=int(HUGE))
        assert [e["content"] for e in listed] == ["Use pnpm"]


def test_mcp_bounds_the_list_limit(store_root: Path) -> None:
    async def body(client: Client) -> None:
        text = await fail(client, "memory_list", limit=int(HUGE))
        assert "less than or equal to" in text
        assert (await call(client, "memory_list", limit=3))["entries"] == []

    session(store_root, body)


def test_an_anchor_that_is_a_fifo_is_refused(store_root: Path) -> None:
    fifo = store_root.parent / "schema.sql"
    os.mkfifo(fifo)  # no writer ever comes: reading it would block forever
    done = memsite(
        store_root, "add", "The schema lives here", "-c", "conventions", "--anchor", "schema.sql"
    )
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    (line,) = done.stderr.splitlines()
    assert "is a FIFO, not a regular file" in line and "schema.sql" in line
    assert list((store_root / "entries").iterdir()) == []


# An MCP client calling memory_write with a FIFO for an anchor, in a process of its own.
MCP_WRITE = """
import json, sys
import anyio
from mcp import Client
from memsite.mcp.server import build_server
from memsite.memory import Memory

async def main():
    async with Client(build_server(Memory.open(sys.argv[1]))) as client:
        fact = {"content": "The schema lives here", "category": "conventions"}
        result = await client.call_tool("memory_write", {**fact, "anchors": ["schema.sql"]})
        text = " ".join(getattr(c, "text", "") for c in result.content)
        print(json.dumps({"error": result.is_error, "text": text}))

anyio.run(main)
"""


def test_an_mcp_anchor_that_is_a_fifo_is_a_tool_error(store_root: Path) -> None:
    os.mkfifo(store_root.parent / "schema.sql")
    done = subprocess.run(
        [sys.executable, "-c", MCP_WRITE, str(store_root)],
        cwd=store_root.parent,
        capture_output=True,
        text=True,
        env=clean_env(),
        timeout=DEADLINE,  # the worker would otherwise wait on the FIFO for good
    )
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout.splitlines()[-1])
    assert answer["error"] is True and "is a FIFO, not a regular file" in answer["text"]
