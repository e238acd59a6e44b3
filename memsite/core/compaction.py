"""Compaction: entries in, one status per entry out. Pure and deterministic, no LLM.

Rules, applied over all valid entries:

1. Supersession: every entry named in another entry's ``supersedes`` is ``superseded``
   (transitive by construction). Dangling ids are reported and ignored. In a supersession
   cycle the newest member survives unless something outside the cycle supersedes it.
2. Duplicates (same category, same normalized content) and contradictions (same category and
   ``key``) are decided over all entries, superseded ones included: the newest wins, the others
   become ``duplicate`` / ``overridden``. Superseding an entry never brings another one back.
   "Newest" there counts supersession as well as clocks: an entry is newer than every entry it
   supersedes, directly or not, whatever the clocks of their writers said (a teammate's clock
   ten minutes fast must not let their fact beat the amendment of it).
3. Order everywhere: newest ``created`` first, then high > medium > low, then the greatest id.
4. Retirement: an entry that would be active and that a retire record names is ``retired``
   (withdrawn without a successor; nothing comes back because of it).
5. Forks: two or more active entries superseding the same entry (two branches amending one
   fact, then merged) are reported as a ``fork``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING, Any

from memsite.core.entry import Entry
from memsite.core.plain import Plain
from memsite.core.schema import ACTIVE, DUPLICATE, OVERRIDDEN, RETIRED, STATUSES, SUPERSEDED

if TYPE_CHECKING:
    from memsite.core.review import Finding

Edges = dict[str, list[str]]
# What a review would report, found on the way: (a builder of core.review, its arguments).
Reports = list[tuple[str, tuple[Any, ...]]]


class Compaction(Plain):
    """The result of compaction: ordered entries with a status each, and what was found.
    (A plain class: see ``core.plain``.)"""

    __slots__ = (
        "by_id",
        "categories",
        "edges",
        "entries",
        "findings",
        "status",
        "superseded_by",
        "winner",
    )
    COMPARED = __slots__

    def __init__(
        self,
        entries: list[Entry],
        by_id: dict[str, Entry],
        status: dict[str, str],
        superseded_by: dict[str, list[str]],
        winner: dict[str, str],
        findings: list[Finding],
        categories: list[str],
        edges: dict[str, list[str]] | None = None,
    ) -> None:
        self.entries = entries
        self.by_id = by_id
        self.status = status
        self.superseded_by = superseded_by
        self.winner = winner
        self.findings = findings
        self.categories = categories
        self.edges: dict[str, list[str]] = {} if edges is None else edges

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


def _unique_ids(entries: Sequence[Entry], reports: Reports) -> list[Entry]:
    """Keep one entry per id (the newest, then the greatest file name); report the others."""
    best: dict[str, Entry] = {}
    for entry in entries:
        other = best.get(entry.id)
        if other is None or (entry.order_key, entry.filename) > (other.order_key, other.filename):
            best[entry.id] = entry
    reports += [("repeated_id", (e, best[e.id])) for e in entries if best[e.id] is not e]
    return list(best.values())


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


def _edges(ordered: Sequence[Entry], by_id: Mapping[str, Entry], reports: Reports) -> Edges:
    """Supersession edges (newer -> the older ids it names); self-links and dangling ids found."""
    edges: Edges = {}
    for entry in ordered:
        targets = []
        missing = []
        for target in entry.supersedes:
            if target == entry.id:
                reports.append(("self_supersession", (entry,)))
            elif target in by_id:
                targets.append(target)
            else:
                missing.append(target)
        if targets:
            edges[entry.id] = targets
        if missing:
            reports.append(("dangling", (entry, missing)))
    return edges


def _superseded_by(
    ordered: Sequence[Entry], by_id: Mapping[str, Entry], edges: Edges, reports: Reports
) -> dict[str, list[str]]:
    """older -> the newer ids superseding it. In a cycle the newest member keeps its place:
    edges into it from inside the cycle do not count."""
    cycle_head: dict[str, str] = {}
    # Only an entry that supersedes something can start a cycle.
    for component in _strongly_connected([e.id for e in ordered if e.id in edges], edges):
        members = order(by_id[i] for i in component)
        for member in members:
            cycle_head[member.id] = members[0].id
        reports.append(("cycle", (members,)))
    superseded_by: dict[str, list[str]] = defaultdict(list)
    for newer in ordered:
        for older in edges.get(newer.id, []):
            if cycle_head.get(older) == older and cycle_head.get(newer.id) == older:
                continue
            superseded_by[older].append(newer.id)
    return dict(superseded_by)


def _losers(groups: Iterable[list[Entry]]) -> dict[str, str]:
    """In each group (newest first) every member but the first, mapped to the first."""
    return {loser.id: group[0].id for group in groups for loser in group[1:]}


Rank = tuple[tuple[datetime, int, str], int]


def _ranks(ordered: Sequence[Entry], superseded_by: Mapping[str, list[str]]) -> dict[str, Rank]:
    """Where a successor stands against the entries it supersedes: the newest order key in
    its line of predecessors (its own included), and how many steps above that entry it is.
    Only entries that supersede something are given one (the others rank by their own
    order key)."""
    by_id = {e.id: e for e in ordered}
    older: dict[str, list[str]] = defaultdict(list)
    for old, newer in superseded_by.items():
        for n in newer:
            older[n].append(old)
    ranks: dict[str, Rank] = {}

    def rank(entry_id: str) -> Rank:
        return ranks.get(entry_id) or (by_id[entry_id].order_key, 0)

    for start in older:
        stack, seen = [start], {start}
        while stack:  # depth first, without recursion (chains may be thousands long)
            top = stack[-1]
            pending = [o for o in older[top] if o in older and o not in ranks and o not in seen]
            if pending:  # (``seen``: a cycle the head's rule left standing is walked once)
                stack.extend(pending)
                seen.update(pending)
                continue
            stack.pop()
            if top not in ranks:
                ranks[top] = max(
                    [(by_id[top].order_key, 0)] + [(rank(o)[0], rank(o)[1] + 1) for o in older[top]]
                )
    return ranks


def _by_rank(groups: Iterable[list[Entry]], ranks: Mapping[str, Rank]) -> None:
    """Put first, in each group that holds a successor, the member ranked highest."""
    for group in groups:
        if len(group) > 1 and any(e.id in ranks for e in group):
            group.sort(key=lambda e: (ranks.get(e.id) or (e.order_key, 0), e.order_key))
            group.reverse()


def compact(
    entries: Sequence[Entry],
    categories: Iterable[str],
    retired: Collection[str] = (),
    *,
    report: bool = True,
) -> Compaction:
    """Decide the status of every entry (``retired``: the ids retire records name). Same
    entries (in any order) give the same result. ``report``: also say what a review finds
    (``core.review``'s builders); the read model, which needs statuses only, leaves it out."""
    reports: Reports = []
    ordered = order(_unique_ids(entries, reports))
    by_id = {e.id: e for e in ordered}
    edges = _edges(ordered, by_id, reports)
    superseded_by = _superseded_by(ordered, by_id, edges, reports)
    dup_groups: dict[tuple[str, str], list[Entry]] = defaultdict(list)
    key_groups: dict[tuple[str, str], list[Entry]] = defaultdict(list)
    for entry in ordered:
        dup_groups[(entry.category, entry.normalized)].append(entry)
        if entry.key:
            key_groups[(entry.category, entry.key)].append(entry)
    if superseded_by:
        ranks = _ranks(ordered, superseded_by)
        _by_rank(dup_groups.values(), ranks)
        _by_rank(key_groups.values(), ranks)
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
    findings: list[Finding] = []
    if report:
        from memsite.core import review

        findings = [getattr(review, name)(*args) for name, args in reports]
        findings += review.group_findings(dup_groups, key_groups, status, by_id)
        findings += review.fork_findings(ordered, superseded_by, status, by_id)
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
        kept = [e for e in result.entries if e.id not in doomed]
        after = compact(kept, categories, retired, report=False)
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
