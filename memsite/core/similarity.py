"""Near-duplicate detection: Jaccard similarity of word-token sets, with candidate filtering. Pure.

A single new entry is checked with a size filter (two sets can only reach similarity t if their
sizes are within a factor t of each other). All pairs of a store (`review`) use prefix filtering:
with tokens sorted rarest first, two sets with similarity ≥ t must share a token among the
first ``|A| - ceil(t·|A|) + 1`` of each, so only sets that meet in an inverted index of these
prefixes are compared; the positions where they meet bound the overlap they can still reach,
which drops most candidates before they are compared (PPJoin: Xiao et al., "Efficient
similarity joins for near duplicate detection", WWW 2008). At 100k generated entries that is
4–5× faster than the prefix filter alone, with the same pairs (tests compare it with every
pair).
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


def token_set(normalized: str, memo: dict[str, str] | None = None) -> frozenset[str]:
    """The word tokens of ``normalized``; with ``memo``, each token string is the memo's one
    copy of it (sets of a whole store then share their strings: at 100k entries, about
    1.5 KB less an entry while the sets are held)."""
    if memo is None:
        return frozenset(word_tokens(normalized))
    keep = memo.setdefault
    return frozenset([keep(token, token) for token in word_tokens(normalized)])


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
    """All pairs (id_a, id_b, similarity) with similarity ≥ threshold, sorted, a < b.

    PPJoin: sets in ascending size, tokens rarest first; a set probes the index with its
    prefix and is indexed with its shorter "mid" prefix (later sets are no smaller); postings
    of sets too small to reach the threshold are skipped for good (sizes only grow); a
    candidate is dropped as soon as the tokens left on either side cannot bring the overlap
    to ``ceil(t / (1 + t) * (|a| + |b|))``. Survivors are verified with :func:`jaccard`.
    """
    frequency: Counter[str] = Counter()
    for _, tokens in items:
        frequency.update(tokens)
    prepared = [
        (len(tokens), item_id, tokens, sorted(tokens, key=lambda t: (frequency[t], t)))
        for item_id, tokens in items
        if tokens
    ]
    prepared.sort(key=lambda p: (p[0], p[1]))
    sizes = [p[0] for p in prepared]
    # token → postings (set, how many of its tokens follow this one, its size)
    index: dict[str, list[tuple[int, int, int]]] = defaultdict(list)
    start: dict[str, int] = defaultdict(int)
    share = threshold / (1 + threshold)
    ceil = math.ceil
    pairs: list[tuple[str, str, float]] = []
    for position, (size, item_id, tokens, ranked) in enumerate(prepared):
        probe = size - ceil(threshold * size) + 1
        indexed = size - ceil(2 * share * size - 1e-9) + 1
        smallest = threshold * size
        # The overlap a candidate must reach, by its size (no smaller than ``smallest``).
        low = max(ceil(smallest) - 1, 0)
        needs = {o: ceil(share * (size + o) - 1e-9) for o in range(low, size + 1)}
        overlap: dict[int, int] = {}  # candidate → shared prefix tokens (-1: dropped)
        seen_of = overlap.get
        for place, token in enumerate(ranked[:probe]):
            postings = index[token]
            first, end = start[token], len(postings)
            while first < end and sizes[postings[first][0]] < smallest:
                first += 1
            start[token] = first
            mine = size - place - 1
            for k in range(first, end):
                other, rest, other_size = postings[k]
                seen = seen_of(other, 0)
                if seen < 0:
                    continue
                left = mine if mine < rest else rest
                overlap[other] = seen + 1 if seen + 1 + left >= needs[other_size] else -1
            if place < indexed:
                postings.append((position, mine, size))
        for other, seen in overlap.items():
            if seen <= 0:
                continue
            other_size, other_id, other_tokens, _ = prepared[other]
            shared = len(tokens & other_tokens)
            score = shared / (size + other_size - shared)  # jaccard(tokens, other_tokens)
            if score >= threshold:
                a, b = (item_id, other_id) if item_id < other_id else (other_id, item_id)
                pairs.append((a, b, round(score, 3)))
    pairs.sort()
    return pairs
