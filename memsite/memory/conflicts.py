"""Possible conflicts as index.md marks them, the way it marks drift: each member of a group
of possibly conflicting facts gets ``(may conflict with 611e1ab2)`` naming the others.

The rule is ``core.conflicts``' (the one `review` applies, silenced and forced by relations as
there), over the facts index.md may show: each category's active facts in index order until
their texts' tokens reach the whole budget (no category can show more), and, since a marked
fact goes after the others, as many more as the marked ones cost. That costs the same at any
size of store, where `review`'s pass over every fact takes seconds at 10k; a fact conflicting
only with one too old to be shown is left to `review`.

`context` asks at every session start, so the answer is kept in ``cache/conflicts.marshal``
with what it was found from (the entries' fingerprint, which changes with every entry or
record file, and the budget): a session start with nothing changed reads that one file and
imports no rule.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memsite.memory import Memory

_VERSION = 1  # the shape of the cache file
_NAME = "conflicts.marshal"
_ROUNDS = 4


def conflict_markers(memory: Memory) -> dict[str, str]:
    """Active fact id → its marker, for the facts index.md may show that possibly conflict."""
    key = [memory.model.fingerprint(), memory.config.budget]
    saved = _load(memory)
    if saved.get("key") == key and isinstance(saved.get("markers"), dict):
        return dict(saved["markers"])
    found = _find(memory)
    _save(memory, {"key": key, "markers": found})
    return found


def _find(memory: Memory) -> dict[str, str]:
    from memsite.core.conflicts import markers_of

    index = memory.index()
    groups: list[tuple[str, ...]] = []
    shown: set[str] = set()
    for category in sorted(index.entries.categories()):
        found, ids = _category_groups(memory, category)
        groups += found
        shown |= ids
    stated = {pair for pair, link in _relations(memory, shown).items() if link == "conflicts-with"}
    groups += sorted(pair for pair in stated if set(pair) <= shown)
    return markers_of(groups)


def _category_groups(memory: Memory, category: str) -> tuple[list[tuple[str, ...]], set[str]]:
    """The possible-conflict groups among the facts of ``category`` index.md may show, and
    their ids. A marked fact goes after the others, so the facts its place leaves to older
    ones are taken in too, until the facts not marked cost the budget (at most ``_ROUNDS``
    times: a category whose every fact conflicts with another is read that far only)."""
    from memsite.core.conflicts import assertion_of, conflict_groups
    from memsite.core.estimate import estimate_tokens

    budget = memory.config.budget
    rows = memory.index().entries.active_in_order(category)
    facts: list[tuple[str, str, int]] = []  # id, normalized text, cost
    groups: list[tuple[str, ...]] = []
    target, more = budget, True
    for _ in range(_ROUNDS):
        spent = sum(cost for _, _, cost in facts)
        while more and spent < target:
            row = next(rows, None)
            if row is None:
                more = False
                break
            entry = row.entry()
            facts.append((entry.id, entry.normalized, estimate_tokens(entry.content)))
            spent += facts[-1][2]
        ids = {entry_id for entry_id, _, _ in facts}
        quiet = set(_relations(memory, ids))
        groups = conflict_groups([assertion_of(i, text) for i, text, _ in facts], quiet)
        marked = {entry_id for group in groups for entry_id in group}
        target = budget + sum(cost for i, _, cost in facts if i in marked)
        if not more or spent >= target:
            break
    return groups, {entry_id for entry_id, _, _ in facts}


def _relations(memory: Memory, ids: set[str]) -> dict[tuple[str, str], str]:
    """The pairs (sorted) relate records link among records naming ``ids``, with the type."""
    from memsite.core.records import RELATE

    index = memory.index()
    found: dict[tuple[str, str], str] = {}
    for record in index.records.about(ids) if ids and index.records.any() else ():
        if record.kind == RELATE and record.other is not None and record.link is not None:
            a, b = record.target, record.other
            found[(a, b) if a < b else (b, a)] = record.link
    return found


def _load(memory: Memory) -> dict[str, Any]:
    return memory.model.caches.load_bound(memory.store.cache_dir / _NAME, _VERSION)


def _save(memory: Memory, data: dict[str, Any]) -> None:
    memory.model.caches.save_bound(memory.store.cache_dir / _NAME, _VERSION, data)
