"""Reading the entries and records tables: one object each (``index.entries``,
``index.records``), every method brings the index up to date first (``Index.sync``)."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING

from memsite.core.entry import Entry
from memsite.core.records import Record
from memsite.core.schema import ACTIVE
from memsite.storage.entries import InvalidFile
from memsite.storage.readmodel.prepare import PARALLEL, RecordRow, content_digest, name_key
from memsite.storage.readmodel.rows import (
    ALL_RECORDS,
    Row,
    chunks,
    marks,
    records_where,
    rows,
    rows_sql,
    rows_where,
    transaction,
    unkey,
)
from memsite.storage.readmodel.statuses import component, retired, retired_all

if TYPE_CHECKING:
    from memsite.core.anchors import Anchor
    from memsite.storage.readmodel.facade import Index

# Compaction's order (newest, confidence, id) over the index that holds it.
IN_ORDER = "ORDER BY created DESC, confidence DESC, id DESC"


class Entries:
    """The entries table: one row per entry file (a file repeating an id has no status)."""

    def __init__(self, index: Index) -> None:
        self.index = index

    def count(self) -> int:
        """Indexed entries, of every status (as the index was last synced)."""
        return int(self.index.meta("documents"))

    def has_id(self, entry_id: str) -> bool:
        db = self.index.sync()
        return db.execute("SELECT 1 FROM entries WHERE id = ?", (entry_id,)).fetchone() is not None

    def match_id(self, ref: str) -> str:
        """The one id ``ref`` names (a full id, or a prefix of 4+ hex characters of one id);
        the errors of ``ids.id_reference`` and ``ids.choose_id`` otherwise."""
        from memsite.core.ids import choose_id, id_reference

        value = id_reference(ref)
        if self.has_id(value):
            return value
        db = self.index.db
        span = (value, value + "\U0010ffff")
        sql = "SELECT DISTINCT id FROM entries WHERE id >= ? AND id < ? ORDER BY id LIMIT 11"
        matches = [r[0] for r in db.execute(sql, span)]
        total = None
        if len(matches) > 10:
            sql = "SELECT count(DISTINCT id) FROM entries WHERE id >= ? AND id < ?"
            total = int(db.execute(sql, span).fetchone()[0])
        return choose_id(ref, matches, total)

    def by_id(self, entry_id: str) -> Entry | None:
        """The entry with this id (the newest file when a hostile copy repeats it)."""
        found = rows(self.index.sync(), "WHERE id = ?", (entry_id,))
        chosen = [r for r in found if r.status is not None] or found
        if not chosen:
            return None
        return max((r.entry() for r in chosen), key=lambda e: (e.order_key, e.filename))

    def all(self, known: dict[str, tuple[int, Entry]] | None = None) -> list[Entry]:
        """Every valid entry (duplicated ids included: compaction decides between them).

        ``known`` (file → the hash of its row's data, its entry), kept between reads by a
        long-lived reader (``serve``), gives an unchanged row its earlier ``Entry`` object,
        which spares rebuilding it and keeps caches keyed by it warm; it is updated in place.
        """
        found_rows = rows(self.index.sync(), "")
        if known is None:
            return [r.entry() for r in found_rows]
        found: dict[str, tuple[int, Entry]] = {}
        entries = []
        for row in found_rows:
            mark = hash(row.data)
            last = known.get(row.file)
            entry = last[1] if last is not None and last[0] == mark else row.entry()
            found[row.file] = (mark, entry)
            entries.append(entry)
        known.clear()
        known.update(found)
        return entries

    def with_ids(self, ids: set[str]) -> list[Entry]:
        return [r.entry() for r in rows_where(self.index.sync(), "id", sorted(ids))]

    def component(self, entry_id: str) -> list[Entry]:
        """The entries whose status depends on ``entry_id``'s (for `read`'s chain)."""
        db = self.index.sync()
        return [r.entry() for r in rows_where(db, "id", sorted(component(db, {entry_id})))]

    def statuses(self) -> dict[str, str | None]:
        """Entry file → its status (None: the file repeats an id another file holds)."""
        return dict(self.index.sync().execute("SELECT file, status FROM entries"))

    def statuses_of(self, ids: Iterable[str]) -> dict[str, str]:
        """Entry id → its status, for the ids the index holds."""
        found = rows_where(self.index.sync(), "id", sorted(set(ids)))
        return {r.id: r.status for r in found if r.status}

    def invalid(self) -> list[InvalidFile]:
        sql = "SELECT name, error FROM files WHERE error IS NOT NULL ORDER BY name"
        return [InvalidFile(unkey(name), error) for name, error in self.index.sync().execute(sql)]

    def active_in_order(self, category: str | None = None) -> Iterator[Row]:
        """Active entries in compaction's order, read as needed."""
        db = self.index.sync()
        where, params = "WHERE status = ?", [ACTIVE]
        if category is not None:
            where += " AND category = ?"
            params.append(category)
        for values in db.execute(rows_sql(f"{where} {IN_ORDER}", "entries_order"), params):
            yield Row(*values)

    def active_rows(self, category: str, limit: int) -> list[int]:
        """The row numbers of ``category``'s first ``limit`` active entries in compaction's
        order (what ``active_in_order`` would read first, without reading it)."""
        where = "WHERE status = ? AND category = ?"
        sql = f"SELECT n FROM entries INDEXED BY entries_order {where} {IN_ORDER} LIMIT ?"
        return [n for (n,) in self.index.sync().execute(sql, (ACTIVE, category, limit))]

    def files(self) -> set[str]:
        """The file name of every entry (any status)."""
        return {unkey(f) for (f,) in self.index.sync().execute("SELECT file FROM entries")}

    def file_stats(self) -> dict[str, tuple[int, int, int]]:
        """File name → (inode, size, mtime) as the index last read it, for every file of
        entries/: a file replaced under its name (a checkout, another tool) changes them."""
        sql = "SELECT name, ino, size, mtime FROM files"
        return {unkey(n): (i, s, m) for n, i, s, m in self.index.sync().execute(sql)}

    def active_files(self) -> list[tuple[str, str]]:
        """(id, file name) of every active entry, in no particular order."""
        sql = "SELECT id, file FROM entries WHERE status = ?"
        return [(i, unkey(f)) for i, f in self.index.sync().execute(sql, (ACTIVE,))]

    def active_in_files(self, names: Iterable[str]) -> dict[str, str]:
        """Active entry id → its file name, for the entries of these files."""
        db = self.index.sync()
        found: dict[str, str] = {}
        for chunk in chunks(sorted({name_key(n) for n in names})):
            sql = f"SELECT id, file FROM entries WHERE status = ? AND file IN ({marks(len(chunk))})"
            found.update((i, unkey(f)) for i, f in db.execute(sql, (ACTIVE, *chunk)))
        return found

    def flagged(self, scan: Callable[[str], str]) -> dict[str, tuple[str, str]]:
        """Active entry id → (file name, why) for the entries whose text ``scan`` flags
        (``core.trust.content_flag``: "" for plain text). A row's text is scanned once, the
        first time it is read active, and the answer is kept in the row: a file replaced
        under its name is a new row, scanned again. A cache that cannot be written keeps the
        answers for this call only. Scanning is in two processes from ``PARALLEL`` rows (a
        first read of 100k entries)."""
        db = self.index.sync()
        sql = rows_sql("WHERE flag IS NULL AND status = ?", "entries_unflagged")
        fresh = [Row(*r) for r in db.execute(sql, (ACTIVE,))]
        found: dict[str, tuple[str, str]] = {}
        if fresh:
            answers = _scan(fresh, scan)
            found = {
                r.id: (unkey(r.file), why) for r, why in zip(fresh, answers, strict=True) if why
            }
            with contextlib.suppress(sqlite3.OperationalError), transaction(db):
                done = [(why, r.n) for r, why in zip(fresh, answers, strict=True)]
                db.executemany("UPDATE entries SET flag = ? WHERE n = ?", done)
        sql = "SELECT id, file, flag FROM entries INDEXED BY entries_flagged "
        for entry_id, name, why in db.execute(sql + "WHERE flag <> '' AND status = ?", (ACTIVE,)):
            found[entry_id] = (unkey(name), why)
        return found

    def anchored_active(self) -> list[Entry]:
        """Active entries with anchors, newest first."""
        sql = "WHERE status = ? AND anchors > 0 ORDER BY created DESC, id DESC"
        found = rows(self.index.sync(), sql, (ACTIVE,), using="entries_anchored")
        return [r.entry() for r in found]

    def active_anchors(self) -> dict[str, list[Anchor]]:
        """Active entry id → the anchors its file records (in the file's order)."""
        from memsite.core.anchors import Anchor

        found: dict[str, list[Anchor]] = {}
        anchored = self.index.sync().execute(
            "SELECT a.id, a.path, a.blob, a.first, a.last, a.span FROM entries AS e "
            "INDEXED BY entries_anchored CROSS JOIN anchors AS a ON a.n = e.n "
            "WHERE e.status = ? AND e.anchors > 0 ORDER BY a.rowid",
            (ACTIVE,),
        )
        for entry_id, path, blob, first, last, span in anchored:
            lines = (first, last) if first is not None else None
            found.setdefault(entry_id, []).append(Anchor(path, blob, lines, span))
        return found

    def windows(self) -> list[tuple[str, float | None, float | None]]:
        """(id, opens, closes) of every active entry with a validity window (timestamps;
        None: that side is open), read from its columns (no entry is rebuilt)."""
        found = self.index.sync().execute(
            "SELECT id, opens, closes FROM entries INDEXED BY entries_windowed "
            "WHERE status = ? AND (opens IS NOT NULL OR closes IS NOT NULL) ORDER BY id",
            (ACTIVE,),
        )
        return found.fetchall()

    def categories(self) -> list[str]:
        """The categories entries are in (configured or not)."""
        return [r[0] for r in self.index.sync().execute("SELECT DISTINCT category FROM entries")]

    def tally(self) -> dict[tuple[str, str], int]:
        """(category, status) → number of entries (files repeating an id not counted)."""
        counted = self.index.sync().execute(
            "SELECT category, status, count(*) FROM entries WHERE status IS NOT NULL "
            "GROUP BY category, status"
        )
        return {(category, status): number for category, status, number in counted}

    def confirmed_dates(self) -> list[tuple[str, str, float]]:
        """(id, category, when written or last verified) of every active entry."""
        db = self.index.sync()
        verified = dict(
            db.execute(
                "SELECT target, max(created) FROM records WHERE kind = 'verify' GROUP BY target"
            )
        )
        return [
            (entry_id, category, max(created, verified.get(entry_id, created)))
            for entry_id, category, created in db.execute(
                "SELECT id, category, created FROM entries WHERE status = ?", (ACTIVE,)
            )
        ]

    def _saying(self, category: str, normalized: str) -> Iterator[Row]:
        """The entries of ``category`` whose normalized content is ``normalized`` (digests
        found by the index, confirmed by comparing the texts)."""
        sql = "WHERE category = ? AND digest = ?"
        params = (category, content_digest(normalized))
        for row in rows(self.index.sync(), sql, params, using="entries_dup"):
            if row.entry().normalized == normalized:
                yield row

    def holding(self, category: str, normalized: str) -> str | None:
        """The id of an entry of ``category`` (any status) whose normalized text is this."""
        return next((row.id for row in self._saying(category, normalized)), None)

    def same_content(self, category: str, normalized: str, exclude: set[str]) -> Row | None:
        """An active entry of ``category`` whose normalized content is ``normalized``."""
        found = self._saying(category, normalized)
        return next((r for r in found if r.status == ACTIVE and r.id not in exclude), None)


def _scan(found: Sequence[Row], scan: Callable[[str], str]) -> list[str]:
    """``scan`` of each row's text, half of a big batch in a forked second process."""
    from memsite.parallel import in_halves

    return in_halves(lambda rows: [scan(row.entry().content) for row in rows], found, PARALLEL)


class Records:
    """The records table: what is said about facts (verify, retire, relate)."""

    def __init__(self, index: Index) -> None:
        self.index = index

    def all(self) -> list[Record]:
        """Every valid record, oldest first (then by file name)."""
        return [RecordRow(*r).record() for r in self.index.sync().execute(ALL_RECORDS)]

    def any(self) -> bool:
        return self.index.sync().execute("SELECT 1 FROM records LIMIT 1").fetchone() is not None

    def about(self, ids: Iterable[str]) -> list[Record]:
        """The records naming any of ``ids`` as target or as the other end of a link, oldest
        first."""
        db = self.index.sync()
        wanted = sorted(set(ids))
        found = {r.file: r for r in records_where(db, "target", wanted)}
        found.update((r.file, r) for r in records_where(db, "other", wanted))
        return [r.record() for r in sorted(found.values(), key=lambda r: (r.created, r.file))]

    def approvals(self) -> list[tuple[str, str]]:
        """(record file name, approved fact id) of every approve record."""
        sql = "SELECT file, target FROM records WHERE kind = 'approve'"
        return list(self.index.sync().execute(sql))

    def retired(self, ids: Iterable[str]) -> set[str]:
        """The ids among ``ids`` that a retire record names."""
        return retired(self.index.db, ids)

    def retired_all(self) -> set[str]:
        """The ids that any retire record names."""
        return retired_all(self.index.db)

    def repinned(self, ids: Iterable[str]) -> dict[str, Record]:
        """Entry id → its latest verification that pinned anchors again, for ``ids``."""
        db = self.index.sync()
        found: dict[str, Record] = {}
        verifies = [r for r in records_where(db, "target", sorted(set(ids))) if r.kind == "verify"]
        for row in sorted(verifies, key=lambda r: (r.created, r.file)):
            if b"anchors" in row.data:
                record = row.record()
                if record.anchors:
                    found[record.target] = record
        return found
