"""Taking in what changed in entries/: the files added, removed or replaced since the last
listing, read and prepared (``prepare``), their rows, search text, links and anchors written,
and the statuses of the components they touch decided again (``statuses``).

Entry files are immutable, so the set of names in entries/ is the state: a listing against
the files table gives what came and went. An entry file edited in place (which the spec
forbids) is found by a full sync, which builds the index again from the files.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, NamedTuple

from memsite.core.schema import ACTIVE
from memsite.files import is_temporary
from memsite.storage.readmodel.prepare import (
    PARALLEL,
    Prepared,
    RecordRow,
    long_words,
    name_key,
    prepare_parts,
    statuses,
)
from memsite.storage.readmodel.rows import (
    Row,
    chunks,
    marks,
    records_where,
    rows,
    rows_where,
    unkey,
)
from memsite.storage.readmodel.statuses import component, restatus, retired_all
from memsite.storage.readmodel.vectors import forget

if TYPE_CHECKING:
    from memsite.parallel import Task
    from memsite.storage.readmodel.facade import Index

_BULK = 1000  # changes above which every status is decided again in one pass


def take_in(index: Index) -> None:
    """Take in what changed since the last listing; the index is trusted afterwards only if
    the folder did not change meanwhile."""
    db = index.db
    probe = index.probe()
    before = index.dir_state()
    added, removed = changes(_listing(index), _known(db))
    after = index.dir_state()
    where = index.store.relative(index.path)
    index.announce(
        len(added),
        f"reading {len(added):,} new entry files into the cache {where} (after a clone or a "
        "large merge; later commands read only what changed)…",
    )
    apply(index, removed, added)
    index.index_tables()
    trusted = after == before and index.trusted(before, probe)
    index.set_meta(dir=before, trusted=int(trusted))


def _listing(index: Index) -> dict[str, int]:
    """Candidate entry file names (``*.json``, not hidden) with their inode numbers; notes
    whether the folder holds temporaries (for `compact`'s clean-up)."""
    found = {}
    temporaries = False
    with os.scandir(index.store.entries_dir) as items:
        for item in items:
            name = item.name
            if name[0] == ".":
                temporaries = temporaries or is_temporary(name)
            elif name[-5:] == ".json":
                found[name] = item.inode()
    index.set_meta(temporaries=int(temporaries))
    return found


def _known(db: sqlite3.Connection) -> dict[str, int]:
    """File name → inode as the files table holds them; the few names that are not valid
    UTF-8 (keys starting with NUL, ``prepare.name_key``) decoded apart, so that the rest is
    read as it is stored."""
    found = dict(db.execute("SELECT name, ino FROM files WHERE name >= ?", ("\x01",)))
    marked = db.execute("SELECT name, ino FROM files WHERE name < ?", ("\x01",))
    found.update((unkey(name), ino) for name, ino in marked)
    return found


def changes(listed: dict[str, int], known: dict[str, int]) -> tuple[list[str], list[str]]:
    """(added, removed): the names listed with an inode the index does not hold for them, and
    the names the index holds that are not listed with theirs (a file replaced under its name
    is both). Set and dict operations in C: at 100k names, a comparison name by name in
    Python cost ~0.1 s after each merge."""
    added = listed.keys() - known.keys()
    removed = known.keys() - listed.keys()
    kept, held = dict(listed), dict(known)
    for name in added:
        del kept[name]
    for name in removed:
        del held[name]
    if kept != held:  # the same names, not the same files
        replaced = {name for name, ino in kept.items() if held[name] != ino}
        added |= replaced
        removed |= replaced
    return sorted(added), sorted(removed)


class _Gone(NamedTuple):
    """What the removed files were: their rows and records."""

    rows: list[Row]
    records: list[RecordRow]


class _Read(NamedTuple):
    """What the added files are: prepared entries (rows from ``start``), records, words, and
    (into an empty index) the statuses being decided on the other core."""

    found: list[Prepared]
    notes: list[RecordRow]
    words: set[str]
    ranked: Task[list[str | None]] | None


def apply(index: Index, removed: Iterable[str], added: Iterable[str]) -> None:
    """Take out the ``removed`` files and take in the ``added`` ones, statuses included."""
    removed, added = sorted(set(removed)), sorted(set(added))
    if not removed and not added:
        return
    db = index.db
    count = index.entries.count()
    # Many changes at once (a first build, a big merge): re-deciding every status in one
    # pass is cheaper than following each change's links.
    bulk = len(removed) + len(added) > max(_BULK, count // 10)
    # Into an empty index, every row is new: statuses are decided before the rows go in.
    first = bulk and not removed and count == 0
    if bulk:
        db.execute("PRAGMA cache_size=-65536")  # 64 MB of pages while building
    if not first:
        index.index_tables()
    gone = _Gone(rows_where(db, "file", removed), records_where(db, "file", removed))
    touched: set[str] = set()
    if not bulk:
        seeds = {r.id for r in gone.rows} | {r.target for r in gone.records}
        touched = component(db, seeds)
    _remove(db, removed, gone.rows)
    dirty = {r.category for r in gone.rows if r.status == ACTIVE}
    start = int(db.execute("SELECT coalesce(max(n), 0) FROM entries").fetchone()[0]) + 1
    read = _read(index, added, first, start)
    if read.ranked is not None:
        _first_statuses(index, read, start)
        return
    _insert_rows(db, read.found, start, None)
    _insert_words(db, read.found, read.words)
    new_ids = {item.columns[1] for item in read.found}
    # What is said about a fact changes how the index shows it (retired, stale, re-pinned):
    # the categories of the facts named by records that came or went are rendered again.
    named = sorted({r.target for r in gone.records} | {r.target for r in read.notes})
    if bulk:
        dirty |= restatus(db, rows(db, ""))
    else:
        touched |= component(db, new_ids | set(named))
        dirty |= restatus(db, rows_where(db, "id", sorted(touched)))
        dirty |= {r.category for r in rows_where(db, "id", named) if r.status is not None}
    bump(db, dirty)


def _remove(db: sqlite3.Connection, removed: Sequence[str], gone: Sequence[Row]) -> None:
    """Delete the removed files' rows, texts, links, anchors and records."""
    for chunk in chunks(removed):
        held = marks(len(chunk))
        ns = [r.n for r in gone if r.file in chunk]
        db.execute(f"DELETE FROM files WHERE name IN ({held})", [name_key(n) for n in chunk])
        if ns:
            numbers = marks(len(ns))
            db.execute(f"DELETE FROM entries WHERE n IN ({numbers})", ns)
            db.execute(f"DELETE FROM sup WHERE n IN ({numbers})", ns)
            db.execute(f"DELETE FROM fts WHERE rowid IN ({numbers})", ns)
            db.execute(f"DELETE FROM anchors WHERE n IN ({numbers})", ns)
            forget(db, ns)
        db.execute(f"DELETE FROM records WHERE file IN ({held})", chunk)
    _count(db, -len(gone), -sum(r.length for r in gone))


def _read(index: Index, added: Sequence[str], first: bool, start: int) -> _Read:
    """Read and prepare the added files (half of a big batch in a forked worker), writing
    each part's files-table records, texts (and, into an empty index, rows) as it comes."""
    db, store = index.db, index.store
    found: list[Prepared] = []
    notes: list[RecordRow] = []
    words: set[str] = set()
    ranked: Task[list[str | None]] | None = None
    big = len(added) >= PARALLEL  # worth a second process
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

            retired = retired_all(db) | {r.target for r in notes if r.kind == "retire"}
            ranked = Task(statuses, [*found, *entries], retired, fork=None if big else False)
        _insert_texts(db, entries, start + len(found))
        if first:  # taken as active meanwhile: the few others are marked once decided
            _insert_rows(db, entries, start + len(found), ACTIVE)
        found += entries
        words |= part.words
    db.executemany(
        "INSERT OR REPLACE INTO records(file, id, kind, target, other, created, data) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        notes,
    )
    return _Read(found, notes, words, ranked)


def _first_statuses(index: Index, read: _Read, start: int) -> None:
    """A first build: the rows went in as active; mark the others once decided."""
    assert read.ranked is not None
    db = index.db
    decided = read.ranked.result()
    db.executemany(
        "UPDATE entries SET status = ? WHERE n = ?",
        [(s, n) for n, s in enumerate(decided, start) if s != ACTIVE],
    )
    _insert_words(db, read.found, read.words)
    index.index_tables()
    bump(db, {i.columns[2] for i, s in zip(read.found, decided, strict=True) if s == ACTIVE})


def _insert_texts(db: sqlite3.Connection, prepared: Sequence[Prepared], start: int) -> None:
    """The search text, links and anchors of entries that will be rows ``start``, …"""
    sup, fts, anchors = [], [], []
    for n, item in enumerate(prepared, start):
        sup += [(n, item.columns[1], target) for target in item.supersedes]
        anchors += [(n, item.columns[1], *anchor) for anchor in item.anchors]
        fts.append((n, item.body, item.meta))
    db.executemany("INSERT INTO sup(n, src, dst) VALUES (?, ?, ?)", sup)
    db.executemany(
        "INSERT INTO anchors(n, id, path, blob, first, last, span) VALUES (?, ?, ?, ?, ?, ?, ?)",
        anchors,
    )
    db.executemany("INSERT INTO fts(rowid, body, meta) VALUES (?, ?, ?)", fts)


def _insert_rows(
    db: sqlite3.Connection, prepared: Sequence[Prepared], start: int, status: str | None
) -> None:
    """The rows of entries whose texts are in, as rows ``start``, …, all with one status
    (None: to be decided)."""
    db.executemany(
        "INSERT INTO entries(n, file, id, category, created, confidence, key, digest, words, "
        "length, data, anchors, opens, closes, status) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [(n, *item.columns, status) for n, item in enumerate(prepared, start)],
    )


def _insert_words(
    db: sqlite3.Connection, prepared: Sequence[Prepared], words: Iterable[str]
) -> None:
    """The words met in the entries just taken in (for spelling), and their count."""
    db.executemany(
        "INSERT OR IGNORE INTO words(word, len) VALUES (?, ?)",
        [(w, len(w)) for w in long_words(words)],
    )
    _count(db, len(prepared), sum(item.columns[8] for item in prepared))


def _count(db: sqlite3.Connection, documents: int, length: int) -> None:
    db.execute(
        "UPDATE meta SET v = v + (CASE k WHEN 'documents' THEN ? ELSE ? END) "
        "WHERE k IN ('documents', 'total_length')",
        (documents, length),
    )


def bump(db: sqlite3.Connection, dirty: set[str], *, facts: bool = True) -> None:
    """A new generation of the index, with the categories whose views it makes dirty; with
    ``facts`` (not when only lines were counted) a new generation of the facts too."""
    generation = int(db.execute("SELECT v FROM meta WHERE k = 'generation'").fetchone()[0]) + 1
    db.execute("UPDATE meta SET v = ? WHERE k = 'generation'", (generation,))
    if facts:
        db.execute("UPDATE meta SET v = v + 1 WHERE k = 'facts'")
    db.executemany(
        "INSERT OR REPLACE INTO dirty(category, generation) VALUES (?, ?)",
        [(c, generation) for c in sorted(dirty)],
    )
