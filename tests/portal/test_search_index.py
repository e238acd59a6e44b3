"""The prebuilt Lunr index: lunr.py's pipeline, compact postings, exactly lunr's scores."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from memsite.portal.model import build_portal
from memsite.portal.searchdata import (
    _SPLIT,
    BOOSTS,
    FIELDS,
    analyze,
    build_postings,
    decode_postings,
    docs_map,
    field_values,
    import_lunr,
)
from tests.portal.conftest import Built, build, copy_demo, hostile_entries

import_lunr()
from lunr.builder import Builder  # noqa: E402
from lunr.index import Index  # noqa: E402
from lunr.stemmer import stemmer  # noqa: E402
from lunr.stop_word_filter import stop_word_filter  # noqa: E402
from lunr.trimmer import trimmer  # noqa: E402

EXTRA = [
    ("constructor __proto__ hasOwnProperty toString", "", "conventions", ""),
    ("repeat repeat repeat words words", "a b", "decisions", "repeat-key"),
    ("Caf\u00e9 na\u00efve \u65e5\u672c\u8a9e `migrations/0042_add_accounts.sql`", "", "ops", ""),
]


def stock_index(docs: list[tuple[str, ...]]) -> Index:
    """What lunr.py's own Builder makes of the same words (split as the portal splits)."""
    builder = Builder()
    builder.pipeline.add(trimmer, stop_word_filter, stemmer)
    builder.search_pipeline.add(stemmer)
    builder.ref("ref")
    for name, boost in zip(FIELDS, BOOSTS, strict=True):
        builder.field(name, boost=boost)
    for ref, values in enumerate(docs):
        doc: dict[str, Any] = {"ref": str(ref)}
        for name, value in zip(FIELDS, values, strict=True):
            doc[name] = [w for w in _SPLIT.split(value.lower()) if w]
        builder.add(doc)
    return builder.build()


def index_from_postings(data: dict[str, Any]) -> Index:
    """The index the browser makes: postings handed to the Builder (as search.js does)."""
    builder = Builder()
    builder.search_pipeline.add(stemmer)
    builder.ref("ref")
    fields = data["fields"]
    for name, boost in zip(fields, data["boosts"], strict=True):
        builder.field(name, boost=boost)
    builder.document_count = data["documentCount"]
    for ref in range(data["documentCount"]):
        builder._documents[str(ref)] = {}
        for name in fields:
            builder.field_term_frequencies[f"{name}/{ref}"] = {}
            builder.field_lengths[f"{name}/{ref}"] = 0
    for term, per_field in decode_postings(data).items():
        posting: dict[str, Any] = {"_index": builder.term_index}
        builder.term_index += 1
        for name, refs in zip(fields, per_field, strict=True):
            posting[name] = {}
            for ref, tf in refs.items():
                posting[name][str(ref)] = {}
                builder.field_term_frequencies[f"{name}/{ref}"][term] = tf
                builder.field_lengths[f"{name}/{ref}"] += tf
        builder.inverted_index[term] = posting
    return builder.build()


def semantic(index: Index) -> tuple[dict[str, Any], dict[str, dict[str, float]]]:
    """Postings without term numbers, and each field vector as term → score."""
    names = {p["_index"]: t for t, p in index.inverted_index.items()}
    postings = {
        t: {f: sorted(refs) for f, refs in p.items() if f != "_index"}
        for t, p in index.inverted_index.items()
    }
    vectors = {}
    for ref, vector in index.field_vectors.items():
        items = vector.elements
        vectors[ref] = {names[items[i]]: round(items[i + 1], 3) for i in range(0, len(items), 2)}
    return postings, vectors


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[str, ...]]:
    store = copy_demo(tmp_path_factory.mktemp("corpus"))
    hostile_entries(store)
    built = build(store)
    state = built.memory.state()
    portal = build_portal(state.result, {}, {"conventions": 1}, 2000)
    return [field_values(e) for e in portal.entries] + EXTRA


def test_postings_give_exactly_lunr_pys_index(corpus: list[tuple[str, ...]]) -> None:
    ours = index_from_postings(json.loads(json.dumps(build_postings(corpus))))
    assert semantic(ours) == semantic(stock_index(corpus))


@pytest.mark.parametrize(
    "query", ["redis", "pnpm", "deploy staging", "accounts", "constructor", "repeat", "caf\u00e9"]
)
def test_queries_rank_as_lunr_py_does(corpus: list[tuple[str, ...]], query: str) -> None:
    ours = index_from_postings(build_postings(corpus))
    stock = stock_index(corpus)
    got = [(r["ref"], round(r["score"], 6)) for r in ours.search(query)]
    assert got == [(r["ref"], round(r["score"], 6)) for r in stock.search(query)]
    assert got, query


def test_analyze_splits_code_and_paths() -> None:
    assert analyze("See `migrations/0042_add_accounts.sql`.") == [
        "see",
        "migrat",
        "0042",
        "add",
        "account",
        "sql",
    ]
    assert analyze("the and of") == []  # lunr's stop words


def test_refs_are_short_integers_with_a_separate_id_map(demo_site: Built) -> None:
    site = demo_site.site
    lunr_data = json.loads((site / "search" / "memsite-lunr.json").read_text())
    docs = json.loads((site / "search" / "memsite-docs.json").read_text())
    assert lunr_data["documentCount"] == len(docs["docs"]) == 64
    refs = {r for row in decode_postings(lunr_data).values() for f in row for r in f}
    assert refs <= set(range(64))
    ids = [d[0] for d in docs["docs"]]
    assert len(set(ids)) == 64 and all(len(i) == 36 for i in ids)
    assert "-" not in json.dumps(lunr_data["postings"])  # no UUIDs in the index
    assert docs["statuses"] == ["active", "superseded", "duplicate", "overridden", "retired"]


def test_docs_map_points_into_shared_lists(demo_site: Built) -> None:
    state = demo_site.memory.state()
    portal = build_portal(state.result, {}, {"conventions": 1}, 2000)
    data = docs_map(portal)
    for row, entry in zip(data["docs"], portal.entries, strict=True):
        assert row[0] == entry.id
        assert data["categories"][row[2]] == entry.category
        assert [data["tags"][t] for t in row[3]] == [t.name for t in entry.tags]
        assert data["statuses"][row[4]] == entry.status


def test_index_size_per_entry_is_small(demo_site: Built) -> None:
    data = (demo_site.site / "search" / "memsite-lunr.json").read_bytes()
    assert len(gzip.compress(data)) / 64 < 160  # bytes per entry, gzipped (10k: see benchmarks)


def test_no_text_pipeline_in_the_browser() -> None:
    script = Path(__file__).resolve().parents[2] / "site-config/docs/assets/memsite/search.js"
    source = script.read_text()
    assert "builder.pipeline.reset()" in source
    assert "innerHTML" not in source
