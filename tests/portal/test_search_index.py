"""The portal's split search index: the CLI's terms and weights, small shards, safe names."""

from __future__ import annotations

import dataclasses
import json
import math
from array import array
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memsite.core import ranking
from memsite.core.stem import terms as analyze
from memsite.portal import searchdata
from memsite.portal.build import portal_for
from memsite.portal.model import PortalCache
from tests.portal.conftest import Built, build, copy_demo, hostile_entries
from tests.portal.searchfiles import read_search


def test_terms_and_frequencies_are_the_clis(demo_site: Built) -> None:
    found = read_search(demo_site.site)
    index = demo_site.memory.index()
    vocabulary = index.terms_with_prefix("", 1_000_000)
    assert sorted(found.postings) == sorted(vocabulary)
    frequency = index.document_frequency(set(vocabulary))
    assert {t: df for t, (df, _) in found.postings.items()} == frequency
    for length in found.meta["lengths"]:
        words = json.loads((demo_site.site / "search" / "v" / f"{length}.json").read_text())
        assert words == sorted(index.words_near(length, 0)), length
    assert found.meta["documents"] == index.entry_count()
    assert found.meta["averageLength"] == pytest.approx(index.average_length(), abs=1e-3)


def test_posting_values_are_the_bm25_weights(demo_site: Built) -> None:
    """value >> 3 is round(SCALE * recency * BM25 term weight); value & 7 the status."""
    found = read_search(demo_site.site)
    result = demo_site.memory.state().result
    by_id = {e.id: e for e in result.entries}
    newest = max(e.created for e in result.entries)
    average = found.meta["averageLength"]
    statuses = found.meta["statuses"]
    assert statuses[0] == "active"
    checked = 0
    for ref, row in enumerate(found.rows):
        entry = by_id[row[0]]
        body = analyze(entry.content)
        meta = searchdata.meta_terms(entry.tags, entry.key)
        length = len(body) + len(meta)
        norm = ranking.K1 * (1 - ranking.B + ranking.B * length / average)
        age = (newest - entry.created).total_seconds() / 86400
        recency = 1 + ranking.RECENCY_WEIGHT * 0.5 ** (age / ranking.RECENCY_HALF_LIFE_DAYS)
        for term in set(body) | set(meta):
            tf = body.count(term) + ranking.META_WEIGHT * meta.count(term)
            weight = tf * (ranking.K1 + 1) / (tf + norm) * recency
            value = found.postings[term][1][ref]
            assert math.isclose(value >> 3, weight * searchdata.SCALE, abs_tol=0.51), term
            assert statuses[value & 7] == result.status[entry.id]
            checked += 1
    assert checked > 1000


def test_shards_are_sorted_contiguous_and_small() -> None:
    postings = {
        f"term{n:04d}": array("l", [r for ref in range(n % 50 + 1) for r in (ref, 8)])
        for n in range(3000)
    }
    shards = searchdata.term_shards(postings)
    assert len(shards) > 5
    seen: list[str] = []
    for first, data in shards:
        shard = json.loads(data)
        assert shard["terms"][0] == first and shard["terms"] == sorted(shard["terms"])
        assert len(data) <= searchdata.SHARD_BYTES + 1000
        seen += shard["terms"]
    assert seen == sorted(postings)


def test_a_common_term_keeps_its_strongest_postings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(searchdata, "MAX_POSTINGS", 10)
    flat = array("l")
    for ref in range(100):
        flat.extend((ref, ((ref * 37) % 100 + 1) * 8))
    ((_, data),) = searchdata.term_shards({"common": flat})
    shard = json.loads(data)
    assert shard["df"] == [100]  # the frequency stays exact, for the IDF
    deltas = shard["postings"][0]
    kept, ref = [], 0
    for k in range(0, len(deltas), 2):
        ref += deltas[k]
        kept.append((ref, deltas[k + 1]))
    assert len(kept) == 10
    assert sorted(v >> 3 for _, v in kept) == list(range(91, 101))


def test_every_file_is_listed_and_named_safely(tmp_path: Path) -> None:
    store = copy_demo(tmp_path)
    hostile_entries(store)
    built = build(store)
    folder = built.site / "search"
    found = read_search(built.site)
    meta = found.meta
    names = {p.relative_to(folder).as_posix() for p in folder.rglob("*.json")}
    expected = {"meta.json", "search_index.json"}
    expected |= {f"t/{n}.json" for n in range(len(meta["shards"]))}
    expected |= {f"v/{n}.json" for n in meta["lengths"]}
    expected |= {f"d/{n}.json" for n in range(-(-meta["documents"] // meta["chunk"]))}
    expected |= {f"i/{i[:2]}.json" for i in found.ids}
    expected |= {n for n in names if n.startswith("f/")}
    assert names == expected
    assert all(len(n) < 40 for n in names)
    rows = {row[0]: row for row in found.rows}
    assert len(rows) == len(built.memory.state().result.entries)


@st.composite
def contents(draw: st.DrawFn) -> list[str]:
    text = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=120)
    return draw(st.lists(text.filter(str.strip), min_size=1, max_size=6))


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(texts=contents())
def test_any_text_gives_a_readable_index(demo_site: Built, texts: list[str]) -> None:
    portal = portal_for(demo_site.memory, PortalCache())
    for n, text in enumerate(texts):
        portal.entries[n] = dataclasses.replace(portal.entries[n], content=text)
    files = searchdata.search_files(portal)
    meta = json.loads(files[searchdata.META_FILE])
    seen = []
    for number in range(len(meta["shards"])):
        shard = json.loads(files[f"search/t/{number}.json"])
        seen += shard["terms"]
    assert seen == sorted(seen)
    for text in texts:
        assert set(analyze(text)) <= set(seen)
    rows = json.loads(files["search/d/0.json"])
    assert [row[2] for row in rows[: len(texts)]] == [
        searchdata._CODE_TICKS.sub(r"\2", searchdata.one_line(t))[: searchdata.TEXT_MAX]
        for t in texts
    ]
    assert all(name.startswith("search/") and ".." not in name for name in files)
