"""All-pairs near-duplicate search: the filtered join finds exactly the pairs that comparing
every pair finds, at every threshold; the grouping finds their connected components, or with
a budget that runs out, parts of them."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from memsite.core.similarity import (
    GROUP_CAP,
    NEAR_DUPLICATE_THRESHOLD,
    jaccard,
    similar_groups,
    similar_pairs,
)
from tests.oracles import components


def every_pair(
    items: list[tuple[str, frozenset[str]]], threshold: float
) -> list[tuple[str, str, float]]:
    found = []
    for (a, x), (b, y) in itertools.combinations(items, 2):
        if x and y and not x.isdisjoint(y) and jaccard(x, y) >= threshold:
            first, second = sorted((a, b))
            found.append((first, second, round(jaccard(x, y), 3)))
    return sorted(found)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.frozensets(st.sampled_from("abcdefghijkl"), max_size=10), max_size=40),
    st.sampled_from([0.5, 0.6, 0.7, 0.75, NEAR_DUPLICATE_THRESHOLD, 0.85, 0.9, 1.0]),
)
def test_the_join_finds_every_pair_above_the_threshold(
    sets: list[frozenset[str]], threshold: float
) -> None:
    items = [(f"id{n:02d}", tokens) for n, tokens in enumerate(sets)]
    assert similar_pairs(items, threshold) == every_pair(items, threshold)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 60), min_size=2, max_size=30), st.randoms(use_true_random=False))
def test_long_sets_that_differ_by_a_few_words(sizes: list[int], rng: object) -> None:
    """Facts of 20-60 words, each a copy of one text with a few words swapped: the shape of
    near-duplicates, where the filters cut hardest."""
    import random

    assert isinstance(rng, random.Random)
    words = [f"w{n}" for n in range(80)]
    base = set(rng.sample(words, 60))
    items = []
    for n, size in enumerate(sizes):
        kept = set(rng.sample(sorted(base), max(size, 1)))
        extra = set(rng.sample(words, rng.randint(0, 4)))
        items.append((f"id{n:02d}", frozenset(kept | extra)))
    assert similar_pairs(items) == every_pair(items, NEAR_DUPLICATE_THRESHOLD)


def joined(pairs: list[tuple[str, str, float]], group: tuple[str, ...]) -> bool:
    """Whether the pairs inside ``group`` connect all of it."""
    inside = [p for p in pairs if p[0] in group and p[1] in group]
    return components(inside) == [group]


SETS = st.lists(st.frozensets(st.sampled_from("abcdefghijkl"), max_size=10), max_size=40)
THRESHOLDS = st.sampled_from([0.5, 0.6, 0.7, 0.75, NEAR_DUPLICATE_THRESHOLD, 0.85, 0.9, 1.0])


@settings(max_examples=400, deadline=None)
@given(SETS, THRESHOLDS)
def test_the_groups_are_the_components_of_the_pairs(
    sets: list[frozenset[str]], threshold: float
) -> None:
    items = [(f"id{n:02d}", tokens) for n, tokens in enumerate(sets)]
    exact = components(every_pair(items, threshold))
    assert similar_groups(items, threshold, cap=len(items)) == exact
    if all(len(group) <= GROUP_CAP for group in exact):  # no group is capped
        assert similar_groups(items, threshold) == exact


@settings(max_examples=300, deadline=None)
@given(SETS, THRESHOLDS, st.integers(1, 6))
def test_the_groups_of_accepted_pairs_are_their_components(
    sets: list[frozenset[str]], threshold: float, modulus: int
) -> None:
    """With ``joins``, only the pairs it accepts join groups (here: a rule on the ids)."""
    items = [(f"id{n:02d}", tokens) for n, tokens in enumerate(sets)]

    def joins(a: str, b: str) -> bool:
        return (int(a[2:]) + int(b[2:])) % modulus != 0

    pairs = [p for p in every_pair(items, threshold) if joins(p[0], p[1])]
    assert similar_groups(items, threshold, joins, cap=len(items)) == components(pairs)


@settings(max_examples=300, deadline=None)
@given(SETS, THRESHOLDS, st.integers(1, 4), st.booleans())
def test_a_cap_only_splits_components(
    sets: list[frozenset[str]], threshold: float, cap: int, odd: bool
) -> None:
    """The approximation in groups larger than the cap: each group lies inside one component
    and is joined by pairs of its own; a component may come out in parts."""
    items = [(f"id{n:02d}", tokens) for n, tokens in enumerate(sets)]

    def joins(a: str, b: str) -> bool:
        return not odd or (int(a[2:]) + int(b[2:])) % 2 == 1

    pairs = [p for p in every_pair(items, threshold) if joins(p[0], p[1])]
    exact = components(pairs)
    for group in similar_groups(items, threshold, joins, cap=cap):
        assert any(set(group) <= set(whole) for whole in exact)
        assert joined(pairs, group)


def test_near_identical_sets_are_one_group() -> None:
    """5,000 copies of a set with one token changed: 12.5M pairs, one group, even with a cap
    of 1 (each set meets the group on its second prefix token)."""
    common = frozenset(f"w{n}" for n in range(15))
    items = [(f"id{n:05d}", common | {f"x{n}"}) for n in range(5000)]
    assert similar_groups(items, cap=1) == [tuple(i for i, _ in items)]


def test_growing_near_identical_sets_stay_one_group() -> None:
    """Copies that grow by a word every 50 sets, each similar to its neighbours only: a large
    group keeps its latest sets in the postings, the ones a growing set can still reach, so
    the chain stays one group (kept the first ones, it came out in 8 parts)."""
    growth = [f"h{k}" for k in range(60)]
    base = frozenset(f"w{k}" for k in range(15))
    items = [(f"a{n:05d}", base | {f"x{n}", *growth[: n // 50]}) for n in range(3000)]
    # Sets that make the growth words the commonest, so that the base words are the prefix
    # every copy shares: each is the growth words and 60 words of its own.
    for n in range(3100):
        items.append((f"f{n:05d}", frozenset(growth) | {f"y{n}-{k}" for k in range(60)}))
    assert similar_groups(items) == [tuple(i for i, _ in items[:3000])]
