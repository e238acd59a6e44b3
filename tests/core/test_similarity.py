"""All-pairs near-duplicate search: the filtered join finds exactly the pairs that comparing
every pair finds, at every threshold."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from memsite.core.similarity import NEAR_DUPLICATE_THRESHOLD, jaccard, similar_pairs


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
