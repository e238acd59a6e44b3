"""The trust gate over MCP: the instructions and memsite://index hold only what the gate lets
through; reads flag held-back facts and never hand an agent hidden characters; no tool
approves (a person's decision)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp_types import TextResourceContents

from memsite.mcp.instructions import build_instructions
from memsite.mcp.server import build_server
from memsite.memory import Memory
from tests.conftest import git, make_entry, write_raw
from tests.memory.test_trust import MALICE, Team, commit

HIDDEN = "Use the staging database\U000e0049\U000e0047\U000e004e\u202e for load tests"


@pytest.fixture
def team(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Team:
    found = Team(tmp_path)
    monkeypatch.chdir(found.root)
    return found


def calls(memory: Memory) -> dict[str, Any]:
    server = build_server(memory)

    async def main() -> dict[str, Any]:
        async with Client(server) as client:
            tools = {t.name for t in (await client.list_tools()).tools}
            search = await client.call_tool("memory_search", {"query": "staging setup wiki"})
            (index,) = (await client.read_resource("memsite://index")).contents
            assert isinstance(index, TextResourceContents)
            return {"tools": tools, "search": search.structured_content, "index": index.text}

    return anyio.run(main)


def test_agents_over_mcp_get_only_what_the_gate_lets_through(team: Team) -> None:
    obj = make_entry("placeholder", id="33333333-3333-4333-8333-333333333333")
    write_raw(team.root / ".memsite", {**obj, "content": HIDDEN})  # another tool wrote it
    commit(team.root, "Alice", "hidden")
    git(team.root, "push", "-q", "origin", "main")  # reviewed, but hidden text is held anyway
    fact = team.merge_unreviewed(MALICE)
    memory = team.memory()
    assert MALICE not in build_instructions(memory)
    assert "staging database" not in build_instructions(team.memory())
    got = calls(team.memory())
    assert not any("approve" in name for name in got["tools"])
    assert MALICE not in got["index"] and "2 facts held back" in got["index"]
    hits = {h["id"]: h for h in got["search"]["entries"]}
    assert hits[fact]["trust"] == "unreviewed" and hits[fact]["held_back"] == "unreviewed"
    hidden = hits["33333333-3333-4333-8333-333333333333"]
    assert hidden["held_back"] == "hidden_text"
    assert hidden["content"] == "Use the staging database for load tests"
    assert os.environ.get("MEMSITE_AGENT") is None
