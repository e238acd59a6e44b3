"""The rules of `memsite review`, `status` and `prune`, over a compaction result. Pure.

Findings come from four places: files that could not be read (the storage layer says why),
compaction itself (duplicates, contradictions, cycles, dangling ids), the comparisons made
here (near duplicates, unknown categories, future times) and the secret scan (its verdicts are
cached by the caller, so they are passed in).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, date, datetime
from typing import Any

from memsite.core.compaction import ACTIVE, RETIRED, STATUSES, Compaction, Finding, compact
from memsite.core.entry import MAX_FUTURE, Entry
from memsite.core.similarity import similar_pairs, token_set
from memsite.errors import AmbiguousIdError, EntryNotFoundError, InvalidInputError

_ID_INPUT_RE = re.compile(r"[0-9a-f][0-9a-f-]{3,35}")


def id_reference(ref: str) -> str:
    """``ref`` as an id or id prefix to look up (lower case), or InvalidInputError."""
    value = ref.strip().lower()
    if not _ID_INPUT_RE.fullmatch(value) or sum(c != "-" for c in value[:4]) < 4:
        raise InvalidInputError(
            f"invalid id {ref[:80]!r}: give a full entry id or a prefix of at least 4 hex "
            "characters"
        )
    return value


def choose_id(ref: str, matches: Sequence[str], total: int | None = None) -> str:
    """The one id among ``matches`` (sorted ids that start with ``ref``; ``total`` of them)."""
    count = len(matches) if total is None else total
    if not matches:
        raise EntryNotFoundError(
            f"no entry with id {ref!r}: find ids with `memsite list` or `memsite search`"
        )
    if count > 1:
        shown = ", ".join(m[:13] for m in matches[:10])
        more = f" and {count - 10} more" if count > 10 else ""
        raise AmbiguousIdError(
            f"id prefix {ref!r} matches {count} entries ({shown}{more}): give more characters"
        )
    return matches[0]


def match_id(ref: str, ids: Iterable[str]) -> str:
    """The one id that ``ref`` (a full id or a prefix of 4+ hex characters) names."""
    value = id_reference(ref)
    known = ids if isinstance(ids, set | dict) else set(ids)
    if value in known:
        return value
    return choose_id(ref, sorted(i for i in known if i.startswith(value)))


def invalid_file_findings(invalid: Iterable[tuple[str, str]]) -> list[Finding]:
    """One finding per unusable entry file: (file name, reason) pairs."""
    return [
        Finding("invalid_file", (), (name,), f"{name}: {message}; skipped")
        for name, message in invalid
    ]


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


def unknown_category_findings(result: Compaction, configured: Iterable[str]) -> list[Finding]:
    allowed = set(configured)
    unknown: dict[str, list[Entry]] = {}
    for entry in result.entries:
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


def future_findings(result: Compaction, now: datetime) -> list[Finding]:
    limit = now + MAX_FUTURE
    return [
        Finding(
            "future_timestamp",
            (entry.id,),
            (entry.filename,),
            f"{entry.short_id} is dated {entry.raw['created']}, in the future: it would win "
            "every contradiction; supersede it with a correctly dated entry",
        )
        for entry in result.entries
        if entry.created > limit
    ]


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


def counts(result: Compaction) -> dict[str, Any]:
    """Entries by status, in all and per category."""
    tally: dict[tuple[str, str], int] = {}
    for entry in result.entries:
        pair = (entry.category, result.status[entry.id])
        tally[pair] = tally.get(pair, 0) + 1
    return counts_of(tally, result.categories)


def counts_of(tally: Mapping[tuple[str, str], int], categories: Iterable[str]) -> dict[str, Any]:
    """The shape of ``counts`` from (category, status) → number of entries."""
    by_status = dict.fromkeys(STATUSES, 0)
    by_category = {c: dict.fromkeys(STATUSES, 0) for c in categories}
    for (category, status), number in tally.items():
        by_status[status] += number
        by_category.setdefault(category, dict.fromkeys(STATUSES, 0))[status] += number
    return {"entries": sum(by_status.values()), **by_status, "categories": by_category}


def prunable(result: Compaction, before: date, categories: Mapping[str, float]) -> set[str]:
    """Inactive entries created before ``before`` whose removal revives nothing."""
    cutoff = datetime(before.year, before.month, before.day, tzinfo=UTC)
    # A retired fact is kept: its page tells why it was withdrawn.
    retired = {e.id for e in result.entries if result.status[e.id] == RETIRED}
    doomed = {
        e.id
        for e in result.entries
        if result.status[e.id] not in (ACTIVE, RETIRED) and e.created < cutoff
    }
    # An entry goes only together with everything it transitively supersedes.
    changed = True
    while changed:
        changed = False
        for entry_id in sorted(doomed):
            if any(r.id not in doomed for r in result.replaced(entry_id)):
                doomed.discard(entry_id)
                changed = True
    # Duplicate and key groups can also hand the win back to an older entry: check by
    # compacting what would remain, and keep whatever a revival depends on.
    active_now = {e.id for e in result.active()}
    while doomed:
        after = compact([e for e in result.entries if e.id not in doomed], categories, retired)
        revived = [e for e in after.active() if e.id not in active_now]
        if not revived:
            break
        size = len(doomed)
        for entry in revived:
            doomed -= {other.id for other in result.entries if _revives(result, other, entry)}
        if len(doomed) == size:  # nothing to blame: prune nothing rather than revive
            return set()
    return doomed


def _revives(result: Compaction, other: Entry, entry: Entry) -> bool:
    """Does removing ``other`` hand ``entry`` back its place (same content, key or chain)?"""
    return (
        (other.category, other.normalized) == (entry.category, entry.normalized)
        or bool(entry.key and (other.category, other.key) == (entry.category, entry.key))
        or entry.id in {r.id for r in result.replaced(other.id)}
    )
