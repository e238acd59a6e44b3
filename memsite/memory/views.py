"""The derived views: `compact` (compacted/<category>.md and index.md, kept up to date by
rendering only what changed) and `context` (index.md for an agent's session start).

The views are fresh when ``cache/state.json`` names the entries' fingerprint, the config's
hash and memsite's version they were built from. A store that cannot be written to still
answers `context`: the index is built in memory and a warning says it could not be saved.
Nothing is written, and index.md is not read, through a symbolic link (``Store.writable``):
`compact` refuses, `context` builds the index in memory. Rules are imported by the functions
that use them: `context` with fresh views reads one file and should cost no more than that.
"""

from __future__ import annotations

import contextlib
import zlib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memsite.errors import StorageError
from memsite.files import (
    blake2b_hex,
    remove_files,
    replace_if_changed,
    stale_temporaries,
)
from memsite.memory.indexmd import index_flags, index_text
from memsite.version import __version__

if TYPE_CHECKING:
    from memsite.memory import Memory
    from memsite.storage.layout import Store
    from memsite.storage.readmodel.facade import Index


_STAMP_KEYS = ("entries", "config", "version", "markers", "flagged", "trust")


def _stamp(memory: Memory, flags: Mapping[str, str] | None = None) -> dict[str, str]:
    from memsite.memory.trust import current

    return {
        "entries": memory.model.fingerprint(),
        "config": blake2b_hex(memory.store.config_bytes()),
        "version": __version__,
        "markers": _markers_stamp(memory, index_flags(memory) if flags is None else flags),
        "flagged": f"{zlib.crc32(memory.model.caches.flagged_bytes()):08x}",
        "trust": current(memory).stamp(),
    }


def _markers_stamp(memory: Memory, flags: Mapping[str, str]) -> str:
    """What index.md depends on besides the entries: the marked facts, the day when
    staleness is on (a fact goes stale as days pass), and the facts out of their validity
    window (one leaves or joins the index as its window closes or opens)."""
    from memsite.memory.windows import out_of_window

    day = memory.now().date().isoformat() if memory.config.review_after is not None else ""
    closed = out_of_window(memory)
    if not flags and not day and not closed:
        return ""
    text = day + "".join(f"\n{i}{m}" for i, m in sorted({**flags, **closed}.items()))
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
        # a linked index.md is never read (it could show any file to the agent)
        and store.why_unsafe(store.index_path) is None
    )


def _is_generated(path: Path) -> bool:
    from memsite.core.markdown import COMPACTED_HEADER

    try:
        with open(path, encoding="utf-8") as handle:
            return handle.readline() == COMPACTED_HEADER.splitlines()[0]
    except (OSError, UnicodeDecodeError):
        return False


def _view_stats(store: Store, names: Iterable[str]) -> dict[str, list[int]]:
    """Size and mtime of each view file that exists (to notice one edited or removed)."""
    found = {}
    for name in names:
        path = store.root / name
        with contextlib.suppress(OSError):
            info = path.stat()
            found[name] = [info.st_size, info.st_mtime_ns]
    return found


def _write_categories(
    memory: Memory, full: bool, known: Mapping[str, Any]
) -> tuple[list[str], list[str]]:
    """Rewrite the category views: every one when ``full``, else those of the categories that
    changed and any view file that is not as it was written (``known``: its recorded size and
    mtime). Either way the bytes are those a full rebuild writes (tests compare the two).
    Token counts are in no category view: these are written while the counts are made."""
    from memsite.core.markdown import compacted_text

    store = memory.store
    index = memory.index()
    _, everything, dirty = index.views.dirty()
    full = full or everything
    configured = list(memory.config.categories)
    now = _view_stats(store, [f"compacted/{c}.md" for c in configured])
    chosen = [
        c
        for c in configured
        if full or c in dirty or now.get(f"compacted/{c}.md") != known.get(f"compacted/{c}.md")
    ]
    written: list[str] = []
    removed: list[str] = []
    for category in chosen:
        name = f"{category}.md"
        text = compacted_text(category, index.views.view_bullets(category))
        if replace_if_changed(store.compacted_dir / name, text.encode(), tmp_dir=store.tmp_dir):
            written.append(f"compacted/{name}")
    if full:
        names = {f"{c}.md" for c in configured}
        for path in sorted(store.compacted_dir.glob("*.md")):
            if path.name not in names and _is_generated(path):
                path.unlink(missing_ok=True)
                removed.append(f"compacted/{path.name}")
    return written, removed


def _write_index(
    memory: Memory, full: bool, known: Mapping[str, Any], flags: Mapping[str, str], marked: bool
) -> tuple[list[str], int]:
    """Rewrite index.md when anything it is made from changed (the token counts too), and
    the generation of the index it now reflects."""
    store = memory.store
    generation, everything, dirty = memory.index().views.dirty()
    now = _view_stats(store, ["index.md"])
    if full or everything or dirty or marked or now.get("index.md") != known.get("index.md"):
        text = index_text(memory, memory.config.budget, flags)
        if replace_if_changed(store.index_path, text.encode(), tmp_dir=store.tmp_dir):
            return ["index.md"], generation
    return [], generation


def compact(memory: Memory, full: bool = False, *, count: bool = True) -> dict[str, Any]:
    """Bring compacted/ and index.md up to date; prune expired daily logs and stale temporaries.

    Only the views of categories whose active entries changed are rendered again, unless
    ``full`` (which also re-hashes every entry file to find files edited in place), the
    config or memsite changed, or the index was rebuilt. Exact token counts are made unless
    not ``count`` (`context`): a child forked before the sync (``Views.counting_child``; not
    ``memory.index()``, which syncs) loads the tokenizers while the index takes in the new
    files and the markers, the gate and the category views are made; index.md, which the
    counts fill, comes last. The markers and the gate are keyed to the facts' fingerprint,
    which counting leaves as it was.
    """
    from memsite.core.compaction import category_order, counts_of

    store = memory.store
    # Refused before anything is written when a view, cache/ or cache/tmp/ is a link.
    store.writable(store.compacted_dir, children=True)
    store.writable(store.index_path)
    store.writable(store.cache_dir, children=True)
    child = memory.model.index.views.counting_child() if count and not full else None
    with child or contextlib.nullcontext():
        index = memory.model.synced(full=full)
        flags = index_flags(memory)
        stamp = _stamp(memory, flags)
        saved = memory.model.caches.load_state()
        same_base = _same_base(saved, stamp) and store.compacted_dir.is_dir()
        known = saved["views"] if same_base else {}
        # index.md depends on the markers, the facts the full scan flagged and the gate, too
        marked = not same_base or any(
            saved.get(k) != stamp[k] for k in ("markers", "flagged", "trust")
        )
        whole = full or not same_base  # every view written again
        try:
            written, removed = _write_categories(memory, whole, known)
            pruned, temporaries = _cleaned(memory, index)
        except OSError as exc:
            raise _unwritable(store, exc) from None
        categories = category_order(memory.config.categories, index.entries.categories())
        tally = counts_of(index.entries.tally(), categories)
        if count:
            index.views.count_tokens(child)
    try:
        written_index, generation = _write_index(memory, whole, known, flags, marked)
        index.views.written(generation)
        views = _view_stats(store, _view_names(memory.config.categories))
        memory.model.caches.save_state(
            {**stamp, "entries": _fingerprint_at(stamp, generation), "views": views}
        )
    except OSError as exc:
        raise _unwritable(store, exc) from None
    return {
        **tally,
        "invalid": len(index.entries.invalid()),
        "written": written + written_index,
        "removed": removed,
        "pruned_daily": pruned,
        "removed_temporaries": temporaries,
    }


def _cleaned(memory: Memory, index: Index) -> tuple[list[str], int]:
    """Daily logs past their keeping pruned, and stale temporaries removed."""
    from memsite.memory import sessions

    store = memory.store
    pruned = sessions.expired_logs(memory, dry_run=False)
    folders = [store.tmp_dir, store.root, store.compacted_dir, store.cache_dir]
    if index.has_temporaries() and store.why_unsafe(store.entries_dir) is None:
        # listing 100k names costs ~0.1 s: only when worth it (and never through a link)
        folders.append(store.entries_dir)
    return pruned, remove_files(stale_temporaries(folders, memory.now().timestamp()))


def _unwritable(store: Store, exc: OSError) -> StorageError:
    return StorageError(f"cannot write derived files in {store.root}: {exc.strerror}")


def _same_base(saved: Any, stamp: Mapping[str, str]) -> bool:
    """Were the views last written from this read model, config and memsite version?"""
    return (
        isinstance(saved, dict)
        and isinstance(saved.get("views"), dict)
        and saved.get("config") == stamp["config"]
        and saved.get("version") == stamp["version"]
        and str(saved.get("entries", "")).split(":")[0] == stamp["entries"].split(":")[0]
    )


def _view_names(categories: Iterable[str]) -> list[str]:
    return ["index.md", *(f"compacted/{c}.md" for c in categories)]


def _fingerprint_at(stamp: dict[str, str], generation: int) -> str:
    return f"{stamp['entries'].split(':')[0]}:{generation}"


def ensure_fresh(memory: Memory) -> bool:
    """Compact when the views are stale and autoCompact is on; are they fresh now?"""
    if is_fresh(memory):
        return True
    if memory.config.auto_compact:
        compact(memory, count=False)
        return True
    return False
