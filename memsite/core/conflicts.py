"""Possible conflicts between facts that share no key: two active facts of one category about
the same subject that differ in a number or version, or where one is negated. Pure.

The rule, in order:

1. A fact's *values* are its numbers and versions (``15``, ``3.11``, ``v2``, ``node18``); its
   *negation* is whether it says not / no / never / without / avoid / don't and the like; its
   *subject* is the set of its other words, stemmed, without function words.
2. Two facts are about the same subject when their subjects share at least two words and
   their Jaccard similarity is at least 0.75 (found with prefix filtering, as near-duplicates
   are: no pair of a store is compared unless it can reach the threshold).
3. They possibly conflict when both have values and the values differ, or when exactly one
   of them is negated. Two facts that say the same (equal content) never conflict.

A pair linked by any relation but ``conflicts-with`` is silenced (a person said how the two
relate); a pair linked by ``conflicts-with`` is reported whatever the rule says.

`review` reports the groups the pairs join (:func:`conflict_groups`, in linear time: many
facts about one subject are one finding, found without listing their pairs).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import NamedTuple

from memsite.core.similarity import similar_groups, similar_pairs
from memsite.core.stem import stem
from memsite.core.text import word_tokens

SUBJECT_THRESHOLD = 0.75
SUBJECT_SHARED_MIN = 2
# Only from the start of a run of letters: from inside one it would read the rest of the run
# again, and a MiB-long run ("token" * 199000) took minutes (issue 30, item 4).
_VALUE = re.compile(r"(?<![a-z])[a-z]*\d+(?:[._]\d+)*[a-z]*")
_NEGATIONS = frozenset(
    "not no never none nothing nobody neither nor cannot without avoid avoids avoided "
    "disallow disallowed forbid forbidden prohibited".split()
)
_CONTRACTED = frozenset(
    "don doesn didn isn aren wasn weren won can couldn shouldn wouldn mustn haven hasn".split()
)
_FUNCTION_WORDS = frozenset(
    """a an the and or but if then than so of to in on at by for from with into onto over
    under as is are was were be been being am it its this that these those there here we our
    us you your they their them he she his her i me my do does did done has have had will
    would shall should can could may might must also just only all any each every some such
    very more most less least which who whom whose what when where why how t s""".split()
)


class Assertion(NamedTuple):
    """What the rule looks at in one fact."""

    id: str
    subject: frozenset[str]
    values: frozenset[str]
    negated: bool
    normalized: str


def assertion_of(entry_id: str, normalized: str) -> Assertion:
    """The subject, values and negation of a fact's normalized content."""
    words = word_tokens(normalized)
    values = frozenset(m.group(0) for m in _VALUE.finditer(normalized))
    negated = False
    subject = set()
    for position, word in enumerate(words):
        if word in _NEGATIONS or (word == "t" and position and words[position - 1] in _CONTRACTED):
            negated = True
        elif word in _CONTRACTED and position + 1 < len(words) and words[position + 1] == "t":
            continue
        elif word not in _FUNCTION_WORDS and not any(c.isdigit() for c in word):
            subject.add(stem(word))
    return Assertion(entry_id, frozenset(subject), values, negated, normalized)


class Conflict(NamedTuple):
    a: str
    b: str
    why: str  # for a message: "15 vs 16", or "one is negated"


def differ(a: Assertion, b: Assertion) -> str | None:
    """Why two assertions about one subject may disagree, or None."""
    if a.normalized == b.normalized:
        return None
    if a.values and b.values and a.values != b.values:
        mine, theirs = sorted(a.values - b.values), sorted(b.values - a.values)
        return f"{', '.join(mine) or '-'} vs {', '.join(theirs) or '-'}"
    if a.negated != b.negated:
        return "one says not"
    return None


def possible_conflicts(
    assertions: Sequence[Assertion],
    silenced: Iterable[tuple[str, str]] = (),
    only: Iterable[str] | None = None,
) -> list[Conflict]:
    """Pairs of ``assertions`` (one category's active facts) that may disagree, a < b, sorted.
    ``silenced``: pairs a relation settles; ``only``: report pairs with one of these ids."""
    why = _rule(assertions, silenced, only)
    found = []
    for a, b, _ in similar_pairs([(c.id, c.subject) for c in assertions], SUBJECT_THRESHOLD):
        reason = why(a, b)
        if reason is not None:
            found.append(Conflict(a, b, reason))
    return found


def conflict_groups(
    assertions: Sequence[Assertion],
    silenced: Iterable[tuple[str, str]] = (),
    only: Iterable[str] | None = None,
) -> list[tuple[str, ...]]:
    """The groups the pairs of :func:`possible_conflicts` join (connected components), each
    sorted, sorted: found without listing the pairs, with the bounds (and the approximation)
    of ``similarity.similar_groups``."""
    why = _rule(assertions, silenced, only)
    items = [(c.id, c.subject) for c in assertions]
    return similar_groups(items, SUBJECT_THRESHOLD, lambda a, b: why(a, b) is not None)


def _rule(
    assertions: Sequence[Assertion],
    silenced: Iterable[tuple[str, str]],
    only: Iterable[str] | None,
) -> Callable[[str, str], str | None]:
    """Why two of ``assertions`` about one subject (ids in any order) may disagree, or None:
    rules 2 and 3, with ``silenced`` pairs and, given ``only``, pairs without one of them left
    out."""
    quiet = {tuple(sorted(pair)) for pair in silenced}
    wanted = set(only) if only is not None else None
    by_id = {c.id: c for c in assertions}

    def why(a: str, b: str) -> str | None:
        if b < a:
            a, b = b, a
        if (a, b) in quiet or (wanted is not None and a not in wanted and b not in wanted):
            return None
        first, second = by_id[a], by_id[b]
        if len(first.subject & second.subject) < SUBJECT_SHARED_MIN:
            return None
        return differ(first, second)

    return why
