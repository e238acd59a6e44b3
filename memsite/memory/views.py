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
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from memsite.errors import StorageError
from memsite.files import (
    blake2b_hex,
    remove_files,
    replace_if_changed,
    stale_temporaries,
)
from memsite.version import __version__

if TYPE_CHECKING:
    from memsite.core.budget import IndexItem
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
        "markers": _markers_stamp(memory, _flags(memory) if flags is None else flags),
        "flagged": f"{zlib.crc32(memory.model.caches.flagged_bytes()):08x}",
        "trust": current(memory).stamp(),
    }


def _flags(memory: Memory) -> dict[str, str]:
    """The facts index.md marks (drifted, stale) with their markers (``anchors``), found
    once per operation."""
    from memsite.memory.anchors import index_markers

    return memory.model.markers(lambda: index_markers(memory))


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


def index_text(memory: Memory, budget: int, flags: Mapping[str, str] | None = None) -> str:
    """index.md for ``budget`` tokens: found through the read model's index, which is asked
    only for the facts the budget reaches (``_ranked_text``); the same text as reading every
    fact's cost (``_index_texts``), which it falls back to where the index cannot answer."""
    flags = _flags(memory) if flags is None else flags
    text = _ranked_text(memory, budget, flags)
    return text if text is not None else _index_texts(memory, lambda r: r(budget), flags).text


# Facts the index's order passes over (held back, out of their window, marked to go last: a
# search each) above which every fact's cost is read instead.
_SKIP_MAX = 2000


def _ranked_text(memory: Memory, budget: int, flags: Mapping[str, str]) -> str | None:
    """``index_text`` from ``Views.ranked`` streams, one per category: at 100k facts ~0.2 s
    less than reading all 78k active facts' costs. None when the index keeps no cost for some
    fact, or many facts are left out or marked (each is a search of its own)."""
    from memsite.core import budget as rules
    from memsite.core.compaction import category_order
    from memsite.core.estimate import estimate_tokens
    from memsite.memory.trust import current
    from memsite.memory.windows import out_of_window

    index = memory.index()
    gate = current(memory)
    left = gate.held.keys() | out_of_window(memory).keys()
    if len(left) + len(flags) > _SKIP_MAX:
        return None
    with index.views.reading():
        summary = index.views.index_summary()
        if summary is None:
            return None
        candidates = memory.model.caches.flagged() | set(gate.approved) | set(flags) | left
        known = index.views.index_items_of(candidates)
        marked = _special_lines(memory, known.keys() - left, flags, gate.approved)
        costs = {i: estimate_tokens(line) for i, line in marked.items()}
        streams: dict[str, rules.Stream] = {}
        offered, skip, last = 0, left | flags.keys(), flags.keys() - left
        for category in category_order(memory.config.categories, summary):
            own = {i for i, (c, _) in known.items() if c == category}
            count, least = summary.get(category, (0, 0))
            count -= len(own & left)
            if count <= 0:
                continue
            offered += count
            late = [item for i, (c, item) in known.items() if c == category and i in last]
            tail = [item._replace(cost=costs[item.id]) for item in rules.late_last(late, flags)]
            mine = {i: costs[i] for i in own if i in costs}
            floor = min([least, *mine.values()])
            streams[category] = index.views.ranked(category, skip, mine, tail, floor)
        held = len(gate.held)
        room = budget - rules.frame_cost(offered, held)
        if room <= estimate_tokens(rules.INDEX_HEADER):
            return rules.unframed(budget, offered, held)
        chosen: dict[str, str] = {}
        bullets = _lines_into(chosen, memory, marked)
        body = rules.render_streams(streams, memory.config.categories, room, bullets)
    shown = sum(1 for line in chosen.values() if line in body)
    return rules.framed(body, offered - shown, held)


class Rendered(NamedTuple):
    """index.md as agents get it, and which active facts it holds, left out or held back."""

    text: str
    included: list[str]
    omitted: list[str]
    held_back: dict[str, str]  # id → why (``core.trust``)
    task: list[str]  # the facts of the leading task section (``context --task``)


def _index_texts(
    memory: Memory,
    choose: Callable[[Callable[[int], str]], str],
    flags: Mapping[str, str] | None = None,
    first: Sequence[str] = (),
    only_first: bool = False,
) -> Rendered:
    """``choose(render)``: the index rendered for one or more budgets, from one read of it.
    Only facts the gate lets through and that hold now are offered (``memory.trust``,
    ``memory.windows``); drifted and stale facts (``flags``: id → marker) come after the
    others, marked; facts the full secret scan flagged are redacted with it (their kept
    bullets had the quick scan). The framing line opens the text; how many facts did not fit
    and how many were held back end it. ``first``: see ``_sections``."""
    from memsite.core import budget as rules
    from memsite.core.estimate import estimate_tokens
    from memsite.memory.trust import current
    from memsite.memory.windows import out_of_window

    index = memory.index()
    flags = _flags(memory) if flags is None else flags
    gate = current(memory)
    with index.views.reading():
        found = index.views.index_items()
        left = gate.held.keys() | out_of_window(memory).keys()
        items = {c: [i for i in group if i.id not in left] for c, group in found.items()}
        offered_ids = {item.id for group in items.values() for item in group}
        marked = _special_lines(memory, offered_ids, flags, gate.approved)
        sections = _sections(memory, items, marked, first, only_first)
        held = 0 if only_first else len(gate.held)
        weights = memory.config.categories
        offered = [item.id for group in sections.values() for item in group]
        chosen: dict[str, str] = {}  # the facts offered to the text, with their lines

        bullets = _lines_into(chosen, memory, marked)
        late = {i for i in marked if i in flags}

        def render(budget: int) -> str:
            chosen.clear()
            room = budget - rules.frame_cost(len(offered), held)
            if room <= estimate_tokens(rules.INDEX_HEADER):  # no room for the frame or any fact
                return rules.unframed(budget, len(offered), held)
            shares = rules.task_weights(sections, weights, room) if first else weights
            body = rules.render_items(sections, shares, room, bullets, late=late)
            for entry_id in [i for i, line in chosen.items() if line not in body]:
                del chosen[entry_id]  # dropped to fit when the text was counted
            return rules.framed(body, len(offered) - len(chosen), held)

        text = choose(render)
    included = [i for i in offered if i in chosen]
    omitted = [i for i in offered if i not in chosen]
    task = [i.id for i in sections.get(rules.TASK, []) if i.id in chosen]
    return Rendered(text, included, omitted, dict(sorted(gate.held.items())), task)


def _lines_into(
    chosen: dict[str, str], memory: Memory, marked: Mapping[str, str]
) -> Callable[[Sequence[str]], dict[str, str]]:
    """``core.budget``'s ``bullets``: the chosen facts' lines (kept or marked), into ``chosen``."""

    def bullets(ids: Sequence[str]) -> dict[str, str]:
        found = memory.index().views.index_bullets([i for i in ids if i not in marked])
        chosen.clear()
        chosen.update({**found, **{i: marked[i] for i in ids if i in marked}})
        return chosen

    return bullets


def _sections(
    memory: Memory,
    items: Mapping[str, Sequence[IndexItem]],
    marked: Mapping[str, str],
    first: Sequence[str],
    only_first: bool,
) -> dict[str, list[IndexItem]]:
    """The index's sections in category order, each fact costed by the line it will have;
    the facts ``first`` names lead in a section of their own (alone with ``only_first``)."""
    from memsite.core.budget import TASK, task_first
    from memsite.core.compaction import category_order
    from memsite.core.estimate import estimate_tokens

    present = memory.index().entries.categories()
    sections = {
        c: [
            item._replace(cost=estimate_tokens(marked[item.id])) if item.id in marked else item
            for item in items[c]
        ]
        for c in category_order(memory.config.categories, present)
        if c in items
    }
    if first:
        sections = task_first(sections, first)
    return {TASK: sections.get(TASK, [])} if only_first else sections


def _special_lines(
    memory: Memory,
    active: Collection[str],
    flags: Mapping[str, str],
    approved: Collection[str] = (),
) -> dict[str, str]:
    """The lines of the facts whose kept bullet will not do: redacted with the full scan
    (flagged by it), stripped of hidden characters (an approved fact that holds them), or
    with a marker (drifted, stale); ``active``: the facts offered."""
    from memsite.core.budget import index_item
    from memsite.core.hidden import has_hidden, strip_hidden

    index = memory.index()
    active = set(active)
    flagged = memory.model.caches.flagged() & active
    special = index.views.redacted_bullets(flagged, lambda e: index_item(e, full=True).bullet)
    for entry_id, line in index.views.index_bullets(sorted(set(approved) & active)).items():
        line = special.get(entry_id, line)
        if has_hidden(line):
            special[entry_id] = strip_hidden(line)
    for entry_id, line in index.views.index_bullets(sorted(flags)).items():
        special[entry_id] = special.get(entry_id, line)[:-1] + flags[entry_id] + "\n"
    return special


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
    memory: Memory, full: bool, known: Mapping[str, Any], flags: Mapping[str, str], marked: bool
) -> tuple[list[str], list[str], int]:
    """Rewrite the views: every one when ``full``, else those of the categories that changed
    and any view file that is not as it was written (``known``: its recorded size and mtime).

    Either way the bytes are those a full rebuild writes (tests compare the two).
    """
    from memsite.core.markdown import compacted_text

    store = memory.store
    index = memory.index()
    generation, everything, dirty = index.views.dirty()
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
        text = compacted_text(category, index.views.view_bullets(category))
        if replace_if_changed(store.compacted_dir / name, text.encode(), tmp_dir=store.tmp_dir):
            written.append(f"compacted/{name}")
    if full:
        names = {f"{c}.md" for c in configured}
        for path in sorted(store.compacted_dir.glob("*.md")):
            if path.name not in names and _is_generated(path):
                path.unlink(missing_ok=True)
                removed.append(f"compacted/{path.name}")
    if full or dirty or marked or now.get("index.md") != known.get("index.md"):
        text = index_text(memory, memory.config.budget, flags)
        if replace_if_changed(store.index_path, text.encode(), tmp_dir=store.tmp_dir):
            written.append("index.md")
    return written, removed, generation


def compact(memory: Memory, full: bool = False, *, count: bool = True) -> dict[str, Any]:
    """Bring compacted/ and index.md up to date; prune expired daily logs and stale temporaries.

    Only the views of categories whose active entries changed are rendered again, unless
    ``full`` (which also re-hashes every entry file to find files edited in place), the
    config or memsite changed, or the index was rebuilt.
    """
    from memsite.core.compaction import category_order, counts_of
    from memsite.memory import sessions

    store = memory.store
    # Refused before anything is written when a view, cache/ or cache/tmp/ is a link.
    store.writable(store.compacted_dir, children=True)
    store.writable(store.index_path)
    store.writable(store.cache_dir, children=True)
    index, flags, stamp = _prepared(memory, full, count)
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
        # index.md depends on the markers, the facts the full scan flagged and the gate, too
        marked = not same_base or any(
            saved.get(k) != stamp[k] for k in ("markers", "flagged", "trust")
        )
        written, removed, generation = _write_views(
            memory, full or not same_base, known, flags, marked
        )
        pruned = sessions.expired_logs(memory, dry_run=False)
        folders = [store.tmp_dir, store.root, store.compacted_dir, store.cache_dir]
        if index.has_temporaries() and store.why_unsafe(store.entries_dir) is None:
            # listing 100k names costs ~0.1 s: only when worth it (and never through a link)
            folders.append(store.entries_dir)
        temporaries = remove_files(stale_temporaries(folders, memory.now().timestamp()))
        index.views.written(generation)
        views = _view_stats(store, _view_names(memory.config.categories))
        memory.model.caches.save_state(
            {**stamp, "entries": _fingerprint_at(stamp, generation), "views": views}
        )
    except OSError as exc:
        raise StorageError(f"cannot write derived files in {store.root}: {exc.strerror}") from None
    categories = category_order(memory.config.categories, index.entries.categories())
    return {
        **counts_of(index.entries.tally(), categories),
        "invalid": len(index.entries.invalid()),
        "written": written,
        "removed": removed,
        "pruned_daily": pruned,
        "removed_temporaries": temporaries,
    }


def _prepared(
    memory: Memory, full: bool, count: bool
) -> tuple[Index, dict[str, str], dict[str, str]]:
    """The index taken in, the markers and the stamp, with exact token costs unless not
    ``count`` (`context`): a child forked before the sync (``Views.counting_child``; not
    ``memory.index()``, which syncs) loads the tokenizers meanwhile. The markers and the
    gate are keyed to the facts' fingerprint, which counting leaves as it was."""
    child = memory.model.index.views.counting_child() if count and not full else None
    with child or contextlib.nullcontext():
        index = memory.model.synced(full=full)
        flags = _flags(memory)
        stamp = _stamp(memory, flags)
        if count:
            index.views.count_tokens(child)
    return index, flags, stamp


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
