"""`memsite mcp` as a real subprocess over stdio, driven by the SDK's client.

Write in one session, see it in the next; two servers writing concurrently lose nothing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp_types import TextResourceContents

from tests.oracles import parse_entry


def server_params(store: Path) -> StdioServerParameters:
    env = {k: v for k, v in os.environ.items() if k not in ("MEMSITE_STORE", "MEMSITE_AGENT")}
    return StdioServerParameters(
        command=sys.executable, args=["-m", "memsite", "--store", str(store), "mcp"], env=env
    )


def text(content: object) -> str:
    assert isinstance(content, TextResourceContents)
    return content.text


def cli(store: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memsite", "--store", str(store), *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )


def test_write_in_one_session_see_it_in_the_next(store_root: Path) -> None:
    # session 1: an agent records a fact through the CLI, in its own process
    written = json.loads(
        cli(
            store_root,
            "add",
            "The staging database is Postgres 16.",
            "-c",
            "architecture",
            "--json",
        ).stdout
    )
    cli(store_root, "compact", "--quiet")

    async def next_session() -> dict[str, Any]:
        async with Client(server_params(store_root), read_timeout_seconds=60) as client:
            hits = await client.call_tool("memory_search", {"query": "staging postgres"})
            index = await client.read_resource("memsite://index")
            entry = await client.read_resource(f"memsite://entries/{written['id']}")
            return {
                "hits": hits.structured_content,
                "instructions": client.instructions,
                "index": text(index.contents[0]),
                "entry": json.loads(text(entry.contents[0])),
            }

    seen = anyio.run(next_session)
    assert [h["id"] for h in seen["hits"]["entries"]] == [written["id"]]
    assert "- The staging database is Postgres 16." in seen["instructions"]
    assert "- The staging database is Postgres 16." in seen["index"]
    assert seen["entry"]["status"] == "active"

    # and what that session writes, the CLI of the session after sees
    async def write() -> dict[str, Any]:
        async with Client(server_params(store_root), read_timeout_seconds=60) as client:
            result = await client.call_tool(
                "memory_write",
                {
                    "content": "Use Postgres 17 on staging.",
                    "category": "architecture",
                    "supersedes": [written["id"]],
                },
            )
            answer = result.structured_content
            assert answer is not None
            return dict(answer)

    new = anyio.run(write)
    listed = json.loads(cli(store_root, "list", "--json").stdout)
    assert [e["id"] for e in listed] == [new["id"]]
    assert "Use Postgres 17" in cli(store_root, "context").stdout


@pytest.mark.slow
def test_two_servers_writing_concurrently_lose_nothing(store_root: Path) -> None:
    per_server = 200

    async def writer(name: str) -> list[str]:
        ids = []
        async with Client(server_params(store_root), read_timeout_seconds=120) as client:
            for i in range(per_server):
                result = await client.call_tool(
                    "memory_write",
                    {
                        "content": f"Server {name} fact {i}: queue q{i} drains in {i} s.",
                        "category": "operations",
                        "tags": [f"server-{name}"],
                    },
                )
                assert not result.is_error, result.content
                assert result.structured_content is not None
                assert result.structured_content["status"] == "written"
                ids.append(result.structured_content["id"])
        return ids

    async def both() -> list[str]:
        results: dict[str, list[str]] = {}

        async def run(name: str) -> None:
            results[name] = await writer(name)

        async with anyio.create_task_group() as group:
            group.start_soon(run, "a")
            group.start_soon(run, "b")
        return results["a"] + results["b"]

    ids = anyio.run(both)
    files = sorted((store_root / "entries").iterdir())
    assert len(files) == 2 * per_server == len(set(ids))
    for path in files:
        assert path.name.endswith(".json"), f"temporary left behind: {path.name}"
        entry = parse_entry(path.read_bytes(), path.name)
        assert entry.id in ids
    listed = json.loads(cli(store_root, "list", "--json").stdout)
    assert len(listed) == 2 * per_server
