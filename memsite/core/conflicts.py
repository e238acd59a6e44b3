"""Possible conflicts between facts that share no key: two active facts of one category about
the same subject that name different values or alternatives for one thing, or where one is
negated. Pure.

What the rule reads in a fact: its *subject* (its words, stemmed, without function words and
numbers), its *values* (numbers and versions: ``15``, ``3.11``, ``v2``, ``rs256``), its
*negation* (not / no / never / without / avoid / don't and the like), and the *slots* its
named things fill (``core.slots``: a value or a name of a family of alternatives, with the
word before or after it: "signed with RS256", "port 3000", "install with pnpm").

Two facts possibly conflict when either rule holds (and they do not say the same thing):

1. **Same subject, different values.** Their subjects share at least two words with Jaccard
   similarity at least 0.75, and their values differ, or exactly one of them is negated.
2. **Different things in one slot.** Their subjects have Jaccard similarity at least 0.25
   and share two words that are not light verbs (use, run, need…), or else the slot's words
   before it are the same in both; and in one slot (the same word before or after, the same
   kind) each names a thing the other does not name at all ("JWTs signed with RS256" /
   "JWTs signed with HS256"; "listens on port 3000" / "on port 5173"; "install with pnpm" /
   "install with npm"; "use yarn" / "use pnpm; yarn is not supported"). Not when each has
   a word before the slot the other lacks: "access tokens expire after 15 minutes" and
   "refresh tokens expire after 30 days" are about two things.

Measured by ``benchmarks/conflicts_eval.py``: on the labelled pairs of
``benchmarks/eval/conflict_pairs.jsonl`` rule 1 alone caught 17 of 82 conflicting pairs and
both rules catch 73, with 1 false positive among 79 similar pairs that both hold; of these,
the 22 and 21 pairs written after the rules were worked out, measured once, had 18 caught and
2 false positives (1 since names before a slot say what it is about); no pair among the 430
facts of the search evaluation set or among the demo store's.

A pair linked by any relation but ``conflicts-with`` is silenced (a person said how the two
relate); a pair linked by ``conflicts-with`` is reported whatever the rule says.

Candidates: rule 1's pairs are found with prefix filtering, as near-duplicates are (no pair is
compared unless it can reach 0.75); rule 2's among the facts that share a slot, the words
before it in one a subset of the other's (:func:`_slot_candidates`: each slot meets at most
``SLOT_CAP`` earlier ones). `review` reports the groups the pairs join (:func:`conflict_groups`:
many facts about one subject are one finding, found without listing their pairs). At 10k
generated entries (one CPU time, best of three) the facts are read in 0.60 s and grouped in
0.58 s, against 0.25 s and 0.21 s for rule 1 alone; at 100k, 7.9 s and 22 s against 2.5 s and
10 s (their templated sentences with numbers are the worst case: most facts fill slots).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import chain
from typing import NamedTuple

from memsite.core.similarity import similar_groups, similar_pairs
from memsite.core.slots import Slot, light, slots_of
from memsite.core.stem import stem
from memsite.core.text import word_tokens

SUBJECT_THRESHOLD = 0.75
SUBJECT_SHARED_MIN = 2
SLOT_THRESHOLD = 0.25
SLOT_CAP = 32
# Only from the start of a run of letters: from inside one it would read the rest of the run
# again, and a MiB-long run ("token" * 199000) took minutes (issue 30, item 4).
_VALUE = re.compile(r"(?<![a-z])[a-z]*\d+(?:[._]\d+)*[a-z]*")
_DIGIT = re.compile(r"\d")
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
_SPECIAL = _NEGATIONS | _CONTRACTED | {"t"}


class Assertion(NamedTuple):
    """What the rule looks at in one fact."""

    id: str
    subject: frozenset[str]
    values: frozenset[str]
    negated: bool
    normalized: str
    slots: tuple[Slot, ...] = ()
    names: frozenset[str] = frozenset()  # the names and values it affirms


def assertion_of(entry_id: str, normalized: str) -> Assertion:
    """The subject, values, negation and slots of a fact's normalized content."""
    words = word_tokens(normalized)
    values = frozenset(m.group(0) for m in _VALUE.finditer(normalized))
    negated = False
    subject = set()
    for position, word in enumerate(words):
        if word in _SPECIAL:
            if word in _NEGATIONS or (
                word == "t" and position and words[position - 1] in _CONTRACTED
            ):
                negated = True
                continue
            if word in _CONTRACTED and position + 1 < len(words) and words[position + 1] == "t":
                continue
        if word not in _FUNCTION_WORDS and (word.isalpha() or _DIGIT.search(word) is None):
            subject.add(stem(word))
    slots, names = slots_of(normalized)
    return Assertion(entry_id, frozenset(subject), values, negated, normalized, slots, names)


def _compatible(name: str, names: frozenset[str]) -> bool:
    """Whether ``names`` holds ``name`` or a version it refines (15 and 15.4)."""
    if name in names:
        return True
    if not name[-1].isdigit():
        return False
    dotted, size = name + ".", len(name)
    for other in names:
        if other.startswith(dotted):
            return True
        cut = len(other)
        if cut < size and name[cut] == "." and name.startswith(other):
            return True
    return False


class Conflict(NamedTuple):
    a: str
    b: str
    why: str  # for a message: "15 vs 16", or "one says not"


def _alike(mine: frozenset[str], theirs: frozenset[str]) -> tuple[frozenset[str], float] | None:
    """The words two subjects share and their Jaccard similarity, when they share enough for
    either rule (at least ``SUBJECT_SHARED_MIN`` words, similarity at least
    ``SLOT_THRESHOLD``); else None."""
    shared = mine & theirs
    overlap = len(shared)
    if overlap < SUBJECT_SHARED_MIN:
        return None
    similarity = overlap / (len(mine) + len(theirs) - overlap)
    return (shared, similarity) if similarity >= SLOT_THRESHOLD else None


def differ(a: Assertion, b: Assertion) -> str | None:
    """Why two facts may disagree (rule 1, else rule 2), or None."""
    alike = _alike(a.subject, b.subject)
    if alike is None or a.normalized == b.normalized:
        return None
    shared, similarity = alike
    if similarity >= SUBJECT_THRESHOLD:
        if a.values and b.values and a.values != b.values:
            mine, theirs = sorted(a.values - b.values), sorted(b.values - a.values)
            return f"{', '.join(mine) or '-'} vs {', '.join(theirs) or '-'}"
        if a.negated != b.negated:
            return "one says not"
    if not a.slots or not b.slots:
        return None
    return _slot_conflict(a, b, len(shared - light()) >= SUBJECT_SHARED_MIN)


def _slot_conflict(a: Assertion, b: Assertion, distinct: bool) -> str | None:
    """Rule 2's slot: one where each fact names a thing the other does not name at all, and
    not both with a word before it the other lacks (``distinct``: the subjects share two
    words that are not light; else only a slot with the same words before it counts)."""
    for mine in a.slots:
        for other in b.slots:
            if other.key != mine.key or other.name == mine.name:
                continue
            if _compatible(mine.name, b.names) or _compatible(other.name, a.names):
                continue
            if mine.before - other.before and other.before - mine.before:
                continue
            if not distinct and (mine.before != other.before or not mine.before):
                continue
            return f"{mine.name} vs {other.name}"
    return None


def possible_conflicts(
    assertions: Sequence[Assertion],
    silenced: Iterable[tuple[str, str]] = (),
    only: Iterable[str] | None = None,
) -> list[Conflict]:
    """Pairs of ``assertions`` (one category's active facts) that may disagree, a < b, sorted.
    ``silenced``: pairs a relation settles; ``only``: report pairs with one of these ids."""
    why = _rule(assertions, silenced, only)
    items = [(c.id, c.subject) for c in assertions]
    candidates = {(a, b) for a, b, _ in similar_pairs(items, SUBJECT_THRESHOLD)}
    candidates.update(_slot_candidates(assertions))
    found = []
    for a, b in sorted(candidates):
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
    sorted, sorted: found without listing rule 1's pairs, with the bounds (and the
    approximation) of ``similarity.similar_groups``, then joined by rule 2's."""
    why = _rule(assertions, silenced, only)
    items = [(c.id, c.subject) for c in assertions]
    parent: dict[str, str] = {}

    def root(node: str) -> str:
        top = node
        while parent.get(top, top) != top:
            top = parent[top]
        while node != top:  # path compression
            parent[node], node = top, parent[node]
        return top

    def union(a: str, b: str) -> None:
        first, second = root(a), root(b)
        if first != second:
            parent[max(first, second)] = min(first, second)

    for group in similar_groups(items, SUBJECT_THRESHOLD, lambda a, b: why(a, b) is not None):
        for member in group[1:]:
            union(group[0], member)
    subjects = {c.id: c.subject for c in assertions}
    for a, b in _slot_candidates(assertions):
        # Most of rule 2's candidates share too little of their subjects: passed over with
        # ``differ``'s own first test, before ``why`` (at 100k entries ~0.6M of 0.85M pairs).
        if _alike(subjects[a], subjects[b]) is None:
            continue
        if root(a) != root(b) and why(a, b) is not None:
            union(a, b)
    members: dict[str, list[str]] = defaultdict(list)
    for node in list(parent):
        members[root(node)].append(node)
    return sorted(tuple(sorted({*group, top})) for top, group in members.items())


def _slot_candidates(assertions: Sequence[Assertion]) -> Iterator[tuple[str, str]]:
    """Pairs (a < b) that hold one slot with different names in it, the words before it in
    one a subset of those in the other (rule 2 wants no more): rule 2's candidates.

    A set holds the rarest word of any subset of it, so each slot is indexed under its rarest
    word before it and meets the slots indexed under any of its own words: each fact meets
    the earlier ones whose slot's words are a subset of its own; then again in the reverse
    order. A slot with no word before it meets every slot; a slot that holds one name in
    every fact is left out."""
    frequency: Counter[str] = Counter()
    names: dict[str, set[str]] = defaultdict(set)
    for assertion in assertions:
        for slot in assertion.slots:
            frequency.update(slot.before)
            names[slot.key].add(slot.name)
    order = sorted(frequency.items(), key=lambda pair: (pair[1], pair[0]))
    rank = {word: place for place, (word, _) in enumerate(order)}
    ranked = []
    for assertion in assertions:
        mine = [
            (slot.key, slot.name, sorted(slot.before, key=rank.__getitem__))
            for slot in assertion.slots
            if len(names[slot.key]) > 1
        ]
        if mine:
            ranked.append((assertion.id, mine))
    seen: set[tuple[str, str]] = set()
    for pair in chain(_subset_pairs(ranked), _subset_pairs(ranked[::-1])):
        if pair not in seen:
            seen.add(pair)
            yield pair


_Ranked = Sequence[tuple[str, list[tuple[str, str, list[str]]]]]


def _subset_pairs(ranked: _Ranked) -> Iterator[tuple[str, str]]:
    """The pairs of :func:`_slot_candidates` where the earlier slot's words are a subset of the
    later one's (``ranked``: each fact's slots as key, name and words rarest first, in order).

    A slot meets at most ``SLOT_CAP`` earlier slots: those with no word before them, then
    those under its rarest words first (the most alike); a list keeps its latest."""
    under: dict[str, dict[str, list[tuple[str, str]]]] = defaultdict(dict)  # key → word → slots
    every: dict[str, list[tuple[str, str]]] = defaultdict(list)  # key → slots
    cap, nothing = SLOT_CAP, ()
    for mine, slots in ranked:
        for key, name, words in slots:
            if not words:
                met: Sequence[tuple[str, str]] = every[key][-cap:]
            elif (lists := under.get(key)) is None:
                continue
            else:
                met = [*lists.get("", nothing)]
                for word in words:
                    if len(met) >= cap:
                        break
                    met += lists.get(word, nothing)
                met = met[:cap]
            for other, theirs in met:
                if theirs != name and other != mine:
                    yield (mine, other) if mine < other else (other, mine)
        for key, name, words in slots:
            posting = (mine, name)
            for postings in (under[key].setdefault(words[0] if words else "", []), every[key]):
                postings.append(posting)
                if len(postings) >= 2 * cap:
                    del postings[:cap]


def _rule(
    assertions: Sequence[Assertion],
    silenced: Iterable[tuple[str, str]],
    only: Iterable[str] | None,
) -> Callable[[str, str], str | None]:
    """Why two of ``assertions`` (ids in any order) may disagree, or None: :func:`differ`,
    with ``silenced`` pairs and, given ``only``, pairs without one of them left out."""
    quiet = {tuple(sorted(pair)) for pair in silenced}
    wanted = set(only) if only is not None else None
    by_id = {c.id: c for c in assertions}

    def why(a: str, b: str) -> str | None:
        if b < a:
            a, b = b, a
        if (a, b) in quiet or (wanted is not None and a not in wanted and b not in wanted):
            return None
        return differ(by_id[a], by_id[b])

    return why


def markers_of(groups: Iterable[Sequence[str]], named: int = 3) -> dict[str, str]:
    """The marker index.md gives each member of a possible-conflict group (a fact in several
    groups takes its first): `` (may conflict with 611e1ab2)``, naming the others' short ids,
    the first ``named`` of them and how many more."""
    found: dict[str, str] = {}
    for group in groups:
        ordered = sorted(group)
        for member in ordered:
            if member in found:
                continue
            others = [o for o in ordered[: named + 1] if o != member][:named]
            more = len(ordered) - 1 - len(others)
            listed = ", ".join(o[:8] for o in others) + (f" +{more}" if more else "")
            found[member] = f" (may conflict with {listed})"
    return found
