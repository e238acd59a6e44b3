"""The portal's split search index: the CLI's terms and weights, small shards, safe names."""

from __future__ import annotations

import bisect
import dataclasses
import datetime
import json
import math
import sys
from array import array
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memsite.core import ranking
from memsite.core.stem import entry_terms
from memsite.core.stem import terms as analyze
from memsite.memory import Memory
from memsite.portal import searchdata
from memsite.portal.cache import PortalCache
from memsite.portal.gather import portal_for
from memsite.portal.serve import cold_build, update
from tests.portal.conftest import Built, build, copy_demo, hostile_entries
from tests.portal.searchfiles import read_search


def test_terms_and_frequencies_are_the_clis(demo_site: Built) -> None:
    found = read_search(demo_site.site)
    index = demo_site.memory.index()
    vocabulary = index.search.terms_with_prefix("", 1_000_000)
    assert sorted(found.postings) == sorted(vocabulary)
    frequency = index.search.document_frequency(set(vocabulary))
    assert {t: df for t, (df, _) in found.postings.items()} == frequency
    for length in found.meta["lengths"]:
        words = json.loads((demo_site.site / "search" / "v" / f"{length}.json").read_text())
        assert words == sorted(index.search.words_near(length, 0)), length
    assert found.meta["documents"] == index.entries.count()
    # Rounded to three digits (one new fact seldom moves it): see searchdata.average_length.
    assert found.meta["averageLength"] == float(f"{index.search.average_length():.3g}")


def test_posting_values_are_the_bm25_weights(demo_site: Built) -> None:
    """value >> 3 is round(SCALE * BM25 term weight); value & 7 the status."""
    found = read_search(demo_site.site)
    result = demo_site.memory.state().result
    by_id = {e.id: e for e in result.entries}
    average = found.meta["averageLength"]
    statuses = found.meta["statuses"]
    assert statuses[0] == "active"
    checked = 0
    for ref, row in enumerate(found.rows):
        entry = by_id[row[0]]
        body = analyze(entry.content)
        meta = entry_terms("", (*entry.tags, *([entry.key] if entry.key else []))).meta
        length = len(body) + len(meta)
        norm = ranking.K1 * (1 - ranking.B + ranking.B * length / average)
        for term in set(body) | set(meta):
            tf = body.count(term) + ranking.META_WEIGHT * meta.count(term)
            weight = tf * (ranking.K1 + 1) / (tf + norm)
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
        assert len(data) <= searchdata.SHARD_MAX + 1000
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
    rows = json.loads(files[f"search/d/{(len(portal.entries) - 1) // searchdata.CHUNK}.json"])
    newest = [rows[(len(portal.entries) - 1 - n) % searchdata.CHUNK] for n in range(len(texts))]
    assert [row[2] for row in newest] == [
        searchdata.one_line(t)[: searchdata.TEXT_MAX] for t in texts
    ]
    assert all(name.startswith("search/") and ".." not in name for name in files)


def test_refs_count_from_the_oldest_and_days_decode(demo_site: Built) -> None:
    found = read_search(demo_site.site)
    portal = portal_for(demo_site.memory, PortalCache())
    assert found.ids == [e.id for e in reversed(portal.entries)]  # a new fact appends
    days, day, runs = [], 0, found.meta["days"]
    for k in range(0, len(runs), 2):
        day += runs[k]
        days += [day] * runs[k + 1]
    epoch = datetime.date(1970, 1, 1)
    assert [str(epoch + datetime.timedelta(days=d)) for d in days] == [r[6] for r in found.rows]


def test_one_new_fact_rewrites_few_search_files(tmp_path: Path) -> None:
    """serve's path after one new fact writes the bytes of a cold build, and only the search
    files whose bytes changed: its terms' shards, the last rows file, its id prefix, meta."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from gen_store import generate

    store = generate(1500, tmp_path / "store")
    memory = Memory.open(str(store), {}, store.parent)
    session = cold_build(memory, tmp_path / "site", "http://127.0.0.1:8000/", PortalCache())
    folder = tmp_path / "site" / "search"
    before = {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*.json")}
    average = json.loads(before["meta.json"])["averageLength"]
    # A fact as long as the average (which then stays as it was), with two words of its own.
    entries = session.portal.entries
    like = min(entries, key=lambda e: abs(sum(map(len, searchdata.analysed(e)[:2])) - average))
    words = like.content.split()
    content = " ".join(["Zorblax", *words[1:-1], "quuxify."])
    Memory.open(str(store), {}, store.parent).add(content, like.category)
    session = update(session, lambda _: None)
    files = searchdata.search_files(session.portal)
    rewritten = session.site.write_search(files)
    fresh = searchdata.search_files(portal_for(Memory.open(str(store), {}, store.parent)))
    assert files == fresh
    after = {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*.json")}
    assert after == {rel.removeprefix("search/"): data for rel, data in fresh.items()} | {
        "search_index.json": after["search_index.json"]
    }
    changed = {rel for rel, data in after.items() if before.get(rel) != data}
    assert json.loads(after["meta.json"])["averageLength"] == average
    assert rewritten == len(changed - {"search_index.json"})
    terms = len(set(analyze(content)))
    assert len(changed) <= terms + 8, sorted(changed)
    assert len(changed) < len(after) / 10, (len(changed), len(after))
    firsts = json.loads(after["meta.json"])["shards"]
    assert firsts == json.loads(before["meta.json"])["shards"]  # no shard moved its ends
    own = {f"t/{bisect.bisect_right(firsts, term) - 1}.json" for term in analyze(content)}
    assert {rel for rel in changed if rel.startswith("t/")} == own
