"""Entry files made ready for the index (``storage.readmodel``): read, parsed and analysed, half of
a big batch in a forked second process.

The first command on a fresh clone passes every entry file through here, so this is the read
model's one hot loop. Each file is opened once (its ``fstat`` replaces an ``lstat``: a link or
a special file is turned away by ``O_NOFOLLOW``/``O_NONBLOCK`` and then reported as before),
its text is tokenized once, and nothing is computed that only later commands need: the bullets
of the views are rendered when a view or index.md is first made from them (``render``).
"""

from __future__ import annotations

import contextlib
import itertools
import marshal
import os
import zlib
from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, NamedTuple

from memsite.core.entry import Entry
from memsite.core.records import Record
from memsite.core.schema import CONFIDENCE_RANK
from memsite.core.text import has_surrogate
from memsite.storage.entries import entry_from_row, entry_row, load, parse_item, unusable

PARALLEL = 2000  # items above which a second process takes part of them
# The worker's share: the parent also stores its own share meanwhile, then the worker's.
_WORKER_SHARE = 0.5
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_WILLNEED: int = getattr(os, "POSIX_FADV_WILLNEED", 0)  # 0: not offered here
_NOWAIT: int = getattr(os, "RWF_NOWAIT", 0)
_CONFIDENCES = {rank: name for name, rank in CONFIDENCE_RANK.items()}
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def digest(data: bytes) -> int:
    """64 bits from two CRC-32s (forwards and backwards), signed like SQLite's integers. Not
    a defence against forgery: equal content digests are confirmed by comparing the texts, and
    file digests only spot in-place edits, which the spec forbids anyway. (hashlib would cost
    ~3 ms of OpenSSL start-up in every command.)"""
    value = (zlib.crc32(data) << 32) | zlib.crc32(data[::-1])
    return value - (1 << 64) if value >= 1 << 63 else value


def content_digest(normalized: str) -> int:
    return digest(normalized.encode("utf-8", "surrogatepass"))


def name_key(name: str) -> str:
    """A file name as the index stores it: itself, or (not valid UTF-8) a marked hex form."""
    return "\0" + os.fsencode(name).hex() if has_surrogate(name) else name


class RecordRow(NamedTuple):
    """A record as the index holds it (see ``core.records``); ``record()`` rebuilds it."""

    file: str
    id: str
    kind: str
    target: str
    other: str | None
    created: float
    data: bytes

    def record(self) -> Record:
        from memsite.core.records import record_from_object

        return record_from_object(marshal.loads(self.data), self.file)


class Prepared(NamedTuple):
    """An entry file made ready for the index."""

    columns: tuple[Any, ...]  # file, id, category, created, confidence, key, digest, words,
    # length, data, anchors (how many), opens, closes (the validity window's timestamps)
    supersedes: tuple[str, ...]
    body: str
    meta: str
    when: tuple[int, int]  # created: seconds since the epoch, microseconds
    normalized: str
    anchors: tuple[tuple[str, str, int | None, int | None, str | None], ...] = ()

    def entry(self) -> Entry:
        """The entry as far as compaction looks at it (no content, raw object or tags)."""
        file, entry_id, category, _, confidence, key = self.columns[:6]
        return Entry(
            id=entry_id,
            category=category,
            content="",
            created=_EPOCH + timedelta(seconds=self.when[0], microseconds=self.when[1]),
            confidence=_CONFIDENCES[confidence],
            supersedes=self.supersedes,
            key=key,
            filename=file,
            normalized=self.normalized,
        )


Read = tuple[tuple[Any, ...], Prepared | RecordRow | None]  # a record: the row it becomes


class Batch(NamedTuple):
    """Files read: each one's files-table record and what it became, and the words met (see
    ``long_words``)."""

    read: list[Read]
    words: set[str]
    last: bool = True  # no part follows


def prepare_parts(folder: Path, limit: int, names: Sequence[str]) -> Iterator[Batch]:
    """Every named file read and prepared, in name order, in one part or (a big batch) two:
    this process's share comes while a forked worker still reads the rest, so that the
    caller can store it meanwhile."""
    if len(names) < PARALLEL:
        yield prepare_many(folder, limit, names)
        return
    from memsite.parallel import Background, Task, can_fork

    if not can_fork():
        yield prepare_many(folder, limit, names)
        return
    mine = len(names) - int(len(names) * _WORKER_SHARE)
    ahead = None
    if _WILLNEED and not _cached(folder, names):
        ahead = Background(_warm, folder, names[:mine], names[mine:])
    try:
        other = Task(_prepare_packed, folder, limit, names[mine:])
        yield prepare_many(folder, limit, names[:mine])._replace(last=False)
        read, words = marshal.loads(other.result())
    finally:
        if ahead is not None:
            ahead.stop()
    yield Batch([(record, _revive(item)) for record, item in read], words)


def statuses(found: Sequence[Prepared], retired: set[str]) -> list[str | None]:
    """The status of each of these entries (all there are), as compaction decides it from the
    few fields it reads; None for a file repeating an id that another file holds."""
    from memsite.core.compaction import compact

    result = compact([item.entry() for item in found], (), retired, report=False)
    decided: list[str | None] = []
    for item in found:
        file, entry_id = item.columns[:2]
        winner = result.by_id.get(entry_id)
        decided.append(result.status[entry_id] if winner and winner.filename == file else None)
    return decided


def _cached(folder: Path, names: Sequence[str], samples: int = 16) -> bool:
    """Are the files in the page cache already (as on a fresh clone, just written)? A few,
    spread over the list, are read without waiting for the disk: RWF_NOWAIT fails at once
    for a page the disk would have to supply. Warming them all again would cost the two
    readers ~1 s of a core at 100k files."""
    if not _NOWAIT:
        return False
    probe = bytearray(1)
    for name in names[:: max(1, len(names) // samples)]:
        try:
            fd = os.open(folder / name, _OPEN_FLAGS | _NOFOLLOW)
        except OSError:
            continue  # reported when it is read
        try:
            os.preadv(fd, [probe], 0, _NOWAIT)
        except OSError:  # EAGAIN: on disk only (or the probe is not supported here)
            return False
        finally:
            os.close(fd)
    return True


def _warm(folder: Path, *shares: Sequence[str]) -> None:
    """Ask the kernel to read the files ahead, in the order the two readers take them: it
    reads many at once where a reader waits for one at a time (a fresh clone's files may be
    out of the page cache; ~4 µs a file when they are in)."""
    for names in itertools.zip_longest(*shares):
        for name in names:
            if name is None:
                continue
            with contextlib.suppress(OSError):
                fd = os.open(folder / name, _OPEN_FLAGS | _NOFOLLOW)
                try:
                    os.posix_fadvise(fd, 0, 0, _WILLNEED)
                finally:
                    os.close(fd)


def _revive(item: tuple[Any, ...] | None) -> Prepared | RecordRow | None:
    """A prepared item back from a worker's marshal bytes (a record's first field is a name)."""
    if item is None:
        return None
    return RecordRow._make(item) if isinstance(item[0], str) else Prepared._make(item)


def prepare_many(folder: Path, limit: int, names: Sequence[str]) -> Batch:
    """Every named file read and prepared, in one process (a big batch comes here from
    ``ingest``, which has the cyclic collector off, in the forked worker too)."""
    words: set[str] = set()
    prefix = os.path.join(folder, "")  # a path joined as text: a ``Path`` costs ~5 µs a file
    return Batch([_prepare(prefix + name, name, limit, words) for name in names], words)


def _prepare_packed(folder: Path, limit: int, names: Sequence[str]) -> bytes:
    """``prepare_many`` as marshal bytes: the way back from a worker costs a tenth of pickle."""
    batch = prepare_many(folder, limit, names)
    read = [(record, None if item is None else tuple(item)) for record, item in batch.read]
    return marshal.dumps((read, batch.words))


def read_entry_file(
    path: str | Path, limit: int
) -> tuple[os.stat_result | None, bytes | None, str | None]:
    """(status, bytes, None) of a readable entry file; (status or None when it is gone, None,
    why not) otherwise. One ``open`` and one ``fstat`` for a regular file."""
    try:
        fd = os.open(path, _OPEN_FLAGS | _NOFOLLOW) if _NOFOLLOW else -1
    except OSError:
        fd = -1  # a link, a socket, unreadable or gone: found out and reported below
    if fd < 0:
        try:
            info = os.lstat(path)
        except OSError:
            return None, None, None  # gone again
        problem = unusable(info, limit)
        if problem is not None:
            return info, None, problem
        data, problem = load(path, limit)
        return info, data, problem
    try:
        info = os.fstat(fd)
        problem = unusable(info, limit)  # a FIFO opens at once (non-blocking) and stops here
        if problem is not None:
            return info, None, problem
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, limit + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        return info, None, f"cannot be read ({exc.strerror})"
    finally:
        os.close(fd)
    if size > limit:  # it grew meanwhile
        return info, None, f"is {size} bytes, over the {limit} byte limit of an entry file"
    return info, chunks[0] if len(chunks) == 1 else b"".join(chunks), None


def _prepare(path: str, name: str, limit: int, words: set[str]) -> Read:
    """One entry file: its files-table record, and the prepared entry when it is valid."""
    info, data, problem = read_entry_file(path, limit)
    if info is None:
        return (), None
    found: Entry | Record | None = None
    file_digest = None
    if data is not None:
        file_digest = digest(data)
        found, problem = parse_item(data, name, limit)
    record = (name_key(name), info.st_ino, info.st_size, info.st_mtime_ns, file_digest, problem)
    if found is None:
        return record, None
    if isinstance(found, Record):
        return record, RecordRow(
            name,
            found.id,
            found.kind,
            found.target,
            found.other,
            found.created.timestamp(),
            marshal.dumps(dict(found.raw)),
        )
    return record, _prepared(found, words)


def _prepared(entry: Entry, words: set[str]) -> Prepared:
    from memsite.core.stem import entry_terms

    row = entry_row(entry)
    names = (*entry.tags, *([entry.key] if entry.key else []))
    body, meta, met, distinct = entry_terms(entry.normalized, names)
    words.update(met)  # the short ones are left out once, at the end (``long_words``)
    columns = (
        entry.filename,
        entry.id,
        entry.category,
        entry.created.timestamp(),
        CONFIDENCE_RANK[entry.confidence],
        entry.key,
        content_digest(entry.normalized),
        distinct,
        len(body) + len(meta),
        marshal.dumps(row),
        len(entry.anchors),
        *(None if bound is None else bound.timestamp() for bound in entry.window),
    )
    anchors = tuple((a.path, a.blob, *(a.lines or (None, None)), a.span) for a in entry.anchors)
    return Prepared(
        columns,
        tuple(dict.fromkeys(entry.supersedes)),
        " ".join(body),
        " ".join(meta),
        (row[2], row[3]),
        entry.normalized,
        anchors,
    )


def render(rows: Sequence[tuple[str, bytes]]) -> list[tuple[str, str, int]]:
    """(view bullet, index bullet, index cost) of each (file, data) row of the entries table;
    big batches split with a forked second process."""
    from memsite.parallel import in_halves

    return in_halves(_render_many, rows, PARALLEL)


def _render_many(rows: Sequence[tuple[str, bytes]]) -> list[tuple[str, str, int]]:
    from memsite.core.budget import index_item
    from memsite.core.markdown import compacted_bullet

    shown = []
    for file, data in rows:
        entry = entry_from_row(marshal.loads(data), file)
        item = index_item(entry)
        shown.append((compacted_bullet(entry), item.bullet, item.cost))
    return shown


def count_lines(lines: Sequence[str]) -> list[tuple[int, int]] | None:
    """The (cl100k, o200k) tokens of each line (see ``core.tokens``); None without
    bpe-openai. Big batches split with a forked second process, which inherits the loaded
    tokenizers (~15 µs a line for both: ~1.2 s at 80k lines on one core)."""
    from memsite.core.tokens import load
    from memsite.parallel import in_halves

    if not load():
        return None
    return in_halves(_counted, lines, PARALLEL)


def _counted(lines: Sequence[str]) -> list[tuple[int, int]]:
    from memsite.core.tokens import count

    return count(lines) or []  # loaded already: never None


def long_words(words: Iterable[str]) -> list[str]:
    """The words the index keeps for spelling suggestions: MIN_WORD+ characters, sorted."""
    from memsite.core.stem import MIN_WORD

    return sorted(w for w in words if len(w) >= MIN_WORD)
