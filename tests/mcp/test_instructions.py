"""The MCP server's instructions: the guide, then as much of the index as 2,000 characters hold,
every category keeping its share."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memsite.core.markdown import category_title
from memsite.mcp.instructions import INSTRUCTIONS_MAX, STALE, build_instructions, guide
from memsite.memory import Memory
from tests.conftest import make_entry, write_raw

CATEGORIES = ["conventions", "architecture", "operations", "decisions", "security", "testing"]


def configure(store_root: Path, memory: dict[str, object]) -> None:
    (store_root / "config.json").write_text(json.dumps({"memory": memory}), encoding="utf-8")


def open_memory(store_root: Path) -> Memory:
    return Memory.open(str(store_root), {}, store_root.parent)


def test_the_guide_names_the_categories_and_the_index_file() -> None:
    text = guide(["ops", "api"], "mem/index.md")
    assert "- Categories: ops, api." in text
    assert "file mem/index.md)" in text and "memsite://index" in text
    for tool in ("memory_search", "memory_write", "memory_log"):
        assert tool in text


@pytest.mark.parametrize("facts", [6, 60, 600])
def test_a_large_store_stays_within_the_limit_and_keeps_every_category(
    store_root: Path, facts: int
) -> None:
    configure(store_root, {"categories": dict.fromkeys(CATEGORIES, 1)})
    for n in range(facts):
        category = CATEGORIES[n % len(CATEGORIES)]
        created = f"2026-03-{1 + n // 100:02d}T10:{n % 100 // 60:02d}:{n % 60:02d}.000Z"
        write_raw(
            store_root, make_entry(f"Fact {n} about {category}: " + "x" * 40, category, created)
        )
    open_memory(store_root).compact()
    text = build_instructions(open_memory(store_root))
    assert len(text) <= INSTRUCTIONS_MAX
    assert f"- Categories: {', '.join(CATEGORIES)}." in text
    head, _, index = text.partition("\n\nIndex (the top facts of each category")
    assert head == guide(CATEGORIES, ".memsite/index.md")
    for category in CATEGORIES:
        assert f"## {category_title(category)}" in index, category
    assert not any(line.startswith("<!--") for line in text.splitlines())
    if facts == 600:
        assert len(text) > INSTRUCTIONS_MAX - 300  # the room is used
        assert "Fact 599 about" in index  # the newest facts come first


def test_the_index_is_the_one_agents_get_without_its_banner(store_root: Path) -> None:
    memory = open_memory(store_root)
    memory.compact()
    memory.add("Releases are cut on Tuesdays.", "operations")
    memory.add("Use pnpm, never npm.", "conventions")
    text = build_instructions(memory.reopen())
    index = memory.reopen().index_text()
    assert index.startswith("<!--")
    body = "\n".join(line for line in index.splitlines() if not line.startswith("<!--")).strip()
    assert text.endswith("\n" + body)


@pytest.mark.parametrize("memory_settings", [{}, {"enabled": False}])
def test_no_index_means_the_guide_alone(
    store_root: Path, memory_settings: dict[str, object]
) -> None:
    configure(store_root, memory_settings)
    if memory_settings:
        write_raw(store_root, make_entry("Use pnpm, never npm."))  # facts, but memory is off
    else:
        open_memory(store_root).compact()
    text = build_instructions(open_memory(store_root))
    assert text == guide(list(open_memory(store_root).config.categories), ".memsite/index.md")


def test_a_stale_store_gets_the_guide_at_once_and_nothing_is_compacted(store_root: Path) -> None:
    """The instructions answer `initialize`: on a store whose views are stale they wait on no
    compaction (a client gives the server a few seconds), and say where the index is."""
    write_raw(store_root, make_entry("Releases are cut on Tuesdays.", "operations"))
    memory = open_memory(store_root)
    text = build_instructions(memory)
    assert text == guide(list(memory.config.categories), ".memsite/index.md") + STALE
    assert not (store_root / "index.md").exists()  # no views were built
    memory.compact()
    assert "Releases are cut on Tuesdays." in build_instructions(memory.reopen())
