"""The semantic extra's part of the read model (``index.vectors``): each entry's vector, and
the tokenizer's pieces and merges a query is encoded with.

Vectors are derived like every other table: made from the entry files, dropped with their row
(``ingest._remove``), gone with the database. Each entry is embedded once, by the first command
that needs vectors after it arrived (a write never waits for the model). They are kept in two
tables, so that the scan over every entry reads 32 bytes a row:

- ``codes``: the 256-bit sign code, compared with the query's by Hamming distance;
- ``vecs``: the float16 vector, read only for the preselected candidates.

``meta.vector_model`` names the model they came from; another model (an upgrade, a reinstall)
empties both tables and the tokenizer's, and they are made again. ``meta.vectors`` counts the
rows, so a command knows without a scan whether any entry waits for its vector.
"""

from __future__ import annotations

import contextlib
import marshal
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, NamedTuple

from memsite.core import bpe, vectors
from memsite.core.schema import ACTIVE
from memsite.storage.entries import entry_from_row
from memsite.storage.readmodel.rows import Row, chunks, marks, rows_where, transaction

if TYPE_CHECKING:
    from memsite.storage.embedding import Model
    from memsite.storage.readmodel.facade import Index

TABLES = ("codes", "vecs", "pieces", "merges", "packs")
# Facts embedded in plain Python rather than with numpy: importing it and the tokenizer costs
# ~250 ms, a fact's vector in plain Python ~2 ms (the search after one `add` measured 784 ms
# the numpy way at 10k, against 255 ms for a search).
FEW = 64
_PENDING = "SELECT n, file, data FROM entries WHERE n NOT IN (SELECT n FROM codes) ORDER BY n"
_NEWEST = (
    "SELECT n, file, data FROM entries WHERE n > (SELECT coalesce(max(n), 0) FROM codes) ORDER BY n"
)


def embedded_text(content: str, tags: Sequence[str], key: str | None) -> str:
    """What a fact's vector is made from: its content, then its tags and key as words."""
    words = [content, *(t.replace("-", " ") for t in tags), (key or "").replace("-", " ")]
    return bpe.bounded(" ".join(words))


class Vectors:
    """The read model's vectors, and the tokenizer's tables, for one model."""

    def __init__(self, index: Index) -> None:
        self.index = index

    def prepare(self, model: Model, most: int | None = None) -> int:
        """Bring the vectors up to date with the entries (and the tables with ``model``): the
        number of entries embedded now, or -1 with nothing done when more than ``most`` wait
        (a prompt hook answers in moments). The vectors are computed outside any transaction
        and written a chunk at a time, each in a short one that keeps only the rows still
        waiting: the database's write lock is never held while the model works."""
        db = self.index.db
        if self.ready(model) and self.index.meta("vectors") == self.index.meta("documents"):
            return 0
        if not self.ready(model):
            with transaction(db):
                if not self.ready(model):
                    self._renew(db, model)
        pending = self._pending(db)
        if most is not None and len(pending) > most:
            return -1
        self.index.announce(
            len(pending),
            f"embedding {len(pending):,} entries for search by meaning (once; later commands "
            "embed only new facts)…",
        )
        texts = []
        for _, file, data in pending:
            entry = entry_from_row(marshal.loads(data), file)
            texts.append(embedded_text(entry.content, entry.tags, entry.key))
        rows = model.embed_many(texts) if len(texts) > FEW else self._embed_few(model, texts)
        made = 0
        for chunk in chunks(pending, 1000):
            packed = [next(rows) for _ in chunk]
            with transaction(db):
                made += _insert(db, chunk, packed)
        return made

    def ready(self, model: Model) -> bool:
        """Are the tokenizer's tables and the vectors ``model``'s?"""
        return bool(self.index.meta("vector_model") == model.name)

    def _pending(self, db: sqlite3.Connection) -> list[tuple[int, str, bytes]]:
        """The entries without a vector: usually those added last (row numbers grow), found
        by a range on the row number; else by comparing the tables (~300 ms at 100k)."""
        missing = int(self.index.meta("documents")) - int(self.index.meta("vectors") or 0)
        tail = db.execute(_NEWEST).fetchall()
        return tail if len(tail) == missing else db.execute(_PENDING).fetchall()

    @staticmethod
    def _renew(db: sqlite3.Connection, model: Model) -> None:
        """Drop what another model made; take in ``model``'s tokenizer tables."""
        for table in TABLES:
            db.execute(f"DELETE FROM {table}")
        tokenizer = model.tokenizer()
        vocab = tokenizer["model"]["vocab"]
        db.executemany("INSERT INTO pieces(piece, id) VALUES (?, ?)", vocab.items())
        db.executemany(
            "INSERT INTO merges(pair, rank) VALUES (?, ?)",
            (
                (pair if isinstance(pair, str) else " ".join(pair), rank)
                for rank, pair in enumerate(tokenizer["model"]["merges"])
            ),
        )
        specials = {t["content"]: t["id"] for t in tokenizer.get("added_tokens", [])}
        db.execute(
            "INSERT OR REPLACE INTO meta(k, v) VALUES ('vector_specials', ?)",
            (marshal.dumps(specials),),
        )
        db.execute("INSERT OR REPLACE INTO meta(k, v) VALUES ('vector_model', ?)", (model.name,))
        db.execute("INSERT OR REPLACE INTO meta(k, v) VALUES ('vectors', 0)")

    def _embed_few(self, model: Model, texts: Sequence[str]) -> Iterator[tuple[bytes, bytes]]:
        for text in texts:  # bounded already (``embedded_text``), as embed_many takes them
            yield vectors.pack(self._vector(model, text))

    def query(self, model: Model, text: str) -> list[float]:
        """``text``'s unit vector, encoded with the tokenizer's tables (``core.bpe``): its
        start, long runs cut (``bpe.bounded``); a lone surrogate (JSON allows one) is a "?"."""
        return self._vector(model, bpe.bounded(text.encode("utf-8", "replace").decode("utf-8")))

    def _vector(self, model: Model, text: str) -> list[float]:
        db = self.index.db

        def lookup(table: str, column: str, key: str) -> Callable[[str], int | None]:
            sql = f"SELECT {column} FROM {table} WHERE {key} = ?"

            def find(value: str) -> int | None:
                row = db.execute(sql, (value,)).fetchone()
                return int(row[0]) if row else None

            return find

        specials = _specials(self.index.meta("vector_specials"))
        ids = bpe.encode(
            text,
            specials,
            lookup("pieces", "id", "piece"),
            lookup("merges", "rank", "pair"),
        )
        return vectors.mean_unit(model.rows(ids))

    def nearest(
        self, query: Sequence[float], count: int, category: str | None, include_all: bool
    ) -> list[tuple[Row, float]]:
        """The ``count`` entries nearest ``query``, with their cosines, best first:
        preselected by sign code (``Pack``), ranked on their vectors. The pack holds every
        status: the preselection widens until enough of its rows have one wanted."""
        pack = self._pack()
        if category is None:
            allowed = b"\1" * len(pack.kinds)
        else:
            kind = pack.categories.get(category, -1)
            allowed = bytes(k == kind for k in pack.kinds)
        code = vectors.sign_code(query)
        wanted = max(count, vectors.PRESELECT)
        while True:
            places = vectors.nearest_codes(code, pack.codes, allowed, wanted)
            chosen = self._shown([pack.numbers[i] for i in places], include_all)
            if len(chosen) >= vectors.PRESELECT // 2 or len(places) < wanted:
                break
            wanted *= 4
        scored: list[tuple[int, float]] = []
        for chunk in chunks(chosen[: vectors.PRESELECT]):
            found = self.index.db.execute(
                f"SELECT n, vec FROM vecs WHERE n IN ({marks(len(chunk))})", chunk
            )
            scored += [(n, vectors.cosine(query, vectors.unpack(vec))) for n, vec in found]
        scored.sort(key=lambda pair: (-pair[1], pair[0]))
        best = scored[:count]
        held = {row.n: row for row in rows_where(self.index.db, "n", [n for n, _ in best])}
        return [(held[n], cosine) for n, cosine in best if n in held]

    def _shown(self, numbers: list[int], include_all: bool) -> list[int]:
        """``numbers`` (in order) whose entry is active (``include_all``: has a status)."""
        kept: set[int] = set()
        for chunk in chunks(numbers):
            # By row number only: with the status in the WHERE, SQLite walks the status index.
            sql = f"SELECT n, status FROM entries WHERE n IN ({marks(len(chunk))})"
            for n, status in self.index.db.execute(sql, chunk):
                if status == ACTIVE or (include_all and status is not None):
                    kept.add(n)
        return [n for n in numbers if n in kept]

    def _pack(self) -> Pack:
        """Every vector's row number, sign code and category, read as one value: a scan of
        the codes table costs ~170 ms at 100k rows, this ~25 ms. A row's code and category
        never change (a changed file is a new row), so new rows are appended to the kept
        pack; a removed vector or another model makes it again."""
        db = self.index.db
        stamp = f"{self.index.meta('vector_model')}:{self.index.meta('vector_removals')}"
        row = db.execute("SELECT stamp, data FROM packs WHERE k = 'codes'").fetchone()
        pack = _unpacked(row[1]) if row is not None and row[0] == stamp else None
        last = pack.numbers[-1] if pack is not None and pack.numbers else 0
        added = db.execute(_PACKED + " WHERE c.n > ? ORDER BY c.n", (last,)).fetchall()
        if pack is not None and not added:
            return pack
        pack = pack or Pack([], [], [], {})
        for n, code, category in added:
            pack.numbers.append(n)
            pack.codes.append(int.from_bytes(code, "little"))
            pack.kinds.append(pack.categories.setdefault(category, len(pack.categories)))
        # Kept for the next search unless another process holds the database (no waiting
        # for it: this is only a cache) or it is read-only.
        (wait,) = db.execute("PRAGMA busy_timeout").fetchone()
        db.execute("PRAGMA busy_timeout = 0")
        try:
            with contextlib.suppress(sqlite3.OperationalError), transaction(db):
                db.execute(
                    "INSERT OR REPLACE INTO packs(k, stamp, data) VALUES ('codes', ?, ?)",
                    (stamp, marshal.dumps(tuple(pack))),
                )
        finally:
            db.execute(f"PRAGMA busy_timeout = {int(wait)}")
        return pack


_PACKED = "SELECT c.n, c.code, e.category FROM codes c JOIN entries e ON e.n = c.n"


class Pack(NamedTuple):
    """The sign codes, as ``Vectors._pack`` keeps them (in row-number order)."""

    numbers: list[int]  # row numbers
    codes: list[int]
    kinds: list[int]  # index of the category in ``categories``
    categories: dict[str, int]


def _unpacked(data: object) -> Pack | None:
    """A kept pack, or None when it is not one (the database is ours, its shapes checked)."""
    try:
        loaded = marshal.loads(data) if isinstance(data, bytes) else None
    except (EOFError, ValueError, TypeError):
        return None
    if not isinstance(loaded, tuple) or len(loaded) != len(Pack._fields):
        return None
    pack = Pack(*loaded)
    lists = (pack.numbers, pack.codes, pack.kinds)
    if not all(isinstance(x, list) for x in lists) or not isinstance(pack.categories, dict):
        return None
    return pack if len({*map(len, lists)}) == 1 else None


def _specials(held: object) -> dict[str, int]:
    """The special tokens kept in meta (none when the value is not what was written)."""
    try:
        found = marshal.loads(held) if isinstance(held, bytes) else {}
    except (EOFError, ValueError, TypeError):
        return {}
    if isinstance(found, dict) and all(
        isinstance(k, str) and isinstance(v, int) for k, v in found.items()
    ):
        return found
    return {}


def _insert(
    db: sqlite3.Connection,
    chunk: Sequence[tuple[int, str, bytes]],
    packed: list[tuple[bytes, bytes]],
) -> int:
    """Write the vectors of the rows in ``chunk`` that still hold the file they were made from
    and still have none (another process may have written them, or removed the row, since);
    how many were written."""
    ns = [n for n, _, _ in chunk]
    held = marks(len(ns))
    sql = (
        f"SELECT n, file FROM entries e WHERE n IN ({held}) "
        "AND NOT EXISTS (SELECT 1 FROM codes c WHERE c.n = e.n)"
    )
    waiting = dict(db.execute(sql, ns).fetchall())
    rows = [
        (n, code, vec)
        for (n, file, _), (code, vec) in zip(chunk, packed, strict=True)
        if waiting.get(n) == file
    ]
    db.executemany("INSERT INTO codes(n, code) VALUES (?, ?)", [(n, c) for n, c, _ in rows])
    db.executemany("INSERT INTO vecs(n, vec) VALUES (?, ?)", [(n, v) for n, _, v in rows])
    db.execute("UPDATE meta SET v = v + ? WHERE k = 'vectors'", (len(rows),))
    return len(rows)


def forget(db: sqlite3.Connection, numbers: Sequence[int]) -> None:
    """Drop the vectors of removed rows (``ingest._remove``), keeping the count right."""
    gone = 0
    for chunk in chunks(numbers):
        held = marks(len(chunk))
        gone += db.execute(f"DELETE FROM codes WHERE n IN ({held})", chunk).rowcount
        db.execute(f"DELETE FROM vecs WHERE n IN ({held})", chunk)
    if gone:
        db.execute("UPDATE meta SET v = v - ? WHERE k = 'vectors'", (gone,))
        db.execute("UPDATE meta SET v = v + 1 WHERE k = 'vector_removals'")
