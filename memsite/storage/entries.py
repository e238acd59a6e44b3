"""Entry files: creating one atomically, deleting one, reading them (every file, or one).

Entry files are only ever created (atomically, with ``os.link``) or deleted on request; nothing
here rewrites one. Reading is safe for any folder content: a file is ``lstat``-ed first, links
and other non-files are reported, a file over the size limit is reported without being read,
and a file that cannot be parsed is reported with the reason. Nothing is written while entries/
or cache/tmp/ is a symbolic link (``Store.writable``). Commands read through the index
(``storage.readmodel``); ``scan`` reads every file afresh.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from stat import S_ISLNK, S_ISREG
from typing import TYPE_CHECKING, Any, NamedTuple

from memsite.core.entry import Entry, entry_from_object, filename_for, load_object, parse_created
from memsite.core.records import Record, is_record, record_from_object
from memsite.core.schema import REPEATED_VALUES, SCHEMA_KEYS
from memsite.core.text import has_surrogate
from memsite.core.validate import serialize
from memsite.errors import InvalidEntryFileError, StorageError
from memsite.files import link_new, read_bounded, unlink
from memsite.storage import ledger
from memsite.storage.layout import Store

if TYPE_CHECKING:
    from memsite.storage.readmodel import Index

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows has no flock; writes are then unlocked
    fcntl = None  # type: ignore[assignment]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_SECOND = timedelta(seconds=1)


class InvalidFile(NamedTuple):
    filename: str
    message: str


class Scan(NamedTuple):
    """Everything read from entries/: valid entries and unusable files."""

    entries: list[Entry]
    invalid: list[InvalidFile]
    records: list[Record]


# --- writing ------------------------------------------------------------------------------------


def random_id() -> str:
    """A random (version 4) UUID, as ``str(uuid.uuid4())`` spells it: 122 random bits from
    ``os.urandom``, the version nibble 4 and the RFC 4122 variant bits. Made here because
    importing uuid (which imports platform) costs ~3 ms of every `add`."""
    raw = bytearray(os.urandom(16))
    raw[6] = (raw[6] & 0x0F) | 0x40
    raw[8] = (raw[8] & 0x3F) | 0x80
    text = raw.hex()
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"


def write_entry(
    store: Store, obj: dict[str, Any], new_id: Callable[[], str] = random_id
) -> tuple[Path, dict[str, Any]]:
    """Write one entry (or record) under a name no other writer can take (a clash draws a new
    id)."""
    store.writable(store.entries_dir)
    store.writable(store.tmp_dir)  # the temporary the file is linked from
    created = parse_created(obj["created"])
    tried: list[dict[str, Any]] = [obj]

    def candidate(attempt: int) -> tuple[Path, bytes]:
        if attempt >= len(tried):
            tried.append({**obj, "id": new_id()})
        chosen = tried[attempt]
        return store.entries_dir / filename_for(created, chosen["id"]), serialize(chosen)

    path, attempt = link_new(candidate, store.tmp_dir)
    return path, tried[attempt]


def write_indexed(
    store: Store,
    index: Index,
    decide: Callable[[], dict[str, Any] | None],
    new_id: Callable[[], str] = random_id,
) -> tuple[Path, dict[str, Any]] | None:
    """The one way an entry or record file is written: under the store's write lock, ``decide``
    looks at an index that holds what every other writer linked before the lock, and gives the
    object to write (None: nothing); the file is linked and taken into the index at once.

    The index stays trusted across the write when it was trusted just before the link: under
    the lock nothing but this writer changes the folder."""
    with write_lock(store):
        index.forget()
        obj = decide()
        if obj is None:
            return None
        before = index.before_write()
        path, obj = write_entry(store, obj, new_id)
        index.wrote(path, before)
        ledger.note(store, path)
    return path, obj


def delete_entry_file(store: Store, filename: str) -> Path:
    store.writable(store.entries_dir)
    path = store.entry_path(filename)
    unlink(path)
    return path


@contextlib.contextmanager
def write_lock(store: Store) -> Iterator[None]:
    """Serialize writers of one store (a lock on the entries/ folder itself, which cannot be
    deleted while in use the way a lock file could), so "same fact twice → one file" holds
    for racing writers too. Readers never take it."""
    if fcntl is None:
        yield
        return
    try:
        fd = os.open(store.entries_dir, os.O_RDONLY)
    except OSError as exc:
        raise StorageError(f"cannot open {store.entries_dir}: {exc.strerror}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


# --- reading ------------------------------------------------------------------------------------


def listing(store: Store) -> list[tuple[str, str, os.stat_result]]:
    """Candidate entry files (``*.json``, not hidden) with their lstat, in name order."""
    try:
        items = list(os.scandir(store.entries_dir))
    except OSError as exc:
        raise StorageError(f"cannot read {store.entries_dir}: {exc.strerror}") from None
    found = []
    for item in items:
        name = item.name
        if name[-5:] != ".json" or name[0] == ".":
            continue
        with contextlib.suppress(OSError):  # removed meanwhile
            found.append((name, item.path, item.stat(follow_symlinks=False)))
    found.sort()
    return found


def entry_inodes(store: Store) -> list[tuple[str, str, int]]:
    """(name, path, inode) of the candidate entry files as the folder's listing gives them,
    without a ``stat`` each (``listing``'s costs 120 ms at 10k); folders are left out."""
    try:
        with os.scandir(store.entries_dir) as items:
            return [
                (item.name, item.path, item.inode())
                for item in items
                if item.name[-5:] == ".json"
                and item.name[0] != "."
                and not item.is_dir(follow_symlinks=False)
            ]
    except OSError as exc:
        raise StorageError(f"cannot read {store.entries_dir}: {exc.strerror}") from None


def _shared(value: Any) -> Any:
    return sys.intern(value) if type(value) is str else value


def entry_row(entry: Entry) -> tuple[Any, ...]:
    """An entry as plain values (what the index stores, marshalled), ``entry_from_row``'s input.
    Whether it may hold a secret is kept when known, else left for the first reader that shows
    the entry to ask (``Entry.is_suspect``): a first build would spend ~15 µs an entry on a
    test that most entries never need (only shown ones do).

    The schema's keys and the values that repeat across entries are interned, and the id is
    the raw object's own: marshal keeps both marks, so loading gives every entry the same key,
    category, agent and tag strings and one id string (about 1 KB less an entry in memory, so
    about 100 MB at 100k; an unknown key, which any file may make up, is left alone)."""
    raw: dict[str, Any] = {}
    for name, value in entry.raw.items():
        if name in SCHEMA_KEYS:
            name = sys.intern(name)
            if name in REPEATED_VALUES:
                value = _shared(value)
            elif name == "tags" and type(value) is list:
                value = [_shared(tag) for tag in value]
        raw[name] = value
    ident = raw.get("id")
    return (
        ident if type(ident) is str and ident == entry.id else entry.id,
        _shared(entry.category),
        (entry.created - _EPOCH) // _SECOND,
        entry.created.microsecond,
        _shared(entry.confidence),
        tuple(map(_shared, entry.tags)),
        entry.supersedes,
        _shared(entry.agent),
        _shared(entry.key),
        entry.reason,
        raw,
        entry.normalized,
        entry.suspect,
    )


def entry_from_row(row: tuple[Any, ...], filename: str) -> Entry:
    created = _EPOCH + timedelta(seconds=row[2], microseconds=row[3])
    return Entry(
        id=row[0],
        category=row[1],
        content=row[10]["content"],
        created=created,
        confidence=row[4],
        tags=row[5],
        supersedes=row[6],
        agent=row[7],
        key=row[8],
        reason=row[9],
        filename=filename,
        raw=row[10],
        normalized=row[11],
        # Only a "yes" is taken from the index: a "no" is asked again of the prefilter when
        # the entry is shown, as for an entry read from its file (the cache is derived state,
        # and what is shown is redacted on what the entry holds, never on what a cache says).
        suspect=True if row[12] else None,
    )


def parse_file(data: bytes, name: str, limit: int) -> tuple[Any, str | None]:
    """(entry_row, None) for a valid entry file's bytes; (Record, None) for a valid record
    file (see ``core.records``); else (None, why it is unusable)."""
    found, problem = parse_item(data, name, limit)
    return (entry_row(found), None) if isinstance(found, Entry) else (found, problem)


def parse_item(data: bytes, name: str, limit: int) -> tuple[Entry | Record | None, str | None]:
    """(Entry or Record, None) for a valid entry or record file's bytes, else (None, why)."""
    if len(data) > limit:
        return None, f"is {len(data)} bytes, over the {limit} byte limit of an entry file"
    if has_surrogate(name):  # os.fsdecode's stand-ins for bytes that are not UTF-8
        return None, "has a file name that is not valid UTF-8 (rename it)"
    try:
        obj = load_object(data)
        if is_record(obj):
            return record_from_object(obj, name), None
        return entry_from_object(obj, name), None
    except InvalidEntryFileError as exc:
        return None, str(exc)


def load(path: str | Path, limit: int) -> tuple[bytes | None, str | None]:
    """An entry file's bytes, or None and why they cannot be read (never more than ``limit``)."""
    try:
        return read_bounded(path, limit), None
    except OverflowError as exc:
        return None, f"is {exc.args[0]} bytes, over the {limit} byte limit of an entry file"
    except OSError as exc:
        return None, f"cannot be read ({exc.strerror})"


def read_file(path: str | Path, name: str, limit: int) -> tuple[Any, str | None]:
    data, problem = load(path, limit)
    return (None, problem) if data is None else parse_file(data, name, limit)


def unusable(info: os.stat_result, limit: int) -> str | None:
    """Why a directory item cannot be an entry file (before reading it), or None."""
    if S_ISLNK(info.st_mode):
        return "is a symbolic link (entries must be files)"
    if not S_ISREG(info.st_mode):
        return "is not a regular file"
    if info.st_size > limit:
        return f"is {info.st_size} bytes, over the {limit} byte limit of an entry file"
    return None


def scan(store: Store) -> Scan:
    """Read every entries/*.json, with no cache at all; unusable files are reported."""
    found = Scan([], [], [])
    limit = store.max_entry_bytes
    for name, path, info in listing(store):
        problem = unusable(info, limit)
        row: Any = None
        if problem is None:
            row, problem = read_file(path, name, limit)
        if isinstance(row, Record):
            found.records.append(row)
        elif problem is not None or row is None:
            found.invalid.append(InvalidFile(name, problem or "cannot be read"))
        else:
            found.entries.append(entry_from_row(row, name))
    return found
