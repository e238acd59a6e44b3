"""Rows of the read model as values, the one transaction helper, and the small SQL helpers
every part of the read model shares (chunks of bound parameters, quoting, row reads)."""

from __future__ import annotations

import contextlib
import gc
import marshal
import os
import sqlite3
from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple

from memsite.core.entry import Entry
from memsite.storage.entries import entry_from_row
from memsite.storage.readmodel.prepare import RecordRow

CHUNK = 400  # bound parameters per statement, well under SQLite's limit
COLUMNS = "n, file, id, category, created, confidence, key, digest, words, length, status, data"
RECORD_COLUMNS = "file, id, kind, target, other, created, data"
ALL_RECORDS = f"SELECT {RECORD_COLUMNS} FROM records ORDER BY created, file"


class Row(NamedTuple):
    """An entry as the index holds it; ``entry()`` rebuilds the full Entry from its data."""

    n: int
    file: str
    id: str
    category: str
    created: float
    confidence: int
    key: str | None
    digest: int
    words: int
    length: int
    status: str | None
    data: bytes

    def entry(self) -> Entry:
        return entry_from_row(marshal.loads(self.data), self.file)


class Candidate(NamedTuple):
    """A search candidate: its row and its analysed body and meta terms."""

    row: Row
    body: str
    meta: str


@contextlib.contextmanager
def transaction(db: sqlite3.Connection, *, write: bool = True) -> Iterator[None]:
    """The one way the read model holds a transaction: ``BEGIN IMMEDIATE`` for a write (the
    database's write lock, taken at once), ``BEGIN`` for reads that must see one state; a
    failure rolls back, anything else commits."""
    db.execute("BEGIN IMMEDIATE" if write else "BEGIN")
    try:
        yield
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


@contextlib.contextmanager
def collector_resting() -> Iterator[None]:
    """The cyclic garbage collector off while files are taken in (and in the worker forked
    meanwhile): a big batch allocates millions of objects and frees none, so there are no
    cycles to find, and the collector's passes over the growing heap cost ~10% of the work."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def chunks(items: Sequence[Any], size: int = CHUNK) -> Iterator[Sequence[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def marks(count: int) -> str:
    return ",".join("?" * count)


def unkey(key: str) -> str:
    """A file name from the files table (see ``prepare.name_key``)."""
    return os.fsdecode(bytes.fromhex(key[1:])) if key.startswith("\0") else key


def quote(term: str) -> str:
    """An FTS5 string literal."""
    return '"' + term.replace('"', '""') + '"'


def any_of(terms: Sequence[str]) -> str:
    """An FTS5 query matching any of ``terms``."""
    return "(" + " OR ".join(map(quote, terms)) + ")"


def rows_sql(sql: str, using: str = "") -> str:
    """SELECT of the entries table's row columns, then ``sql`` (``using``: an index to use)."""
    source = f"entries INDEXED BY {using}" if using else "entries"
    return f"SELECT {COLUMNS} FROM {source} {sql}"


def rows(
    db: sqlite3.Connection, sql: str, params: Sequence[Any] = (), using: str = ""
) -> list[Row]:
    return [Row(*r) for r in db.execute(rows_sql(sql, using), params)]


def rows_where(db: sqlite3.Connection, column: str, values: Sequence[Any]) -> list[Row]:
    """The entries whose ``column`` is one of ``values``."""
    found: list[Row] = []
    for chunk in chunks(values):
        found += rows(db, f"WHERE {column} IN ({marks(len(chunk))})", chunk)
    return found


def records_where(db: sqlite3.Connection, column: str, values: Sequence[Any]) -> list[RecordRow]:
    """The records whose ``column`` is one of ``values``."""
    found: list[RecordRow] = []
    for chunk in chunks(values):
        sql = f"SELECT {RECORD_COLUMNS} FROM records WHERE {column} IN ({marks(len(chunk))})"
        found += [RecordRow(*r) for r in db.execute(sql, chunk)]
    return found
