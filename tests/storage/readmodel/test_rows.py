"""The read model's shared helpers: the one transaction (commit, roll back and re-raise, a
write lock taken at once), bound-parameter chunks, FTS5 quoting, and file-name keys."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memsite.storage.layout import Store
from memsite.storage.readmodel import Index
from memsite.storage.readmodel.prepare import name_key
from memsite.storage.readmodel.rows import (
    CHUNK,
    any_of,
    chunks,
    marks,
    quote,
    rows,
    rows_where,
    transaction,
    unkey,
)
from tests.conftest import make_entry, write_raw


@pytest.fixture
def db(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    conn = sqlite3.connect(tmp_path / "t.sqlite3", isolation_level=None, timeout=0)
    conn.execute("CREATE TABLE t(v)")
    yield conn
    conn.close()


def values(db: sqlite3.Connection) -> list[int]:
    return [r[0] for r in db.execute("SELECT v FROM t ORDER BY v")]


def test_a_transaction_commits(db: sqlite3.Connection) -> None:
    with transaction(db):
        db.execute("INSERT INTO t VALUES (1)")
        assert db.in_transaction
    assert not db.in_transaction and values(db) == [1]


@pytest.mark.parametrize("error", [ValueError, KeyboardInterrupt])
def test_a_failure_rolls_back_and_is_raised_again(
    db: sqlite3.Connection, error: type[BaseException]
) -> None:
    with pytest.raises(error), transaction(db):
        db.execute("INSERT INTO t VALUES (1)")
        raise error("boom")
    assert not db.in_transaction and values(db) == []


def test_a_failure_after_the_transaction_ended_is_still_raised(db: sqlite3.Connection) -> None:
    with pytest.raises(ValueError), transaction(db):
        db.execute("ROLLBACK")
        raise ValueError("boom")
    assert not db.in_transaction


@pytest.mark.parametrize(("write", "blocks"), [(True, True), (False, False)])
def test_a_write_takes_the_database_s_write_lock_at_once(
    tmp_path: Path, db: sqlite3.Connection, write: bool, blocks: bool
) -> None:
    other = sqlite3.connect(tmp_path / "t.sqlite3", isolation_level=None, timeout=0)
    try:
        with transaction(db, write=write):
            if blocks:
                with pytest.raises(sqlite3.OperationalError, match="locked"):
                    other.execute("BEGIN IMMEDIATE")
            else:
                with transaction(other):
                    other.execute("INSERT INTO t VALUES (2)")
    finally:
        other.close()


@pytest.mark.parametrize(("count", "size"), [(0, 3), (1, 3), (3, 3), (7, 3), (CHUNK + 1, CHUNK)])
def test_chunks_cover_the_items_in_order(count: int, size: int) -> None:
    items = list(range(count))
    parts = list(chunks(items, size))
    assert [x for part in parts for x in part] == items
    assert all(0 < len(part) <= size for part in parts)
    assert len(parts) == -(-count // size)


@pytest.mark.parametrize(("count", "text"), [(0, ""), (1, "?"), (3, "?,?,?")])
def test_marks(count: int, text: str) -> None:
    assert marks(count) == text


# A NUL ends FTS5's string early ("unterminated string"); search terms are word tokens and
# never hold one.
@given(st.lists(st.text(st.characters(exclude_characters="\0"), min_size=1, max_size=12)))
def test_any_quoted_term_is_a_valid_fts5_query(terms: list[str]) -> None:
    conn = sqlite3.connect(":memory:")
    try:
        conn.execute("CREATE VIRTUAL TABLE f USING fts5(body)")
        conn.execute("INSERT INTO f VALUES ('alpha beta \"gamma\" delta')")
        for term in terms:
            conn.execute("SELECT count(*) FROM f WHERE f MATCH ?", (quote(term),)).fetchone()
        hits = conn.execute("SELECT count(*) FROM f WHERE f MATCH ?", (any_of([*terms, "beta"]),))
        assert hits.fetchone()[0] == 1
    finally:
        conn.close()


def test_quote_and_any_of_text() -> None:
    assert quote('say "hi"') == '"say ""hi"""'
    assert any_of(["a", "b c"]) == '("a" OR "b c")'


@given(st.binary(min_size=1, max_size=40).filter(lambda b: b"/" not in b and b"\0" not in b))
def test_unkey_undoes_name_key(raw: bytes) -> None:
    name = os.fsdecode(raw)
    key = name_key(name)
    assert unkey(key) == name
    try:
        raw.decode("utf-8")
        valid = True
    except UnicodeDecodeError:
        valid = False
    assert (key == name) == valid  # only a name that is not UTF-8 is stored in hex


def test_rows_read_entries_back(store_root: Path) -> None:
    objs = [make_entry(f"fact {n}", created=f"2026-03-0{n + 1}T10:00:00.000Z") for n in range(3)]
    for obj in objs:
        write_raw(store_root, obj)
    index = Index(Store(store_root))
    try:
        db = index.sync()
        found = rows(db, "ORDER BY created")
        assert [r.entry().content for r in found] == ["fact 0", "fact 1", "fact 2"]
        assert [r.id for r in found] == [o["id"] for o in objs]
        wanted = [objs[2]["id"], objs[0]["id"], "not-an-id"]
        assert {r.id for r in rows_where(db, "id", wanted)} == {objs[0]["id"], objs[2]["id"]}
        assert rows_where(db, "id", []) == []
    finally:
        index.close()
