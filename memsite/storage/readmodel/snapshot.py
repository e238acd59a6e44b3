"""A read-only look at the index file on a connection of its own: what a forked child reads (a
child must never use its parent's connection)."""

from __future__ import annotations

import marshal
import sqlite3
from collections.abc import Iterator
from pathlib import Path

from memsite.core.entry import Entry
from memsite.core.records import Record
from memsite.storage.entries import entry_from_row
from memsite.storage.readmodel.prepare import RecordRow
from memsite.storage.readmodel.rows import ALL_RECORDS


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
        """Every valid record, oldest first (then by file name), as ``index.records.all``."""
        return [RecordRow(*r).record() for r in self.db.execute(ALL_RECORDS)]
