"""Ranked search: BM25 over content, tags and key, typo tolerance, a mild recency factor. Pure.

Query terms are OR-ed. A term with no exact match in the vocabulary also matches words within
edit distance 1 (2 for terms of 8+ characters; a swap of neighbours counts as 1) at reduced
weight. Scores are multiplied by ``1 + 0.15 * 0.5 ** (age_days / 180)``, so recency only breaks
near-ties. Equal scores fall back to the order of compaction (newest, confidence, id).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from memsite.core.entry import CONFIDENCE_RANK, Entry
from memsite.core.text import normalize, word_tokens

K1 = 1.2
B = 0.75
FIELD_BOOST = 2  # a term in the tags or key counts like two in the content
FUZZY_WEIGHT = {1: 0.6, 2: 0.35}
RECENCY_WEIGHT = 0.15
RECENCY_HALF_LIFE_DAYS = 180.0


SEP = "|"  # tokens are runs of word characters, so they never hold it


@dataclass
class Corpus:
    """Searchable units in columns: entries (``ref`` = id) and daily-log lines (no ref).

    ``tokens`` packs each unit's tokens as ``|a||b|`` so that membership and term counts are
    plain substring operations; ``length`` is the token count.
    """

    tokens: list[str] = field(default_factory=list)
    length: list[int] = field(default_factory=list)
    created: list[float] = field(default_factory=list)
    ref: list[str] = field(default_factory=list)
    confidence: list[int] = field(default_factory=list)
    file: list[str] = field(default_factory=list)
    line: list[int] = field(default_factory=list)
    text: list[str] = field(default_factory=list)

    def add(
        self,
        tokens: Sequence[str],
        created: float,
        *,
        ref: str = "",
        confidence: int = 0,
        file: str = "",
        line: int = 0,
        text: str = "",
    ) -> None:
        self.tokens.append(pack_tokens(tokens))
        self.length.append(len(tokens))
        self.created.append(created)
        self.ref.append(ref)
        self.confidence.append(confidence)
        self.file.append(file)
        self.line.append(line)
        self.text.append(text)


@dataclass(frozen=True)
class Hit:
    """A matching unit of a corpus (``index`` into its columns) and its score."""

    index: int
    score: float
    ref: str
    file: str
    line: int
    text: str


def pack_tokens(tokens: Iterable[str]) -> str:
    return "".join(f"{SEP}{t}{SEP}" for t in tokens)


def entry_tokens(entry: Entry) -> tuple[str, ...]:
    """Content tokens, then tag and key tokens (counted ``FIELD_BOOST`` times)."""
    tokens = word_tokens(entry.normalized)
    extra: list[str] = []
    for name in (*entry.tags, *([entry.key] if entry.key else [])):
        parts = word_tokens(name)
        extra.extend(dict.fromkeys([name, *parts]))
    return (*tokens, *(extra * FIELD_BOOST))


def entry_corpus(entries: Iterable[Entry]) -> Corpus:
    corpus = Corpus()
    for entry in entries:
        corpus.add(
            entry_tokens(entry),
            entry.created.timestamp(),
            ref=entry.id,
            confidence=CONFIDENCE_RANK[entry.confidence],
            file=entry.filename,
        )
    return corpus


def query_terms(query: str) -> list[str]:
    return list(dict.fromkeys(word_tokens(normalize(query))))


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


def expand_terms(terms: Sequence[str], vocabulary: set[str]) -> dict[str, float]:
    """Each query term with its weight, plus fuzzy neighbours for terms with no exact match."""
    weights: dict[str, float] = {}
    by_length: dict[int, list[str]] | None = None
    for term in terms:
        if term in vocabulary:
            weights[term] = max(weights.get(term, 0.0), 1.0)
            continue
        if len(term) < 3:
            continue
        limit = 2 if len(term) >= 8 else 1
        if by_length is None:
            by_length = {}
            for word in vocabulary:
                by_length.setdefault(len(word), []).append(word)
        for length in range(len(term) - limit, len(term) + limit + 1):
            for word in by_length.get(length, ()):
                distance = within_distance(term, word, limit)
                if distance:
                    weight = FUZZY_WEIGHT[distance]
                    weights[word] = max(weights.get(word, 0.0), weight)
    return weights


def rank(corpus: Corpus, query: str, now: datetime, limit: int | None = 20) -> list[Hit]:
    """Units of ``corpus`` that match ``query``, best first."""
    terms = query_terms(query)
    n = len(corpus.tokens)
    if not terms or not n:
        return []
    if all(_anywhere(t, corpus) for t in terms):
        vocabulary = set(terms)
    else:
        vocabulary = set(SEP.join(corpus.tokens).split(SEP)) - {""}
    weights = expand_terms(terms, vocabulary)
    if not weights:
        return []
    avgdl = sum(corpus.length) / n or 1.0
    needles = {t: f"{SEP}{t}{SEP}" for t in weights}
    frequency = dict.fromkeys(weights, 0)
    matching: list[tuple[int, dict[str, int]]] = []
    for index, packed in enumerate(corpus.tokens):
        counts = {t: packed.count(needle) for t, needle in needles.items() if needle in packed}
        if counts:
            matching.append((index, counts))
            for term in counts:
                frequency[term] += 1
    idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in frequency.items()}
    today = now.timestamp()
    scored = []
    for index, counts in matching:
        norm = K1 * (1 - B + B * corpus.length[index] / avgdl)
        score = sum(weights[t] * idf[t] * tf * (K1 + 1) / (tf + norm) for t, tf in counts.items())
        age_days = max((today - corpus.created[index]) / 86400, 0.0)
        score *= 1 + RECENCY_WEIGHT * 0.5 ** (age_days / RECENCY_HALF_LIFE_DAYS)
        scored.append((round(score, 6), index))
    scored.sort(key=lambda pair: _order(corpus, *pair), reverse=True)
    if limit is not None:
        scored = scored[:limit]
    return [
        Hit(i, score, corpus.ref[i], corpus.file[i], corpus.line[i], corpus.text[i])
        for score, i in scored
    ]


def _anywhere(term: str, corpus: Corpus) -> bool:
    needle = f"{SEP}{term}{SEP}"
    return any(needle in packed for packed in corpus.tokens)


def _order(corpus: Corpus, score: float, i: int) -> tuple[float, float, int, str, str, int]:
    return (
        score,
        corpus.created[i],
        corpus.confidence[i],
        corpus.ref[i],
        corpus.file[i],
        -corpus.line[i],
    )
