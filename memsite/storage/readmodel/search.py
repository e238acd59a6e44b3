"""Search over the read model (``index.search``): the candidates of a query, the candidates of
a near duplicate, and the statistics the ranking needs. The SQL each query runs is built by a
function of its own (``*_sql``), apart from running it, so a test can read it."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from memsite.core.schema import ACTIVE
from memsite.storage.readmodel.rows import COLUMNS, Candidate, Row, any_of, chunks, marks, quote

if TYPE_CHECKING:
    from memsite.storage.readmodel.facade import Index

_COMMON_MIN = 500  # an entry count below which no word is too common to take every holder of
_ENTRY_COLUMNS = ", ".join("e." + c for c in COLUMNS.split(", "))


def matching_sql(
    query: str, category: str | None, include_all: bool, limit: int, by_rank: bool
) -> tuple[str, list[Any]]:
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
    return sql, [*params, limit]


def near_sql(
    category: str, rarest: Sequence[str], low: float, high: float
) -> tuple[str, list[Any]]:
    """Active entries of ``category`` holding one of the ``rarest`` terms, with between
    ``low`` and ``high`` distinct words."""
    query = " OR ".join(map(quote, rarest))
    sql = (
        f"SELECT {_ENTRY_COLUMNS} FROM fts "
        "CROSS JOIN entries e ON e.n = fts.rowid WHERE fts MATCH ? AND e.category = ? "
        "AND e.status = ? AND e.words BETWEEN ? AND ?"
    )
    return sql, [f"body : ({query})", category, ACTIVE, math.floor(low), math.ceil(high)]


def candidate_rows_sql(count: int) -> str:
    """The rows and analysed texts of ``count`` row numbers."""
    return (
        f"SELECT {_ENTRY_COLUMNS}, f.body, f.meta FROM entries e JOIN fts f ON f.rowid = e.n "
        f"WHERE e.n IN ({marks(count)})"
    )


class Search:
    """The read model as search sees it."""

    def __init__(self, index: Index) -> None:
        self.index = index

    def documents(self) -> int:
        """Indexed entries, of every status."""
        return int(self.index.meta("documents"))

    def average_length(self) -> float:
        """Mean number of analysed terms per entry (content, tags and key)."""
        documents = self.documents()
        return int(self.index.meta("total_length")) / documents if documents else 0.0

    def document_frequency(self, stems: set[str]) -> dict[str, int]:
        """How many entries hold each analysed term (in content or tags and key)."""
        found: dict[str, int] = {}
        for chunk in chunks(sorted(stems)):
            sql = f"SELECT term, doc FROM fts_terms WHERE term IN ({marks(len(chunk))})"
            for term, docs in self.index.db.execute(sql, chunk):
                found[term] = docs
        return found

    def terms_with_prefix(self, prefix: str, limit: int) -> list[str]:
        """Analysed terms in the index that start with ``prefix``, at most ``limit``."""
        sql = "SELECT term FROM fts_terms WHERE term >= ? AND term < ? LIMIT ?"
        return [r[0] for r in self.index.db.execute(sql, (prefix, prefix + "\U0010ffff", limit))]

    def words_near(self, length: int, spread: int) -> list[str]:
        """Indexed words (raw, unstemmed) whose length is within ``spread`` of ``length``."""
        sql = "SELECT word FROM words WHERE len BETWEEN ? AND ?"
        return [r[0] for r in self.index.db.execute(sql, (length - spread, length + spread))]

    def near_candidates(
        self, category: str, tokens: frozenset[str], threshold: float, exclude: set[str]
    ) -> list[tuple[str, frozenset[str]]]:
        """Active entries of ``category`` that can reach ``threshold`` Jaccard with ``tokens``.

        Exact, not a heuristic: a set B with J(A, B) ≥ t shares at least ceil(t·|A|) of A's
        tokens, so it contains at least one of any |A| - ceil(t·|A|) + 1 of them. The query
        asks FTS5 for the rarest that many (short posting lists), then filters on size.
        """
        from memsite.core.similarity import token_set
        from memsite.core.stem import stem

        db = self.index.sync()
        if not tokens:
            return []
        stems = {t: stem(t) for t in tokens}
        frequency = self.document_frequency(set(stems.values()))
        need = len(tokens) - math.ceil(threshold * len(tokens) - 1e-9) + 1
        rarest = sorted(tokens, key=lambda t: (frequency.get(stems[t], 0), t))[:need]
        low, high = len(tokens) * threshold, len(tokens) / threshold
        sql, params = near_sql(category, [stems[t] for t in rarest], low, high)
        found = [Row(*r) for r in db.execute(sql, params)]
        return [(r.id, token_set(r.entry().normalized)) for r in found if r.id not in exclude]

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
        db = self.index.sync()
        groups = [list(dict.fromkeys(g)) for g in alternatives if g]
        if not groups:
            return []
        frequency = self.document_frequency({t for g in groups for t in g})
        common = max(_COMMON_MIN, self.documents() // 50)
        rare = [g for g in groups if sum(frequency.get(t, 0) for t in g) <= common]
        found: dict[int, None] = {}
        filters = (category, include_all, limit)
        if len(groups) > 1:
            # ranking what every word matches costs little when one of the words is rare
            by_rank = bool(rare)
            found.update(self._matching(" AND ".join(map(any_of, groups)), *filters, by_rank))
        if rare:
            every = len(found)
            found.update(self._matching(" OR ".join(map(any_of, rare)), *filters, True))
            if every < limit:
                usual = [g for g in groups if g not in rare]
                found.update(self._holding_usual(usual, frequency, common, filters))
        if not found:  # only common words, never together: the newest entries holding one
            found.update(self._matching(" OR ".join(map(any_of, groups)), *filters, False))
        out: list[Candidate] = []
        for chunk in chunks(list(found)):
            for r in db.execute(candidate_rows_sql(len(chunk)), chunk):
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
        documents = max(self.documents(), 1)
        expected = documents * math.prod(
            min(sum(frequency.get(t, 0) for t in g) / documents, 1.0) for g in groups
        )
        query = " AND ".join(map(any_of, groups))
        return self._matching(query, *filters, expected <= common)

    def _matching(
        self, query: str, category: str | None, include_all: bool, limit: int, by_rank: bool
    ) -> dict[int, None]:
        sql, params = matching_sql(query, category, include_all, limit, by_rank)
        return dict.fromkeys(r[0] for r in self.index.db.execute(sql, params))
