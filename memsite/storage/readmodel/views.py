"""What the derived views are made from (``index.views``): the bullets of compacted/ and
index.md, rendered once per active entry and kept in its row with the index bullet's cost, and
the bookkeeping of which categories' views a change made dirty.

A bullet's cost (``index_cost``) is its estimate when rendered, and its exact count (the more
of ``cl100k`` and ``o200k``, kept beside it) once ``count_tokens`` has counted it: an explicit
`memsite compact` asks; nothing on a hot path does (loading the tokenizers costs ~0.07 s, and
counting ~15 µs a line: see ``core.tokens``).
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from memsite.core.schema import ACTIVE, CONFIDENCE_RANK
from memsite.storage.readmodel.ingest import bump
from memsite.storage.readmodel.queries import IN_ORDER
from memsite.storage.readmodel.rows import chunks, marks, rows_where, transaction

if TYPE_CHECKING:
    from memsite.core.budget import IndexItem
    from memsite.core.entry import Entry
    from memsite.counting import CountingChild
    from memsite.storage.readmodel.facade import Index

Shown = tuple[str, str, int]  # view bullet, index bullet, index cost


class Views:
    """The views' side of the read model."""

    def __init__(self, index: Index) -> None:
        self.index = index
        self._shown_here: dict[str, Shown] = {}  # bullets a read-only cache could not keep

    def dirty(self) -> tuple[int, bool, list[str]]:
        """(generation, every view dirty?, categories whose views are dirty)."""
        db = self.index.sync()
        generation = int(self.index.meta("generation"))
        everything = bool(self.index.meta("all_dirty"))
        names = [r[0] for r in db.execute("SELECT category FROM dirty ORDER BY category")]
        return generation, everything, names

    def written(self, generation: int) -> None:
        """The views now reflect ``generation``: forget what was dirty up to it."""
        db = self.index.db
        with contextlib.suppress(sqlite3.OperationalError):  # read-only: rebuilt next time
            db.execute("DELETE FROM dirty WHERE generation <= ?", (generation,))
            if int(self.index.meta("generation")) == generation:
                self.index.set_meta(all_dirty=0)

    def reading(self) -> contextlib.AbstractContextManager[None]:
        """Reads inside see one state of the index (synced first, the bullets rendered)."""
        db = self.index.sync()
        self._show()
        return transaction(db, write=False)

    def index_items(self) -> dict[str, list[IndexItem]]:
        """Category → its active entries as index items, newest first (compaction's order)."""
        from memsite.core.budget import IndexItem

        db = self.index.sync()
        self._show()
        found: dict[str, list[IndexItem]] = {}
        for category, entry_id, cost, low in db.execute(
            "SELECT category, id, index_cost, confidence = ? FROM entries "
            f"INDEXED BY entries_order WHERE status = ? {IN_ORDER}",
            (CONFIDENCE_RANK["low"], ACTIVE),
        ):
            items = found.get(category)
            if items is None:
                items = found[category] = []
            if cost is None:
                cost = self._shown(entry_id)[2]
            items.append(IndexItem(entry_id, "", cost, low))
        return found

    def index_summary(self) -> dict[str, tuple[int, int]] | None:
        """Category → (active entries, the least index cost among them), for ``Ranked``;
        None when an active entry has no kept cost (a cache that could not keep them)."""
        db = self.index.sync()
        self._show()
        unshown = db.execute(
            "SELECT 1 FROM entries INDEXED BY entries_unshown WHERE index_cost IS NULL AND "
            "status = ? LIMIT 1",
            (ACTIVE,),
        ).fetchone()
        if unshown is not None:
            return None
        sql = "SELECT category, count(*), min(index_cost) FROM entries INDEXED BY entries_status "
        found = db.execute(sql + "WHERE status = ? GROUP BY category", (ACTIVE,))
        return {category: (count, least) for category, count, least in found}

    def index_items_of(self, ids: Collection[str]) -> dict[str, tuple[str, IndexItem]]:
        """Active entry id → (its category, its index item), for these ids, in compaction's
        order."""
        from memsite.core.budget import IndexItem

        db = self.index.sync()
        found = []
        for chunk in chunks(sorted(ids)):
            found += db.execute(
                "SELECT id, category, index_cost, confidence = ?, created, confidence FROM "
                f"entries INDEXED BY entries_id WHERE status = ? AND id IN ({marks(len(chunk))})",
                (CONFIDENCE_RANK["low"], ACTIVE, *chunk),
            ).fetchall()
        found.sort(key=lambda r: (r[4], r[5], r[0]), reverse=True)
        return {i: (c, IndexItem(i, "", cost, low)) for i, c, cost, low, _, _ in found}

    def ranked(
        self,
        category: str,
        skip: Collection[str],
        costs: Mapping[str, int],
        tail: Sequence[IndexItem],
        floor: int,
    ) -> Ranked:
        """The category's active entries as index.md offers them (``core.budget.Stream``),
        found by the index as the budget asks (see ``Ranked``)."""
        return Ranked(self.index.db, category, skip, costs, tail, floor)

    def index_bullets(self, ids: Sequence[str]) -> dict[str, str]:
        """The index bullets of these (active) entries."""
        self._show()
        found: dict[str, str] = {}
        for chunk in chunks(ids):
            for entry_id, bullet in self.index.db.execute(
                f"SELECT id, index_bullet FROM entries INDEXED BY entries_id "
                f"WHERE status = ? AND id IN ({marks(len(chunk))})",
                (ACTIVE, *chunk),
            ):
                found[entry_id] = bullet if bullet is not None else self._shown(entry_id)[1]
        return found

    def redacted_bullets(
        self, ids: Collection[str], make: Callable[[Entry], str]
    ) -> dict[str, str]:
        """Active entry id → its index bullet as the full secret scan redacts it, for these
        ids (entries the scan flagged): ``make(entry)`` makes one the first time it is asked
        for, and it is kept in the entry's row (a file replaced under its name is a new row,
        made again). The scan's library costs ~0.15 s to import, which every compaction of a
        store with one flagged fact paid. A cache that cannot be written keeps them for this
        call only."""
        db = self.index.sync()
        found: dict[str, str] = {}
        missing: list[int] = []
        for chunk in chunks(sorted(ids)):
            for n, entry_id, bullet in db.execute(
                "SELECT n, id, full_bullet FROM entries INDEXED BY entries_id "
                f"WHERE status = ? AND id IN ({marks(len(chunk))})",
                (ACTIVE, *chunk),
            ):
                if bullet is None:
                    missing.append(n)
                else:
                    found[entry_id] = bullet
        fresh = [(make(row.entry()), row.n, row.id) for row in rows_where(db, "n", missing)]
        found.update((entry_id, bullet) for bullet, _, entry_id in fresh)
        if not fresh:
            return found
        # Asked inside a read of one state (``reading``), the write joins that transaction.
        held = contextlib.nullcontext() if db.in_transaction else transaction(db)
        with contextlib.suppress(sqlite3.OperationalError), held:
            done = [(bullet, n) for bullet, n, _ in fresh]
            db.executemany("UPDATE entries SET full_bullet = ? WHERE n = ?", done)
        return found

    def counting_child(self) -> CountingChild | None:
        """A forked child loading the tokenizers for :meth:`count_tokens` while this process
        takes in entries/ (start it before the sync), when there will be lines to count: the
        folder changed since the index looked, or an active entry is not counted yet. None
        when there will not be, or no child can be forked."""
        from memsite.counting import CountingChild, prestarted

        early = prestarted()  # started at the process's start (``counting.prestart``)
        try:
            if self.index.fresh() and not self._uncounted("LIMIT 1"):
                if early is not None:
                    early.close()
                return None
        except sqlite3.Error:
            pass  # a damaged index: the sync rebuilds it, and there will be lines
        return early or CountingChild.start()

    def _uncounted(self, more: str) -> list[tuple[int, str, str | None]]:
        """(row, category, index bullet) of the active entries not counted yet, then ``more``
        SQL (shown or not: a bullet not shown yet is NULL)."""
        return self.index.db.execute(
            "SELECT n, category, index_bullet FROM entries INDEXED BY entries_uncounted "
            f"WHERE o200k IS NULL AND status = ? {more}",
            (ACTIVE,),
        ).fetchall()

    def count_tokens(self, child: CountingChild | None = None) -> int:
        """Count exactly, in one batch, the index bullets of the active entries not counted yet:
        each one's cost becomes its count, and its category's views are dirty again (a new
        generation). How many were counted; 0 when bpe-openai is not installed (the estimates
        stay). Loads the tokenizers (~0.07 s) when there is anything to count, unless
        ``child`` (:meth:`counting_child`) has them loaded already: it counts a batch smaller
        than ``PARALLEL`` (a bigger one is split over two processes here), and is done with
        either way."""
        from memsite.storage.readmodel.prepare import PARALLEL, count_lines

        db = self.index.sync()
        self._show()
        rows = self._uncounted("AND index_cost IS NOT NULL")  # those shown
        lines = [r[2] or "" for r in rows]
        counted = None
        if child is not None and rows and len(rows) < PARALLEL:
            counted = child.count(lines)
        elif child is not None:
            child.close()
        if not rows:
            return 0
        if counted is None:
            counted = count_lines(lines)
        if counted is None:
            return 0
        with contextlib.suppress(sqlite3.OperationalError), transaction(db):
            db.executemany(
                "UPDATE entries SET cl100k = ?, o200k = ?, index_cost = ? WHERE n = ?",
                [(a, b, max(a, b), r[0]) for r, (a, b) in zip(rows, counted, strict=True)],
            )
            bump(db, {r[1] for r in rows}, facts=False)  # the facts are as they were
            return len(rows)
        return 0  # a read-only cache: the estimates stay

    def view_bullets(self, category: str) -> list[str]:
        """The bullets of a category's view, in compaction's order."""
        db = self.index.sync()
        self._show()
        return [
            bullet if bullet is not None else self._shown(entry_id)[0]
            for bullet, entry_id in db.execute(
                "SELECT view_bullet, id FROM entries INDEXED BY entries_order "
                f"WHERE status = ? AND category = ? {IN_ORDER}",
                (ACTIVE, category),
            )
        ]

    def _show(self) -> None:
        """Render and keep the views' bullets of the active entries that have none yet: a
        build leaves them to the first view or index.md made (most commands never show them,
        and entries that are not active may never need them)."""
        db = self.index.db
        if db.in_transaction:  # inside a read: ``_shown`` renders what is missing
            return
        rows = [
            (n, file, data)
            for n, file, data in db.execute(
                "SELECT n, file, data FROM entries INDEXED BY entries_unshown "
                "WHERE index_cost IS NULL AND status = ?",
                (ACTIVE,),
            )
            if file not in self._shown_here
        ]
        if not rows:
            return
        from memsite.storage.readmodel.prepare import render

        shown = render([(file, data) for _, file, data in rows])
        try:
            with transaction(db):
                db.executemany(
                    "UPDATE entries SET view_bullet = ?, index_bullet = ?, index_cost = ? "
                    "WHERE n = ? AND file = ?",
                    [
                        (*bullets, n, file)
                        for (n, file, _), bullets in zip(rows, shown, strict=True)
                    ],
                )
        except sqlite3.OperationalError:  # a read-only cache: rendered again in each run
            self._shown_here.update((r[1], b) for r, b in zip(rows, shown, strict=True))

    def _shown(self, entry_id: str) -> Shown:
        """(view bullet, index bullet, index cost) of the active entry ``entry_id``, rendered
        here (the cache could not keep them, or an entry came in since ``_show``)."""
        from memsite.storage.readmodel.prepare import render

        file, data = self.index.db.execute(
            "SELECT file, data FROM entries WHERE id = ? AND status = ?", (entry_id, ACTIVE)
        ).fetchone()
        found = self._shown_here.get(file)
        if found is None:
            found = self._shown_here[file] = render([(file, data)])[0]
        return found


class _Back:
    """A sort key in reverse: the index's places sort newest first."""

    __slots__ = ("key",)

    def __init__(self, key: tuple[float, int, str]) -> None:
        self.key = key

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Back) and self.key == other.key

    def __lt__(self, other: _Back) -> bool:
        return other.key < self.key

    def __hash__(self) -> int:
        return hash(self.key)


class Ranked:
    """One category's active entries as index.md offers them, newest first with low
    confidence last, then ``tail`` (the facts to come after all others, in memory): each ask
    is one search of the index for the next entry after a place that costs at most so much,
    so a budget of a few thousand tokens reads a few hundred rows, not the category. Entries
    in ``skip`` are passed over; ``costs`` holds the costs of the entries whose line is not
    their kept bullet; ``floor``: no entry offered costs less."""

    def __init__(
        self,
        db: sqlite3.Connection,
        category: str,
        skip: Collection[str],
        costs: Mapping[str, int],
        tail: Sequence[IndexItem],
        floor: int,
    ) -> None:
        self.db, self.category, self.skip, self.costs, self.tail = db, category, skip, costs, tail
        self.floor = floor
        special = sorted(costs)
        self._sql = [
            "SELECT id, index_cost, created, confidence FROM entries INDEXED BY entries_order "
            "WHERE status = ? AND category = ? AND (confidence = ?) = ? AND (index_cost <= ? "
            f"OR id IN ({marks(len(special))})) {after}{IN_ORDER} LIMIT 1"
            for after in ("", "AND (created, confidence, id) < (?, ?, ?) ")
        ]
        self._params = (ACTIVE, category, CONFIDENCE_RANK["low"])
        self._special = special

    def next_fitting(self, after: Any, room: int) -> tuple[Any, IndexItem] | None:
        from memsite.core.budget import IndexItem

        segment, key = (0, None) if after is None else after
        while segment < 2:
            params = [*self._params, segment, room, *self._special]
            sql = self._sql[key is not None]
            row = self.db.execute(sql, params + list(key.key if key else ())).fetchone()
            if row is None:
                segment, key = segment + 1, None
                continue
            entry_id, cost, created, confidence = row
            key = _Back((created, confidence, entry_id))
            cost = self.costs.get(entry_id, cost)
            if entry_id not in self.skip and cost <= room:
                return (segment, key), IndexItem(entry_id, "", cost, bool(segment))
        start = key + 1 if segment == 2 and isinstance(key, int) else 0
        for place in range(start, len(self.tail)):
            if self.tail[place].cost <= room:
                return (2, place), self.tail[place]
        return None
