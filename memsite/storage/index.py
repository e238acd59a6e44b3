"""The indexed read model: ``cache/index.sqlite3``, one row per entry file, kept in step with
entries/ by taking in only what changed.

Derived and disposable: it is rebuilt from entries/ alone whenever it is missing, unreadable,
of another memsite version, or corrupt (with a one-line notice). Entry files are immutable, so
the set of names in entries/ is the state. Freshness costs one ``stat`` of the folder: its
inode, mtime and ctime are recorded after each listing, and the folder is listed again only
when they differ. A recorded state is *trusted* only when a probe file touched before the
listing got a later timestamp than the folder (so any later change gives the folder a new
timestamp, even on a file system with coarse timestamps); otherwise the next command lists
again. An entry file edited in place (which the spec forbids) is found by ``sync(full=True)``,
which re-hashes every file.

Statuses are kept incrementally. The status of an entry depends only on its *component*: the
entries linked to it by supersession (either way), equal content in its category, or its
category and key. A change re-runs the pure compaction rules over the components it touches,
and marks the categories whose active entries changed, so `compact` rewrites only their views.
Writers serialize on the store's write lock; concurrent syncs serialize on SQLite's write
lock (``BEGIN IMMEDIATE``) and re-check freshness once they hold it.
"""

from __future__ import annotations

import contextlib
import gc
import marshal
import math
import os
import sqlite3
import sys
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from memsite.core.entry import Entry
from memsite.core.records import Record
from memsite.core.schema import ACTIVE, CONFIDENCE_RANK
from memsite.errors import StorageError
from memsite.files import TEMP_SUFFIX, is_temporary
from memsite.storage.entries import InvalidFile, entry_from_row
from memsite.storage.layout import Store
from memsite.storage.prepare import (
    PARALLEL,
    Prepared,
    RecordRow,
    content_digest,
    digest,
    long_words,
    name_key,
    prepare_parts,
    read_entry_file,
    statuses,
)
from memsite.version import __version__

if TYPE_CHECKING:
    from memsite.core.anchors import Anchor
    from memsite.core.budget import IndexItem
    from memsite.parallel import Task

# The rules are imported where they are used: `context` with fresh views opens the index
# only to learn that nothing changed, and pays for no more.

DB_FILE = "index.sqlite3"
PROBE_FILE = "clock"
_SCHEMA = 3  # 3: repeated names interned in the rows' data (entries.entry_row)
_CHUNK = 400  # bound parameters per statement, well under SQLite's limit
_COMMON_MIN = 500  # an entry count below which no word is too common to take every holder of
_BULK = 1000  # changes above which every status is decided again in one pass

_TABLES = """
CREATE TABLE IF NOT EXISTS meta(k TEXT PRIMARY KEY, v) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS files(
    name TEXT PRIMARY KEY, ino INTEGER, size INTEGER, mtime INTEGER, hash INTEGER, error TEXT
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS entries(
    n INTEGER PRIMARY KEY, file TEXT NOT NULL UNIQUE, id TEXT NOT NULL,
    category TEXT NOT NULL, created REAL NOT NULL, confidence INTEGER NOT NULL, key TEXT,
    digest INTEGER NOT NULL, words INTEGER NOT NULL, length INTEGER NOT NULL, status TEXT,
    data BLOB NOT NULL, view_bullet TEXT, index_bullet TEXT, index_cost INTEGER,
    anchors INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS entries_unshown ON entries(n) WHERE index_cost IS NULL;
CREATE INDEX IF NOT EXISTS entries_anchored ON entries(status) WHERE anchors > 0;
CREATE INDEX IF NOT EXISTS entries_order ON entries(
    status, created DESC, confidence DESC, id DESC, category, index_cost
);
CREATE INDEX IF NOT EXISTS entries_id ON entries(id);
CREATE INDEX IF NOT EXISTS entries_dup ON entries(category, digest);
CREATE INDEX IF NOT EXISTS entries_key ON entries(category, key) WHERE key IS NOT NULL;
CREATE INDEX IF NOT EXISTS entries_status ON entries(status, category);
CREATE TABLE IF NOT EXISTS sup(n INTEGER NOT NULL, src TEXT NOT NULL, dst TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS sup_n ON sup(n);
CREATE INDEX IF NOT EXISTS sup_src ON sup(src);
CREATE INDEX IF NOT EXISTS sup_dst ON sup(dst);
CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(
    body, meta, detail=column, tokenize="unicode61 remove_diacritics 0 tokenchars '_'"
);
CREATE VIRTUAL TABLE IF NOT EXISTS fts_terms USING fts5vocab(fts, 'row');
CREATE TABLE IF NOT EXISTS words(word TEXT PRIMARY KEY, len INTEGER NOT NULL) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS words_len ON words(len);
CREATE TABLE IF NOT EXISTS dirty(category TEXT PRIMARY KEY, generation INTEGER) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS records(
    n INTEGER PRIMARY KEY, file TEXT NOT NULL UNIQUE, id TEXT NOT NULL, kind TEXT NOT NULL,
    target TEXT NOT NULL, other TEXT, created REAL NOT NULL, data BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS records_target ON records(target, kind);
CREATE INDEX IF NOT EXISTS records_other ON records(other) WHERE other IS NOT NULL;
CREATE TABLE IF NOT EXISTS anchors(
    n INTEGER NOT NULL, id TEXT NOT NULL, path TEXT NOT NULL, blob TEXT NOT NULL,
    first INTEGER, last INTEGER, span TEXT
);
CREATE INDEX IF NOT EXISTS anchors_n ON anchors(n);
"""
_ALL_RECORDS = (
    "SELECT file, id, kind, target, other, created, data FROM records ORDER BY created, file"
)
_COLUMNS = "n, file, id, category, created, confidence, key, digest, words, length, status, data"


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


def _version() -> str:
    """Changes with the schema, memsite, and the marshal format of the rows' data."""
    tables = f"{digest(_TABLES.encode()) & 0xFFFFFFFFFFFF:012x}"
    return f"{_SCHEMA}:{tables}:{__version__}:{marshal.version}:{sys.version_info[:2]}"


def _statements(*, indexes: bool) -> list[str]:
    """The statements of ``_TABLES`` that make tables, or those that make indexes."""
    found = [s.strip() for s in _TABLES.split(";") if s.strip()]
    return [s for s in found if s.startswith("CREATE INDEX") == indexes]


@contextlib.contextmanager
def _collector_resting() -> Iterator[None]:
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


def _chunks(items: Sequence[Any], size: int = _CHUNK) -> Iterator[Sequence[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _unkey(key: str) -> str:
    return os.fsdecode(bytes.fromhex(key[1:])) if key.startswith("\0") else key


def _marks(count: int) -> str:
    return ",".join("?" * count)


class Index:
    """The read model of one store. Call ``sync()`` before reading; writers call ``wrote()``."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.path = store.cache_dir / DB_FILE
        self.notices: list[str] = []
        self.in_memory = False
        self._db: sqlite3.Connection | None = None
        self._synced = False
        self._building: Path | None = None
        self._unindexed = False  # a first build adds the tables' indexes once its rows are in
        self._shown_here: dict[str, tuple[str, str, int]] = {}  # bullets a read-only cache lacks

    # --- the database file ------------------------------------------------------------------

    @property
    def db(self) -> sqlite3.Connection:
        if self._db is None:
            self._db = self._open()
        return self._db

    def _open(self) -> sqlite3.Connection:
        try:
            self.store.cache_dir.mkdir(parents=True, exist_ok=True)
            if not self.path.exists():
                # A first build: made under a temporary name without a journal (a crash leaves
                # only a temporary), linked into place when done.
                unique = f"{os.getpid()}-{os.urandom(8).hex()}"
                building = self.store.cache_dir / f".index-{unique}{TEMP_SUFFIX}"
                db = self._connect(str(building), journal=False)
                if db is not None:
                    self._building = building
                    return db
            db = self._connect(str(self.path))
        except (OSError, sqlite3.Error):
            return self._memory()  # a read-only checkout: an index in memory, for this run
        if db is None:
            return self._memory()
        return db

    def _connect(self, target: str, *, journal: bool = True) -> sqlite3.Connection | None:
        for attempt in range(2):
            db = sqlite3.connect(target, timeout=60, isolation_level=None)
            try:
                if not journal:
                    db.execute("PRAGMA journal_mode=OFF")
                    db.execute("PRAGMA synchronous=OFF")
                elif target != ":memory:":
                    db.execute("PRAGMA journal_mode=WAL")
                    db.execute("PRAGMA synchronous=NORMAL")
                if self._ready(db):
                    return db
                db.execute("BEGIN IMMEDIATE")
                if not self._ready(db):  # nobody else made it meanwhile
                    self._create(db, indexes=journal)
                db.execute("COMMIT")
                return db
            except sqlite3.DatabaseError as exc:
                db.close()
                if target == ":memory:" or attempt or not self._corrupt(exc):
                    raise
                self.notices.append(
                    f"the cache {self.store.relative(self.path)} was unreadable ({exc}); "
                    "rebuilding it from entries/"
                )
                self._remove_files()
        return None

    @staticmethod
    def _corrupt(exc: sqlite3.DatabaseError) -> bool:
        text = str(exc).lower()
        return "locked" not in text and "readonly" not in text and "disk i/o" not in text

    def _remove_files(self) -> None:
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(OSError):
                os.unlink(f"{self.path}{suffix}")

    def _memory(self) -> sqlite3.Connection:
        self.in_memory = True
        db = self._connect(":memory:")
        assert db is not None
        return db

    @staticmethod
    def _ready(db: sqlite3.Connection) -> bool:
        try:
            row = db.execute("SELECT v FROM meta WHERE k = 'version'").fetchone()
        except sqlite3.OperationalError as exc:
            if "no such table" in str(exc):
                return False
            raise
        return row is not None and row[0] == _version()

    def _create(self, db: sqlite3.Connection, *, indexes: bool = True) -> None:
        """The tables (and their indexes, unless a first build adds them once filled)."""
        tables = (
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
        )
        for table in tables:
            db.execute(f"DROP TABLE IF EXISTS {table}")
        for statement in _statements(indexes=False):
            db.execute(statement)
        if indexes:
            for statement in _statements(indexes=True):
                db.execute(statement)
        self._unindexed = not indexes
        db.executemany(
            "INSERT INTO meta(k, v) VALUES (?, ?)",
            [
                ("version", _version()),
                ("instance", os.urandom(16).hex()),
                ("generation", 0),
                ("dir", ""),
                ("trusted", 0),
                ("all_dirty", 1),
                ("documents", 0),
                ("total_length", 0),
                ("temporaries", 1),
            ],
        )

    def _index_tables(self) -> None:
        """The indexes a first build left out: one sort each once the rows are in, rather than
        trees kept in order row by row."""
        if self._unindexed:
            for statement in _statements(indexes=True):
                self.db.execute(statement)
            self._unindexed = False

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def __del__(self) -> None:  # a connection left open warns on newer Pythons
        with contextlib.suppress(Exception):
            self.close()

    def _meta(self, key: str) -> Any:
        row = self.db.execute("SELECT v FROM meta WHERE k = ?", (key,)).fetchone()
        return row[0] if row else None

    def _set(self, **values: Any) -> None:
        self.db.executemany(
            "UPDATE meta SET v = ? WHERE k = ?", [(v, k) for k, v in values.items()]
        )

    # --- freshness --------------------------------------------------------------------------

    def _dir_state(self) -> str:
        info = os.stat(self.store.entries_dir)
        return f"{info.st_ino}:{info.st_mtime_ns}:{info.st_ctime_ns}"

    def _probe(self) -> int | None:
        """The file system's clock now: the mtime of a file touched for the purpose."""
        if self.in_memory:
            return None
        path = self.store.cache_dir / PROBE_FILE
        try:
            with open(path, "ab"):
                pass
            os.utime(path)
            return os.stat(path).st_mtime_ns
        except OSError:
            return None

    def _trusted(self, state: str, probe: int | None) -> bool:
        if probe is None:
            return False
        _, mtime, ctime = state.split(":")
        return probe > max(int(mtime), int(ctime))

    def fresh(self) -> bool:
        """Does the index match entries/ without listing it?"""
        try:
            state = self._dir_state()
        except OSError:
            return False
        rows = dict(self.db.execute("SELECT k, v FROM meta WHERE k IN ('dir', 'trusted')"))
        return rows.get("dir") == state and bool(rows.get("trusted"))

    def sync(self, *, full: bool = False) -> None:
        """Take in the entry files added, removed or replaced since the last sync."""
        if self._synced and not full:
            return
        try:
            self._sync(full)
        except sqlite3.DatabaseError as exc:
            if self.in_memory or not self._corrupt(exc):
                if self.in_memory or "readonly" not in str(exc).lower():
                    raise StorageError(
                        f"cannot use the cache {self.store.relative(self.path)} ({exc}): "
                        "if another memsite command is running, wait for it; else delete "
                        f"{self.store.relative(self.store.cache_dir)}/ (it is rebuilt)"
                    ) from None
                self._switch_to_memory()  # the cache cannot be written: work without it
            else:
                self.notices.append(
                    f"the cache {self.store.relative(self.path)} was damaged ({exc}); "
                    "rebuilding it from entries/"
                )
                self.close()
                self._remove_files()
            self._sync(full)
        self._synced = True

    def _switch_to_memory(self) -> None:
        self.close()
        self._db = self._memory()

    def _sync(self, full: bool) -> None:
        if not full and self.fresh():
            return
        db = self.db
        with _collector_resting():
            db.execute("BEGIN IMMEDIATE")
            try:
                if full or not self.fresh():
                    self._take_in(full)
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
        if self._building is not None:
            self._publish()

    def _publish(self) -> None:
        """Put a first build (made without a journal, under a temporary name) in place."""
        building, self._building = self._building, None
        assert building is not None
        self.close()
        try:
            os.link(building, self.path)  # fails if another process made one meanwhile
        except FileExistsError:
            pass  # theirs is as good as ours
        except OSError:
            self._db = self._memory()  # cache/ removed meanwhile: build again, in memory
            self._sync(full=False)
            return
        finally:
            with contextlib.suppress(OSError):
                os.unlink(building)
        self._db = self._open()

    def _take_in(self, full: bool) -> None:
        probe = self._probe()
        before = self._dir_state()
        listed = self._listing()
        known = {_unkey(name): ino for name, ino in self.db.execute("SELECT name, ino FROM files")}
        added = [name for name, ino in listed.items() if known.get(name) != ino]
        removed = [name for name, ino in known.items() if listed.get(name) != ino]
        if full:
            changed = self._rehash(listed)
            added += changed
            removed += changed
        after = self._dir_state()
        self._apply(removed, added)
        self._index_tables()
        trusted = after == before and self._trusted(before, probe)
        self._set(dir=before, trusted=int(trusted))

    def _listing(self) -> dict[str, int]:
        """Candidate entry file names (``*.json``, not hidden) with their inode numbers; notes
        whether the folder holds temporaries (for `compact`'s clean-up)."""
        found = {}
        temporaries = False
        with os.scandir(self.store.entries_dir) as items:
            for item in items:
                name = item.name
                if name[0] == ".":
                    temporaries = temporaries or is_temporary(name)
                elif name[-5:] == ".json":
                    found[name] = item.inode()
        self._set(temporaries=int(temporaries))
        return found

    def has_temporaries(self) -> bool:
        """Did entries/ hold temporaries when last listed?"""
        return bool(self._meta("temporaries"))

    def _rehash(self, listed: dict[str, int]) -> list[str]:
        """Files whose bytes differ from what was read (edited in place, against the spec)."""
        hashes = {_unkey(n): h for n, h in self.db.execute("SELECT name, hash FROM files")}
        return [n for n in listed if n in hashes and hashes[n] != self._hash(n)]

    def _hash(self, name: str) -> int | None:
        """The digest the files table holds for a readable entry file, else None (a FIFO or a
        link is not opened for reading: it would block, or hash another file)."""
        _, data, _ = read_entry_file(self.store.entries_dir / name, self.store.max_entry_bytes)
        return None if data is None else digest(data)

    # --- taking in changes ------------------------------------------------------------------

    def _apply(self, removed: Iterable[str], added: Iterable[str]) -> None:
        removed, added = sorted(set(removed)), sorted(set(added))
        if not removed and not added:
            return
        db = self.db
        # Many changes at once (a first build, a big merge): re-deciding every status in one
        # pass is cheaper than following each change's links.
        bulk = len(removed) + len(added) > max(_BULK, self.entry_count() // 10)
        # Into an empty index, every row is new: statuses are decided before the rows go in.
        first = bulk and not removed and self.entry_count() == 0
        big = len(added) >= PARALLEL  # worth a second process
        if bulk:
            db.execute("PRAGMA cache_size=-65536")  # 64 MB of pages while building
        if not first:
            self._index_tables()
        touched: set[str] = set()
        gone_rows = self._rows_where("file", removed)
        gone_records = self._records_where("file", removed)
        if not bulk:
            touched |= self._component({r.id for r in gone_rows} | {r.target for r in gone_records})
        for chunk in _chunks(removed):
            marks = _marks(len(chunk))
            ns = [r.n for r in gone_rows if r.file in chunk]
            db.execute(f"DELETE FROM files WHERE name IN ({marks})", [name_key(n) for n in chunk])
            if ns:
                nmarks = _marks(len(ns))
                db.execute(f"DELETE FROM entries WHERE n IN ({nmarks})", ns)
                db.execute(f"DELETE FROM sup WHERE n IN ({nmarks})", ns)
                db.execute(f"DELETE FROM fts WHERE rowid IN ({nmarks})", ns)
                db.execute(f"DELETE FROM anchors WHERE n IN ({nmarks})", ns)
            db.execute(f"DELETE FROM records WHERE file IN ({marks})", chunk)
        dirty = {r.category for r in gone_rows if r.status == ACTIVE}
        self._count(-len(gone_rows), -sum(r.length for r in gone_rows))
        start = int(db.execute("SELECT coalesce(max(n), 0) FROM entries").fetchone()[0]) + 1
        found: list[Prepared] = []
        notes: list[RecordRow] = []
        words: set[str] = set()
        ranked: Task[list[str | None]] | None = None
        store = self.store
        for part in prepare_parts(store.entries_dir, store.max_entry_bytes, added):
            db.executemany(
                "INSERT OR REPLACE INTO files(name, ino, size, mtime, hash, error) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                [record for record, _ in part.read if record],
            )
            entries = [item for _, item in part.read if isinstance(item, Prepared)]
            notes += [item for _, item in part.read if isinstance(item, RecordRow)]
            if first and part.last:  # the other core decides the statuses meanwhile
                from memsite.parallel import Task

                retired = self.retired_all() | {r.target for r in notes if r.kind == "retire"}
                ranked = Task(statuses, [*found, *entries], retired, fork=None if big else False)
            self._insert_texts(entries, start + len(found))
            if first:  # taken as active meanwhile: the few others are marked once decided
                self._insert_rows(entries, start + len(found), ACTIVE)
            found += entries
            words |= part.words
        db.executemany(
            "INSERT OR REPLACE INTO records(file, id, kind, target, other, created, data) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            notes,
        )
        if ranked is not None:
            decided = ranked.result()
            db.executemany(
                "UPDATE entries SET status = ? WHERE n = ?",
                [(s, n) for n, s in enumerate(decided, start) if s != ACTIVE],
            )
            self._insert_words(found, words)
            self._index_tables()
            self._bump({i.columns[2] for i, s in zip(found, decided, strict=True) if s == ACTIVE})
            return
        self._insert_rows(found, start, None)
        self._insert_words(found, words)
        new_ids = {item.columns[1] for item in found}
        # What is said about a fact changes how the index shows it (retired, stale, re-pinned):
        # the categories of the facts named by records that came or went are rendered again.
        named = sorted({r.target for r in gone_records} | {r.target for r in notes})
        if bulk:
            dirty |= self._restatus_rows(self._rows(""))
        else:
            touched |= self._component(new_ids | set(named))
            dirty |= self._restatus_rows(self._rows_where("id", sorted(touched)))
        if named and not bulk:
            dirty |= {r.category for r in self._rows_where("id", named) if r.status is not None}
        self._bump(dirty)

    def _insert_texts(self, prepared: Sequence[Prepared], start: int) -> None:
        """The search text, links and anchors of entries that will be rows ``start``, …"""
        sup, fts, anchors = [], [], []
        for n, item in enumerate(prepared, start):
            sup += [(n, item.columns[1], target) for target in item.supersedes]
            anchors += [(n, item.columns[1], *anchor) for anchor in item.anchors]
            fts.append((n, item.body, item.meta))
        db = self.db
        db.executemany("INSERT INTO sup(n, src, dst) VALUES (?, ?, ?)", sup)
        db.executemany(
            "INSERT INTO anchors(n, id, path, blob, first, last, span) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            anchors,
        )
        db.executemany("INSERT INTO fts(rowid, body, meta) VALUES (?, ?, ?)", fts)

    def _insert_rows(self, prepared: Sequence[Prepared], start: int, status: str | None) -> None:
        """The rows of entries whose texts are in, as rows ``start``, …, all with one status
        (None: to be decided)."""
        self.db.executemany(
            "INSERT INTO entries(n, file, id, category, created, confidence, key, digest, words, "
            "length, data, anchors, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(n, *item.columns, status) for n, item in enumerate(prepared, start)],
        )

    def _insert_words(self, prepared: Sequence[Prepared], words: Iterable[str]) -> None:
        """The words met in the entries just taken in (for spelling), and their count."""
        self.db.executemany(
            "INSERT OR IGNORE INTO words(word, len) VALUES (?, ?)",
            [(w, len(w)) for w in long_words(words)],
        )
        self._count(len(prepared), sum(item.columns[8] for item in prepared))

    def _component(self, seeds: set[str]) -> set[str]:
        """Every id linked to ``seeds`` by supersession, equal content or category+key."""
        seen = set(seeds)
        frontier = list(seeds)
        db = self.db
        while frontier:
            found: set[str] = set()
            for chunk in _chunks(frontier):
                marks = _marks(len(chunk))
                found.update(
                    r[0] for r in db.execute(f"SELECT dst FROM sup WHERE src IN ({marks})", chunk)
                )
                found.update(
                    r[0] for r in db.execute(f"SELECT src FROM sup WHERE dst IN ({marks})", chunk)
                )
                groups = db.execute(
                    f"SELECT category, digest, key FROM entries WHERE id IN ({marks})", chunk
                ).fetchall()
                for part in _chunks(groups, _CHUNK // 2):
                    # A join on a VALUES list seeks both columns of the index; a row-value IN
                    # over the same list seeks the category alone and scans it (~6 ms at 100k).
                    pairs = ",".join("(?, ?)" for _ in part)
                    found.update(
                        r[0]
                        for r in db.execute(
                            f"SELECT e.id FROM (VALUES {pairs}) AS v CROSS JOIN entries e "
                            "ON e.category = v.column1 AND e.digest = v.column2",
                            [v for g in part for v in (g[0], g[1])],
                        )
                    )
                    keyed = [g for g in part if g[2] is not None]
                    if keyed:
                        pairs = ",".join("(?, ?)" for _ in keyed)
                        found.update(
                            r[0]
                            for r in db.execute(
                                f"SELECT e.id FROM (VALUES {pairs}) AS v CROSS JOIN entries e "
                                "ON e.category = v.column1 AND e.key = v.column2 "
                                "AND e.key IS NOT NULL",
                                [v for g in keyed for v in (g[0], g[2])],
                            )
                        )
            frontier = [i for i in found if i not in seen]
            seen.update(frontier)
        return seen

    def _restatus_rows(self, rows: list[Row]) -> set[str]:
        """Re-run compaction over ``rows`` (whole components); the categories that changed."""
        from memsite.core.compaction import compact

        if not rows:
            return set()
        rows_retired = self.retired([r.id for r in rows])
        result = compact([r.entry() for r in rows], (), rows_retired, report=False)
        changes = []
        dirty: set[str] = set()
        for row in rows:
            winner = result.by_id.get(row.id)
            status = result.status[row.id] if winner and winner.filename == row.file else None
            if status != row.status:
                changes.append((status, row.n))
                if ACTIVE in (status, row.status):
                    dirty.add(row.category)
        self.db.executemany("UPDATE entries SET status = ? WHERE n = ?", changes)
        return dirty

    def retired_all(self) -> set[str]:
        """The ids that any retire record names."""
        rows = self.db.execute("SELECT target FROM records WHERE kind = 'retire'")
        return {r[0] for r in rows}

    def retired(self, ids: Iterable[str]) -> set[str]:
        """The ids among ``ids`` that a retire record names."""
        found: set[str] = set()
        ids = sorted(set(ids))
        for chunk in _chunks(ids):
            found.update(
                r[0]
                for r in self.db.execute(
                    f"SELECT target FROM records WHERE kind = 'retire' "
                    f"AND target IN ({_marks(len(chunk))})",
                    chunk,
                )
            )
        return found

    def _records_where(self, column: str, values: Sequence[Any]) -> list[RecordRow]:
        found = []
        for chunk in _chunks(values):
            found += [
                RecordRow(*r)
                for r in self.db.execute(
                    f"SELECT file, id, kind, target, other, created, data FROM records "
                    f"WHERE {column} IN ({_marks(len(chunk))})",
                    chunk,
                )
            ]
        return found

    def _count(self, documents: int, length: int) -> None:
        self.db.execute(
            "UPDATE meta SET v = v + (CASE k WHEN 'documents' THEN ? ELSE ? END) "
            "WHERE k IN ('documents', 'total_length')",
            (documents, length),
        )

    def _bump(self, dirty: set[str]) -> None:
        generation = int(self._meta("generation")) + 1
        self._set(generation=generation)
        self.db.executemany(
            "INSERT OR REPLACE INTO dirty(category, generation) VALUES (?, ?)",
            [(c, generation) for c in sorted(dirty)],
        )

    # --- the writer's path ------------------------------------------------------------------

    def before_write(self) -> str | None:
        """The folder's state just before a writer links its file, when the index is trusted."""
        if not self.fresh():
            return None
        return self._dir_state()

    def wrote(self, path: Path, before: str | None) -> None:
        """Take in the file a writer (holding the write lock) just linked. The index stays
        trusted when it was trusted just before the link: nothing but this writer can have
        changed the folder under the lock, short of another program in those microseconds."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            if before is not None and self._meta("dir") == before:
                self._apply([], [path.name])
                self._set(dir=self._dir_state(), trusted=1)
            else:
                with _collector_resting():  # the folder changed meanwhile: maybe a big batch
                    self._take_in(full=False)
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self._synced = True

    def forget(self) -> None:
        """Look at entries/ again on the next read (another writer may have added files)."""
        self._synced = False

    # --- reading ----------------------------------------------------------------------------

    def fingerprint(self) -> str:
        """Changes whenever the indexed entries change (and across rebuilds of the index)."""
        self.sync()
        rows = dict(self.db.execute("SELECT k, v FROM meta WHERE k IN ('instance', 'generation')"))
        return f"{rows['instance']}:{rows['generation']}"

    def _rows(self, sql: str, params: Sequence[Any] = (), using: str = "") -> list[Row]:
        source = f"entries INDEXED BY {using}" if using else "entries"
        return [Row(*r) for r in self.db.execute(f"SELECT {_COLUMNS} FROM {source} {sql}", params)]

    def _rows_where(self, column: str, values: Sequence[Any]) -> list[Row]:
        rows: list[Row] = []
        for chunk in _chunks(values):
            rows += self._rows(f"WHERE {column} IN ({_marks(len(chunk))})", chunk)
        return rows

    def all_entries(self, known: dict[str, tuple[int, Entry]] | None = None) -> list[Entry]:
        """Every valid entry (duplicated ids included: compaction decides between them).

        ``known`` (file → the hash of its row's data, its entry), kept between reads by a
        long-lived reader (``serve``), gives an unchanged row its earlier ``Entry`` object,
        which spares rebuilding it and keeps caches keyed by it warm; it is updated in place.
        """
        self.sync()
        rows = self._rows("")
        if known is None:
            return [r.entry() for r in rows]
        found: dict[str, tuple[int, Entry]] = {}
        entries = []
        for row in rows:
            mark = hash(row.data)
            last = known.get(row.file)
            entry = last[1] if last is not None and last[0] == mark else row.entry()
            found[row.file] = (mark, entry)
            entries.append(entry)
        known.clear()
        known.update(found)
        return entries

    def snapshot(self) -> Snapshot | None:
        """A read-only look at the index file on a connection of its own (see
        :class:`Snapshot`); None when the index is not a file (it is held in memory)."""
        if self.in_memory or not self.path.is_file():
            return None
        try:
            return Snapshot(self.path)
        except sqlite3.Error:
            return None

    def statuses(self) -> dict[str, str | None]:
        """Entry file → its status (None: the file repeats an id another file holds)."""
        self.sync()
        return dict(self.db.execute("SELECT file, status FROM entries"))

    def statuses_of(self, ids: Iterable[str]) -> dict[str, str]:
        """Entry id → its status, for the ids the index holds."""
        self.sync()
        return {r.id: r.status for r in self._rows_where("id", sorted(set(ids))) if r.status}

    def invalid(self) -> list[InvalidFile]:
        self.sync()
        return [
            InvalidFile(_unkey(name), error)
            for name, error in self.db.execute(
                "SELECT name, error FROM files WHERE error IS NOT NULL ORDER BY name"
            )
        ]

    def index_items(self) -> dict[str, list[IndexItem]]:
        """Category → its active entries as index items, newest first (compaction's order)."""
        from memsite.core.budget import IndexItem

        self.sync()
        self._show()
        found: dict[str, list[IndexItem]] = {}
        for category, entry_id, cost, low in self.db.execute(
            "SELECT category, id, index_cost, confidence = ? FROM entries "
            "INDEXED BY entries_order WHERE status = ? "
            "ORDER BY created DESC, confidence DESC, id DESC",
            (CONFIDENCE_RANK["low"], ACTIVE),
        ):
            items = found.get(category)
            if items is None:
                items = found[category] = []
            if cost is None:
                cost = self._shown(entry_id)[2]
            items.append(IndexItem(entry_id, "", cost, low))
        return found

    def index_bullets(self, ids: Sequence[str]) -> dict[str, str]:
        """The index bullets of these (active) entries."""
        self._show()
        found: dict[str, str] = {}
        for chunk in _chunks(ids):
            for entry_id, bullet in self.db.execute(
                f"SELECT id, index_bullet FROM entries INDEXED BY entries_id "
                f"WHERE status = ? AND id IN ({_marks(len(chunk))})",
                (ACTIVE, *chunk),
            ):
                found[entry_id] = bullet if bullet is not None else self._shown(entry_id)[1]
        return found

    def view_bullets(self, category: str) -> list[str]:
        """The bullets of a category's view, in compaction's order."""
        self.sync()
        self._show()
        return [
            bullet if bullet is not None else self._shown(entry_id)[0]
            for bullet, entry_id in self.db.execute(
                "SELECT view_bullet, id FROM entries INDEXED BY entries_order "
                "WHERE status = ? AND category = ? ORDER BY created DESC, confidence DESC, id DESC",
                (ACTIVE, category),
            )
        ]

    def _show(self) -> None:
        """Render and keep the views' bullets of the active entries that have none yet: a
        build leaves them to the first view or index.md made (most commands never show them,
        and entries that are not active may never need them)."""
        if self.db.in_transaction:  # inside a read: ``_shown`` renders what is missing
            return
        rows = [
            (n, file, data)
            for n, file, data in self.db.execute(
                "SELECT n, file, data FROM entries INDEXED BY entries_unshown "
                "WHERE index_cost IS NULL AND status = ?",
                (ACTIVE,),
            )
            if file not in self._shown_here
        ]
        if not rows:
            return
        from memsite.storage.prepare import render

        shown = render([(file, data) for _, file, data in rows])
        try:
            self.db.execute("BEGIN IMMEDIATE")
            self.db.executemany(
                "UPDATE entries SET view_bullet = ?, index_bullet = ?, index_cost = ? "
                "WHERE n = ? AND file = ?",
                [(*bullets, n, file) for (n, file, _), bullets in zip(rows, shown, strict=True)],
            )
            self.db.execute("COMMIT")
        except sqlite3.OperationalError:  # a read-only cache: rendered again in each run
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")
            self._shown_here.update((r[1], b) for r, b in zip(rows, shown, strict=True))

    def _shown(self, entry_id: str) -> tuple[str, str, int]:
        """(view bullet, index bullet, index cost) of the active entry ``entry_id``, rendered
        here (the cache could not keep them, or an entry came in since ``_show``)."""
        from memsite.storage.prepare import render

        file, data = self.db.execute(
            "SELECT file, data FROM entries WHERE id = ? AND status = ?", (entry_id, ACTIVE)
        ).fetchone()
        found = self._shown_here.get(file)
        if found is None:
            found = self._shown_here[file] = render([(file, data)])[0]
        return found

    def active_in_order(self, category: str | None = None) -> Iterator[Row]:
        """Active entries in compaction's order (newest, confidence, id), read as needed."""
        self.sync()
        where, params = "status = ?", [ACTIVE]
        if category is not None:
            where += " AND category = ?"
            params.append(category)
        cursor = self.db.execute(
            f"SELECT {_COLUMNS} FROM entries INDEXED BY entries_order WHERE {where} "
            "ORDER BY created DESC, confidence DESC, id DESC",
            params,
        )
        for values in cursor:
            yield Row(*values)

    def categories_present(self) -> list[str]:
        self.sync()
        return [r[0] for r in self.db.execute("SELECT DISTINCT category FROM entries")]

    def tally(self) -> dict[tuple[str, str], int]:
        """(category, status) → number of entries (files repeating an id not counted)."""
        self.sync()
        return {
            (category, status): number
            for category, status, number in self.db.execute(
                "SELECT category, status, count(*) FROM entries WHERE status IS NOT NULL "
                "GROUP BY category, status"
            )
        }

    def has_id(self, entry_id: str) -> bool:
        self.sync()
        return (
            self.db.execute("SELECT 1 FROM entries WHERE id = ?", (entry_id,)).fetchone()
            is not None
        )

    def match_id(self, ref: str) -> str:
        """The one id ``ref`` names (a full id, or a prefix of 4+ hex characters of one id);
        the errors of ``review.id_reference`` and ``review.choose_id`` otherwise."""
        from memsite.core.ids import choose_id, id_reference

        value = id_reference(ref)
        if self.has_id(value):
            return value
        span = (value, value + "\U0010ffff")
        matches = [
            r[0]
            for r in self.db.execute(
                "SELECT DISTINCT id FROM entries WHERE id >= ? AND id < ? ORDER BY id LIMIT 11",
                span,
            )
        ]
        total = None
        if len(matches) > 10:
            sql = "SELECT count(DISTINCT id) FROM entries WHERE id >= ? AND id < ?"
            total = int(self.db.execute(sql, span).fetchone()[0])
        return choose_id(ref, matches, total)

    def by_id(self, entry_id: str) -> Entry | None:
        """The entry with this id (the newest file when a hostile copy repeats it)."""
        self.sync()
        rows = self._rows("WHERE id = ?", (entry_id,))
        chosen = [r for r in rows if r.status is not None] or rows
        if not chosen:
            return None
        return max((r.entry() for r in chosen), key=lambda e: (e.order_key, e.filename))

    def component_entries(self, entry_id: str) -> list[Entry]:
        """The entries whose status depends on ``entry_id``'s (for `read`'s chain)."""
        self.sync()
        return [r.entry() for r in self._rows_where("id", sorted(self._component({entry_id})))]

    def entries_with_ids(self, ids: set[str]) -> list[Entry]:
        self.sync()
        return [r.entry() for r in self._rows_where("id", sorted(ids))]

    def all_records(self) -> list[Record]:
        """Every valid record, oldest first (then by file name)."""
        self.sync()
        return [RecordRow(*r).record() for r in self.db.execute(_ALL_RECORDS)]

    def records_about(self, ids: Iterable[str]) -> list[Record]:
        """The records naming any of ``ids`` as target or as the other end of a link, oldest
        first."""
        self.sync()
        wanted = sorted(set(ids))
        found = {r.file: r for r in self._records_where("target", wanted)}
        found.update((r.file, r) for r in self._records_where("other", wanted))
        return [r.record() for r in sorted(found.values(), key=lambda r: (r.created, r.file))]

    def has_records(self) -> bool:
        self.sync()
        return self.db.execute("SELECT 1 FROM records LIMIT 1").fetchone() is not None

    def confirmed_dates(self) -> list[tuple[str, str, float]]:
        """(id, category, when written or last verified) of every active entry."""
        self.sync()
        verified = dict(
            self.db.execute(
                "SELECT target, max(created) FROM records WHERE kind = 'verify' GROUP BY target"
            )
        )
        return [
            (entry_id, category, max(created, verified.get(entry_id, created)))
            for entry_id, category, created in self.db.execute(
                "SELECT id, category, created FROM entries WHERE status = ?", (ACTIVE,)
            )
        ]

    def active_anchors(self) -> dict[str, list[Anchor]]:
        """Active entry id → the anchors its file records (in the file's order)."""
        from memsite.core.anchors import Anchor

        self.sync()
        found: dict[str, list[Anchor]] = {}
        rows = self.db.execute(
            "SELECT a.id, a.path, a.blob, a.first, a.last, a.span FROM entries AS e "
            "INDEXED BY entries_anchored CROSS JOIN anchors AS a ON a.n = e.n "
            "WHERE e.status = ? AND e.anchors > 0 ORDER BY a.rowid",
            (ACTIVE,),
        )
        for entry_id, path, blob, first, last, span in rows:
            lines = (first, last) if first is not None else None
            found.setdefault(entry_id, []).append(Anchor(path, blob, lines, span))
        return found

    def repinned(self, ids: Iterable[str]) -> dict[str, Record]:
        """Entry id → its latest verification that pinned anchors again, for ``ids``."""
        self.sync()
        found: dict[str, Record] = {}
        rows = [r for r in self._records_where("target", sorted(set(ids))) if r.kind == "verify"]
        for row in sorted(rows, key=lambda r: (r.created, r.file)):
            if b"anchors" in row.data:
                record = row.record()
                if record.anchors:
                    found[record.target] = record
        return found

    def anchored_active(self) -> list[Entry]:
        """Active entries with anchors, newest first."""
        self.sync()
        return [
            r.entry()
            for r in self._rows(
                "WHERE status = ? AND anchors > 0 ORDER BY created DESC, id DESC",
                (ACTIVE,),
                using="entries_anchored",
            )
        ]

    def _saying(self, category: str, normalized: str) -> Iterator[Row]:
        """The entries of ``category`` whose normalized content is ``normalized`` (digests
        found by the index, confirmed by comparing the texts)."""
        self.sync()
        for row in self._rows(
            "WHERE category = ? AND digest = ?",
            (category, content_digest(normalized)),
            using="entries_dup",
        ):
            if row.entry().normalized == normalized:
                yield row

    def holding(self, category: str, normalized: str) -> str | None:
        """The id of an entry of ``category`` (any status) whose normalized text is this."""
        return next((row.id for row in self._saying(category, normalized)), None)

    def same_content(self, category: str, normalized: str, exclude: set[str]) -> Row | None:
        """An active entry of ``category`` whose normalized content is ``normalized``."""
        rows = self._saying(category, normalized)
        return next((r for r in rows if r.status == ACTIVE and r.id not in exclude), None)

    def near_candidates(
        self, category: str, tokens: frozenset[str], threshold: float, exclude: set[str]
    ) -> list[tuple[str, frozenset[str]]]:
        """Active entries of ``category`` that can reach ``threshold`` Jaccard with ``tokens``.

        Exact, not a heuristic: a set B with J(A, B) ≥ t shares at least ceil(t·|A|) of A's
        tokens, so it contains at least one of any |A| - ceil(t·|A|) + 1 of them. The query
        asks FTS5 for the rarest that many (short posting lists), then filters on size.
        """
        from memsite.core.stem import stem

        self.sync()
        if not tokens:
            return []
        stems = {t: stem(t) for t in tokens}
        frequency = self.document_frequency(set(stems.values()))
        need = len(tokens) - math.ceil(threshold * len(tokens) - 1e-9) + 1
        rarest = sorted(tokens, key=lambda t: (frequency.get(stems[t], 0), t))[:need]
        query = " OR ".join(_quote(stems[t]) for t in rarest)
        low, high = len(tokens) * threshold, len(tokens) / threshold
        rows = [
            Row(*r)
            for r in self.db.execute(
                f"SELECT {', '.join('e.' + c for c in _COLUMNS.split(', '))} FROM fts "
                "CROSS JOIN entries e ON e.n = fts.rowid WHERE fts MATCH ? AND e.category = ? "
                "AND e.status = ? AND e.words BETWEEN ? AND ?",
                (f"body : ({query})", category, ACTIVE, math.floor(low), math.ceil(high)),
            )
        ]
        from memsite.core.similarity import token_set

        return [(r.id, token_set(r.entry().normalized)) for r in rows if r.id not in exclude]

    def document_frequency(self, stems: set[str]) -> dict[str, int]:
        """How many entries hold each analysed term (in content or tags and key)."""
        found: dict[str, int] = {}
        for chunk in _chunks(sorted(stems)):
            for term, docs in self.db.execute(
                f"SELECT term, doc FROM fts_terms WHERE term IN ({_marks(len(chunk))})", chunk
            ):
                found[term] = docs
        return found

    def entry_count(self) -> int:
        """Indexed entries, of every status."""
        return int(self._meta("documents"))

    def average_length(self) -> float:
        """Mean number of analysed terms per entry (content, tags and key)."""
        documents = int(self._meta("documents"))
        return int(self._meta("total_length")) / documents if documents else 0.0

    def terms_with_prefix(self, prefix: str, limit: int) -> list[str]:
        """Analysed terms in the index that start with ``prefix``, at most ``limit``."""
        return [
            r[0]
            for r in self.db.execute(
                "SELECT term FROM fts_terms WHERE term >= ? AND term < ? LIMIT ?",
                (prefix, prefix + "\U0010ffff", limit),
            )
        ]

    def words_near(self, length: int, spread: int) -> list[str]:
        """Indexed words (raw, unstemmed) whose length is within ``spread`` of ``length``."""
        return [
            r[0]
            for r in self.db.execute(
                "SELECT word FROM words WHERE len BETWEEN ? AND ?",
                (length - spread, length + spread),
            )
        ]

    def candidates(
        self,
        alternatives: Sequence[Sequence[str]],
        *,
        category: str | None,
        include_all: bool,
        limit: int,
    ) -> list[Candidate]:
        """Entries that may answer a query of word groups (each group: a word's terms).

        Scoring every entry that holds a common word would cost time in proportion to the
        store, so the candidates are the entries that hold every word, those that hold any
        rare word (one in at most 2% of the entries), and those that hold every common word;
        only when none finds anything are the newest entries holding any word taken. Within
        each query FTS5's BM25 (content 1×, tags and key 2×) picks the best when the work is
        bounded (by a rare word, or few expected to hold every common one), else the newest.
        """
        self.sync()
        groups = [list(dict.fromkeys(g)) for g in alternatives if g]
        if not groups:
            return []
        frequency = self.document_frequency({t for g in groups for t in g})
        common = max(_COMMON_MIN, self.entry_count() // 50)
        rare = [g for g in groups if sum(frequency.get(t, 0) for t in g) <= common]
        found: dict[int, None] = {}
        filters = (category, include_all, limit)
        if len(groups) > 1:
            # ranking what every word matches costs little when one of the words is rare
            by_rank = bool(rare)
            found.update(self._matching(" AND ".join(map(_any_of, groups)), *filters, by_rank))
        if rare:
            every = len(found)
            found.update(self._matching(" OR ".join(map(_any_of, rare)), *filters, True))
            if every < limit:
                usual = [g for g in groups if g not in rare]
                found.update(self._holding_usual(usual, frequency, common, filters))
        if not found:  # only common words, never together: the newest entries holding one
            found.update(self._matching(" OR ".join(map(_any_of, groups)), *filters, False))
        columns = ", ".join("e." + c for c in _COLUMNS.split(", "))
        out: list[Candidate] = []
        for chunk in _chunks(list(found)):
            for r in self.db.execute(
                f"SELECT {columns}, f.body, f.meta FROM entries e JOIN fts f ON f.rowid = e.n "
                f"WHERE e.n IN ({_marks(len(chunk))})",
                chunk,
            ):
                out.append(Candidate(Row(*r[:12]), r[12], r[13]))
        return out

    def _holding_usual(
        self,
        usual: Sequence[Sequence[str]],
        frequency: dict[str, int],
        common: int,
        filters: tuple[str | None, bool, int],
    ) -> dict[int, None]:
        """Entries holding every common word of a query: a reworded question misses its rare
        words but keeps its topic's common ones. A term counts for its first word only, so the
        words' shares may be taken as independent; ranked when they say few entries match."""
        seen: set[str] = set()
        groups = []
        for group in usual:
            if own := [t for t in group if t not in seen]:
                groups.append(own)
            seen.update(group)
        if len(groups) < 2:
            return {}
        documents = max(self.entry_count(), 1)
        expected = documents * math.prod(
            min(sum(frequency.get(t, 0) for t in g) / documents, 1.0) for g in groups
        )
        query = " AND ".join(map(_any_of, groups))
        return self._matching(query, *filters, expected <= common)

    def _matching(
        self, query: str, category: str | None, include_all: bool, limit: int, by_rank: bool
    ) -> dict[int, None]:
        """Row numbers of the entries matching an FTS5 query, best BM25 first (or newest)."""
        where = ["fts MATCH ?", "e.status IS NOT NULL" if include_all else "e.status = ?"]
        params: list[Any] = [query] if include_all else [query, ACTIVE]
        if category is not None:
            where.append("e.category = ?")
            params.append(category)
        sql = (
            "SELECT e.n FROM fts CROSS JOIN entries e ON e.n = fts.rowid "
            f"WHERE {' AND '.join(where)} "
            + ("ORDER BY bm25(fts, 1.0, 2.0) " if by_rank else "ORDER BY fts.rowid DESC ")
            + "LIMIT ?"
        )
        return dict.fromkeys(r[0] for r in self.db.execute(sql, [*params, limit]))

    # --- the views' bookkeeping -------------------------------------------------------------

    def dirty(self) -> tuple[int, bool, list[str]]:
        """(generation, every view dirty?, categories whose views are dirty)."""
        self.sync()
        generation = int(self._meta("generation"))
        everything = bool(self._meta("all_dirty"))
        names = [r[0] for r in self.db.execute("SELECT category FROM dirty ORDER BY category")]
        return generation, everything, names

    def views_written(self, generation: int) -> None:
        """The views now reflect ``generation``: forget what was dirty up to it."""
        with contextlib.suppress(sqlite3.OperationalError):  # read-only: rebuilt next time
            self.db.execute("DELETE FROM dirty WHERE generation <= ?", (generation,))
            if int(self._meta("generation")) == generation:
                self._set(all_dirty=0)

    def read_transaction(self) -> contextlib.AbstractContextManager[None]:
        """Reads inside see one state of the index (synced first, the views' bullets
        rendered)."""
        self.sync()
        self._show()
        return _read_transaction(self.db)


@contextlib.contextmanager
def _read_transaction(db: sqlite3.Connection) -> Iterator[None]:
    db.execute("BEGIN")
    try:
        yield
    finally:
        db.execute("COMMIT")


def _any_of(terms: Sequence[str]) -> str:
    return "(" + " OR ".join(map(_quote, terms)) + ")"


def _quote(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


class Snapshot:
    """The index as it is at one moment, read on a read-only connection of its own: what a
    forked child reads (a child must never use its parent's connection). A context manager."""

    _KEPT = "FROM entries WHERE status IS NOT NULL"  # one file per id: the one compaction keeps

    def __init__(self, path: Path) -> None:
        self.db = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True, timeout=60)
        try:
            self.db.execute("BEGIN")  # one snapshot for every read that follows
            self.db.execute("SELECT count(*) FROM entries").fetchone()
        except sqlite3.Error:
            self.db.close()
            raise

    def __enter__(self) -> Snapshot:
        return self

    def __exit__(self, *exc: object) -> None:
        self.db.close()

    def kept_entries(self) -> Iterator[tuple[Entry, str]]:
        """Every entry compaction keeps, with its status, decoded one at a time."""
        for file, status, data in self.db.execute(f"SELECT file, status, data {self._KEPT}"):
            yield entry_from_row(marshal.loads(data), file), status

    def kept_entry(self, entry_id: str) -> Entry:
        """The entry compaction keeps for ``entry_id`` (KeyError if there is none)."""
        found = self.db.execute(f"SELECT file, data {self._KEPT} AND id = ?", (entry_id,))
        row = found.fetchone()
        if row is None:
            raise KeyError(entry_id)
        return entry_from_row(marshal.loads(row[1]), row[0])

    def records(self) -> list[Record]:
        """Every valid record, oldest first (then by file name), as ``Index.all_records``."""
        return [RecordRow(*r).record() for r in self.db.execute(_ALL_RECORDS)]
