"""The text pass's findings remembered by category (``memory.review.scan_findings``).

Near duplicates and possible conflicts are found within one category's active facts (and,
for conflicts, the relations among them), so a category whose facts did not change keeps
its findings: a build or a review after one new fact runs the pass over that fact's
category only. At 100k entries the pass is most of a build's time.

Each category's key is a BLAKE2b digest of its facts in id order with everything a finding
shows of them (id, file, creation time, confidence, normalized text), of the relation pairs
among them, and of the rules' code and memsite's version: any change to one of them is a
miss, and a miss costs only the pass it would have saved. The file is bound to this clone
(``Caches.load_bound``), except that the Pages workflow restores it from its last run
(``MEMSITE_CACHE_RESTORED``); one that is damaged or does not have the expected shapes is not
believed.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memsite.core import review as rules
from memsite.core.review import Finding
from memsite.core.review_conflicts import Pair, category_conflicts
from memsite.files import digest_tree

if TYPE_CHECKING:
    from memsite.core.entry import Entry
    from memsite.memory import Memory

_VERSION = 1
# What a finding shows of one fact: id, file, creation time (ISO), confidence, normalized text.
Shown = tuple[str, str, str, str, str]
_Saved = tuple[bytes, list[tuple[Any, ...]], list[tuple[Any, ...]]]


def shown(entry: Entry) -> Shown:
    return (entry.id, entry.filename, entry.created.isoformat(), entry.confidence, entry.normalized)


def category_findings(
    memory: Memory,
    facts: Mapping[str, Sequence[Shown]],
    quiet: set[Pair],
    entry_of: Callable[[str], Entry],
) -> tuple[dict[str, list[Finding]], list[Finding]]:
    """The near duplicates of each category with some, and the possible conflicts of every
    category in category order (``quiet``: the pairs relations silence or state), each
    category's taken from the memo when its key matches, else found and remembered."""
    caches = memory.model.caches
    path = memory.store.findings_memo
    # In the Pages workflow, a memo of an earlier run (another clone) is believed too: its
    # keys name every fact they were made from.
    saved = _load(caches.load_bound(path, _VERSION, restored=True).get("categories"))
    fresh: dict[str, _Saved] = {}
    near: dict[str, list[Finding]] = {}
    conflicts: list[Finding] = []
    for category in sorted(facts):
        items = facts[category]
        ids = {item[0] for item in items}
        pairs = sorted(p for p in quiet if p[0] in ids and p[1] in ids)
        key = _key(category, items, pairs)
        hit = saved.get(category)
        if hit is not None and hit[0] == key:
            found_near, found_conflicts = _revived(hit[1]), _revived(hit[2])
        else:
            texts = [(item[0], item[4]) for item in items]
            found_near = rules.near_duplicates_in([(category, texts)], entry_of)
            found_conflicts = category_conflicts(category, texts, set(pairs), entry_of)
        fresh[category] = (key, [tuple(f) for f in found_near], [tuple(f) for f in found_conflicts])
        if found_near:
            near[category] = found_near
        conflicts += found_conflicts
    if fresh != saved:
        caches.save_bound(path, _VERSION, {"categories": fresh})
    return near, conflicts


def _key(category: str, items: Iterable[Shown], pairs: Sequence[Pair]) -> bytes:
    digest = hashlib.blake2b(_rules_stamp(), digest_size=16)
    digest.update(repr((category, pairs)).encode("utf-8", "surrogatepass"))
    for item in sorted(items):
        digest.update(repr(item).encode("utf-8", "surrogatepass"))
    return digest.digest()


@functools.cache
def _rules_stamp() -> bytes:
    """A digest of the pure rules' code (``memsite.core``) and memsite's version: a memo made
    by other rules is never believed, whatever the version says."""
    from memsite.version import __version__

    digest = hashlib.blake2b(__version__.encode(), digest_size=16)
    digest_tree(digest, Path(rules.__file__).parent, ".py")
    return digest.digest()


def _load(found: Any) -> dict[str, _Saved]:
    """The saved categories, or {} when anything in them has not the shape it was saved in."""
    if not isinstance(found, dict):
        return {}
    for category, saved in found.items():
        if not (
            isinstance(category, str)
            and isinstance(saved, tuple)
            and len(saved) == 3
            and isinstance(saved[0], bytes)
            and all(isinstance(part, list) and all(map(_finding_shape, part)) for part in saved[1:])
        ):
            return {}
    return found


def _finding_shape(item: Any) -> bool:
    return (
        isinstance(item, tuple)
        and len(item) == 4
        and isinstance(item[0], str)
        and isinstance(item[3], str)
        and all(_names(names) for names in item[1:3])
    )


def _names(names: Any) -> bool:
    return isinstance(names, tuple) and all(isinstance(name, str) for name in names)


def _revived(items: Iterable[tuple[Any, ...]]) -> list[Finding]:
    return [Finding._make(item) for item in items]
