"""Every kind of finding `memsite review` reports: what it says, in which order the portal
shows it, and what to do about it; and the rules that make each one. Pure.

Findings come from the files that could not be read (the storage layer says why), from
compaction (repeated ids, cycles, dangling ids, duplicates, contradictions, forks), from one
pass over the facts' texts (near duplicates, possible conflicts, secrets: the memory layer
runs it, and caches the secret scan's verdicts) and from the facts' standing (drift,
staleness, dates in the future). :data:`KINDS` lists them all.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any, NamedTuple

from memsite.core.anchors import RENAMED, Anchor, Located
from memsite.core.entry import MAX_FUTURE, Entry
from memsite.core.records import RELATE, Record
from memsite.core.schema import ACTIVE, OVERRIDDEN
from memsite.core.similarity import similar_pairs, token_set


class Finding(NamedTuple):
    """Something `memsite review` reports. ``ids`` and ``files`` name the entries involved."""

    kind: str
    ids: tuple[str, ...]
    files: tuple[str, ...]
    message: str

    def as_dict(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "ids": list(self.ids),
            "files": list(self.files),
            "message": self.message,
        }


# Every kind, in the order the portal's review page shows them (what needs a person first),
# with what to do about it. `memsite review` lists findings in the order the checks run.
KINDS = {
    "fork": "Branches amended the same fact in different ways: write one fact that supersedes "
    "all of them, or retire the wrong ones.",
    "possible_conflict": "Active facts that may say opposite things: supersede or retire the "
    "wrong one; if both hold, link them distinct-from.",
    "drift": "The files these facts are anchored to changed: check each fact against the code, "
    "then verify it again with --repin, amend it or retire it.",
    "stale": "Nobody confirmed these facts within the review period (memory.reviewAfterDays): "
    "verify those that still hold, amend or retire the others.",
    "contradiction": "Entries with the same key disagree and the newest wins: supersede the "
    "others to settle it.",
    "secret": "Entries that look like they hold a credential (redacted here): remove them and "
    "rotate the credential.",
    "duplicate": "Entries that say the same: the newest is kept; nothing to do unless the "
    "older ones should be deleted.",
    "near_duplicate": "Entries that say almost the same: supersede one or merge them.",
    "cycle": "Entries that supersede each other in a loop: supersede the loop with one entry.",
    "dangling_supersedes": "Entries superseding ids not in this checkout (perhaps on another "
    "branch): merge that branch or ignore.",
    "unknown_category": "Categories the config does not list: add them to memory.categories.",
    "invalid_file": "Files in entries/ that could not be read: fix or delete them.",
    "future_timestamp": "Entries dated in the future win every contradiction: supersede them "
    "with correctly dated entries.",
    "secret_allowed": "Entries published as written because a person marked them allow_secret: "
    "make sure none is a real credential.",
}


def _files(by_id: Mapping[str, Entry], ids: Iterable[str]) -> tuple[str, ...]:
    return tuple(by_id[i].filename for i in ids)


# --- files and compaction -------------------------------------------------------------------


def invalid_file_findings(invalid: Iterable[tuple[str, str]]) -> list[Finding]:
    """One finding per unusable entry file: (file name, reason) pairs."""
    return [
        Finding("invalid_file", (), (name,), f"{name}: {message}; skipped")
        for name, message in invalid
    ]


def repeated_id(entry: Entry, kept: Entry) -> Finding:
    """A file whose id another file holds too (compaction keeps ``kept``)."""
    return Finding(
        "invalid_file",
        (entry.id,),
        (entry.filename,),
        f"{entry.filename} repeats the id of {kept.filename}; it is ignored",
    )


def self_supersession(entry: Entry) -> Finding:
    return Finding("cycle", (entry.id,), (entry.filename,), "entry supersedes itself")


def dangling(entry: Entry, missing: Sequence[str]) -> Finding:
    """Ids an entry supersedes that are not in this checkout."""
    return Finding(
        "dangling_supersedes",
        (entry.id, *missing),
        (entry.filename,),
        f"{entry.short_id} supersedes {', '.join(missing)}, not in this checkout "
        "(it may live on another branch)",
    )


def cycle(members: Sequence[Entry]) -> Finding:
    """A supersession cycle (``members`` newest first: the first is kept)."""
    return Finding(
        "cycle",
        tuple(m.id for m in members),
        tuple(m.filename for m in members),
        "supersession cycle: "
        + " -> ".join(m.short_id for m in members)
        + f"; the newest ({members[0].short_id}) is kept",
    )


def _shared(
    groups: Mapping[tuple[str, str], list[Entry]],
) -> list[tuple[tuple[str, str], list[Entry]]]:
    return [(name, group) for name, group in groups.items() if len(group) > 1]


def group_findings(
    dup_groups: Mapping[tuple[str, str], list[Entry]],
    key_groups: Mapping[tuple[str, str], list[Entry]],
    status: Mapping[str, str],
    by_id: Mapping[str, Entry],
) -> list[Finding]:
    """Duplicates (same category, same text) and contradictions (same category and key) that
    still count: their newest member is active."""
    findings = []
    # Sorted for a stable order, groups of one left out first (at 100k entries sorting them
    # all by their texts cost ~0.7 s).
    for (category, _), group in sorted(_shared(dup_groups)):
        # Only where one of them still counts: the newest, if it is active, is the one kept
        # (a pair both of which were superseded or retired needs nothing done).
        if status[group[0].id] == ACTIVE:
            ids = tuple(e.id for e in group)
            findings.append(
                Finding(
                    "duplicate",
                    ids,
                    _files(by_id, ids),
                    f"{len(group)} entries in {category} say the same; "
                    f"the newest ({group[0].short_id}) is kept",
                )
            )
    for (category, key), group in sorted(_shared(key_groups)):
        losers = [e for e in group[1:] if status[e.id] == OVERRIDDEN]
        if losers and status[group[0].id] == ACTIVE:
            ids = (group[0].id, *(e.id for e in losers))
            findings.append(
                Finding(
                    "contradiction",
                    ids,
                    _files(by_id, ids),
                    f"{len(ids)} entries in {category} disagree on key {key!r}; the newest "
                    f"({group[0].short_id}) wins: supersede the others to settle it",
                )
            )
    return findings


def fork_findings(
    ordered: Sequence[Entry],
    superseded_by: Mapping[str, list[str]],
    status: Mapping[str, str],
    by_id: Mapping[str, Entry],
) -> list[Finding]:
    """Entries that two or more active entries supersede (branches amending one fact)."""
    findings = []
    for entry in ordered:
        heirs = [i for i in superseded_by.get(entry.id, []) if status[i] == ACTIVE]
        if len(heirs) > 1:
            ids = (entry.id, *heirs)
            shown = ", ".join(by_id[i].short_id for i in heirs)
            findings.append(
                Finding(
                    "fork",
                    ids,
                    _files(by_id, ids),
                    f"{len(heirs)} active entries ({shown}) each supersede {entry.short_id}: "
                    "write one fact that supersedes them all (memsite add --supersedes A "
                    "--supersedes B), or retire the wrong one",
                )
            )
    return findings


# --- the facts' texts -----------------------------------------------------------------------


def near_duplicates_in(
    groups: Iterable[tuple[str, Sequence[tuple[str, str]]]], entry_of: Callable[[str], Entry]
) -> list[Finding]:
    """Near-duplicate findings of each category's active facts, given as (id, normalized
    content) in any order (the pairs come out sorted); ``entry_of`` gives a member's entry."""
    found = []
    for category, active in groups:
        memo: dict[str, str] = {}
        items = [(entry_id, token_set(normalized, memo)) for entry_id, normalized in active]
        for a, b, score in similar_pairs(items):
            ea, eb = entry_of(a), entry_of(b)
            found.append(
                Finding(
                    "near_duplicate",
                    (a, b),
                    (ea.filename, eb.filename),
                    f"{ea.short_id} and {eb.short_id} in {category} are {score:.0%} similar: "
                    "supersede one or merge them",
                )
            )
    return found


def secret_findings(entry: Entry, messages: Sequence[str], *, allowed: bool) -> list[Finding]:
    """Findings for one entry's secret-scan messages (``allowed``: a person let it through)."""
    if allowed:
        return [
            Finding(
                "secret_allowed",
                (entry.id,),
                (entry.filename,),
                f"{entry.short_id}: {message}, published as written because it is marked "
                "allow_secret (a reviewed false positive); if it is a real credential, delete "
                "the entry and rotate the credential",
            )
            for message in messages
        ]
    return [
        Finding(
            "secret",
            (entry.id,),
            (entry.filename,),
            f"{entry.short_id}: {message}; it is redacted everywhere memsite publishes: remove "
            "the entry (and rotate the credential if it reached git), or, if it is a false "
            "positive, have a person rewrite it with --allow-secret",
        )
        for message in messages
    ]


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
    from memsite.core.conflicts import assertion_of, possible_conflicts

    silenced: set[tuple[str, str]] = set()
    stated: set[tuple[str, str]] = set()
    for record in records:
        if record.kind == RELATE and record.other is not None:
            first, second = sorted((record.target, record.other))
            (stated if record.link == "conflicts-with" else silenced).add((first, second))
    wanted = set(only) if only is not None else None
    active = {entry_id for facts in per_category.values() for entry_id, _ in facts}
    found = []
    for category in sorted(per_category):
        # One category's assertions at a time: at 100k entries all of them held ~100 MB.
        assertions = [
            assertion_of(entry_id, normalized) for entry_id, normalized in per_category[category]
        ]
        conflicts = possible_conflicts(assertions, silenced | stated, wanted)
        del assertions
        for group in _groups(conflicts):
            members = sorted(map(entry_of, group), key=lambda e: e.order_key, reverse=True)
            found.append(_conflict(category, members, conflicts))
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


def _conflict(category: str, members: Sequence[Entry], conflicts: Sequence[Any]) -> Finding:
    """One possible conflict: a pair, or a group about one subject (newest first)."""
    if len(members) == 2:
        a, b = members[1], members[0]
        why = next(c.why for c in conflicts if {c.a, c.b} == {a.id, b.id})
        message = (
            f"{a.short_id} and {b.short_id} in {category} may disagree ({why}): "
            "supersede the one that is wrong, or if both hold, "
            f"`memsite relate {a.short_id} {b.short_id} --type distinct-from`"
        )
    else:
        shown = ", ".join(e.short_id for e in members[:10])
        more = f" and {len(members) - 10} more" if len(members) > 10 else ""
        message = (
            f"{len(members)} facts in {category} are about one subject but differ in a "
            f"number, a version or a negation ({shown}{more}): supersede the wrong "
            "ones, or relate those that all hold with --type distinct-from"
        )
    return Finding(
        "possible_conflict",
        tuple(e.id for e in members),
        tuple(e.filename for e in members),
        message,
    )


def _groups(conflicts: Sequence[Any]) -> list[list[str]]:
    """The pairs joined into groups (connected components), each sorted, groups sorted: a
    subject written many ways is one finding, not one per pair."""
    parent: dict[str, str] = {}

    def root(item: str) -> str:
        while parent.setdefault(item, item) != item:
            parent[item] = parent[parent[item]]
            item = parent[item]
        return item

    for conflict in conflicts:
        first, second = root(conflict.a), root(conflict.b)
        if first != second:
            parent[max(first, second)] = min(first, second)
    groups: dict[str, list[str]] = defaultdict(list)
    for item in sorted(parent):
        groups[root(item)].append(item)
    return sorted(groups.values())


# --- the facts' standing --------------------------------------------------------------------


def unknown_category_findings(entries: Iterable[Entry], configured: Iterable[str]) -> list[Finding]:
    allowed = set(configured)
    unknown: dict[str, list[Entry]] = {}
    for entry in entries:
        if entry.category not in allowed:
            unknown.setdefault(entry.category, []).append(entry)
    return [
        Finding(
            "unknown_category",
            tuple(e.id for e in members),
            tuple(e.filename for e in members),
            f"{len(members)} entries in category {category!r}, which the config does not "
            "list: add it to memory.categories (weight 1 is used meanwhile)",
        )
        for category, members in sorted(unknown.items())
    ]


def future_findings(entries: Iterable[Entry], now: datetime) -> list[Finding]:
    limit = now + MAX_FUTURE
    return [
        Finding(
            "future_timestamp",
            (entry.id,),
            (entry.filename,),
            f"{entry.short_id} is dated {entry.raw['created']}, in the future: it would win "
            "every contradiction; supersede it with a correctly dated entry",
        )
        for entry in entries
        if entry.created > limit
    ]


def drift(entry: Entry, drifted: Sequence[tuple[Anchor, Located]]) -> Finding:
    """An active fact whose anchored files changed since it was pinned."""
    shown = ", ".join(
        f"{a.label} {'renamed to ' + str(s.path) if s.state == RENAMED else s.state}"
        for a, s in drifted
    )
    return Finding(
        "drift",
        (entry.id,),
        (entry.filename,),
        f"{entry.short_id}: {shown} since it was pinned: check the fact, then "
        f"`memsite verify {entry.short_id} --repin`, amend it, or retire it",
    )


def stale(entry: Entry, confirmed: datetime, days: int) -> Finding:
    """An active fact neither written nor verified within its review period."""
    return Finding(
        "stale",
        (entry.id,),
        (entry.filename,),
        f"{entry.short_id}: not written or verified since {confirmed.date().isoformat()} "
        f"(memory.reviewAfterDays: {days}): confirm it with `memsite verify "
        f"{entry.short_id}`, amend it, or retire it",
    )
