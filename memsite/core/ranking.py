"""Ranked search: the index finds candidates, these rules put them in order. Pure.

A query is analysed like the entries (``core.stem``: word tokens, Porter stems). Common words
("how", "the", "do") are dropped unless the query has nothing else. Each word also stands for
its synonyms from a short list of developer words (test/spec, repo/repository, ...) and for
indexed terms that share its stem's start (deploy, deploying, deployment), both at reduced
weight. A word with no exact match in the index also matches indexed words within edit distance
1 (2 for words of 8+ characters; a swap of neighbours counts as 1), so ``pnmp`` finds pnpm.

A candidate's score is BM25 over its content terms and its tag and key terms (which count
``META_WEIGHT`` times), times the share of the query it covers (each word weighted by its IDF,
so a fact that misses only a common word loses little), plus a bonus for query words that
stand next to each other in the fact, times a mild recency factor
(``1 + 0.15 * 0.5 ** (age_days / 180)``) that only breaks near-ties. Equal scores fall back to
the order of compaction (newest, confidence, id).
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from memsite.core.stem import stem
from memsite.core.text import normalize, word_tokens

K1 = 1.2
B = 0.75
META_WEIGHT = 2.0  # a term in the tags or key counts like two in the content
FUZZY_WEIGHT = {1: 0.6, 2: 0.35}
PREFIX_WEIGHT = 0.5  # a term sharing the stem's start: deploy / deploying / deployment
PREFIX_MIN = 4
PREFIX_MAX_TERMS = 30
SYNONYM_WEIGHT = 0.7
# Words developers use for the same thing; each group's words stand in for one another.
SYNONYMS = (
    "test tests spec specs",
    "doc docs documentation",
    "repo repository",
    "dependency dependencies dep deps package packages",
    "remove delete drop",
    "config configuration settings",
    "llm ai",
    "js javascript",
    "ts typescript",
    "db database",
    "env environment",
    "dir directory folder",
    "run execute",
    "pr prs",
    "ci pipeline",
    "lint linter linting",
    "format formatter formatting",
    "bug issue",
    "error failure",
    "install setup",
    "branch branches",
)
COVERAGE_POWER = 1.5
PROXIMITY_BONUS = 0.25
RECENCY_WEIGHT = 0.15
RECENCY_HALF_LIFE_DAYS = 180.0
STOPWORDS = frozenset(
    """a about an and are as at be by can could do does for from has have how i if in into is
    it its me my of on or our should so that the their them then there these this to us was we
    what when where which who why will with would you your""".split()
)


@dataclass(frozen=True)
class Term:
    """One query word and the analysed terms that stand for it, with their weights."""

    word: str
    alternatives: Mapping[str, float]


@dataclass(frozen=True)
class Stats:
    """What BM25 needs of the whole index."""

    documents: int
    average_length: float
    frequency: Mapping[str, int]

    def idf(self, term: str) -> float:
        found = self.frequency.get(term, 0)
        return math.log(1 + (self.documents - found + 0.5) / (found + 0.5))


def query_words(query: str) -> list[str]:
    """The distinct words of a query, common words dropped unless nothing else is left."""
    words = list(dict.fromkeys(word_tokens(normalize(query))))
    kept = [w for w in words if w not in STOPWORDS]
    return kept or words


def _synonyms() -> dict[str, list[str]]:
    table: dict[str, list[str]] = {}
    for group in SYNONYMS:
        words = group.split()
        for word in words:
            table[word] = [w for w in words if w != word]
    return table


_SYNONYM_TABLE = _synonyms()


def plan(
    query: str,
    frequency: Callable[[set[str]], Mapping[str, int]],
    nearby: Callable[[int, int], Iterable[str]],
    prefixed: Callable[[str, int], Iterable[str]] | None = None,
) -> list[Term]:
    """The query's terms: each word's stem, its synonyms, indexed terms that share the stem's
    start, and for a word the index lacks, its near spellings.

    ``frequency`` gives document counts of stems; ``nearby(length, spread)`` the indexed words
    of about that length; ``prefixed(prefix, limit)`` indexed terms that start with a prefix.
    """
    words = query_words(query)
    stems = {w: stem(w) for w in words}
    known = frequency(set(stems.values()))
    planned = []
    for word in words:
        alternatives = {stems[word]: 1.0}
        for other in _SYNONYM_TABLE.get(word, ()):
            alternatives.setdefault(stem(other), SYNONYM_WEIGHT)
        root = stems[word]
        if prefixed is not None and len(root) >= PREFIX_MIN:
            start = root[: max(PREFIX_MIN, len(root) - 1)]
            for term in prefixed(start, PREFIX_MAX_TERMS):
                alternatives.setdefault(term, PREFIX_WEIGHT)
        if not known.get(stems[word]) and len(word) >= 3:
            limit = 2 if len(word) >= 8 else 1
            mine = _bigrams(word)
            # An edit changes at most 3 of a word's bigrams (a swap: 3): a cheap filter first.
            need = len(mine) - 3 * limit
            for other in nearby(len(word), limit):
                if need > 0 and len(mine & _bigrams(other)) < need:
                    continue
                distance = within_distance(word, other, limit)
                if distance:
                    target = stem(other)
                    weight = FUZZY_WEIGHT[distance]
                    alternatives[target] = max(alternatives.get(target, 0.0), weight)
        planned.append(Term(word, alternatives))
    return planned


def score(
    terms: Sequence[Term],
    body: Sequence[str],
    meta: Sequence[str],
    stats: Stats,
    age_days: float,
) -> float:
    """How well a unit with these analysed ``body`` and ``meta`` terms answers the query."""
    if not terms:
        return 0.0
    body_counts = Counter(body)
    meta_counts = Counter(meta)
    length = len(body) + len(meta)
    norm = K1 * (1 - B + B * length / (stats.average_length or 1.0))
    total = 0.0
    matched = 0.0
    weight_all = 0.0
    positions: list[set[str]] = []
    for term in terms:
        best = 0.0
        hits: set[str] = set()
        for alternative, weight in term.alternatives.items():
            tf = body_counts.get(alternative, 0) + META_WEIGHT * meta_counts.get(alternative, 0)
            if tf:
                hits.add(alternative)
                value = weight * stats.idf(alternative) * tf * (K1 + 1) / (tf + norm)
                best = max(best, value)
        importance = stats.idf(next(iter(term.alternatives)))
        weight_all += importance
        if best:
            matched += importance
        total += best
        positions.append(hits)
    if not matched:
        return 0.0
    total *= math.pow(matched / weight_all, COVERAGE_POWER)
    total *= 1 + PROXIMITY_BONUS * _adjacent_pairs(positions, body)
    recency = 1 + RECENCY_WEIGHT * math.pow(0.5, max(age_days, 0.0) / RECENCY_HALF_LIFE_DAYS)
    return total * recency


def _adjacent_pairs(hits: Sequence[set[str]], body: Sequence[str]) -> int:
    """How many neighbouring query words appear next to each other in the body."""
    found = 0
    for first, second in itertools.pairwise(hits):
        if first and second:
            found += any(a in first and b in second for a, b in itertools.pairwise(body))
    return found


def _bigrams(word: str) -> set[str]:
    return {word[i : i + 2] for i in range(len(word) - 1)}


def within_distance(a: str, b: str, limit: int) -> int | None:
    """Edit distance between a and b if it is at most ``limit`` (adjacent swaps cost 1)."""
    if abs(len(a) - len(b)) > limit:
        return None
    if a == b:
        return 0
    if limit == 1:
        return 1 if _one_edit(a, b) else None
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i] + [0] * len(b)
        best = current[0]
        for j, cb in enumerate(b, 1):
            cost = 0 if ca == cb else 1
            value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                value = min(value, previous2[j - 2] + 1)
            current[j] = value
            best = min(best, value)
        if best > limit:
            return None
        previous2, previous = previous, current
    return previous[-1] if previous[-1] <= limit else None


def _one_edit(a: str, b: str) -> bool:
    if len(a) == len(b):
        diffs = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
        if len(diffs) == 1:
            return True
        return (
            len(diffs) == 2
            and diffs[1] == diffs[0] + 1
            and a[diffs[0]] == b[diffs[1]]
            and a[diffs[1]] == b[diffs[0]]
        )
    if len(a) > len(b):
        a, b = b, a
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return a[i:] == b[i + 1 :]
    return True
