"""MkDocs' search index with one document per fact: the same JSON in pieces as whole, and a
host's index (plugin mode) whose entry-page documents become the facts' own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from memsite.memory import Memory
from memsite.portal.build import build_site
from memsite.portal.gather import portal_for
from memsite.portal.lunrdocs import fact_doc, index_chunks, with_facts
from memsite.portal.model import EntryView, Portal
from tests.portal.conftest import copy_demo, hostile_entries


def index_bytes(config: dict[str, Any], pages: list[tuple[str, str]], entries: Any) -> bytes:
    """The whole index at once, in one piece."""
    return b"".join(index_chunks(config, pages, entries, chunk=len(entries) or 1))


@pytest.fixture(scope="module")
def portal(tmp_path_factory: pytest.TempPathFactory) -> Portal:
    store = copy_demo(tmp_path_factory.mktemp("lunr"))
    hostile_entries(store)
    return portal_for(Memory.open(str(store), {}, store.parent))


@pytest.mark.parametrize("chunk", [1, 7, 2000])
@pytest.mark.parametrize("pages", [[], [("", "Home"), ("tags/", "Tags")]])
def test_the_pieces_make_one_json_document(
    portal: Portal, chunk: int, pages: list[tuple[str, str]]
) -> None:
    config = {"lang": ["en"], "separator": "[\\s\\-]+"}
    data = b"".join(index_chunks(config, pages, portal.entries, chunk))
    index = json.loads(data)
    assert index["config"] == config
    expected = [{"location": p, "title": t, "text": ""} for p, t in pages]
    expected += [fact_doc(e, f"entries/{e.id}/") for e in reversed(portal.entries)]
    assert index["docs"] == expected
    assert data == index_bytes(config, pages, portal.entries)


def test_kept_pieces_give_the_same_bytes_and_only_new_facts_are_made_again(
    portal: Portal,
) -> None:
    known: dict[tuple[EntryView, ...], bytes] = {}
    older = portal.entries[1:]  # the store before its newest fact
    first = b"".join(index_chunks({}, [], older, 5, known))
    assert first == index_bytes({}, [], older) and len(known) == -(-len(older) // 5)
    kept = dict(known)
    again = b"".join(index_chunks({}, [], portal.entries, 5, known))
    assert again == index_bytes({}, [], portal.entries)
    assert sum(1 for views, data in known.items() if kept.get(views) is data) == len(older) // 5


def test_no_entry_text_is_markup(portal: Portal) -> None:
    docs = [fact_doc(e, "x/") for e in portal.entries]
    assert any("&lt;" in d["text"] for d in docs)
    assert all("<" not in d["text"] and ">" not in d["text"] for d in docs)


def test_a_host_index_gets_one_document_per_fact(portal: Portal) -> None:
    first, second = portal.entries[0], portal.entries[1]
    location = {first.id: f"memory/entries/{first.id}/", second.id: f"memory/entries/{second.id}/"}
    host = {
        "config": {"lang": ["en"]},
        "docs": [
            {"location": "", "title": "Home", "text": "Welcome"},
            {"location": f"memory/entries/{first.id}/", "title": "x", "text": "whole page"},
            {"location": f"memory/entries/{first.id}/#history", "title": "History", "text": "…"},
            {"location": "memory/", "title": "Memory", "text": "the home"},
            "not a document",
        ],
    }
    done = with_facts(host, portal.entries, location)
    assert done["config"] == host["config"]
    assert done["docs"] == [
        host["docs"][0],
        host["docs"][3],
        "not a document",
        fact_doc(first, location[first.id]),
        fact_doc(second, location[second.id]),
    ]


def test_an_unchanged_index_is_not_written_again(tmp_path: Path) -> None:
    store = copy_demo(tmp_path)
    memory = Memory.open(str(store), {}, store.parent)
    site, _, _ = build_site(memory, tmp_path / "site", swap=False)
    path = tmp_path / "site" / "search" / "search_index.json"
    data, stamp = path.read_bytes(), path.stat().st_mtime_ns
    assert site.put_chunks("search/search_index.json", [data[:10], data[10:]]) is False
    assert path.read_bytes() == data and path.stat().st_mtime_ns == stamp
    assert site.put_chunks("search/search_index.json", [data, b" "]) is True
    assert path.read_bytes() == data + b" "
    assert not [p for p in path.parent.iterdir() if p.name.endswith(".tmp")]
