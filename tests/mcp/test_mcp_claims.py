"""The claims tools over MCP: anchors on memory_write, memory_reconcile, memory_verify,
memory_retire, memory_relate, and what memory_read shows of them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tests.mcp.test_server import call, fail, hints, session

DB = "def connect():\n    return 'postgres'\n\nPORT = 5432\n"


def test_annotations_of_the_claims_tools(store_root: Path) -> None:
    async def body(client: Client) -> None:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert hints(tools["memory_reconcile"].annotations).read_only_hint is True
        for name in ("memory_verify", "memory_retire", "memory_relate"):
            found = hints(tools[name].annotations)
            assert found.read_only_hint is False and found.destructive_hint is False, name
            assert found.open_world_hint is False
        assert hints(tools["memory_retire"].annotations).idempotent_hint is True
        assert hints(tools["memory_verify"].annotations).idempotent_hint is False
        assert tools["memory_retire"].input_schema["required"] == ["id", "reason"]
        assert tools["memory_relate"].input_schema["required"] == ["id", "other", "type"]
        link = tools["memory_relate"].input_schema["properties"]["type"]
        assert link["enum"] == [
            "refines",
            "supports",
            "depends-on",
            "conflicts-with",
            "distinct-from",
        ]

    session(store_root, body)


def test_anchor_drift_verify_retire_relate(store_root: Path) -> None:
    source = store_root.parent / "db.py"
    source.write_text(DB)

    async def body(client: Client) -> None:
        fact = await call(
            client,
            "memory_write",
            content="The port is 5432",
            category="architecture",
            anchors="db.py:4",
        )
        other = await call(
            client,
            "memory_write",
            content="Connections go through connect()",
            category="architecture",
        )
        clean = await call(client, "memory_reconcile")
        assert clean["drifted"] == 0 and clean["facts"][0]["anchors"][0]["state"] == "unchanged"
        source.write_text(DB.replace("5432", "6543"))
        drifted = await call(client, "memory_reconcile")
        assert drifted["drifted"] == 1
        read = await call(client, "memory_read", id=fact["id"])
        assert read["drifted"] is True and read["anchors"][0]["state"] == "changed"
        text = await fail(client, "memory_verify", id=fact["id"])
        assert "--repin" in text or "repin" in text
        verified = await call(
            client, "memory_verify", id=fact["id"], evidence="port moved", repin=True
        )
        assert verified["repinned"] == ["db.py:4-4"]
        read = await call(client, "memory_read", id=fact["id"])
        assert "drifted" not in read and read["verifications"][0]["evidence"] == "port moved"
        related = await call(
            client, "memory_relate", id=other["id"], other=fact["id"], type="depends-on"
        )
        assert related["status"] == "related"
        read = await call(client, "memory_read", id=fact["id"])
        assert read["links"][0]["id"] == other["id"] and read["links"][0]["direction"] == "in"
        found = await call(client, "memory_search", query="connect", expand=True)
        assert [e.get("via", {}).get("type") for e in found["entries"]] == [None, "depends-on"]
        retired = await call(client, "memory_retire", id=fact["id"], reason="port is in env now")
        assert retired["status"] == "retired"
        listed = await call(client, "memory_list")
        assert [e["id"] for e in listed["entries"]] == [other["id"]]
        assert (await call(client, "memory_read", id=fact["id"]))["status"] == "retired"

    session(store_root, body)


BAD: list[tuple[str, dict[str, Any], str]] = [
    ("memory_verify", {"id": "deadbeef"}, "no entry with id"),
    ("memory_retire", {"id": "deadbeef", "reason": "x"}, "no entry with id"),
    ("memory_relate", {"id": "deadbeef", "other": "beefdead", "type": "supports"}, "no entry"),
    ("memory_relate", {"id": "deadbeef", "other": "beefdead", "type": "owns"}, "refines"),
    (
        "memory_write",
        {"content": "x", "category": "conventions", "anchors": ["../../etc/passwd"]},
        "outside the project",
    ),
]


@pytest.mark.parametrize(("tool", "arguments", "expected"), BAD)
def test_bad_claims_calls_are_tool_errors(
    store_root: Path, tool: str, arguments: dict[str, Any], expected: str
) -> None:
    async def body(client: Client) -> None:
        assert expected in await fail(client, tool, **arguments)

    session(store_root, body)


def test_a_retire_reason_that_looks_like_a_secret_is_refused(store_root: Path) -> None:
    async def body(client: Client) -> None:
        fact = await call(
            client, "memory_write", content="Deploy on Fridays", category="operations"
        )
        token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
        text = await fail(client, "memory_retire", id=fact["id"], reason=f"token {token}")
        assert token not in text
        assert "secret" in text.lower() or "credential" in text.lower()

    session(store_root, body)


def test_memory_write_takes_a_validity_window(store_root: Path) -> None:
    """The real clock: a window that closed in 2001 is expired, one opening in 2999 upcoming."""

    async def body(client: Client) -> None:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        properties = tools["memory_write"].input_schema["properties"]
        assert {"valid_from", "valid_to"} <= set(properties)
        assert "valid_from" in str(tools["memory_write"].description)
        old = await call(
            client,
            "memory_write",
            content="Deploys froze for Y2K",
            category="operations",
            valid_from="1999-12-01",
            valid_to="2001-01-01",
        )
        assert any("expired" in w for w in old["warnings"])
        ahead = await call(
            client,
            "memory_write",
            content="The API moves to v9",
            category="operations",
            valid_from="2999-01-01",
        )
        listed = {e["id"]: e for e in (await call(client, "memory_list"))["entries"]}
        assert listed[old["id"]]["expired"] is True
        assert listed[old["id"]]["valid_to"] == "2001-01-01"
        assert listed[ahead["id"]]["upcoming"] is True
        read = await call(client, "memory_read", id=old["id"])
        assert read["status"] == "expired"
        text = await fail(
            client, "memory_write", content="Soon", category="operations", valid_to="2026-02-30"
        )
        assert text.startswith("invalid valid_to '2026-02-30'") and "\n" not in text

    session(store_root, body)
