"""The trust gate's answers for one store (rules: ``core.trust``; git: ``storage.provenance``;
the ledger of files written here: ``storage.ledger``): each file's trust, the active facts held
back and why, who added each file (provenance), and `approve`.

Finding the answer walks a tree at the reviewed ref (its survey is kept in
``cache/trust-files.marshal`` while git's files stay), and each fact's text is scanned once,
its answer kept in its row of the read model (a file replaced under its name is scanned
again). The answer is kept in ``cache/trust.marshal`` (bound to this clone) with what it was
found from: the git files' stamp (``provenance.git_key``), the entries' fingerprint and the
ledger's stat. A session start with nothing changed reads that one file; after an `add`, the
new fact is scanned and only the facts that may be held back are read.
"""

from __future__ import annotations

import contextlib
import functools
import os
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from memsite.storage.provenance import OFF, Added, Survey

if TYPE_CHECKING:
    from memsite.memory import Memory

_VERSION = 3  # the shape of the cache files


class Trust(NamedTuple):
    """The gate's state: the survey of the reviewed ref (without its list of reviewed files,
    kept apart), the files written here still local, the entry files that are not reviewed
    (usually few), and the active facts held back (id → why, see ``core.trust.held_back``)
    or let through by an approval."""

    survey: Survey
    local: frozenset[str]
    outside: frozenset[str]
    held: dict[str, str]
    approved: frozenset[str]

    @property
    def on(self) -> bool:
        return self.survey.on

    def level(self, name: str) -> str | None:
        """An entry file's trust; None when trust is off."""
        from memsite.core.trust import LOCAL, REVIEWED, UNREVIEWED

        if not self.on:
            return None
        if name in self.local:
            return LOCAL
        return UNREVIEWED if name in self.outside else REVIEWED

    def stamp(self) -> str:
        """What the views depend on: the facts held back, and whether trust is on."""
        text = f"{self.on}" + "".join(f"\n{i}{w}" for i, w in sorted(self.held.items()))
        text += "".join(f"\n+{i}" for i in sorted(self.approved))
        return f"{zlib.crc32(text.encode()):08x}"


def _stat(path: os.PathLike[str]) -> tuple[int, int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_ino, info.st_size, info.st_mtime_ns


def _load(memory: Memory, path: Path) -> dict[str, Any]:
    return memory.model.caches.load_bound(path, _VERSION)


def _save(memory: Memory, path: Path, data: dict[str, Any]) -> None:
    memory.model.caches.save_bound(path, _VERSION, data)


def _git_key(memory: Memory) -> Any:
    from memsite.storage.provenance import git_key

    return git_key(memory.store.project_root, memory.config.reviewed_ref)


def current(memory: Memory) -> Trust:
    """The gate's state as the store is now (remembered for the operation, and in
    ``cache/trust.marshal`` while git, the entries and the ledger stay as they were)."""
    memo = memory.model.trust
    key = (
        _git_key(memory),
        memory.model.facts_fingerprint(),
        _stat(memory.store.origin.written_ledger),  # a past state's local files are the store's
        memory.config.reviewed_ref,
    )
    if memo is not None and memo[0] == key and key[0] is not None:
        known: Trust = memo[1]
        return known
    saved = _load(memory, memory.store.trust_cache)
    found = _saved(saved) if saved.get("key") == key and key[0] is not None else None
    if found is None:
        found = _find(memory, key)
    memory.model.trust = (key, found)
    return found


def _saved(saved: dict[str, Any]) -> Trust | None:
    """The cached answer, if it has the shape this version writes (else find it again)."""
    try:
        found = Trust(Survey(*saved["survey"]), *saved["trust"])
    except (KeyError, TypeError, ValueError):
        return None
    sets = (found.local, found.outside, found.approved, found.survey.reviewed)
    if not all(isinstance(s, frozenset) for s in sets) or not isinstance(found.held, dict):
        return None
    return found


def _survey(
    memory: Memory, saved: dict[str, Any], git: Any, stats: Callable[[], dict[str, Any]]
) -> Survey:
    """The reviewed ref's survey: the last one while git's files stay, with the files read
    in since then (replaced under their names: a checkout, another tool) checked again
    (``stats``: each file's inode, size and mtime as the index read it)."""
    from memsite.storage.git import show_prefix
    from memsite.storage.provenance import changed, survey

    if git == ("none",):
        return OFF
    store = memory.store.origin  # a past state's files are judged by the store's git
    past = store is not memory.store
    if (
        not past
        and git is not None
        and saved.get("git") == git
        and isinstance(saved.get("reviewed"), dict)
    ):
        was = saved["reviewed"]
        found = Survey(*saved["survey"])._replace(reviewed=frozenset(was))
        now = stats() if found.reviewed else {}
        again = {name for name in found.reviewed if now.get(name) != was[name]}
        if not again or found.commit is None:
            return found  # asked of no git process: after an add, compact runs none
        top, prefix = memory.project_top(), show_prefix(store.entries_dir)
        differ = changed(top, found.commit, prefix, sorted(again))
        return found._replace(reviewed=found.reviewed - differ)
    top, prefix = memory.project_top(), show_prefix(store.entries_dir)
    config = os.path.relpath(store.config_path, top)
    found = survey(top, prefix, memory.config.reviewed_ref, config)
    return _as_reviewed(memory, found, top, prefix) if past else found


def _as_reviewed(memory: Memory, found: Survey, top: Path, prefix: str) -> Survey:
    """A past state's reviewed files: those the reviewed commit holds byte for byte. Its
    names prove nothing (a tag may hold a reviewed file's name with other bytes), and the
    survey compared today's work tree, not the past state's files."""
    from memsite.core.anchors import blob_id
    from memsite.errors import GitError
    from memsite.storage.entries import load
    from memsite.storage.git import tree_files

    if not found.on or found.commit is None:
        return found
    try:
        held = tree_files(top, found.commit, [prefix.rstrip("/") + "/"])
    except GitError:
        return found._replace(reviewed=frozenset())
    same = set()
    for item in held:
        name = item.path.rsplit("/", 1)[-1]
        path = memory.store.entries_dir / name
        if os.path.islink(path):
            continue
        data, _ = load(path, memory.store.max_entry_bytes)
        if data is not None and blob_id(data) == item.blob:
            same.add(name)
    return found._replace(reviewed=frozenset(same))


def _find(memory: Memory, key: tuple[Any, ...]) -> Trust:
    """The gate's state found again. Only the facts that may be held back are read: those
    whose text is flagged (``Entries.flagged`` scans each new row once) and, with trust on,
    those of files outside the reviewed ref and not local; so the work follows what changed
    and the files the ref does not hold, not the size of the store."""
    from memsite.core.schema import ACTIVE
    from memsite.core.trust import approved_ids, content_flag, held_back
    from memsite.storage.ledger import unchanged, written

    store = memory.store
    saved = _load(memory, store.trust_files)
    index = memory.index()
    # Every file's stat (~0.16 s at 100k): read once, and only while some file is reviewed.
    stats = functools.cache(index.entries.file_stats)
    found = _survey(memory, saved, key[0], stats)
    flagged = index.entries.flagged(content_flag)
    # Files written in this clone (the store's ledger) whose bytes here, in a past state
    # its own file, are still those memsite wrote.
    local = frozenset(
        name
        for name, crc in written(store.origin).items()
        if name not in found.reviewed and unchanged(store, name, crc)
    )
    approved = approved_ids(index.records.approvals(), found.on, found.reviewed, local)
    outside = frozenset(index.entries.files() - found.reviewed) if found.on else frozenset()
    candidates = {entry_id: name for entry_id, (name, _) in flagged.items()}
    candidates.update(index.entries.active_in_files(outside - local))
    flags = dict(flagged.values())
    held = held_back(candidates.items(), flags, found.on, found.reviewed, local, approved)
    live = index.entries.statuses_of(approved)
    bare = found._replace(reviewed=frozenset())
    let_through = frozenset(i for i, status in live.items() if status == ACTIVE)
    trust = Trust(bare, local, outside, held, let_through)
    now = stats() if found.reviewed else {}
    reviewed = {name: now.get(name) for name in found.reviewed}
    _save(memory, store.trust_files, {"git": key[0], "survey": tuple(bare), "reviewed": reviewed})
    _save(memory, store.trust_cache, {"key": key, "survey": tuple(bare), "trust": tuple(trust)[1:]})
    return trust


def provenance(memory: Memory, names: list[str]) -> dict[str, Added]:
    """Entry file name → the commit that added it, for ``names`` (one ``git log`` for the
    whole store, kept in ``cache/provenance.sqlite3`` while HEAD and the git index stay)."""
    from memsite.storage.provenance import added, lookup_added

    key = _git_key(memory)
    if key == ("none",):
        return {}
    store = memory.store.origin
    if not _cached(memory):
        found = added(store.entries_dir)
        return {n: found[n] for n in names if n in found}
    return lookup_added(store.provenance_db, key, names, store.entries_dir, store.home())


def _cached(memory: Memory) -> bool:
    """May the provenance cache be written (no link on its way)?"""
    from memsite.errors import StorageError

    store = memory.store.origin
    try:
        store.writable(store.cache_dir, children=True)
        store.writable(store.provenance_db)
    except StorageError:
        return False
    return True


@contextlib.contextmanager
def provenance_ahead(memory: Memory) -> Iterator[None]:
    """Around a command that asks :func:`provenance` of every fact (a build): when the
    clone has no provenance cache yet, the whole history's ``git log`` is started on entry,
    to run while the command reads the store (``provenance.log_ahead``), and ended on exit
    if nothing took it."""
    from memsite.storage.provenance import log_ahead, stop_ahead

    store = memory.store.origin
    if _git_key(memory) != ("none",) and _cached(memory):
        log_ahead(store.provenance_db, store.entries_dir)
    try:
        yield
    finally:
        stop_ahead(store.entries_dir)


def fields_of(
    memory: Memory, entries: list[tuple[str, str]], with_provenance: bool = True
) -> dict[str, dict[str, Any]]:
    """Entry id → the ``provenance`` and ``trust`` keys of JSON outputs (and ``held_back``,
    why it is not delivered, when it is not), for (id, file name) pairs; without
    ``with_provenance`` no ``provenance`` key (git is not asked: after a merge at 100k files
    that costs ~0.13 s, for a key text outputs do not show)."""
    if not entries:
        return {}
    trust = current(memory)
    made = provenance(memory, [name for _, name in entries]) if with_provenance else {}
    out: dict[str, dict[str, Any]] = {}
    for entry_id, name in entries:
        shown: dict[str, Any] = {"trust": trust.level(name)}
        if with_provenance:
            info = made.get(name)
            shown = {"provenance": info._asdict() if info is not None else None, **shown}
        if entry_id in trust.held:
            shown["held_back"] = trust.held[entry_id]
        out[entry_id] = shown
    return out
