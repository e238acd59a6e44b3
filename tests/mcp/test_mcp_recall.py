"""MCP's memory_search takes the search mode, and each hit says which rankings found it."""

from __future__ import annotations

from pathlib import Path

from mcp import Client

from tests.mcp.test_server import call, fail, session


def test_memory_search_modes(store_root: Path) -> None:
    async def body(client: Client) -> None:
        cat = await call(
            client, "memory_write", content="The cat sleeps on the sofa", category="decisions"
        )
        await call(client, "memory_write", content="Use pnpm, never npm", category="conventions")
        exact = await call(client, "memory_search", query="pnmp", mode="exact")
        assert [e["signals"] for e in exact["entries"]] == [["exact"]]
        meaning = await call(
            client, "memory_search", query="kitten napping on the couch", mode="semantic"
        )
        (hit,) = meaning["entries"]
        assert hit["id"] == cat["id"] and hit["signals"] == ["semantic"]
        assert hit["similarity"] >= 0.5
        default = await call(client, "memory_search", query="pnpm")
        assert "exact" in default["entries"][0]["signals"]
        assert "mode" in await fail(client, "memory_search", query="pnpm", mode="fuzzy")

    session(store_root, body)
