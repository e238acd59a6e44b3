"""Near-duplicate detection: Jaccard similarity of word-token sets, with candidate filtering. Pure.

A single new entry is checked with a size filter (two sets can only reach similarity t if their
sizes are within a factor t of each other). All pairs of a store use prefix filtering: with
tokens sorted rarest first, two sets with similarity ≥ t must share a token among the first
``|A| - ceil(t·|A|) + 1`` of each, so only sets that meet in an inverted index of these
prefixes are compared; the positions where they meet bound the overlap they can still reach,
which drops most candidates before they are compared (PPJoin: Xiao et al., "Efficient
similarity joins for near duplicate detection", WWW 2008). At 100k generated entries that is
4–5× faster than the prefix filter alone, with the same pairs (tests compare it with every
pair). The prefixes are one token longer, and sets that must share two tokens or more are
compared only where they meet twice in them (the same reasoning, for the second shared token):
on the short sets of a fact's subject, nearly every set met once fell short, and one category
of 23k facts at 100k groups in 3.3 s instead of 6.0 s.

Listing every pair is quadratic where many facts are near-identical (4,000 copies of one
sentence with one number changed are 8M pairs: `review` took 355 s), so `review` asks for the
*groups* pairs join (:func:`similar_groups`): the same candidates, joined as they are found,
with the work a set costs bounded. Those 4,000 facts group in 0.5 s; at 100k generated
entries the groups are exactly the components of the pairs, found in about the pairs' time
(benchmarks/bench_near_dups.py).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict, deque
from collections.abc import Callable, Sequence

from memsite.core.text import word_tokens

NEAR_DUPLICATE_THRESHOLD = 0.8
# The latest sets of a large group each token keeps in :func:`similar_groups`. At 100k
# generated entries the largest group of similar subjects (conflicts) has 191 sets: with 32
# two categories' conflict groups came out split (307 facts), with 64 or more they are exact;
# 4,000 near-identical facts take 0.5 s to group at 64, 0.9 s at 128.
GROUP_CAP = 64

# A set of the join: its size, id, tokens, and tokens rarest first.
_Prepared = tuple[int, str, frozenset[str], list[str]]


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


def _ranked(items: Sequence[tuple[str, frozenset[str]]]) -> list[_Prepared]:
    """The non-empty sets, in ascending size (then id), each with its tokens rarest first."""
    frequency: Counter[str] = Counter()
    for _, tokens in items:
        frequency.update(tokens)
    prepared = [
        (len(tokens), item_id, tokens, sorted(tokens, key=lambda t: (frequency[t], t)))
        for item_id, tokens in items
        if tokens
    ]
    prepared.sort(key=lambda p: (p[0], p[1]))
    return prepared


def _prefixes(size: int, threshold: float) -> tuple[int, int]:
    """How many of a set's rarest tokens probe the index, and how many are indexed (the
    shorter "mid" prefix: the sets probing later are no smaller), each one longer than the
    classic prefix: two sets that must share ``α`` tokens share at least two among their
    first ``|A| - α + 2`` when ``α`` ≥ 2 (the second shared token has ``α - 2`` after it in
    each), and where they meet only once they are not compared (see ``_Join``)."""
    share = threshold / (1 + threshold)
    return size - math.ceil(threshold * size) + 2, size - math.ceil(2 * share * size - 1e-9) + 2


def similar_pairs(
    items: Sequence[tuple[str, frozenset[str]]],
    threshold: float = NEAR_DUPLICATE_THRESHOLD,
) -> list[tuple[str, str, float]]:
    """All pairs (id_a, id_b, similarity) with similarity ≥ threshold, sorted, a < b: each
    set's candidates (:class:`_Join`) verified with :func:`jaccard`."""
    join = _Join(items, threshold, None)
    pairs: list[tuple[str, str, float]] = []
    for position, (size, item_id, tokens, _) in enumerate(join.prepared):
        for other in join.candidates(position):
            other_size, other_id, other_tokens, _ = join.prepared[other]
            shared = len(tokens & other_tokens)
            score = shared / (size + other_size - shared)  # jaccard(tokens, other_tokens)
            if score >= threshold:
                a, b = (item_id, other_id) if item_id < other_id else (other_id, item_id)
                pairs.append((a, b, round(score, 3)))
        join.add(position, -1)
    pairs.sort()
    return pairs


def similar_groups(
    items: Sequence[tuple[str, frozenset[str]]],
    threshold: float = NEAR_DUPLICATE_THRESHOLD,
    joins: Callable[[str, str], bool] | None = None,
    cap: int = GROUP_CAP,
) -> list[tuple[str, ...]]:
    """The groups that similar pairs join: the connected components (of two sets or more) of
    the pairs :func:`similar_pairs` finds and ``joins(a, b)`` accepts, each sorted, sorted.

    The candidates are :func:`similar_pairs`' and the pairs are joined as they are found
    (union-find), with two rules:

    1. A similar candidate already in the set's group is not joined again, and ``joins``
       is not asked of it (the pair adds nothing). Every candidate is measured, in one
       comprehension, and only the similar ones are walked: nearly all fall short (all but
       687 of the 0.6M candidates of one 23k-fact category's subjects at 100k generated
       entries), and that is 7–11 % faster there than looking up each candidate's group
       first. Near-identical facts pay for it: 4,000 of them group in 0.46 s, not 0.21 s.
    2. Once a similarity group (the groups of the similar pairs, whatever ``joins`` says)
       has more than ``cap`` sets, each token keeps only the latest ``cap`` sets indexed into
       it since (by the group's root at the time), as PPJoin's other postings are kept.

    Cost: a set meets about 2·``cap`` sets of one group on each prefix token at most (those
    indexed before the group was large, and the latest), so n near-identical facts cost
    ~n·cap·|prefix| steps, not n²; sets of different groups cost what PPJoin costs. What it
    gives up, in similarity groups of more than ``cap`` sets only: a set similar to none of
    a group's kept sets but to some older one misses those pairs, so its component can come
    out in parts, each still joined by pairs; groups are never merged wrongly. Where no
    similarity group has more than ``cap`` sets, the groups are exactly the components.
    """
    join = _Join(items, threshold, cap)
    prepared, sizes, candidates = join.prepared, join.sizes, join.candidates
    sets = [p[2] for p in prepared]
    near = _Components(len(prepared))
    joined = near if joins is None else _Components(len(prepared))
    parent = joined.parent
    for position, (size, item_id, tokens, _) in enumerate(prepared):
        # Rule 1: all measured at once, only the similar ones walked, in the order met.
        similar = [
            other
            for other in candidates(position)
            if (shared := len(tokens & sets[other])) / (size + sizes[other] - shared) >= threshold
        ]
        mine = position  # the root of its group in ``joined``
        for other in similar:
            top = parent[other]
            if parent[top] != top:
                top = joined.root(other)
            if top == mine:
                continue  # one group already: the pair adds nothing
            near.union(position, other)
            if joins is not None and joins(item_id, prepared[other][1]):
                joined.union(position, other)
            mine = joined.root(position)
        root = near.root(position)
        join.add(position, root if near.size[root] > cap else -1)
    return joined.groups([p[1] for p in prepared])


class _Join:
    """PPJoin's index (Xiao et al.): sets in ascending size, tokens rarest first; a set probes
    the index with its prefix and is indexed with its shorter "mid" prefix (the sets probing
    later are no smaller); postings of sets too small to reach the threshold are skipped for
    good (sizes only grow); a candidate is dropped as soon as the tokens left on either side
    cannot bring the overlap to ``ceil(t / (1 + t) * (|a| + |b|))``.

    A set :meth:`add` is told belongs to a large group goes to that group's postings of each
    token instead, which keep its latest ``cap`` sets (see :func:`similar_groups`)."""

    def __init__(
        self, items: Sequence[tuple[str, frozenset[str]]], threshold: float, cap: int | None
    ) -> None:
        self.prepared = _ranked(items)
        self.threshold = threshold
        self.cap = cap
        self.sizes = [p[0] for p in self.prepared]
        # token → postings (set, how many of its tokens follow this one, its size)
        self.index: dict[str, list[tuple[int, int, int]]] = defaultdict(list)
        self.start: dict[str, int] = defaultdict(int)
        # token → large group (its root when indexed) → its latest postings
        self.large: dict[str, dict[int, deque[tuple[int, int, int]]]] = defaultdict(dict)

    def candidates(self, position: int) -> list[int]:
        """The earlier sets that share two prefix tokens with the set at ``position`` (or one,
        where one shared token can be enough), are no smaller than t·|A|, and pass the
        positional filter, in the order they are met."""
        size, _, _, ranked = self.prepared[position]
        probe, _ = _prefixes(size, self.threshold)
        smallest = self.threshold * size
        share = self.threshold / (1 + self.threshold)
        ceil, sizes, start = math.ceil, self.sizes, self.start
        # The overlap a candidate must reach, by its size (no smaller than ``smallest``).
        low = max(ceil(smallest) - 1, 0)
        needs = {o: ceil(share * (size + o) - 1e-9) for o in range(low, size + 1)}
        overlap: dict[int, int] = {}  # candidate → shared prefix tokens (-1: dropped)
        seen_of = overlap.get
        for place, token in enumerate(ranked[:probe]):
            postings = self.index.get(token, ())
            if postings:
                first, end = start[token], len(postings)
                while first < end and sizes[postings[first][0]] < smallest:
                    first += 1
                start[token] = first
                postings = postings[first:]  # copied at C speed: cheaper than indexing
            if token in self.large:
                postings = [*postings, *self._large(token, smallest)]
            mine = size - place - 1
            for other, rest, other_size in postings:
                seen = seen_of(other, 0)
                if seen < 0:
                    continue
                left = mine if mine < rest else rest
                overlap[other] = seen + 1 if seen + 1 + left >= needs[other_size] else -1
        # Met twice, or once where one shared token is enough (``_prefixes``).
        return [o for o, seen in overlap.items() if seen > 1 or (seen == 1 and needs[sizes[o]] < 2)]

    def _large(self, token: str, smallest: float) -> list[tuple[int, int, int]]:
        """The postings of ``token``'s large groups no smaller than ``smallest`` (dropping the
        groups none of whose sets is: sizes only grow)."""
        groups = self.large[token]
        for key in [k for k, kept in groups.items() if kept[-1][2] < smallest]:
            del groups[key]
        return [p for kept in groups.values() for p in kept if p[2] >= smallest]

    def add(self, position: int, group: int) -> None:
        """Index the set at ``position`` by its mid prefix: in the postings of ``group`` (a
        large group's root, or -1 for none)."""
        size, _, _, ranked = self.prepared[position]
        _, indexed = _prefixes(size, self.threshold)
        for place, token in enumerate(ranked[:indexed]):
            posting = (position, size - place - 1, size)
            if group < 0:
                self.index[token].append(posting)
            else:
                self.large[token].setdefault(group, deque(maxlen=self.cap)).append(posting)


class _Components:
    """Union-find over positions: each group's root is its first position."""

    def __init__(self, count: int) -> None:
        self.parent = list(range(count))
        self.size = [1] * count

    def root(self, node: int) -> int:
        parent = self.parent
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    def union(self, a: int, b: int) -> None:
        first, second = self.root(a), self.root(b)
        if first != second:
            low, high = min(first, second), max(first, second)
            self.parent[high] = low
            self.size[low] += self.size[high]

    def groups(self, ids: Sequence[str]) -> list[tuple[str, ...]]:
        """The groups of two or more, as the ``ids`` of their positions, each sorted, sorted."""
        members: dict[int, list[str]] = defaultdict(list)
        for position, item_id in enumerate(ids):
            members[self.root(position)].append(item_id)
        return sorted(tuple(sorted(group)) for group in members.values() if len(group) > 1)
