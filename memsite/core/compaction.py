"""Compaction: entries in, one status per entry out. Pure and deterministic, no LLM.

Rules, applied over all valid entries:

1. Supersession: every entry named in another entry's ``supersedes`` is ``superseded``
   (transitive by construction). Dangling ids are reported and ignored. In a supersession
   cycle the newest member survives unless something outside the cycle supersedes it.
2. Duplicates (same category, same normalized content) and contradictions (same category and
   ``key``) are decided over all entries, superseded ones included: the newest wins, the others
   become ``duplicate`` / ``overridden``. Superseding an entry never brings another one back.
3. Order everywhere: newest ``created`` first, then high > medium > low, then the greatest id.
4. Retirement: an entry that would be active and that a retire record names is ``retired``
   (withdrawn without a successor; nothing comes back because of it).
5. Forks: two or more active entries superseding the same entry (two branches amending one
   fact, then merged) are reported as a ``fork``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from memsite.core.entry import Entry

ACTIVE = "active"
SUPERSEDED = "superseded"
DUPLICATE = "duplicate"
OVERRIDDEN = "overridden"
RETIRED = "retired"
STATUSES = (ACTIVE, SUPERSEDED, DUPLICATE, OVERRIDDEN, RETIRED)
Edges = dict[str, list[str]]


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


@dataclass
class Compaction:
    """The result of compaction: ordered entries with a status each, and what was found."""

    entries: list[Entry]
    by_id: dict[str, Entry]
    status: dict[str, str]
    superseded_by: dict[str, list[str]]
    winner: dict[str, str]
    findings: list[Finding]
    categories: list[str]
    edges: dict[str, list[str]] = field(default_factory=dict)

    def active(self, category: str | None = None) -> list[Entry]:
        return [
            e
            for e in self.entries
            if self.status[e.id] == ACTIVE and (category is None or e.category == category)
        ]

    def chain(self, entry_id: str) -> list[Entry]:
        """Every entry connected to ``entry_id`` by supersession, either way, newest first."""
        neighbours: dict[str, set[str]] = defaultdict(set)
        for newer, olders in self.edges.items():
            for older in olders:
                neighbours[newer].add(older)
                neighbours[older].add(newer)
        seen = {entry_id}
        todo = [entry_id]
        while todo:
            for nxt in neighbours[todo.pop()]:
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return [e for e in self.entries if e.id in seen]

    def replaced(self, entry_id: str) -> list[Entry]:
        """What ``entry_id`` replaced, transitively, newest first."""
        return self._walk(entry_id, lambda i: self.edges.get(i, []))

    def replaced_by(self, entry_id: str) -> list[Entry]:
        """What replaced ``entry_id``, transitively, newest first."""
        return self._walk(entry_id, lambda i: self.superseded_by.get(i, []))

    def _walk(self, start: str, step: Callable[[str], Iterable[str]]) -> list[Entry]:
        seen = reachable(start, step)
        return [e for e in self.entries if e.id in seen]


def reachable(start: str, step: Callable[[str], Iterable[str]]) -> set[str]:
    """Every id reachable from ``start`` by repeated ``step`` (``start`` itself excluded)."""
    seen: set[str] = set()
    todo = [start]
    while todo:
        for nxt in step(todo.pop()):
            if nxt not in seen and nxt != start:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def order(entries: Iterable[Entry]) -> list[Entry]:
    return sorted(entries, key=lambda e: e.order_key, reverse=True)


def category_order(configured: Iterable[str], present: Iterable[str]) -> list[str]:
    """Configured categories in config order, then unknown ones found in entries, sorted."""
    names = list(configured)
    return names + sorted(set(present) - set(names))


def _unique_ids(entries: Sequence[Entry]) -> tuple[list[Entry], list[Finding]]:
    """Keep one entry per id (the newest, then the greatest file name); report the others."""
    best: dict[str, Entry] = {}
    for entry in entries:
        other = best.get(entry.id)
        if other is None or (entry.order_key, entry.filename) > (other.order_key, other.filename):
            best[entry.id] = entry
    findings = [
        Finding(
            "invalid_file",
            (e.id,),
            (e.filename,),
            f"{e.filename} repeats the id of {best[e.id].filename}; it is ignored",
        )
        for e in entries
        if best[e.id] is not e
    ]
    return list(best.values()), findings


def _strongly_connected(nodes: Iterable[str], edges: dict[str, list[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative; returns components with more than one member."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for root in nodes:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, pos = work.pop()
            if pos == 0:
                index[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack.add(node)
            targets = edges.get(node, [])
            if pos < len(targets):
                work.append((node, pos + 1))
                nxt = targets[pos]
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(component)
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return found


def _files(by_id: Mapping[str, Entry], ids: Iterable[str]) -> tuple[str, ...]:
    return tuple(by_id[i].filename for i in ids)


def _edges(ordered: Sequence[Entry], by_id: Mapping[str, Entry]) -> tuple[Edges, list[Finding]]:
    """Supersession edges (newer -> the older ids it names); self-links and dangling ids found."""
    edges: Edges = {}
    findings: list[Finding] = []
    for entry in ordered:
        targets = []
        missing = []
        for target in entry.supersedes:
            if target == entry.id:
                findings.append(
                    Finding("cycle", (entry.id,), (entry.filename,), "entry supersedes itself")
                )
            elif target in by_id:
                targets.append(target)
            else:
                missing.append(target)
        if targets:
            edges[entry.id] = targets
        if missing:
            findings.append(
                Finding(
                    "dangling_supersedes",
                    (entry.id, *missing),
                    (entry.filename,),
                    f"{entry.short_id} supersedes {', '.join(missing)}, not in this checkout "
                    "(it may live on another branch)",
                )
            )
    return edges, findings


def _superseded_by(
    ordered: Sequence[Entry], by_id: Mapping[str, Entry], edges: Edges
) -> tuple[dict[str, list[str]], list[Finding]]:
    """older -> the newer ids superseding it. In a cycle the newest member keeps its place:
    edges into it from inside the cycle do not count."""
    cycle_head: dict[str, str] = {}
    findings = []
    # Only an entry that supersedes something can start a cycle.
    for component in _strongly_connected([e.id for e in ordered if e.id in edges], edges):
        members = order(by_id[i] for i in component)
        for member in members:
            cycle_head[member.id] = members[0].id
        findings.append(
            Finding(
                "cycle",
                tuple(m.id for m in members),
                _files(by_id, (m.id for m in members)),
                "supersession cycle: "
                + " -> ".join(m.short_id for m in members)
                + f"; the newest ({members[0].short_id}) is kept",
            )
        )
    superseded_by: dict[str, list[str]] = defaultdict(list)
    for newer in ordered:
        for older in edges.get(newer.id, []):
            if cycle_head.get(older) == older and cycle_head.get(newer.id) == older:
                continue
            superseded_by[older].append(newer.id)
    return dict(superseded_by), findings


def _losers(groups: Iterable[list[Entry]]) -> dict[str, str]:
    """In each group (newest first) every member but the first, mapped to the first."""
    return {loser.id: group[0].id for group in groups for loser in group[1:]}


def _shared(
    groups: Mapping[tuple[str, str], list[Entry]],
) -> list[tuple[tuple[str, str], list[Entry]]]:
    return [(name, group) for name, group in groups.items() if len(group) > 1]


def _group_findings(
    dup_groups: Mapping[tuple[str, str], list[Entry]],
    key_groups: Mapping[tuple[str, str], list[Entry]],
    status: Mapping[str, str],
    by_id: Mapping[str, Entry],
) -> list[Finding]:
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


def _fork_findings(
    ordered: Sequence[Entry],
    superseded_by: Mapping[str, list[str]],
    status: Mapping[str, str],
    by_id: Mapping[str, Entry],
) -> list[Finding]:
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


def compact(
    entries: Sequence[Entry], categories: Iterable[str], retired: Collection[str] = ()
) -> Compaction:
    """Decide the status of every entry (``retired``: the ids retire records name). Same
    entries (in any order) give the same result."""
    unique, findings = _unique_ids(entries)
    ordered = order(unique)
    by_id = {e.id: e for e in ordered}
    edges, found = _edges(ordered, by_id)
    findings += found
    superseded_by, found = _superseded_by(ordered, by_id, edges)
    findings += found
    dup_groups: dict[tuple[str, str], list[Entry]] = defaultdict(list)
    key_groups: dict[tuple[str, str], list[Entry]] = defaultdict(list)
    for entry in ordered:
        dup_groups[(entry.category, entry.normalized)].append(entry)
        if entry.key:
            key_groups[(entry.category, entry.key)].append(entry)
    duplicate_of = _losers(dup_groups.values())
    overridden_by = _losers(key_groups.values())
    winner: dict[str, str] = {}
    status: dict[str, str] = {}
    for entry in ordered:
        if entry.id in superseded_by:
            status[entry.id] = SUPERSEDED
        elif entry.id in duplicate_of:
            status[entry.id] = DUPLICATE
            winner[entry.id] = duplicate_of[entry.id]
        elif entry.id in overridden_by:
            status[entry.id] = OVERRIDDEN
            winner[entry.id] = overridden_by[entry.id]
        elif entry.id in retired:
            status[entry.id] = RETIRED
        else:
            status[entry.id] = ACTIVE
    findings += _group_findings(dup_groups, key_groups, status, by_id)
    findings += _fork_findings(ordered, superseded_by, status, by_id)
    return Compaction(
        entries=ordered,
        by_id=by_id,
        status=status,
        superseded_by=superseded_by,
        winner=winner,
        findings=findings,
        categories=category_order(categories, (e.category for e in ordered)),
        edges=edges,
    )
