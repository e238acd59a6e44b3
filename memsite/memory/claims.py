"""Whether a fact still holds: its anchors against today's files (drift), how long since it
was written or verified (staleness), its typed links; and the records that change these
(verify, retire, relate).

Everything here reads records through the index and files through ``storage.worktree``
(each anchored file hashed at most once per run, and not at all while its stat is unchanged).
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memsite.core.anchors import (
    MISSING,
    RENAMED,
    Anchor,
    Located,
    check_path,
    locate,
    make_anchor,
    parse_spec,
)
from memsite.core.records import LINK_TYPES, RELATE, RETIRE, VERIFY, Record, build_record
from memsite.errors import InvalidInputError, MemsiteError

if TYPE_CHECKING:
    from memsite.core.compaction import Compaction, Finding
    from memsite.core.entry import Entry
    from memsite.memory import Memory
    from memsite.storage.worktree import WorkTree


class DriftError(MemsiteError):
    """verify was asked to confirm a fact whose anchors drifted (re-pin or amend it)."""


@dataclass
class Standing:
    """What is known of one fact beyond its status."""

    anchors: list[tuple[Anchor, Located]] = field(default_factory=list)
    verified: list[Record] = field(default_factory=list)
    links: list[dict[str, Any]] = field(default_factory=list)
    stale: bool = False
    confirmed: datetime | None = None  # written or last verified

    @property
    def drifted(self) -> bool:
        return any(state.drifted for _, state in self.anchors)

    def marker(self) -> str:
        """What index.md adds to the fact's line so that an agent checks before relying on it."""
        drifted = [(a, s) for a, s in self.anchors if s.drifted]
        if drifted:
            anchor, state = drifted[0]
            what = f"renamed to {state.path}" if state.state == RENAMED else state.state
            more = f" +{len(drifted) - 1}" if len(drifted) > 1 else ""
            return f" (check: {anchor.path} {what}{more})"
        if self.stale and self.confirmed is not None:
            return f" (unconfirmed since {self.confirmed.date().isoformat()})"
        return ""

    def fields(self) -> dict[str, Any]:
        """JSON additions on an entry: present only when they apply."""
        extra: dict[str, Any] = {}
        if self.drifted:
            extra["drifted"] = True
        if self.stale:
            extra["stale"] = True
        if self.verified:
            extra["verified"] = self.verified[-1].raw["created"]
        return extra

    def anchor_report(self) -> list[dict[str, Any]]:
        return [anchor_json(a, s) for a, s in self.anchors]


def anchor_json(anchor: Anchor, state: Located) -> dict[str, Any]:
    item: dict[str, Any] = anchor.as_dict()
    item["state"] = state.state
    if state.path is not None:
        item["now_path"] = state.path
    if state.lines is not None and state.lines != anchor.lines:
        item["now_lines"] = list(state.lines)
    return item


def work_tree(memory: Memory, *, keep: bool = True) -> WorkTree:
    """The project's files (``keep``: remember the hashes for later runs, in cache/)."""
    from memsite.storage.worktree import WorkTree

    cache = memory.store.cache_dir if keep and not memory.model.index.in_memory else None
    return WorkTree(memory.store.project_root, cache)


def current_anchors(entry: Entry, records: Sequence[Record]) -> tuple[Anchor, ...]:
    """The entry's anchors, or those of its latest re-pinning verification."""
    pinned = [r for r in records if r.kind == VERIFY and r.target == entry.id and r.anchors]
    return pinned[-1].anchors if pinned else entry.anchors


def locate_all(tree: WorkTree, anchors: Iterable[Anchor]) -> dict[Anchor, Located]:
    """The state of each anchor today; missing files are looked for under a new name."""
    found: dict[Anchor, Located] = {}
    missing: list[Anchor] = []
    for anchor in dict.fromkeys(anchors):
        blob = tree.blob(anchor.path)
        if blob is None:
            missing.append(anchor)
        elif blob == anchor.blob:
            found[anchor] = Located("unchanged", anchor.lines)
        else:
            data = tree.read(anchor.path)
            found[anchor] = locate(anchor, data) if data is not None else Located("changed")
    if missing:
        moved = tree.renamed(sorted({a.path for a in missing}))
        for anchor in missing:
            new = moved.get(anchor.path) or _same_blob_elsewhere(tree, anchor)
            data = tree.read(new) if new is not None else None
            if new is None or data is None:
                found[anchor] = Located(MISSING)
                continue
            there = locate(anchor, data)
            found[anchor] = Located(RENAMED, there.lines, new)
    return found


def _same_blob_elsewhere(tree: WorkTree, anchor: Anchor) -> str | None:
    """A file of the same name and the same content elsewhere (moved without git)."""
    for path in tree.same_name_files(anchor.path):
        if path != anchor.path and tree.blob(path) == anchor.blob:
            return path
    return None


def standings(
    memory: Memory,
    entries: Sequence[Entry],
    records: Sequence[Record] | None = None,
    tree: WorkTree | None = None,
) -> dict[str, Standing]:
    """The standing of each of ``entries`` (``records``: all records about them, when known)."""
    ids = [e.id for e in entries]
    if records is None:
        records = memory.index().records_about(ids) if memory.index().has_records() else []
    about: dict[str, list[Record]] = defaultdict(list)
    for record in records:
        about[record.target].append(record)
        if record.other is not None:
            about[record.other].append(record)
    anchored = {e.id: current_anchors(e, about[e.id]) for e in entries}
    states: dict[Anchor, Located] = {}
    if any(anchored.values()):
        tree = tree or work_tree(memory)
        states = locate_all(tree, (a for group in anchored.values() for a in group))
        tree.save()
    today = memory.now().date()
    found = {}
    for entry in entries:
        mine = about[entry.id]
        verified = [r for r in mine if r.kind == VERIFY and r.target == entry.id]
        confirmed = max([entry.created, *(r.created for r in verified)])
        found[entry.id] = Standing(
            anchors=[(a, states[a]) for a in anchored[entry.id]],
            verified=verified,
            links=_links(entry.id, mine),
            stale=overdue(memory, entry.category, confirmed.date(), today) is not None,
            confirmed=confirmed,
        )
    return found


def overdue(memory: Memory, category: str, confirmed: date, today: date) -> int | None:
    """The review period (days) a fact of ``category`` last written or verified on
    ``confirmed`` has outlived, or None: the one rule of staleness."""
    days = memory.config.review_days(category)
    return days if days is not None and (today - confirmed).days > days else None


def _links(entry_id: str, records: Iterable[Record]) -> list[dict[str, Any]]:
    """The fact's links both ways, one per (other fact, type, direction): the newest reason."""
    links: dict[tuple[str, str, str], dict[str, Any]] = {}
    for record in records:
        if record.kind != RELATE or record.other is None or record.other == record.target:
            continue
        if record.target == entry_id:
            key = (record.other, record.link or "", "out")
        elif record.other == entry_id:
            key = (record.target, record.link or "", "in")
        else:
            continue
        links[key] = {
            "id": key[0],
            "type": key[1],
            "direction": key[2],
            "reason": record.text,
            "created": record.raw["created"],
        }
    return sorted(links.values(), key=lambda link: (link["type"], link["direction"], link["id"]))


# --- reconcile ------------------------------------------------------------------------------


def reconcile(memory: Memory) -> dict[str, Any]:
    """Each anchor of each active fact against today's files; writes nothing."""
    index = memory.index()
    entries = index.anchored_active()
    records = index.records_about(e.id for e in entries) if index.has_records() else []
    found = standings(memory, entries, records, work_tree(memory, keep=False))
    facts = []
    for entry in entries:
        standing = found[entry.id]
        facts.append(
            {
                "id": entry.id,
                "category": entry.category,
                "content": _public(entry),
                "drifted": standing.drifted,
                "anchors": standing.anchor_report(),
            }
        )
    drifted = sum(1 for f in facts if f["drifted"])
    return {"facts": facts, "anchored": len(facts), "drifted": drifted}


def _public(entry: Entry) -> str:
    from memsite.memory.reads import entry_json

    return str(entry_json(entry)["content"])


# --- anchors on new facts ---------------------------------------------------------------------


def anchors_from_specs(memory: Memory, specs: Sequence[str], cwd: Path) -> list[Anchor]:
    """Anchors for ``PATH[:START-END]`` specs: a path is taken from ``cwd`` (inside the
    project), as the project root holds it, and hashed as it is now (committed or not)."""
    from memsite.storage.worktree import WorkTree

    root = memory.store.project_root
    tree = WorkTree(root, None)
    found = []
    for spec in specs:
        given, lines = parse_spec(spec)
        path = _project_path(root, cwd, given)
        data = tree.read(path)
        if data is None:
            raise InvalidInputError(
                f"cannot anchor to {given[:120]!r}: no such file in the project "
                f"({root}); give a path to a file inside it"
            )
        found.append(make_anchor(path, data, lines))
    if len(found) > 20:
        raise InvalidInputError(f"{len(found)} anchors, over the limit of 20: keep the closest")
    return list(dict.fromkeys(found))


def _project_path(root: Path, cwd: Path, given: str) -> str:
    absolute = os.path.normpath(os.path.join(cwd, given))
    relative = os.path.relpath(absolute, root)
    if relative == os.curdir or relative.split(os.sep)[0] == os.pardir:
        raise InvalidInputError(
            f"cannot anchor to {given[:120]!r}: it is outside the project ({root})"
        )
    try:
        return check_path(relative.replace(os.sep, "/"))
    except ValueError as exc:
        raise InvalidInputError(f"cannot anchor to {given[:120]!r}: the path {exc}") from None


# --- records --------------------------------------------------------------------------------


def _active_target(memory: Memory, ref: str, action: str) -> Entry:
    from memsite.core.compaction import ACTIVE

    entry = memory.resolve(ref)
    status = compact_component(memory, entry.id).status[entry.id]
    if status != ACTIVE:
        raise InvalidInputError(
            f"entry {entry.short_id} is {status}: only an active fact can be {action} "
            f"(see `memsite read {entry.short_id}`)"
        )
    return entry


def compact_component(memory: Memory, entry_id: str) -> Compaction:
    """Compaction of the entries linked to ``entry_id`` (what a full compaction gives them)."""
    from memsite.core.compaction import compact

    index = memory.index()
    linked = index.component_entries(entry_id)
    return compact(linked, (), index.retired([e.id for e in linked]))


def _write(memory: Memory, obj: dict[str, Any]) -> str:
    from memsite.storage.entries import write_entry, write_lock

    with write_lock(memory.store):
        index = memory.index()
        before = index.before_write()
        path, obj = write_entry(memory.store, obj)
        memory.invalidate()
        index.wrote(path, before)
    return str(path)


def _text(kind: str, value: str | None, required: bool) -> str | None:
    from memsite.core.entry import REASON_MAX, check_text

    if value is None or not value.strip():
        if required:
            raise InvalidInputError(f"{kind} is empty: say why")
        return None
    return check_text(kind, value.strip(), REASON_MAX)


def verify(
    memory: Memory,
    ref: str,
    evidence: str | None = None,
    repin: bool = False,
    agent: str | None = None,
) -> dict[str, Any]:
    """Record that a fact still holds; with drifted anchors only when ``repin`` (the anchors
    are then pinned to the files as they are now)."""
    from memsite.memory.writes import refuse_secrets

    refuse_secrets({"evidence": evidence}, (), False)
    evidence = _text("evidence", evidence, required=False)
    entry = _active_target(memory, ref, "verified")
    tree = work_tree(memory)
    standing = standings(memory, [entry], tree=tree)[entry.id]
    drifted = [(a, s) for a, s in standing.anchors if s.drifted]
    pinned: list[Anchor] = []
    if drifted and not repin:
        shown = ", ".join(f"{a.label} {s.state}" for a, s in drifted)
        raise DriftError(
            f"entry {entry.short_id} has drifted anchors ({shown}): check the fact against the "
            f"code, then run `memsite verify {entry.short_id} --repin` (or amend it)"
        )
    if repin and standing.anchors:
        pinned = _repin(tree, entry, standing)
    obj = build_record(VERIFY, entry.id, memory.now(), agent=agent, text=evidence, anchors=pinned)
    path = _write(memory, obj)
    return {
        "status": "verified",
        "id": entry.id,
        "record": obj["id"],
        "path": path,
        "repinned": [a.label for a in pinned],
    }


def _repin(tree: WorkTree, entry: Entry, standing: Standing) -> list[Anchor]:
    """The anchors of ``standing`` pinned to the files as ``tree`` reads them now."""
    pinned = []
    for anchor, state in standing.anchors:
        if state.state == MISSING:
            raise InvalidInputError(
                f"entry {entry.short_id}: {anchor.path} is gone, so it cannot be pinned again: "
                "amend the fact with its new anchors, or retire it"
            )
        path = state.path or anchor.path
        data = tree.read(path)
        if data is None:
            raise InvalidInputError(f"entry {entry.short_id}: cannot read {path} to pin it")
        lines = state.lines or anchor.lines
        if lines is not None:
            count = max(len(data.decode("utf-8", "replace").splitlines()), 1)
            lines = (min(lines[0], count), min(lines[1], count))
        pinned.append(make_anchor(path, data, lines))
    return pinned


def carried_anchors(memory: Memory, entry: Entry, warnings: list[str]) -> list[Anchor]:
    """An amended fact's anchors, pinned to the files as they are now (renames followed);
    an anchor whose file is gone is dropped, with a warning."""
    tree = work_tree(memory)
    found = standings(memory, [entry], tree=tree)[entry.id]
    gone = [(a, s) for a, s in found.anchors if s.state == MISSING]
    for anchor, _ in gone:
        warnings.append(f"anchor {anchor.label} is dropped: the file is gone")
    kept = Standing(anchors=[(a, s) for a, s in found.anchors if s.state != MISSING])
    return _repin(tree, entry, kept) if kept.anchors else []


def retire(memory: Memory, ref: str, reason: str, agent: str | None = None) -> dict[str, Any]:
    """Withdraw an active fact without a successor (its page and history stay)."""
    from memsite.memory.writes import refuse_secrets

    refuse_secrets({"reason": reason}, (), False)
    text = _text("reason", reason, required=True)
    entry = _active_target(memory, ref, "retired")
    obj = build_record(RETIRE, entry.id, memory.now(), agent=agent, text=text)
    path = _write(memory, obj)
    return {"status": "retired", "id": entry.id, "record": obj["id"], "path": path}


def relate(
    memory: Memory,
    source: str,
    target: str,
    link: str,
    reason: str | None = None,
    agent: str | None = None,
) -> dict[str, Any]:
    """A typed link from one fact to another (written once: the same link again is kept)."""
    from memsite.memory.writes import refuse_secrets

    if link not in LINK_TYPES:
        raise InvalidInputError(
            f"unknown link type {link[:40]!r}: use one of {', '.join(LINK_TYPES)}"
        )
    refuse_secrets({"reason": reason}, (), False)
    text = _text("reason", reason, required=False)
    first, second = memory.resolve(source), memory.resolve(target)
    if first.id == second.id:
        raise InvalidInputError("a fact cannot be linked to itself: give two different ids")
    for record in memory.index().records_about([first.id]):
        if (record.kind, record.target, record.other, record.link) == (
            RELATE,
            first.id,
            second.id,
            link,
        ):
            return {
                "status": "exists",
                "id": first.id,
                "other": second.id,
                "type": link,
                "record": record.id,
                "path": str(memory.store.entry_path(record.filename)),
            }
    obj = build_record(
        RELATE, first.id, memory.now(), agent=agent, text=text, other=second.id, link=link
    )
    path = _write(memory, obj)
    return {
        "status": "related",
        "id": first.id,
        "other": second.id,
        "type": link,
        "record": obj["id"],
        "path": path,
    }


# --- what index.md marks ----------------------------------------------------------------------


def index_flags(memory: Memory) -> dict[str, str]:
    """Active facts that index.md places last, with the marker their line gets: drifted
    anchors (``(check: src/db.py changed)``), else stale (``(unconfirmed since ...)``).

    Read from the index's anchors table (no entry is rebuilt): `context` asks this at every
    session start."""
    index = memory.index()
    flags: dict[str, str] = {}
    anchored = index.active_anchors()
    if anchored:
        repins = index.repinned(anchored) if index.has_records() else {}
        current = {i: repins[i].anchors if i in repins else tuple(a) for i, a in anchored.items()}
        tree = work_tree(memory)
        states = locate_all(tree, (a for group in current.values() for a in group))
        tree.save()
        for entry_id, anchors in current.items():
            standing = Standing(anchors=[(a, states[a]) for a in anchors])
            if standing.drifted:
                flags[entry_id] = standing.marker()
    if memory.config.review_after is not None:
        today = memory.now().date()
        for entry_id, category, confirmed in index.confirmed_dates():
            moment = datetime.fromtimestamp(confirmed, UTC).date()
            if entry_id not in flags and overdue(memory, category, moment, today) is not None:
                flags[entry_id] = f" (unconfirmed since {moment.isoformat()})"
    return flags


# --- review ---------------------------------------------------------------------------------


def conflict_findings(memory: Memory, only: Iterable[str] | None = None) -> list[Finding]:
    """``possible_conflict`` findings over the active facts (``only``: pairs with one of these
    ids): the rule of ``core.conflicts``, silenced by relations, forced by conflicts-with."""
    from memsite.core.compaction import ACTIVE

    state = memory.state()
    result = state.result
    per_category: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for entry in result.entries:
        if result.status[entry.id] == ACTIVE:
            per_category[entry.category].append((entry.id, entry.normalized))
    return conflicts_in(per_category, state.scan.records, result.by_id.__getitem__, only)


def conflicts_in(
    per_category: Mapping[str, Sequence[tuple[str, str]]],
    records: Iterable[Record],
    entry_of: Callable[[str], Entry],
    only: Iterable[str] | None = None,
) -> list[Finding]:
    """:func:`conflict_findings` over each category's active facts, given as (id, normalized
    content) in any order; ``entry_of`` gives a member's entry."""
    from memsite.core.compaction import Finding
    from memsite.core.conflicts import claim_of, possible_conflicts

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
        # One category's claims at a time: at 100k entries all of them held ~100 MB.
        claims = [claim_of(entry_id, normalized) for entry_id, normalized in per_category[category]]
        conflicts = possible_conflicts(claims, silenced | stated, wanted)
        del claims
        for group in _groups(conflicts):
            members = sorted(map(entry_of, group), key=lambda e: e.order_key, reverse=True)
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
            found.append(
                Finding(
                    "possible_conflict",
                    tuple(e.id for e in members),
                    tuple(e.filename for e in members),
                    message,
                )
            )
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


def _active_state(memory: Memory) -> tuple[list[Entry], list[Record]]:
    """The active entries and every record, as this operation's state holds them (review
    works from one snapshot, and may run on another thread than the one that opened the
    index)."""
    from memsite.core.compaction import ACTIVE

    state = memory.state()
    result = state.result
    return [e for e in result.entries if result.status[e.id] == ACTIVE], state.scan.records


def drift_findings(memory: Memory) -> list[Finding]:
    from memsite.core.compaction import Finding

    active, records = _active_state(memory)
    entries = [e for e in active if e.raw.get("anchors")]  # re-pinning keeps them anchored
    found = []
    every = standings(memory, entries, records) if entries else {}
    for entry in entries:
        standing = every[entry.id]
        drifted = [(a, s) for a, s in standing.anchors if s.drifted]
        if drifted:
            shown = ", ".join(
                f"{a.label} {'renamed to ' + str(s.path) if s.state == RENAMED else s.state}"
                for a, s in drifted
            )
            found.append(
                Finding(
                    "drift",
                    (entry.id,),
                    (entry.filename,),
                    f"{entry.short_id}: {shown} since it was pinned: check the fact, then "
                    f"`memsite verify {entry.short_id} --repin`, amend it, or retire it",
                )
            )
    return found


def stale_findings(memory: Memory) -> list[Finding]:
    """Active facts neither written nor verified within memory.reviewAfterDays, oldest first."""
    from memsite.core.compaction import Finding

    if memory.config.review_after is None:
        return []
    active, records = _active_state(memory)
    verified: dict[str, datetime] = {}
    for record in records:
        if record.kind == VERIFY:
            verified[record.target] = max(
                record.created, verified.get(record.target, record.created)
            )
    today = memory.now().date()
    stale = []
    for entry in active:
        confirmed = max(entry.created, verified.get(entry.id, entry.created))
        days = overdue(memory, entry.category, confirmed.date(), today)
        if days is not None:
            stale.append((confirmed, entry.id, entry, days))
    return [
        Finding(
            "stale",
            (entry.id,),
            (entry.filename,),
            f"{entry.short_id}: not written or verified since {confirmed.date().isoformat()} "
            f"(memory.reviewAfterDays: {days}): confirm it with `memsite verify "
            f"{entry.short_id}`, amend it, or retire it",
        )
        for confirmed, _, entry, days in sorted(stale, key=lambda item: (item[0], item[1]))
    ]
