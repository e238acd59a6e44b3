"""Facts tied to the project's files: each anchor's state today (drift), the standing of facts
(``core.standing``), `reconcile`, anchors for new facts and for amended ones (re-pinned), and
the markers index.md gives drifted and stale facts.

Files are read through ``storage.worktree``: each anchored file is hashed at most once per
run, and not at all while its stat is unchanged. Records are read through the index.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
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
from memsite.core.records import VERIFY, Record
from memsite.core.standing import (
    Standing,
    about_each,
    confirmed_at,
    current_anchors,
    links_of,
    overdue,
    stale_marker,
    window_state,
)
from memsite.errors import InvalidInputError
from memsite.files import file_kind
from memsite.memory.shapes import content_of

if TYPE_CHECKING:
    from memsite.core.entry import Entry
    from memsite.memory import Memory
    from memsite.storage.worktree import WorkTree


def work_tree(memory: Memory, *, keep: bool = True) -> WorkTree:
    """The project's files (``keep``: remember the hashes for later runs, in cache/)."""
    from memsite.storage.worktree import WorkTree

    cache = memory.store.anchor_blobs if keep and not memory.model.index.in_memory else None
    return WorkTree(memory.store.project_root, cache)


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
        records = memory.index().records.about(ids) if memory.index().records.any() else []
    about = about_each(records)
    anchored = {e.id: current_anchors(e, about[e.id]) for e in entries}
    states: dict[Anchor, Located] = {}
    if any(anchored.values()):
        tree = tree or work_tree(memory)
        states = locate_all(tree, (a for group in anchored.values() for a in group))
        tree.save()
    now = memory.now()
    today = now.date()
    found = {}
    for entry in entries:
        mine = about[entry.id]
        confirmed = confirmed_at(entry, mine)
        days = memory.config.review_days(entry.category)
        found[entry.id] = Standing(
            anchors=[(a, states[a]) for a in anchored[entry.id]],
            verified=[r for r in mine if r.kind == VERIFY and r.target == entry.id],
            links=links_of(entry.id, mine),
            stale=overdue(days, confirmed.date(), today) is not None,
            confirmed=confirmed,
            window=window_state(entry.window, now),
            valid_from=entry.raw.get("valid_from") or None,
            valid_to=entry.raw.get("valid_to") or None,
        )
    return found


def reconcile(memory: Memory) -> dict[str, Any]:
    """Each anchor of each active fact against today's files; writes nothing."""
    index = memory.index()
    entries = index.entries.anchored_active()
    records = index.records.about(e.id for e in entries) if index.records.any() else []
    found = standings(memory, entries, records, work_tree(memory, keep=False))
    facts = []
    for entry in entries:
        standing = found[entry.id]
        facts.append(
            {
                "id": entry.id,
                "category": entry.category,
                "content": content_of(entry),
                "drifted": standing.drifted,
                "anchors": standing.anchor_report(),
            }
        )
    drifted = sum(1 for f in facts if f["drifted"])
    return {"facts": facts, "anchored": len(facts), "drifted": drifted}


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
            kind = file_kind(root / path)
            if kind not in ("file", "missing"):
                raise InvalidInputError(
                    f"cannot anchor to {given[:120]!r}: it is {kind}, not a regular file; "
                    "anchor to a file"
                )
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


def repin(tree: WorkTree, entry: Entry, standing: Standing) -> list[Anchor]:
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
    return repin(tree, entry, kept) if kept.anchors else []


def index_markers(memory: Memory) -> dict[str, str]:
    """Active facts that index.md places last, with the marker their line gets: drifted
    anchors (``(check: src/db.py changed)``), else stale (``(unconfirmed since ...)``); and,
    after either, possible conflicts (``(may conflict with 611e1ab2)``, ``memory.conflicts``).

    Read from the index's anchors table (no entry is rebuilt), the conflicts from their cache:
    `context` asks this at every session start."""
    from memsite.memory.conflicts import conflict_markers

    flags = _standing_markers(memory)
    for entry_id, marker in conflict_markers(memory).items():
        flags[entry_id] = flags.get(entry_id, "") + marker
    return flags


def _standing_markers(memory: Memory) -> dict[str, str]:
    """The drift and staleness markers of :func:`index_markers`."""
    index = memory.index()
    flags: dict[str, str] = {}
    anchored = index.entries.active_anchors()
    if anchored:
        repins = index.records.repinned(anchored) if index.records.any() else {}
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
        for entry_id, category, confirmed in index.entries.confirmed_dates():
            moment = datetime.fromtimestamp(confirmed, UTC).date()
            days = memory.config.review_days(category)
            if entry_id not in flags and overdue(days, moment, today) is not None:
                flags[entry_id] = stale_marker(moment)
    return flags
