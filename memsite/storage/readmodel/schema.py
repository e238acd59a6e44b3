"""The read model's tables and indexes, and the version a database must carry to be used.

The version changes with the schema, memsite, and the marshal format of the rows' data, so a
database of any other version (or none) is rebuilt from entries/. The tables are STRICT and
statuses checked: a value of the wrong type or an unknown status never gets in, so what is
read back has the shapes the readers expect.
"""

from __future__ import annotations

import marshal
import os
import sqlite3
import sys

from memsite.storage.readmodel.prepare import digest
from memsite.version import __version__

# 3: repeated names interned in the rows' data; 4: STRICT tables, a known status; 5: the index
# bullets' exact token counts; 6: the validity windows (opens, closes); 7: the semantic extra's
# vectors and tokenizer tables (``readmodel.vectors``); 8: each active entry's content flag
# (``Entries.flagged``), kept in its row, the index costs in ``entries_status`` (for
# ``Views.index_summary``), and the entries not shown yet found by status (the superseded
# ones never are: ~22k rows were walked at 100k facts by each look for new active ones); 9:
# the index bullet the full secret scan redacted, for an entry it flagged (``full_bullet``,
# made once: the scan's library costs ~0.15 s to import on every compaction)
SCHEMA = 9

TABLES = """
CREATE TABLE IF NOT EXISTS meta(k TEXT PRIMARY KEY, v ANY) STRICT, WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS files(
    name TEXT PRIMARY KEY, ino INTEGER, size INTEGER, mtime INTEGER, hash INTEGER, error TEXT
) STRICT, WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS entries(
    n INTEGER PRIMARY KEY, file TEXT NOT NULL UNIQUE, id TEXT NOT NULL,
    category TEXT NOT NULL, created REAL NOT NULL, confidence INTEGER NOT NULL, key TEXT,
    digest INTEGER NOT NULL, words INTEGER NOT NULL, length INTEGER NOT NULL,
    status TEXT CHECK (status IN ('active', 'superseded', 'duplicate', 'overridden', 'retired')),
    data BLOB NOT NULL, view_bullet TEXT, index_bullet TEXT, index_cost INTEGER,
    anchors INTEGER NOT NULL, cl100k INTEGER, o200k INTEGER, opens REAL, closes REAL, flag TEXT,
    full_bullet TEXT
) STRICT;
CREATE INDEX IF NOT EXISTS entries_unshown ON entries(status) WHERE index_cost IS NULL;
CREATE INDEX IF NOT EXISTS entries_uncounted ON entries(status) WHERE o200k IS NULL;
CREATE INDEX IF NOT EXISTS entries_unflagged ON entries(status) WHERE flag IS NULL;
CREATE INDEX IF NOT EXISTS entries_flagged ON entries(status) WHERE flag <> '';
CREATE INDEX IF NOT EXISTS entries_anchored ON entries(status) WHERE anchors > 0;
CREATE INDEX IF NOT EXISTS entries_windowed ON entries(status)
    WHERE opens IS NOT NULL OR closes IS NOT NULL;
CREATE INDEX IF NOT EXISTS entries_order ON entries(
    status, created DESC, confidence DESC, id DESC, category, index_cost
);
CREATE INDEX IF NOT EXISTS entries_id ON entries(id);
CREATE INDEX IF NOT EXISTS entries_dup ON entries(category, digest);
CREATE INDEX IF NOT EXISTS entries_key ON entries(category, key) WHERE key IS NOT NULL;
CREATE INDEX IF NOT EXISTS entries_status ON entries(status, category, index_cost);
CREATE TABLE IF NOT EXISTS sup(n INTEGER NOT NULL, src TEXT NOT NULL, dst TEXT NOT NULL) STRICT;
CREATE INDEX IF NOT EXISTS sup_n ON sup(n);
CREATE INDEX IF NOT EXISTS sup_src ON sup(src);
CREATE INDEX IF NOT EXISTS sup_dst ON sup(dst);
CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(
    body, meta, detail=column, tokenize="unicode61 remove_diacritics 0 tokenchars '_'"
);
CREATE VIRTUAL TABLE IF NOT EXISTS fts_terms USING fts5vocab(fts, 'row');
CREATE TABLE IF NOT EXISTS words(word TEXT PRIMARY KEY, len INTEGER NOT NULL)
    STRICT, WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS words_len ON words(len);
CREATE TABLE IF NOT EXISTS dirty(category TEXT PRIMARY KEY, generation INTEGER)
    STRICT, WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS records(
    n INTEGER PRIMARY KEY, file TEXT NOT NULL UNIQUE, id TEXT NOT NULL, kind TEXT NOT NULL,
    target TEXT NOT NULL, other TEXT, created REAL NOT NULL, data BLOB NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS records_target ON records(target, kind);
CREATE INDEX IF NOT EXISTS records_other ON records(other) WHERE other IS NOT NULL;
CREATE TABLE IF NOT EXISTS anchors(
    n INTEGER NOT NULL, id TEXT NOT NULL, path TEXT NOT NULL, blob TEXT NOT NULL,
    first INTEGER, last INTEGER, span TEXT
) STRICT;
CREATE INDEX IF NOT EXISTS anchors_n ON anchors(n);
CREATE TABLE IF NOT EXISTS codes(n INTEGER PRIMARY KEY, code BLOB NOT NULL) STRICT;
CREATE TABLE IF NOT EXISTS vecs(n INTEGER PRIMARY KEY, vec BLOB NOT NULL) STRICT;
CREATE TABLE IF NOT EXISTS pieces(piece TEXT PRIMARY KEY, id INTEGER NOT NULL)
    STRICT, WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS merges(pair TEXT PRIMARY KEY, rank INTEGER NOT NULL)
    STRICT, WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS packs(k TEXT PRIMARY KEY, stamp TEXT NOT NULL, data BLOB NOT NULL)
    STRICT;
"""

NAMES = (
    "meta",
    "files",
    "entries",
    "sup",
    "fts_terms",
    "fts",
    "words",
    "dirty",
    "records",
    "anchors",
    "codes",
    "vecs",
    "pieces",
    "merges",
    "packs",
)


def version() -> str:
    """Changes with the schema, memsite, and the marshal format of the rows' data."""
    tables = f"{digest(TABLES.encode()) & 0xFFFFFFFFFFFF:012x}"
    return f"{SCHEMA}:{tables}:{__version__}:{marshal.version}:{sys.version_info[:2]}"


def statements(*, indexes: bool) -> list[str]:
    """The statements of ``TABLES`` that make tables, or those that make indexes."""
    found = [s.strip() for s in TABLES.split(";") if s.strip()]
    return [s for s in found if s.startswith("CREATE INDEX") == indexes]


def ready(db: sqlite3.Connection, home: str) -> bool:
    """Does ``db`` hold the tables of this version, built in the clone whose ``home`` (see
    ``Store.home``) it carries? A database from anywhere else (committed with ``git add -f``,
    copied, crafted) is never read: its rows could name facts no entry file holds."""
    return found(db) == (version(), home) and complete(db)


def complete(db: sqlite3.Connection) -> bool:
    """Does ``db`` hold every table (a damaged or hand-edited database may have lost some)?"""
    names = {name for (name,) in db.execute("SELECT name FROM sqlite_master")}
    return names.issuperset(NAMES)


def found(db: sqlite3.Connection) -> tuple[str, str] | None:
    """The version and home ``db`` carries, or None when it holds no meta table."""
    try:
        rows = dict(db.execute("SELECT k, v FROM meta WHERE k IN ('version', 'home')"))
    except sqlite3.OperationalError as exc:
        if "no such table" in str(exc):
            return None
        raise
    return (str(rows.get("version")), str(rows.get("home")))


def create(db: sqlite3.Connection, home: str, *, indexes: bool = True) -> None:
    """The tables (and their indexes, unless a first build adds them once filled), empty."""
    for table in NAMES:
        db.execute(f"DROP TABLE IF EXISTS {table}")
    for statement in statements(indexes=False):
        db.execute(statement)
    if indexes:
        for statement in statements(indexes=True):
            db.execute(statement)
    db.executemany(
        "INSERT INTO meta(k, v) VALUES (?, ?)",
        [
            ("version", version()),
            ("home", home),
            ("instance", os.urandom(16).hex()),
            ("generation", 0),
            ("facts", 0),
            ("dir", ""),
            ("trusted", 0),
            ("all_dirty", 1),
            ("documents", 0),
            ("total_length", 0),
            ("temporaries", 1),
            ("vector_model", ""),
            ("vectors", 0),
            ("vector_removals", 0),
        ],
    )


def add_indexes(db: sqlite3.Connection) -> None:
    """The indexes a first build left out: one sort each once the rows are in, rather than
    trees kept in order row by row."""
    for statement in statements(indexes=True):
        db.execute(statement)
