"""Near-duplicate detection: Jaccard similarity of word-token sets, with candidate filtering. Pure.

A single new entry is checked with a size filter (two sets can only reach similarity t if their
sizes are within a factor t of each other). All pairs of a store (`review`) use prefix filtering:
with tokens sorted rarest first, two sets with similarity ≥ t must share a token among the
first ``|A| - ceil(t·|A|) + 1`` of each, so only sets that meet in an inverted index of these
prefixes are compared.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Sequence

from memsite.core.text import word_tokens

NEAR_DUPLICATE_THRESHOLD = 0.8


def jaccard(a: frozenset[str] | set[str], b: frozenset[str] | set[str]) -> float:
    if not a and not b:
        return 1.0
    inter = len(a & b)
    return inter / (len(a) + len(b) - inter)


def token_set(normalized: str) -> frozenset[str]:
    return frozenset(word_tokens(normalized))


def similar_to(
    tokens: frozenset[str],
    candidates: Sequence[tuple[str, frozenset[str]]],
    threshold: float = NEAR_DUPLICATE_THRESHOLD,
) -> list[tuple[str, float]]:
    """(id, similarity) of the candidates at or above ``threshold``, most similar first."""
    size = len(tokens)
    low, high = size * threshold, size / threshold if threshold else math.inf
    found = []
    for cand_id, other in candidates:
        if low <= len(other) <= high and not tokens.isdisjoint(other):
            score = jaccard(tokens, other)
            if score >= threshold:
                found.append((cand_id, round(score, 3)))
    found.sort(key=lambda pair: (-pair[1], pair[0]))
    return found


def similar_pairs(
    items: Sequence[tuple[str, frozenset[str]]],
    threshold: float = NEAR_DUPLICATE_THRESHOLD,
) -> list[tuple[str, str, float]]:
    """All pairs (id_a, id_b, similarity) with similarity ≥ threshold, sorted, a < b."""
    frequency: Counter[str] = Counter()
    for _, tokens in items:
        frequency.update(tokens)
    index: dict[str, list[int]] = defaultdict(list)
    pairs: list[tuple[str, str, float]] = []
    prepared = [
        (item_id, tokens, sorted(tokens, key=lambda t: (frequency[t], t)))
        for item_id, tokens in items
        if tokens
    ]
    prepared.sort(key=lambda p: (len(p[1]), p[0]))
    for position, (item_id, tokens, ranked) in enumerate(prepared):
        prefix = len(ranked) - math.ceil(threshold * len(ranked)) + 1
        seen: set[int] = set()
        for token in ranked[:prefix]:
            for other in index[token]:
                if other in seen:
                    continue
                seen.add(other)
                other_id, other_tokens, _ = prepared[other]
                if len(other_tokens) < threshold * len(tokens):
                    continue
                score = jaccard(tokens, other_tokens)
                if score >= threshold:
                    a, b = sorted((item_id, other_id))
                    pairs.append((a, b, round(score, 3)))
            index[token].append(position)
    pairs.sort()
    return pairs
