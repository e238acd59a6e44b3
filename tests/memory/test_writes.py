"""Writes: add, amend and the checks around them. Here, what clocks that disagree do to keyed
facts (issue 30, item 11): an amendment wins over the fact it amends whatever the clocks say,
and a keyed write that another fact overrides on arrival says so."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from tests.conftest import Clock
from tests.memory.conftest import memory_at


def status_of(store_root: Path, entry_id: str) -> str:
    memory = memory_at(store_root)
    answer = memory.read(entry_id)
    return str(answer["status"])


def test_amending_a_fact_from_a_fast_clock_leaves_the_amendment_active(store_root: Path) -> None:
    mine = Clock()
    theirs = Clock(mine.moment + timedelta(minutes=10))  # a teammate's clock ten minutes fast
    fact = memory_at(store_root, theirs).add(
        "The API listens on port 8000.", "architecture", key="api-port"
    )
    mine.tick(minutes=1)
    amended = memory_at(store_root, mine).amend(fact["id"], "The API listens on port 8080.")
    assert amended["warnings"] == []
    assert status_of(store_root, fact["id"]) == "superseded"
    assert status_of(store_root, amended["id"]) == "active"
    listed = memory_at(store_root).list_entries()
    assert [e["content"] for e in listed] == ["The API listens on port 8080."]


def test_a_keyed_write_overridden_on_arrival_says_so(store_root: Path) -> None:
    ahead = Clock()
    behind = Clock(ahead.moment - timedelta(minutes=30))  # this machine's clock is behind
    first = memory_at(store_root, ahead).add("Node 20 is the runtime.", "conventions", key="node")
    late = memory_at(store_root, behind).add("Node 22 is the runtime.", "conventions", key="node")
    assert late["status"] == "written"
    [warning] = late["warnings"]
    short = str(first["id"])[:8]
    assert warning.startswith(f"{short} (key 'node', dated ")
    assert "overrides this fact at once" in warning and f"--supersedes {short}" in warning
    assert status_of(store_root, late["id"]) == "overridden"


def test_a_keyed_write_that_wins_warns_of_nothing(store_root: Path) -> None:
    clock = Clock()
    memory_at(store_root, clock).add("Node 20 is the runtime.", "conventions", key="node")
    clock.tick(minutes=1)
    later = memory_at(store_root, clock).add("Node 22 is the runtime.", "conventions", key="node")
    assert later["warnings"] == []
    assert status_of(store_root, later["id"]) == "active"


def test_superseding_the_fact_ahead_wins_whatever_the_clocks(store_root: Path) -> None:
    ahead = Clock()
    behind = Clock(ahead.moment - timedelta(minutes=30))
    first = memory_at(store_root, ahead).add("Node 20 is the runtime.", "conventions", key="node")
    late = memory_at(store_root, behind).add(
        "Node 22 is the runtime.", "conventions", key="node", supersedes=[first["id"]]
    )
    assert late["warnings"] == []
    assert status_of(store_root, late["id"]) == "active"
