"""The ``possible_conflict`` findings of `memsite review` (see ``core.review``): the rule of
``core.conflicts`` over each category's active facts, silenced by relations, forced by
conflicts-with. Pure.

Each category is judged alone and its facts are taken in id order, so that every caller
(a build's worker, `review`, `check`) gets the same groups and a memo of one category's
findings keyed by its facts (``memory.scanmemo``) is exact.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

from memsite.core.entry import Entry
from memsite.core.records import RELATE, Record
from memsite.core.review import Finding, listed

Pair = tuple[str, str]


def relation_pairs(records: Iterable[Record]) -> tuple[set[Pair], set[Pair]]:
    """The pairs (sorted) relate records silence (any link but conflicts-with) and those they
    state conflict (conflicts-with)."""
    silenced: set[Pair] = set()
    stated: set[Pair] = set()
    for record in records:
        if record.kind == RELATE and record.other is not None:
            first, second = sorted((record.target, record.other))
            (stated if record.link == "conflicts-with" else silenced).add((first, second))
    return silenced, stated


def conflict_findings(
    per_category: Mapping[str, Sequence[tuple[str, str]]],
    records: Iterable[Record],
    entry_of: Callable[[str], Entry],
    only: Iterable[str] | None = None,
) -> list[Finding]:
    """``possible_conflict`` findings over each category's active facts, given as (id,
    normalized content) in any order (``only``: pairs with one of these ids): the rule of
    ``core.conflicts``, silenced by relations, forced by conflicts-with. ``entry_of`` gives a
    member's entry."""
    silenced, stated = relation_pairs(records)
    wanted = set(only) if only is not None else None
    found = []
    for category in sorted(per_category):
        found += category_conflicts(
            category, per_category[category], silenced | stated, entry_of, wanted
        )
    active = {entry_id for facts in per_category.values() for entry_id, _ in facts}
    return found + stated_conflicts(stated, active, entry_of, wanted)


def category_conflicts(
    category: str,
    facts: Sequence[tuple[str, str]],
    quiet: set[Pair],
    entry_of: Callable[[str], Entry],
    wanted: set[str] | None = None,
) -> list[Finding]:
    """The groups of one category's active facts (id, normalized content) that may disagree,
    ``quiet`` pairs (sorted) apart. The facts are taken in id order whatever order they come
    in: the rule's bounds (``core.conflicts``) keep the latest candidates met, so the result
    is the same from every caller (and a cache of it, keyed by the facts, is exact)."""
    from memsite.core.conflicts import assertion_of, conflict_groups, differ

    # One category's assertions at a time: at 100k entries all of them held ~100 MB.
    assertions = {
        entry_id: assertion_of(entry_id, normalized) for entry_id, normalized in sorted(facts)
    }
    found = []
    for group in conflict_groups(list(assertions.values()), quiet, wanted):
        members = sorted(map(entry_of, group), key=lambda e: e.order_key, reverse=True)
        why = differ(assertions[group[0]], assertions[group[-1]]) if len(group) == 2 else ""
        found.append(_conflict(category, members, why or ""))
    return found


def stated_conflicts(
    stated: Iterable[Pair],
    active: set[str],
    entry_of: Callable[[str], Entry],
    wanted: set[str] | None = None,
) -> list[Finding]:
    """A finding for each pair of active facts a conflicts-with relation names."""
    found = []
    for first, second in sorted(stated):
        if first in active and second in active and (wanted is None or {first, second} & wanted):
            a, b = entry_of(first), entry_of(second)
            found.append(
                Finding(
                    "possible_conflict",
                    (a.id, b.id),
                    (a.filename, b.filename),
                    f"{a.short_id} and {b.short_id} are marked conflicts-with: supersede or "
                    "retire the one that is wrong",
                )
            )
    return found


def _conflict(category: str, members: Sequence[Entry], why: str) -> Finding:
    """One possible conflict: a pair (``why`` they may disagree), or a group about one subject
    (newest first)."""
    if len(members) == 2:
        a, b = members[1], members[0]
        message = (
            f"{a.short_id} and {b.short_id} in {category} may disagree ({why}): "
            "supersede the one that is wrong, or if both hold, "
            f"`memsite relate {a.short_id} {b.short_id} --type distinct-from`"
        )
    else:
        message = (
            f"{len(members)} facts in {category} are about one subject but differ in a "
            f"number, a version, a name or a negation ({listed(members)}): supersede the wrong "
            "ones, or relate those that all hold with --type distinct-from"
        )
    return Finding(
        "possible_conflict",
        tuple(e.id for e in members),
        tuple(e.filename for e in members),
        message,
    )
