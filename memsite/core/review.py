"""Every kind of finding `memsite review` reports: what it says, in which order the portal
shows it, and what to do about it; and the rules that make each one. Pure.

Findings come from the store's own files (links where derived files go, derived files git
tracks), from the files that could not be read (the storage layer says why), from
compaction (repeated ids, cycles, dangling ids, duplicates, contradictions, forks), from one
pass over the facts' texts (near duplicates, secrets, and possible conflicts, whose rules are
``core.review_conflicts``'; the memory layer runs the pass and remembers what it found) and
from the facts' standing (drift, staleness, expiry, dates in the future). :data:`KINDS` lists
them all.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from typing import NamedTuple

from memsite.core.anchors import RENAMED, Anchor, Located
from memsite.core.entry import MAX_FUTURE, Entry
from memsite.core.schema import ACTIVE, OVERRIDDEN
from memsite.core.similarity import NEAR_DUPLICATE_THRESHOLD, jaccard, similar_groups, token_set


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
    "unsafe_path": "Symbolic links where memsite writes its derived files (a clone could make "
    "memsite write wherever they point): memsite writes nothing through them; remove each "
    "(`git rm` it) and memsite rebuilds it.",
    "hidden_text": "Facts holding invisible or direction-changing characters, held back from "
    "agents: rewrite each without them (amend), or approve it if you know why they are there.",
    "suspicious": "Facts that read as a command piped into a shell or an instruction to the "
    "agent, held back from agents: retire them, or `memsite approve` those you checked.",
    "unreviewed": "Facts that did not come through the reviewed ref (an unreviewed branch, "
    "another tool, a hand edit), held back from agents: push them through review, or approve.",
    "fork": "Branches amended the same fact in different ways: write one fact that supersedes "
    "all of them, or retire the wrong ones.",
    "possible_conflict": "Active facts that may say opposite things: supersede or retire the "
    "wrong one; if both hold, link them distinct-from.",
    "drift": "The files these facts are anchored to changed: check each fact against the code, "
    "then verify it again with --repin, amend it or retire it.",
    "stale": "Nobody confirmed these facts within the review period (memory.reviewAfterDays): "
    "verify those that still hold, amend or retire the others.",
    "expired": "Facts past their valid_to, left out of the index: amend those that still hold "
    "with a later --valid-to, retire the others.",
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
    "tracked_derived": "Derived files committed to git (memsite rebuilds them from entries/ in "
    "every clone): untrack them with `git rm -r --cached` (the store's .gitignore lists them).",
    "future_timestamp": "Entries dated in the future win every contradiction: supersede them "
    "with correctly dated entries.",
    "secret_allowed": "Entries published as written because a person marked them allow_secret: "
    "make sure none is a real credential.",
}


def _files(by_id: Mapping[str, Entry], ids: Iterable[str]) -> tuple[str, ...]:
    return tuple(by_id[i].filename for i in ids)


# --- the store's own files ------------------------------------------------------------------


def unsafe_path(problem: str) -> Finding:
    """A link memsite refuses to write through; ``problem`` says which and what to do (the
    storage layer's words, the same as the refusal's)."""
    return Finding("unsafe_path", (), (), problem)


def tracked_derived(top: str, files: Sequence[str]) -> Finding:
    """Derived files git tracks: ``files`` at or under the derived path ``top``."""
    if len(files) == 1:
        what = f"{files[0]} is derived but tracked by git"
    else:
        shown = ", ".join(files[:3]) + (f" and {len(files) - 3} more" if len(files) > 3 else "")
        what = f"{len(files)} derived files under {top} are tracked by git ({shown})"
    return Finding(
        "tracked_derived",
        (),
        (),
        f"{what}: memsite rebuilds them from entries/, and a committed one is whatever its "
        f"author made it; untrack it with `git rm -r --cached {top}`",
    )


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
    content) in any order: one for each group that similar pairs join (two facts, or many
    near-identical ones: not one finding a pair), in the order of their ids. ``entry_of``
    gives a member's entry."""
    found = []
    for category, active in groups:
        memo: dict[str, str] = {}
        items = [(entry_id, token_set(normalized, memo)) for entry_id, normalized in active]
        tokens = dict(items)
        for group in similar_groups(items):
            if len(group) == 2:
                a, b = group
                score = round(jaccard(tokens[a], tokens[b]), 3)
                found.append(_near_pair(category, entry_of(a), entry_of(b), score))
            else:
                found.append(_near_group(category, [entry_of(i) for i in group]))
    return found


def _near_pair(category: str, a: Entry, b: Entry, score: float) -> Finding:
    return Finding(
        "near_duplicate",
        (a.id, b.id),
        (a.filename, b.filename),
        f"{a.short_id} and {b.short_id} in {category} are {score:.0%} similar: "
        "supersede one or merge them",
    )


def _near_group(category: str, group: Sequence[Entry]) -> Finding:
    """Three or more facts that similar pairs join, newest first."""
    members = sorted(group, key=lambda e: e.order_key, reverse=True)
    return Finding(
        "near_duplicate",
        tuple(e.id for e in members),
        tuple(e.filename for e in members),
        f"{len(members)} entries in {category} say almost the same (each is at least "
        f"{NEAR_DUPLICATE_THRESHOLD:.0%} similar to another: {listed(members)}): write one "
        "fact that supersedes them all (memsite add --supersedes A --supersedes B ...), or "
        "retire the extra ones",
    )


def listed(members: Sequence[Entry], shown: int = 10) -> str:
    """The short ids of the first ``shown`` members, and how many more there are."""
    more = f" and {len(members) - shown} more" if len(members) > shown else ""
    return ", ".join(e.short_id for e in members[:shown]) + more


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
