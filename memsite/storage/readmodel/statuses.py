"""Statuses kept incrementally. The status of an entry depends only on its *component*: the
entries linked to it by supersession (either way), equal content in its category, or its
category and key. A change re-runs the pure compaction rules over the components it touches
(:func:`restatus`), and says which categories' active entries changed.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from memsite.core.schema import ACTIVE
from memsite.storage.readmodel.rows import CHUNK, Row, chunks, marks


def component(db: sqlite3.Connection, seeds: set[str]) -> set[str]:
    """Every id linked to ``seeds`` by supersession, equal content or category+key."""
    seen = set(seeds)
    frontier = list(seeds)
    while frontier:
        found: set[str] = set()
        for chunk in chunks(frontier):
            held = marks(len(chunk))
            found.update(
                r[0] for r in db.execute(f"SELECT dst FROM sup WHERE src IN ({held})", chunk)
            )
            found.update(
                r[0] for r in db.execute(f"SELECT src FROM sup WHERE dst IN ({held})", chunk)
            )
            groups = db.execute(
                f"SELECT category, digest, key FROM entries WHERE id IN ({held})", chunk
            ).fetchall()
            for part in chunks(groups, CHUNK // 2):
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


def restatus(db: sqlite3.Connection, rows: list[Row]) -> set[str]:
    """Re-run compaction over ``rows`` (whole components); the categories that changed."""
    from memsite.core.compaction import compact

    if not rows:
        return set()
    rows_retired = retired(db, [r.id for r in rows])
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
    db.executemany("UPDATE entries SET status = ? WHERE n = ?", changes)
    return dirty


def retired(db: sqlite3.Connection, ids: Iterable[str]) -> set[str]:
    """The ids among ``ids`` that a retire record names."""
    found: set[str] = set()
    ids = sorted(set(ids))
    for chunk in chunks(ids):
        found.update(
            r[0]
            for r in db.execute(
                f"SELECT target FROM records WHERE kind = 'retire' "
                f"AND target IN ({marks(len(chunk))})",
                chunk,
            )
        )
    return found


def retired_all(db: sqlite3.Connection) -> set[str]:
    """The ids that any retire record names."""
    rows = db.execute("SELECT target FROM records WHERE kind = 'retire'")
    return {r[0] for r in rows}
