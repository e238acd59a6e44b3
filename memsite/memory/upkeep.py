"""Keeping the memory in shape: the derived views (compact, context), review, status, prune.

The views are fresh when ``cache/state.json`` names the entries' fingerprint, the config's
hash and memsite's version they were built from. A store that cannot be written to still
answers `context`: the index is built in memory and a warning says it could not be saved.
Rules are imported by the functions that use them: `context` with fresh views reads one file
and should cost no more than that.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import date, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from memsite.version import __version__
from memsite.errors import InvalidInputError, MemsiteError, StorageError
from memsite.files import (
    remove_files,
    replace_if_changed,
    stale_temporaries,
    storage_errors,
)

if TYPE_CHECKING:
    from memsite.core.compaction import Finding
    from memsite.core.entry import Entry
    from memsite.core.records import Record
    from memsite.memory import Memory
    from memsite.storage.layout import Store


_STAMP_KEYS = ("entries", "config", "version", "claims")


def _stamp(memory: Memory, flags: Mapping[str, str] | None = None) -> dict[str, str]:
    return {
        "entries": memory.fingerprint(),
        "config": hashlib.sha256(memory.store.config_bytes()).hexdigest(),
        "version": __version__,
        "claims": _claims_stamp(memory, _flags(memory) if flags is None else flags),
    }


def _flags(memory: Memory) -> dict[str, str]:
    """The facts index.md marks (drifted, stale) with their markers; see ``claims``. Found
    once per operation (`context` asks for freshness, then compacts, then renders)."""
    if memory.model.flags is None:
        from memsite.memory.claims import index_flags

        memory.model.flags = index_flags(memory)
    return memory.model.flags


def _claims_stamp(memory: Memory, flags: Mapping[str, str]) -> str:
    """What index.md depends on besides the entries: the marked facts, and the day when
    staleness is on (a fact goes stale as days pass)."""
    day = memory.now().date().isoformat() if memory.config.review_after is not None else ""
    if not flags and not day:
        return ""
    text = day + "".join(f"\n{i}{m}" for i, m in sorted(flags.items()))
    return f"{zlib.crc32(text.encode()):08x}"


def is_fresh(memory: Memory) -> bool:
    store = memory.store
    saved = memory.model.caches.load_state()
    if not isinstance(saved, dict):
        return False
    return (
        {k: saved.get(k) for k in _STAMP_KEYS} == _stamp(memory)
        and store.index_path.is_file()
        and store.compacted_dir.is_dir()
    )


def _is_generated(path: Path) -> bool:
    from memsite.core.markdown import COMPACTED_HEADER

    try:
        with open(path, encoding="utf-8") as handle:
            return handle.readline() == COMPACTED_HEADER.splitlines()[0]
    except (OSError, UnicodeDecodeError):
        return False


def _index_text(memory: Memory, budget: int, flags: Mapping[str, str] | None = None) -> str:
    return _index_texts(memory, lambda render: render(budget), flags)


def _index_texts(
    memory: Memory,
    choose: Callable[[Callable[[int], str]], str],
    flags: Mapping[str, str] | None = None,
) -> str:
    """``choose(render)``: the index rendered for one or more budgets, from one read of it.
    Drifted and stale facts (``flags``: id → marker) come after the others, marked."""
    from memsite.core.budget import render_items
    from memsite.core.compaction import category_order
    from memsite.core.estimate import estimate_tokens

    index = memory.index()
    flags = _flags(memory) if flags is None else flags
    with index.read_transaction():
        items = index.index_items()
        present = index.categories_present()
        marked = {
            i: line[:-1] + flags[i] + "\n" for i, line in index.index_bullets(sorted(flags)).items()
        }
        sections = {
            c: [
                item._replace(cost=estimate_tokens(marked[item.id])) if item.id in marked else item
                for item in items[c]
            ]
            for c in category_order(memory.config.categories, present)
            if c in items
        }
        weights = memory.config.categories

        def bullets(ids: Sequence[str]) -> dict[str, str]:
            found = index.index_bullets([i for i in ids if i not in marked])
            return {**found, **{i: marked[i] for i in ids if i in marked}}

        return choose(
            lambda budget: render_items(sections, weights, budget, bullets, late=set(marked))
        )


def index_within(memory: Memory, characters: int, shown: Callable[[str], str]) -> str:
    """The index for the largest token budget whose ``shown`` form fits in ``characters``:
    every category keeps its weighted share (unlike cutting index.md after its first lines)."""
    if not memory.config.enabled:
        return ""
    memory.ensure_fresh()

    def choose(render: Callable[[int], str]) -> str:
        low, high = 1, max(characters, 1)  # an estimate never counts more tokens than bytes
        best = shown(render(low))
        while low < high:
            middle = (low + high + 1) // 2
            text = shown(render(middle))
            if len(text) <= characters:
                low, best = middle, text
            else:
                high = middle - 1
        return best if len(best) <= characters else ""

    return _index_texts(memory, choose)


def _view_stats(store: Store, names: Iterable[str]) -> dict[str, list[int]]:
    """Size and mtime of each view file that exists (to notice one edited or removed)."""
    found = {}
    for name in names:
        path = store.root / name
        with contextlib.suppress(OSError):
            info = path.stat()
            found[name] = [info.st_size, info.st_mtime_ns]
    return found


def _write_views(
    memory: Memory, full: bool, known: Mapping[str, Any], flags: Mapping[str, str], claims: bool
) -> tuple[list[str], list[str], int]:
    """Rewrite the views: every one when ``full``, else those of the categories that changed
    and any view file that is not as it was written (``known``: its recorded size and mtime).

    Either way the bytes are those a full rebuild writes (tests compare the two).
    """
    from memsite.core.markdown import compacted_text

    store = memory.store
    index = memory.index()
    generation, everything, dirty = index.dirty()
    full = full or everything
    configured = list(memory.config.categories)
    now = _view_stats(store, _view_names(configured))
    chosen = [
        c
        for c in configured
        if full or c in dirty or now.get(f"compacted/{c}.md") != known.get(f"compacted/{c}.md")
    ]
    written: list[str] = []
    removed: list[str] = []
    for category in chosen:
        name = f"{category}.md"
        text = compacted_text(category, index.view_bullets(category))
        if replace_if_changed(store.compacted_dir / name, text.encode(), tmp_dir=store.tmp_dir):
            written.append(f"compacted/{name}")
    if full:
        names = {f"{c}.md" for c in configured}
        for path in sorted(store.compacted_dir.glob("*.md")):
            if path.name not in names and _is_generated(path):
                path.unlink(missing_ok=True)
                removed.append(f"compacted/{path.name}")
    if full or dirty or claims or now.get("index.md") != known.get("index.md"):
        text = _index_text(memory, memory.config.budget, flags)
        if replace_if_changed(store.index_path, text.encode(), tmp_dir=store.tmp_dir):
            written.append("index.md")
    return written, removed, generation


def compact(memory: Memory, full: bool = False) -> dict[str, Any]:
    """Bring compacted/ and index.md up to date; prune expired daily logs and stale temporaries.

    Only the views of categories whose active entries changed are rendered again, unless
    ``full`` (which also re-hashes every entry file to find files edited in place), the
    config or memsite changed, or the index was rebuilt.
    """
    from memsite.core.compaction import category_order
    from memsite.core.review import counts_of

    index = memory.model.synced(full=full)
    store = memory.store
    flags = _flags(memory)
    stamp = _stamp(memory, flags)
    saved = memory.model.caches.load_state()
    same_base = (
        isinstance(saved, dict)
        and isinstance(saved.get("views"), dict)
        and saved.get("config") == stamp["config"]
        and saved.get("version") == stamp["version"]
        and str(saved.get("entries", "")).split(":")[0] == stamp["entries"].split(":")[0]
        and store.compacted_dir.is_dir()
    )
    try:
        known = saved["views"] if same_base else {}
        claims = not same_base or saved.get("claims") != stamp["claims"]
        written, removed, generation = _write_views(
            memory, full or not same_base, known, flags, claims
        )
        pruned = _prune_daily(memory, dry_run=False)
        folders = [store.tmp_dir, store.root, store.compacted_dir, store.cache_dir]
        if index.has_temporaries():  # listing 100k names costs ~0.1 s: only when worth it
            folders.append(store.entries_dir)
        temporaries = remove_files(stale_temporaries(folders, memory.now().timestamp()))
        index.views_written(generation)
        views = _view_stats(store, _view_names(memory.config.categories))
        memory.model.caches.save_state(
            {**stamp, "entries": _fingerprint_at(stamp, generation), "views": views}
        )
    except OSError as exc:
        raise StorageError(f"cannot write derived files in {store.root}: {exc.strerror}") from None
    categories = category_order(memory.config.categories, index.categories_present())
    return {
        **counts_of(index.tally(), categories),
        "invalid": len(index.invalid()),
        "written": written,
        "removed": removed,
        "pruned_daily": pruned,
        "removed_temporaries": temporaries,
    }


def _view_names(categories: Iterable[str]) -> list[str]:
    return ["index.md", *(f"compacted/{c}.md" for c in categories)]


def _fingerprint_at(stamp: dict[str, str], generation: int) -> str:
    return f"{stamp['entries'].split(':')[0]}:{generation}"


def ensure_fresh(memory: Memory) -> bool:
    """Compact when the views are stale and autoCompact is on; are they fresh now?"""
    if is_fresh(memory):
        return True
    if memory.config.auto_compact:
        compact(memory)
        return True
    return False


def context(
    memory: Memory, budget: int | None = None, session: str | None = None
) -> tuple[str, list[str]]:
    """index.md within the budget (compacting first when stale), and warnings. With
    ``memory.sessionCarryover`` the last session's open tasks and decisions follow, within
    the same budget (``session`` is the current one, whose own lines are not carried).

    A disabled memory (``memory.enabled: false``) injects nothing. When the views cannot be
    saved (a read-only checkout), the index is built in memory and a warning says so.
    """
    if budget is not None and budget < 1:
        raise InvalidInputError("budget must be a positive number of tokens")
    if not memory.config.enabled:
        return "", []
    warnings: list[str] = []
    try:
        fresh = ensure_fresh(memory)
    except StorageError as exc:
        fresh = False
        warnings.append(f"{exc}; the index below was built in memory and not saved")
    carry = ""
    if memory.config.session_carryover and _has_daily_logs(memory):
        from memsite.memory.sessions import carryover

        carry = carryover(memory, session)
    total = budget or memory.config.budget
    if fresh and budget is None and not carry:
        try:
            return memory.store.index_path.read_text(encoding="utf-8"), warnings
        except (OSError, UnicodeDecodeError):
            pass  # removed meanwhile: build it below
    if carry:
        from memsite.core.estimate import estimate_tokens

        room = total - estimate_tokens(carry)
        if room < 1:
            return _index_text(memory, total), warnings
        return _index_text(memory, room) + carry, warnings
    return _index_text(memory, total), warnings


class ScanFindings(NamedTuple):
    """The findings that take one pass over every fact's text (most of a review's time):
    near-duplicates by category, conflicts, the secret scan's by entry file, and a digest of
    the entries the pass saw with their statuses (:func:`seen_digest`)."""

    near_duplicates: dict[str, list[Finding]]
    conflicts: list[Finding]
    secrets: dict[str, list[Finding]]
    seen: int


def findings(memory: Memory, scanned: ScanFindings | None = None) -> list[Finding]:
    """Every finding of a review, in the order it shows them. ``scanned``: the text pass,
    made already (by :func:`scan_findings_from_index`, in a build worker); it is used only if
    it saw the same entries with the same statuses as this read of the store."""
    from memsite.core import review as rules
    from memsite.memory import claims

    state = memory.state()
    result = state.result
    if scanned is None or scanned.seen != seen_digest(result.status.items()):
        kept = ((e, result.status[e.id]) for e in result.entries)
        scanned = scan_findings(memory, kept, state.scan.records, result.by_id.__getitem__)
    found = rules.invalid_file_findings((f.filename, f.message) for f in state.scan.invalid)
    found += result.findings
    found += [f for c in result.categories for f in scanned.near_duplicates.get(c, ())]
    found += rules.unknown_category_findings(result, memory.config.categories)
    found += [f for e in result.entries for f in scanned.secrets.get(e.filename, ())]
    found += rules.future_findings(result, memory.now())
    found += scanned.conflicts
    found += claims.drift_findings(memory)
    found += claims.stale_findings(memory)
    return found


def secret_findings(memory: Memory) -> list[Finding]:
    """Entries whose full detect-secrets scan finds something, allowed ones apart."""
    entries = memory.state().result.entries
    by_file = _secret_scan(memory, entries)
    return [f for e in entries for f in by_file.get(e.filename, ())]


def seen_digest(statuses: Iterable[tuple[str, str]]) -> int:
    """A digest of (entry id, status) pairs, in any order: the sum of :func:`_pair_digest`."""
    return sum(_pair_digest(entry_id, status) for entry_id, status in statuses) & _DIGEST_MASK


_DIGEST_MASK = (1 << 64) - 1


def _pair_digest(entry_id: str, status: str) -> int:
    pair = f"{entry_id} {status}".encode("utf-8", "surrogatepass")
    return int.from_bytes(hashlib.blake2b(pair, digest_size=8).digest(), "big")


def scan_findings(
    memory: Memory,
    kept: Iterable[tuple[Entry, str]],
    records: Iterable[Record],
    entry_of: Callable[[str], Entry],
) -> ScanFindings:
    """The text pass over ``kept`` (every entry the compaction keeps, with its status, in any
    order; each may be dropped once seen): the secrets of each, and each category's active
    facts kept only as (id, normalized content) for the near-duplicates and conflicts.
    ``entry_of`` gives the entry of an id a finding names."""
    from memsite.core import review as rules
    from memsite.core.compaction import ACTIVE
    from memsite.memory import claims

    active: dict[str, list[tuple[str, str]]] = {}
    digest = [0]  # seen_digest of the pairs met, summed as they come (not all held)

    def seen() -> Iterator[Entry]:
        for entry, status in kept:
            digest[0] += _pair_digest(entry.id, status)
            if status == ACTIVE:
                active.setdefault(entry.category, []).append((entry.id, entry.normalized))
            yield entry

    secrets = _secret_scan(memory, seen())
    near = {c: rules.near_duplicates_in([(c, facts)], entry_of) for c, facts in active.items()}
    return ScanFindings(
        {c: found for c, found in near.items() if found},
        claims.conflicts_in(active, records, entry_of),
        secrets,
        digest[0] & _DIGEST_MASK,
    )


def scan_findings_from_index(memory: Memory, ready: Callable[[], bool]) -> ScanFindings | None:
    """:func:`scan_findings` over the index's rows, read one at a time on a connection of its
    own, once ``ready()`` says the index is up to date (None if it never is, or is not a file).

    A build runs this in a child forked before the store is read: a child forked later shares
    the parent's entries, and either side touching one copies the page it is on (about 300 MB
    at 100k entries)."""
    if not ready():
        return None
    snapshot = memory.model.index.snapshot()
    if snapshot is None:
        return None
    with snapshot:
        rows, records = snapshot.kept_entries(), snapshot.records()
        return scan_findings(memory, rows, records, snapshot.kept_entry)


def _secret_scan(memory: Memory, entries: Iterable[Entry]) -> dict[str, list[Finding]]:
    """The secret findings of each of ``entries``, by entry file (those with some).

    The full scan costs ~0.2 ms a text, so its verdicts are cached per entry file and text.
    """
    from memsite.core import review as rules
    from memsite.core.secrets import allowed_findings, entry_findings, is_allowed

    caches = memory.model.caches
    cached = caches.load_verdicts()
    fresh: dict[str, tuple[int, list[str]]] = {}
    found: dict[str, list[Finding]] = {}
    for entry in entries:
        digest = zlib.crc32(repr(sorted(entry.raw.items())).encode("utf-8", "replace"))
        hit = cached.get(entry.filename)
        if hit is not None and hit[0] == digest:
            messages = hit[1]
        elif is_allowed(entry.raw):
            messages = allowed_findings(entry.raw)
        else:
            messages = [message for _, message in entry_findings(entry.raw)]
        fresh[entry.filename] = (digest, messages)
        if messages:
            found[entry.filename] = rules.secret_findings(
                entry, messages, allowed=is_allowed(entry.raw)
            )
    if fresh != cached:
        caches.save_verdicts(fresh)
    return found


def refuse_unreviewed_secrets(memory: Memory, action: str) -> None:
    """Stop ``action`` (a publishing command) while a suspected secret is in the memory."""
    ids = sorted({f.ids[0][:8] for f in secret_findings(memory) if f.kind == "secret"})
    if ids:
        shown = ", ".join(ids[:10]) + (f" and {len(ids) - 10} more" if len(ids) > 10 else "")
        raise MemsiteError(
            f"{action} refuses to publish: {len(ids)} entries hold suspected secrets "
            f"({shown}); see `memsite review`, then delete each (rotate the credential if it "
            "reached git), or have a person rewrite a reviewed false positive with --allow-secret"
        )


def status(memory: Memory) -> dict[str, Any]:
    from memsite.core.review import counts

    state = memory.state()
    store = memory.store
    found = findings(memory)
    notes = []
    if store.shadowed is not None:
        notes.append(
            f"a LeanSpec store is also at {store.shadowed}; memsite uses {store.root} "
            f"(pass --store {store.relative(store.shadowed)} to use the other)"
        )
    return {
        "store": str(store.root),
        "layout": "leanspec" if store.leanspec else "memsite",
        "notes": notes,
        **counts(state.result),
        "invalid": len(state.scan.invalid),
        "derived": "fresh" if is_fresh(memory) else "stale",
        "daily_logs": len(_daily_logs(memory)),
        "findings": len(found),
        "drifted": sum(1 for f in found if f.kind == "drift"),
        "stale": sum(1 for f in found if f.kind == "stale"),
        "records": len(state.scan.records),
    }


def _has_daily_logs(memory: Memory) -> bool:
    """Any file in daily/ (a scan of a small folder; nothing imported)."""
    try:
        with os.scandir(memory.store.daily_dir) as items:
            return any(item.name.endswith(".md") for item in items)
    except OSError:
        return False


def _daily_logs(memory: Memory) -> list[tuple[date, Path]]:
    from memsite.storage.daily import daily_logs

    return daily_logs(memory.store)


def _prune_daily(memory: Memory, dry_run: bool) -> list[str]:
    cutoff = memory.now().date() - timedelta(days=memory.config.daily_retention_days)
    pruned = []
    for day, path in _daily_logs(memory):
        if day < cutoff:
            if not dry_run:
                with storage_errors("delete", path):
                    path.unlink(missing_ok=True)
            pruned.append(f"daily/{path.name}")
    return pruned


def prune(memory: Memory, before: date | None = None, dry_run: bool = False) -> dict[str, Any]:
    """Delete expired daily logs; with ``before``, inactive entries created before it too."""
    from memsite.core.review import prunable
    from memsite.storage.entries import delete_entry_file

    entries: list[str] = []
    if before is not None:
        result = memory.state().result
        doomed = prunable(result, before, memory.config.categories)
        for entry in result.entries:
            if entry.id in doomed:
                entries.append(entry.id)
                if not dry_run:
                    delete_entry_file(memory.store, entry.filename)
        if not dry_run:
            memory.invalidate()
    daily = _prune_daily(memory, dry_run)
    return {"dry_run": dry_run, "entries": entries, "daily": daily}
