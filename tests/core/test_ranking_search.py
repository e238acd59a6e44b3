"""Search through a real store: the thesaurus, typos and the candidates a reworded query needs."""

from __future__ import annotations

from pathlib import Path

import pytest

from memsite.memory import Memory
from memsite.storage.layout import Store
from memsite.storage.readmodel import search as index
from tests.conftest import Clock


def open_memory(root: Path, clock: Clock) -> Memory:
    store = Store(root)
    return Memory(store, store.load_config(), clock)


def add_all(memory: Memory, clock: Clock, *texts: str) -> list[str]:
    ids = []
    for text in texts:
        clock.tick()
        ids.append(memory.add(text, "conventions")["id"])
    return ids


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("pull request title", 0),
        ("pull reqeust title", 0),
        ("C++ naming", 1),
        ("pnmp", 2),
        ("edit the generated files by hand", 3),
    ],
)
def test_search_finds_what_the_query_says_in_other_words(
    store_root: Path, clock: Clock, query: str, expected: int
) -> None:
    memory = open_memory(store_root, clock)
    ids = add_all(
        memory,
        clock,
        "PR titles take the form [component] description",
        "Types use CamelCase in the cpp sources",
        "Install with pnpm, never npm",
        "Generated files are read-only: never edit them manually, regenerate",
        "The title of a release request is its version",
    )
    assert memory.search(query)[0]["id"] == ids[expected]


def test_entries_holding_every_common_word_are_candidates_beside_the_rare_words(
    store_root: Path, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A word held by two entries counts as common here, as one in 2% of a large store would.
    monkeypatch.setattr(index, "_COMMON_MIN", 1)
    memory = open_memory(store_root, clock)
    answer, *_ = add_all(
        memory,
        clock,
        "The deploy of the billing service waits for an approval",
        "Deploy notes live in the wiki",
        "Service owners are listed in CODEOWNERS",
        "The rollout calendar is shared with support",
    )
    hits = [h["id"] for h in memory.search("rollout of a deploy service")]
    assert answer in hits
