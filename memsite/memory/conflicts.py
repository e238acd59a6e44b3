"""Possible conflicts as index.md marks them, the way it marks drift: each member of a group
of possibly conflicting facts gets ``(may conflict with 611e1ab2)`` naming the others.

The rule is ``core.conflicts``' (the one `review` applies, silenced and forced by relations as
there), over the facts index.md may show: each category's active facts in index order until
their texts' tokens reach the whole budget (no category can show more), and, since a marked
fact goes after the others, as many more as the marked ones cost. That costs the same at any
size of store, where `review`'s pass over every fact takes seconds at 10k; a fact conflicting
only with one too old to be shown is left to `review`.

`context` asks at every session start, so the answer is kept in ``cache/conflicts.marshal``
with what it was found from (the facts' fingerprint, which changes with every entry or
record file but not when lines are counted, and the budget): a session start with nothing
changed reads that one file and imports no rule. Each category's groups are kept too, with
the rows its walk read (in index order: a row is one entry file's bytes) and the relations
among them: after a change, a category whose walk would read the same rows, with the same
relations, under the same budget and read model, has the same groups, and only the others
are found again (~35 ms at 10k facts when every category was).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memsite.memory import Memory

_VERSION = 2  # the shape of the cache file
_NAME = "conflicts.marshal"
_ROUNDS = 4


def conflict_markers(memory: Memory) -> dict[str, str]:
    """Active fact id → its marker, for the facts index.md may show that possibly conflict."""
    fingerprint, budget = memory.model.facts_fingerprint(), memory.config.budget
    key = [fingerprint, budget]
    saved = _load(memory)
    if saved.get("key") == key and isinstance(saved.get("markers"), dict):
        return dict(saved["markers"])
    # Rows are numbered within one read model (its instance), and the walk is the budget's.
    base = [fingerprint.split(":")[0], budget]
    kept = saved.get("walks") if saved.get("base") == base else None
    found, walks = _find(memory, kept if isinstance(kept, dict) else {})
    _save(memory, {"key": key, "markers": found, "base": base, "walks": walks})
    return found


# A category's walk: the rows it read in index order, whether it read them all, the relations
# among their facts, and the groups and ids found.
Walk = tuple[list[int], bool, list[tuple[str, str, str]], list[tuple[str, ...]], list[str]]


def _find(memory: Memory, kept: dict[str, Any]) -> tuple[dict[str, str], dict[str, Walk]]:
    """The markers, and each category's walk (``kept``: the last ones, reused where they
    still hold)."""
    from memsite.core.conflicts import markers_of

    index = memory.index()
    groups: list[tuple[str, ...]] = []
    shown: set[str] = set()
    walks: dict[str, Walk] = {}
    for category in sorted(index.entries.categories()):
        walk = kept.get(category)
        if not _holds(memory, category, walk):
            walk = _category_groups(memory, category)
        assert walk is not None
        walks[category] = walk
        groups += [tuple(group) for group in walk[3]]
        shown.update(walk[4])
    stated = {pair for pair, link in _relations(memory, shown).items() if link == "conflicts-with"}
    groups += sorted(pair for pair in stated if set(pair) <= shown)
    return markers_of(groups), walks


def _holds(memory: Memory, category: str, walk: Any) -> bool:
    """Would ``category``'s walk read the rows ``walk`` read, with the same relations among
    their facts? Then it finds the same groups (the walk depends on nothing else)."""
    if not _walk_shape(walk):
        return False
    rows, everything, relations, _, ids = walk
    read = memory.index().entries.active_rows(category, len(rows) + 1)
    if read[: len(rows)] != rows or (everything and len(read) != len(rows)):
        return False
    return bool(_relation_list(_relations(memory, set(ids))) == relations)


def _category_groups(memory: Memory, category: str) -> Walk:
    """The possible-conflict groups among the facts of ``category`` index.md may show, and
    their ids (as a walk, ``Walk``). A marked fact goes after the others, so the facts its
    place leaves to older ones are taken in too, until the facts not marked cost the budget
    (at most ``_ROUNDS`` times: a category whose every fact conflicts with another is read
    that far only)."""
    from memsite.core.conflicts import assertion_of, conflict_groups
    from memsite.core.estimate import estimate_tokens

    budget = memory.config.budget
    rows = memory.index().entries.active_in_order(category)
    facts: list[tuple[str, str, int]] = []  # id, normalized text, cost
    assertions = []  # each fact's, made once: a round reads on from the last
    read: list[int] = []
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
            read.append(row.n)
            facts.append((entry.id, entry.normalized, estimate_tokens(entry.content)))
            assertions.append(assertion_of(entry.id, entry.normalized))
            spent += facts[-1][2]
        walked = {entry_id for entry_id, _, _ in facts}
        quiet = set(_relations(memory, walked))
        groups = conflict_groups(assertions, quiet)
        marked = {entry_id for group in groups for entry_id in group}
        target = budget + sum(cost for i, _, cost in facts if i in marked)
        if not more or spent >= target:
            break
    ids = sorted({entry_id for entry_id, _, _ in facts})
    relations = _relation_list(_relations(memory, set(ids)))
    return read, not more, relations, [tuple(g) for g in groups], ids


def _relation_list(relations: dict[tuple[str, str], str]) -> list[tuple[str, str, str]]:
    return sorted((a, b, link) for (a, b), link in relations.items())


def _walk_shape(walk: Any) -> bool:
    """Has a kept walk the shape ``_category_groups`` gives (the cache file is not trusted
    to)?"""
    if not (isinstance(walk, tuple) and len(walk) == 5):
        return False
    rows, everything, relations, groups, ids = walk
    return (
        isinstance(rows, list)
        and all(type(n) is int for n in rows)
        and isinstance(everything, bool)
        and isinstance(relations, list)
        and all(isinstance(r, tuple) and all(isinstance(x, str) for x in r) for r in relations)
        and isinstance(groups, list)
        and all(isinstance(g, tuple) and all(isinstance(x, str) for x in g) for g in groups)
        and isinstance(ids, list)
        and all(isinstance(i, str) for i in ids)
    )


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
