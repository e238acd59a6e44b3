"""The read model's tables and version: every table made empty, indexes apart for a first
build, and a version that changes with the schema so that an old database is rebuilt."""

from __future__ import annotations

import marshal
import re
import sqlite3
import sys
from collections.abc import Iterator

import pytest

from memsite.storage.readmodel import schema
from memsite.version import __version__


@pytest.fixture
def db() -> Iterator[sqlite3.Connection]:
    conn = sqlite3.connect(":memory:", isolation_level=None)
    yield conn
    conn.close()


def names(db: sqlite3.Connection, kind: str) -> set[str]:
    sql = "SELECT name FROM sqlite_master WHERE type = ? AND name NOT LIKE 'sqlite_%'"
    return {r[0] for r in db.execute(sql, (kind,))}


INDEXES = set(re.findall(r"CREATE INDEX IF NOT EXISTS (\w+)", schema.TABLES))
HOME = "64769:1234"  # a device and inode, as Store.home gives them


def test_the_version_names_what_the_rows_depend_on() -> None:
    found = schema.version()
    parts = found.split(":")
    assert parts[0] == str(schema.SCHEMA) and re.fullmatch(r"[0-9a-f]{12}", parts[1])
    assert parts[2:] == [__version__, str(marshal.version), str(sys.version_info[:2])]
    assert schema.version() == found  # stable


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("TABLES", schema.TABLES.replace("anchors INTEGER", "anchor_count INTEGER")),
        ("TABLES", schema.TABLES + "\n"),
        ("SCHEMA", schema.SCHEMA + 1),
    ],
)
def test_the_version_changes_with_the_schema(
    monkeypatch: pytest.MonkeyPatch, name: str, value: object
) -> None:
    before = schema.version()
    monkeypatch.setattr(schema, name, value)
    assert schema.version() != before


def test_an_empty_database_is_not_ready(db: sqlite3.Connection) -> None:
    assert not schema.ready(db, HOME)


def test_create_makes_every_table_and_index_and_is_then_ready(db: sqlite3.Connection) -> None:
    schema.create(db, HOME)
    assert set(schema.NAMES) <= names(db, "table")
    assert names(db, "index") == INDEXES
    assert schema.ready(db, HOME)
    meta = dict(db.execute("SELECT k, v FROM meta"))
    assert meta["version"] == schema.version() and meta["home"] == HOME
    assert re.fullmatch(r"[0-9a-f]{32}", meta["instance"])
    assert {k: meta[k] for k in ("generation", "trusted", "all_dirty", "documents")} == {
        "generation": 0,
        "trusted": 0,
        "all_dirty": 1,
        "documents": 0,
    }


def test_create_again_empties_every_table_and_draws_a_new_instance(
    db: sqlite3.Connection,
) -> None:
    schema.create(db, HOME)
    first = db.execute("SELECT v FROM meta WHERE k = 'instance'").fetchone()[0]
    db.execute("INSERT INTO words(word, len) VALUES ('redis', 5)")
    db.execute("INSERT INTO fts(rowid, body, meta) VALUES (1, 'redis', '')")
    schema.create(db, HOME)
    assert db.execute("SELECT count(*) FROM words").fetchone()[0] == 0
    assert db.execute("SELECT count(*) FROM fts").fetchone()[0] == 0
    assert db.execute("SELECT count(*) FROM meta WHERE k = 'version'").fetchone()[0] == 1
    assert db.execute("SELECT v FROM meta WHERE k = 'instance'").fetchone()[0] != first


def test_a_first_build_adds_the_indexes_later(db: sqlite3.Connection) -> None:
    schema.create(db, HOME, indexes=False)
    assert names(db, "index") == set() and schema.ready(db, HOME)
    schema.add_indexes(db)
    assert names(db, "index") == INDEXES


def test_statements_split_tables_from_indexes() -> None:
    tables, indexes = schema.statements(indexes=False), schema.statements(indexes=True)
    assert all(s.startswith("CREATE INDEX") for s in indexes) and len(indexes) == len(INDEXES)
    assert not any(s.startswith("CREATE INDEX") for s in tables)
    assert len(tables) + len(indexes) == schema.TABLES.count(";")


def test_a_database_of_another_version_is_not_ready(db: sqlite3.Connection) -> None:
    schema.create(db, HOME)
    db.execute("UPDATE meta SET v = '2:old' WHERE k = 'version'")
    assert not schema.ready(db, HOME)
    db.execute("DELETE FROM meta WHERE k = 'version'")
    assert not schema.ready(db, HOME)


def test_a_database_of_another_clone_is_not_ready(db: sqlite3.Connection) -> None:
    schema.create(db, HOME)
    assert not schema.ready(db, "64769:999")
    assert schema.found(db) == (schema.version(), HOME)


def test_other_database_errors_are_raised(db: sqlite3.Connection) -> None:
    db.execute("CREATE TABLE meta(k TEXT)")  # a table of that name, of another shape
    with pytest.raises(sqlite3.OperationalError, match="no such column"):
        schema.ready(db, HOME)


def test_the_status_check_names_every_status_and_no_other() -> None:
    from memsite.core.schema import STATUSES

    [checked] = re.findall(r"status TEXT CHECK \(status IN \(([^)]*)\)\)", schema.TABLES)
    assert tuple(s.strip(" '") for s in checked.split(",")) == STATUSES


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE entries SET created = 'yesterday'",
        "UPDATE entries SET confidence = 'very'",
        "UPDATE entries SET data = 'not a blob'",
        "UPDATE entries SET status = 'haunted'",
        "UPDATE records SET created = 'soon'",
        "UPDATE words SET len = 'long'",
    ],
)
def test_values_of_the_wrong_shape_never_get_in(db: sqlite3.Connection, statement: str) -> None:
    schema.create(db, HOME)
    db.execute(
        "INSERT INTO entries(n, file, id, category, created, confidence, digest, words, length,"
        " status, data, anchors) VALUES (1, 'f', 'i', 'c', 1.5, 2, 3, 4, 5, 'active', x'00', 0)"
    )
    db.execute(
        "INSERT INTO records(n, file, id, kind, target, created, data)"
        " VALUES (1, 'r', 'i', 'verify', 't', 1.5, x'00')"
    )
    db.execute("INSERT INTO words(word, len) VALUES ('redis', 5)")
    with pytest.raises(sqlite3.IntegrityError):
        db.execute(statement)
