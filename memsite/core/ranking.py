"""Ranked search: the index finds candidates, these rules put them in order. Pure.

A query is analysed like the entries (``core.stem``: word tokens, Porter stems); only the query
is expanded, so the index and the portal's analysis stay as they are. Common words ("how",
"the", "do") are dropped unless the query has nothing else. Each word also stands, at reduced
weight, for its alternatives in a developer thesaurus (``core.thesaurus``: test/spec, pr/pull
request, k8s/kubernetes, ...), for compounds the index holds (``dark mode`` for darkmode or
dark_mode; a snake_case word for its parts) and for indexed terms that share its stem's start
(deploy, deploying, deployment). A word with no exact match in the index also matches indexed
words within edit distance 1 (2 for words of 8+ characters; a swap of neighbours counts as 1),
so ``pnmp`` finds pnpm, and the nearest of them brings its own thesaurus alternatives.

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
from functools import cache
from typing import NamedTuple

from memsite.core import thesaurus
from memsite.core.stem import stem
from memsite.core.text import normalize, word_tokens

K1 = 1.2
B = 0.75
META_WEIGHT = 2.0  # a term in the tags or key counts like two in the content
FUZZY_WEIGHT = {1: 0.6, 2: 0.35}
PREFIX_WEIGHT = 0.5  # a term sharing the stem's start: deploy / deploying / deployment
PREFIX_MIN = 4
PREFIX_MAX_TERMS = 30
SYNONYM_WEIGHT = 0.7  # a thesaurus alternative (core.thesaurus)
COMPOUND_WEIGHT = 0.8  # "dark mode" for darkmode or dark_mode, and the parts of snake_case
COVERAGE_POWER = 1.5
PROXIMITY_BONUS = 0.25
RECENCY_WEIGHT = 0.15
RECENCY_HALF_LIFE_DAYS = 180.0
# Function words and the words questions are put in ("how should we"); the tails of
# contractions (what's, don't, I'm) are tokens of their own.
STOPWORDS = frozenset(
    """a about an and are as at be by can could d do does don for from has have how i if in into
    is it its ll m me my of on or our re s should so t that the their them then there these this
    to us ve was we what when where which who why will with would you your""".split()
)


class Term(NamedTuple):
    """One query word and the analysed terms that stand for it, with their weights."""

    word: str
    alternatives: Mapping[str, float]


class Stats(NamedTuple):
    """What BM25 needs of the whole index."""

    documents: int
    average_length: float
    frequency: Mapping[str, int]

    def idf(self, term: str) -> float:
        found = self.frequency.get(term, 0)
        return math.log(1 + (self.documents - found + 0.5) / (found + 0.5))


def query_words(query: str) -> list[str]:
    """The distinct words of a query, common words dropped unless nothing else is left (and
    words that stem to a common word, as ``one`` stems to ``on``: the index cannot tell them
    apart)."""
    words = list(dict.fromkeys(_tokens(query)))
    common = _stopword_stems()
    kept = [w for w in words if w not in STOPWORDS and stem(w) not in common]
    return kept or words


def _tokens(query: str) -> list[str]:
    return word_tokens(thesaurus.rewrite(normalize(query)))


@cache
def _stopword_stems() -> frozenset[str]:
    return frozenset(stem(w) for w in STOPWORDS)


def _compounds(words: Sequence[str]) -> dict[str, set[str]]:
    """Index terms a query's words may be written as: neighbours joined (``dark mode`` as
    darkmode or dark_mode) and the parts of a snake_case word, each with the words it serves."""
    found: dict[str, set[str]] = {}
    for first, second in itertools.pairwise(words):
        for joined in (stem(first + second), f"{first}_{second}"):
            found.setdefault(joined, set()).update((first, second))
    for word in words:
        for part in word.split("_") if "_" in word else ():
            if part:
                found.setdefault(stem(part), set()).add(word)
    return found


def plan(
    query: str,
    frequency: Callable[[set[str]], Mapping[str, int]],
    nearby: Callable[[int, int], Iterable[str]],
    prefixed: Callable[[str, int], Iterable[str]] | None = None,
) -> list[Term]:
    """The query's terms: each word's stem, its thesaurus alternatives, the compounds it may be
    part of, indexed terms that share the stem's start, and for a word the index lacks, its
    near spellings (whose own thesaurus alternatives follow, so ``pull reqeust`` finds pr).

    ``frequency`` gives document counts of stems; ``nearby(length, spread)`` the indexed words
    of about that length; ``prefixed(prefix, limit)`` indexed terms that start with a prefix.
    """
    words = query_words(query)
    stems = {w: stem(w) for w in words}
    compounds = _compounds(words)
    known = frequency(set(stems.values()) | set(compounds))
    fuzzy = {w: _near(w, nearby) for w in words if not known.get(stems[w]) and len(w) >= 3}
    tokens = _tokens(query)
    spelled = [stem(t) for t in tokens]
    corrected = [_best(fuzzy[t], stem(t)) if t in fuzzy else stem(t) for t in tokens]
    related = thesaurus.expansions(spelled, _stopword_stems())
    for term, extra in thesaurus.expansions(corrected, _stopword_stems()).items():
        related.setdefault(term, set()).update(extra)
    planned = []
    for word in words:
        root = stems[word]
        alternatives = {root: 1.0}
        for term, weight in sorted(fuzzy.get(word, {}).items()):
            alternatives[term] = max(alternatives.get(term, 0.0), weight)
        for base in sorted({root, _best(fuzzy.get(word, {}), root)}):
            for other in sorted(related.get(base, ())):
                weight = SYNONYM_WEIGHT * alternatives.get(base, 0.0)
                alternatives[other] = max(alternatives.get(other, 0.0), weight)
        for term, served in sorted(compounds.items()):
            if word in served and known.get(term):
                alternatives.setdefault(term, COMPOUND_WEIGHT)
        if prefixed is not None and len(root) >= PREFIX_MIN:
            start = root[: max(PREFIX_MIN, len(root) - 1)]
            for term in prefixed(start, PREFIX_MAX_TERMS):
                alternatives.setdefault(term, PREFIX_WEIGHT)
        planned.append(Term(word, alternatives))
    return planned


def _near(word: str, nearby: Callable[[int, int], Iterable[str]]) -> dict[str, float]:
    """Stems of the indexed words within edit distance of ``word``, weighted by distance."""
    limit = 2 if len(word) >= 8 else 1
    mine = _bigrams(word)
    # An edit changes at most 3 of a word's bigrams (a swap: 3): a cheap filter first.
    need = len(mine) - 3 * limit
    found: dict[str, float] = {}
    for other in nearby(len(word), limit):
        if need > 0 and len(mine & _bigrams(other)) < need:
            continue
        distance = within_distance(word, other, limit)
        if distance:
            target = stem(other)
            found[target] = max(found.get(target, 0.0), FUZZY_WEIGHT[distance])
    return found


def _best(near: Mapping[str, float], default: str) -> str:
    """The nearest spelling (ties: the first in order), or ``default`` when there is none."""
    return min(near, key=lambda t: (-near[t], t)) if near else default


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
