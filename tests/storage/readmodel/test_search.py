"""Search over the read model: the SQL each query runs, the candidates of a query (a rare word
finds its fact, common words find it together), and near-duplicate candidates that are exact."""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memsite.core.schema import ACTIVE
from memsite.core.similarity import jaccard, token_set
from memsite.core.stem import stem
from memsite.storage.layout import Store
from memsite.storage.readmodel import Index, search
from memsite.storage.readmodel.search import candidate_rows_sql, matching_sql, near_sql
from tests.conftest import Clock, make_entry, write_raw

RANK, NEWEST = "bm25(fts, 1.0, 2.0)", "fts.rowid DESC"


@pytest.mark.parametrize(
    ("category", "include_all", "by_rank", "where", "params", "order"),
    [
        (None, False, True, "MATCH ? AND e.status = ?", ["q", ACTIVE, 7], RANK),
        ("ops", False, False, "e.status = ? AND e.category = ?", ["q", ACTIVE, "ops", 7], NEWEST),
        (None, True, True, "MATCH ? AND e.status IS NOT NULL", ["q", 7], RANK),
        ("ops", True, False, "IS NOT NULL AND e.category = ?", ["q", "ops", 7], NEWEST),
    ],
)
def test_matching_sql(
    category: str | None, include_all: bool, by_rank: bool, where: str, params: list, order: str
) -> None:
    sql, bound = matching_sql("q", category, include_all, 7, by_rank)
    assert sql.startswith("SELECT e.n FROM fts CROSS JOIN entries e ON e.n = fts.rowid WHERE")
    assert where in sql and sql.endswith(f"ORDER BY {order} LIMIT ?")
    assert bound == params and sql.count("?") == len(bound)


def test_near_sql_and_candidate_rows_sql() -> None:
    sql, params = near_sql("ops", ["redi", 'a"b'], 2.4, 5.1)
    assert "fts MATCH ? AND e.category = ? AND e.status = ? AND e.words BETWEEN ? AND ?" in sql
    assert params == ['body : ("redi" OR "a""b")', "ops", ACTIVE, 2, 6]
    rows_sql = candidate_rows_sql(3)
    assert rows_sql.endswith("WHERE e.n IN (?,?,?)") and "f.body, f.meta" in rows_sql


def plant(root: Path, texts: list[str], category: str = "operations") -> list[str]:
    """Entries saying ``texts``, oldest first; their ids."""
    clock = Clock()
    clock.tick(minutes=len(list((root / "entries").iterdir())))  # after what is there
    ids = []
    for text in texts:
        obj = make_entry(text, category, created=clock.tick(minutes=1))
        write_raw(root, obj)
        ids.append(obj["id"])
    return ids


@pytest.fixture
def index(store_root: Path) -> Iterator[Index]:
    found = Index(Store(store_root))
    yield found
    found.close()


def found_ids(index: Index, words: list[str], limit: int = 5, **filters: object) -> set[str]:
    groups = [[stem(w)] for w in words]
    options = {"category": None, "include_all": False, **filters}
    return {c.row.id for c in index.search.candidates(groups, limit=limit, **options)}  # type: ignore[arg-type]


def test_a_rare_word_finds_its_fact_among_newer_ones(store_root: Path, index: Index) -> None:
    ids = plant(
        store_root, ["Zookeeper runs the deploy locks"] + [f"deploy step {n}" for n in range(30)]
    )
    assert ids[0] in found_ids(index, ["zookeeper"])
    assert ids[0] in found_ids(index, ["zookeeper", "deploy"], limit=2)


def test_common_words_find_their_fact_together(
    store_root: Path, index: Index, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(search, "_COMMON_MIN", 3)  # a word in more than 3 entries is common
    both = plant(store_root, ["deploy to staging first", "staging deploy waits"])
    plant(store_root, [f"deploy number {n}" for n in range(12)])
    plant(store_root, [f"staging number {n}" for n in range(12)])
    assert found_ids(index, ["deploy", "staging"]) == set(both)
    # a reworded question: its rare word is in no fact, its common words still are
    assert found_ids(index, ["kubernetes", "deploy", "staging"]) == set(both)


def test_common_words_never_together_give_the_newest_holders(
    store_root: Path, index: Index, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(search, "_COMMON_MIN", 3)
    deploys = plant(store_root, [f"deploy number {n}" for n in range(8)])
    stagings = plant(store_root, [f"staging number {n}" for n in range(8)])
    assert found_ids(index, ["deploy", "staging"], limit=4) == set(stagings[-4:])
    assert found_ids(index, ["deploy"], limit=3) == set(deploys[-3:])
    assert found_ids(index, []) == set()


def test_filters_of_category_and_status(store_root: Path, index: Index) -> None:
    old = plant(store_root, ["The queue is RabbitMQ"], "architecture")[0]
    new = make_entry(
        "The queue is SQS", "architecture", supersedes=[old], created="2026-04-01T00:00:00.000Z"
    )
    write_raw(store_root, new)
    other = plant(store_root, ["Monitor the queue depth"], "operations")[0]
    assert found_ids(index, ["queue"]) == {new["id"], other}
    assert found_ids(index, ["queue"], include_all=True) == {old, new["id"], other}
    assert found_ids(index, ["queue"], category="operations") == {other}


def test_statistics(store_root: Path, index: Index) -> None:
    write_raw(store_root, make_entry("redis caches sessions", tags=["ci"]))
    write_raw(store_root, make_entry("redis is version seven", created="2026-04-01T00:00:00.000Z"))
    index.sync()
    assert index.search.documents() == 2
    assert index.search.average_length() == (4 + 4) / 2  # 3 words and a tag, 4 words
    assert index.search.document_frequency({stem("redis"), "ci", "absent"}) == {"redi": 2, "ci": 1}
    assert index.search.terms_with_prefix("se", 10) == ["session", "seven"]
    assert sorted(index.search.words_near(5, 0)) == ["redis", "seven"]


VOCAB = "redis postgres queue deploy staging cache retry webhook lint tests".split()


@pytest.fixture(scope="module")
def near_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Index]:
    root, _ = Store.init(tmp_path_factory.mktemp("near") / ".memsite")
    rng = random.Random(5)
    clock = Clock()
    ids: list[str] = []
    for _ in range(80):
        words = rng.sample(VOCAB, rng.randint(1, 6))
        sup = [rng.choice(ids)] if ids and rng.random() < 0.15 else []
        obj = make_entry(
            " ".join(words), rng.choice(["ops", "arch"]), created=clock.tick(), supersedes=sup
        )
        write_raw(root.root, obj)
        ids.append(obj["id"])
    index = Index(root)
    yield index
    index.close()


@settings(max_examples=150, deadline=timedelta(seconds=2))
@given(
    tokens=st.frozensets(st.sampled_from([*VOCAB, "absent"]), min_size=1, max_size=7),
    threshold=st.sampled_from([0.5, 0.6, 2 / 3, 0.7, 0.75, 0.8, 0.9, 1.0]),
    category=st.sampled_from(["ops", "arch"]),
)
def test_near_candidates_never_miss_a_near_duplicate(
    near_store: Index, tokens: frozenset[str], threshold: float, category: str
) -> None:
    active = [r.entry() for r in near_store.entries.active_in_order(category)]
    wanted = {e.id for e in active if jaccard(tokens, token_set(e.normalized)) >= threshold}
    found = dict(near_store.search.near_candidates(category, tokens, threshold, set()))
    assert wanted <= found.keys()
    by_id = {e.id: token_set(e.normalized) for e in active}
    assert all(by_id.get(i) == words for i, words in found.items())  # active, of the category
    excluded = set(list(wanted)[:1])
    again = near_store.search.near_candidates(category, tokens, threshold, excluded)
    assert {i for i, _ in again} == found.keys() - excluded
    assert near_store.search.near_candidates(category, frozenset(), threshold, set()) == []
