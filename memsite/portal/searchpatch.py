"""The search index after new facts only: the last build's files patched, not made again.

A fact added is the next ref (``searchdata``: refs are oldest first), so when every view the
last build indexed comes back unchanged at its ref (their digests, ``Memo.digests``), the
names and ranking tables are the same and the rounded average length did not move, every
file but a few is as it was:

* ``t/N.json``: only the shards that hold the new facts' terms take their postings (a new
  ref is the greatest, so its pair goes last; a term past ``MAX_POSTINGS`` keeps the
  strongest of its kept pairs and the new ones, which are the strongest of all its pairs).
  The shards are cut again from the first one touched, by the same rule
  (``searchdata.Cutter``), until a cut falls where the last build cut and no touched shard
  is left: from there on each shard is the old file;
* ``v/L.json``, ``i/XY.json`` and ``f/KIND-N.json``: the new words, ids and refs added;
* ``d/N.json``: the rows from the last build's last chunk on;
* ``meta.json``: its counts, shards, lengths, days and stamp.

Anything else (a fact changed, gone or placed between others, a new tag or category) makes
the index whole again. The old files are read back only when their bytes still have the key
the last build wrote (:data:`Read`). The result is byte for byte what
``searchdata.search_file_stream`` makes (tests/portal/test_searchpatch.py).
"""

from __future__ import annotations

import bisect
import itertools
import json
import zlib
from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from memsite.portal import searchdata as sd
from memsite.portal.model import EntryView, Portal

if TYPE_CHECKING:
    from memsite.portal.site import Site

# A file of the last build as it wrote it (None: missing, or not the bytes it wrote).
Read = Callable[[str], bytes | None]
DIGEST = 16  # bytes of a view's digest in Memo.digests


class Memo(NamedTuple):
    """What a build keeps of its search index for the next: every ref's view digest, the
    analysed length of all entries, and each file's checksum and size."""

    digests: bytes
    total: int
    sums: dict[str, tuple[int, int]]


class Patched(NamedTuple):
    files: list[tuple[str, bytes]]  # what to write, meta.json last
    memo: Memo  # the index as it now is (every file's name: memo.sums, and meta.json)


def write_index(site: Site, portal: Portal) -> int:
    """Write the portal's search index into ``site``: patched when the last build's memo
    allows (see the module), else whole, each file as it is made. Returns its size."""
    memo = site.search_memo
    patched = patch(portal, Memo(**memo), site.read_written) if memo else None
    if patched is None:
        keep: dict[str, Any] = {}
        size = 0
        for rel, data in sd.search_file_stream(portal, keep):
            site.put(rel, data)
            size += len(data)
        site.search_memo = keep
        return size
    for rel, data in patched.files:
        site.put(rel, data)
    site.touched.update(patched.memo.sums)
    site.search_memo = patched.memo._asdict()
    return sum(size for _, size in patched.memo.sums.values())


def patch(portal: Portal, memo: Memo, read: Read) -> Patched | None:
    """The index's files that new facts change (None: make it whole, see the module)."""
    entries = sd.search_order(portal)
    known = len(memo.digests) // DIGEST
    digests = sd.digests_of(entries)
    if not known or len(entries) < known or digests[: len(memo.digests)] != memo.digests:
        return None
    meta = _json(read(sd.META_FILE)) if sd.META_FILE in memo.sums else None
    names = sd.names_of(portal)
    if not isinstance(meta, dict) or not _same_names(meta, portal, names):
        return None
    new = entries[known:]
    rows = [sd.analysed(view) for view in new]
    total = memo.total + sum(len(body) + len(terms) for body, terms, _ in rows)
    average = sd.average_length(total, len(entries))
    if average != meta.get("averageLength"):
        return None
    try:
        made = _patched_files(entries, known, rows, average, names, meta, memo.sums, read)
    except (KeyError, TypeError, ValueError, IndexError):  # an old file of another shape
        return None
    if made is None:
        return None
    files, firsts = made
    sums = {n: v for n, v in memo.sums.items() if not _shard_past(n, len(firsts))}
    for name, data in files:
        sums[name] = (zlib.crc32(data), len(data))
    meta = {
        **meta,
        "documents": len(entries),
        "shards": firsts,
        "lengths": sorted({*meta["lengths"], *(len(w) for _, _, ws in rows for w in ws)}),
        "days": sd.day_runs(new, meta["days"]),
    }
    del meta["stamp"]
    body = sd.stamped(meta, {n: v for n, v in sums.items() if n != sd.META_FILE})
    sums[sd.META_FILE] = (zlib.crc32(body), len(body))
    return Patched([*files, (sd.META_FILE, body)], Memo(digests, total, sums))


def _shard_past(name: str, count: int) -> bool:
    """Is ``name`` a term shard numbered ``count`` or more (gone once there are fewer)?"""
    return name.startswith("search/t/") and int(name[9:-5]) >= count


def _same_names(meta: dict[str, Any], portal: Portal, names: sd._Names) -> bool:
    return (
        meta.get("version") == sd.VERSION
        and meta.get("categories") == list(names.categories)
        and meta.get("categoryTitles") == [c.title for c in portal.categories]
        and meta.get("tags") == list(names.tags)
        and meta.get("statuses") == list(names.statuses)
        and meta.get("ranking") == sd.ranking_tables()
        and isinstance(meta.get("stamp"), str)
    )


def _patched_files(
    entries: Sequence[EntryView],
    known: int,
    rows: Sequence[tuple[list[str], list[str], set[str]]],
    average: float,
    names: sd._Names,
    meta: dict[str, Any],
    sums: dict[str, tuple[int, int]],
    read: Read,
) -> tuple[list[tuple[str, bytes]], list[str]] | None:
    """The changed files but meta.json, and every term shard's first term."""
    added: dict[str, list[int]] = defaultdict(list)  # term → [ref, value, ...] of new refs
    for ref, (view, (body, terms, _)) in enumerate(zip(entries[known:], rows, strict=True), known):
        for term, value in sd.posting_values(body, terms, average, names.statuses[view.status]):
            added[term] += (ref, value)
    shards = _shards(meta["shards"], added, read)
    if shards is None:
        return None
    files, firsts = shards

    def old(name: str, empty: list[Any]) -> list[Any]:
        """A file of the last build (``empty`` when it made none; else as it wrote it)."""
        if name not in sums:
            return empty
        found = _json(read(name))
        if not isinstance(found, list):
            raise ValueError(name)
        return found

    files += _words(rows, old)
    files += _ids(entries, known, old)
    files += sd.row_files(entries, names, known // sd.CHUNK)
    files += _filters(entries, known, names, old)
    return files, firsts


def _shards(
    firsts: list[str], added: dict[str, list[int]], read: Read
) -> tuple[list[tuple[str, bytes]], list[str]] | None:
    """The term shards that change (path, bytes) and every shard's first term."""
    touched: dict[int, list[str]] = defaultdict(list)
    for term in sorted(added):
        touched[max(bisect.bisect_right(firsts, term) - 1, 0)].append(term)
    made: list[tuple[str, bytes | int]] = []  # (first term, new bytes or the old shard's number)
    cutter = sd.Cutter()
    synced = True  # the next old shard starts where the last build started it
    for number, first in enumerate(firsts):
        if synced and number not in touched:
            made.append((first, number))
            continue
        old = _json(read(f"search/t/{number}.json"))
        if not isinstance(old, dict):
            return None
        items = _merged(old, touched.get(number, ()), added)
        if not synced and number not in touched and cutter.cuts_before(items[0][0], items[0][2]):
            made.append(cutter.cut())  # the last build cut here too: in step again
            made.append((first, number))
            synced = True
            continue
        for term, frequency, data in items:
            done = cutter.add(term, frequency, data)
            if done is not None:
                made.append(done)
        synced = False
    if cutter.terms:
        made.append(cutter.cut())
    files: list[tuple[str, bytes]] = []
    for number, (_, shard) in enumerate(made):
        if isinstance(shard, int):
            if shard == number:
                continue  # the old file, where it was
            found = read(f"search/t/{shard}.json")
            if found is None:
                return None
            shard = found
        files.append((f"search/t/{number}.json", shard))
    return files, [first for first, _ in made]


def _merged(
    old: dict[str, Any], terms: Sequence[str], added: dict[str, list[int]]
) -> list[tuple[str, int, str]]:
    """An old shard's terms with the new refs' postings (``terms``: those of the new refs
    that fall in it), new terms in their places: (term, document frequency, postings)."""
    found = dict(zip(old["terms"], zip(old["df"], old["postings"], strict=True), strict=True))
    out = []
    for term in sorted(found.keys() | set(terms)):
        frequency, postings = found.get(term, (0, []))
        more = added.get(term)
        if more:  # decoded, the new pairs last (their refs are the greatest), encoded again
            refs = itertools.accumulate(postings[0::2])
            flat = [n for pair in zip(refs, postings[1::2], strict=True) for n in pair]
            out.append((term, frequency + len(more) // 2, sd.encode_postings(flat + more)))
        else:
            out.append((term, frequency, sd._dumps(postings)))
    return out


Old = Callable[[str, list[Any]], list[Any]]


def _words(rows: Sequence[tuple[list[str], list[str], set[str]]], old: Old) -> list[Any]:
    """``v/L.json`` of each length the new refs have words of that were not there."""
    by_length: dict[int, set[str]] = defaultdict(set)
    for _, _, words in rows:
        for word in words:
            by_length[len(word)].add(word)
    files = []
    for length, words in by_length.items():
        name = f"search/v/{length}.json"
        known = old(name, [])
        if not words <= set(known):
            files.append((name, sd._dump(sorted(words.union(known)))))
    return files


def _ids(entries: Sequence[EntryView], known: int, old: Old) -> list[tuple[str, bytes]]:
    """``i/XY.json`` of the new refs' ids, newest first."""
    rows: dict[str, list[list[Any]]] = defaultdict(list)
    for ref in range(len(entries) - 1, known - 1, -1):
        entry_id = entries[ref].id
        rows[entry_id[: sd.ID_CHARS].lower()].append([entry_id, ref])
    files = []
    for prefix, more in rows.items():
        if sd._safe_name(prefix):
            name = f"search/i/{prefix}.json"
            files.append((name, sd._dump(more + old(name, []))))
    return files


def _filters(
    entries: Sequence[EntryView], known: int, names: sd._Names, old: Old
) -> list[tuple[str, bytes]]:
    """``f/KIND-N.json`` of the new refs' categories, statuses and tags."""
    groups: dict[str, list[int]] = defaultdict(list)
    for ref in range(known, len(entries)):
        entry = entries[ref]
        groups[f"c-{names.categories[entry.category]}"].append(ref)
        groups[f"s-{names.statuses[entry.status]}"].append(ref)
        for tag in entry.tags:
            groups[f"g-{names.tags[tag.name]}"].append(ref)
    files = []
    for group, refs in groups.items():
        name = f"search/f/{group}.json"
        deltas = old(name, [])
        last = sum(deltas)
        for ref in refs:
            deltas.append(ref - last)
            last = ref
        files.append((name, sd._dump(deltas)))
    return files


def _json(data: bytes | None) -> Any:
    if data is None:
        return None
    try:
        return json.loads(data)
    except ValueError:
        return None
