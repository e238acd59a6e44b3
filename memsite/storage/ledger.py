"""The ledger of the entry and record files memsite wrote in this clone (``cache/written.log``),
for the trust gate: such a file is *local* (delivered to agents) until the reviewed ref holds
it. Derived and never committed, like the rest of cache/.

One line per file written, ``<name> <crc32 of its bytes>``, appended under the store's write
lock (so an add costs one short append, whatever the ledger's length). The first line names
the clone (``Store.home``): a ledger copied from elsewhere, committed or crafted names another
and is ignored, as is a line whose file no longer holds the bytes memsite wrote.
"""

from __future__ import annotations

import contextlib
import os
import zlib
from pathlib import Path

from memsite.errors import StorageError
from memsite.storage.layout import Store

_LIMIT = 64 << 20  # a ledger is a few bytes a write; more than this is not memsite's


def _header(store: Store) -> str:
    return f"memsite-ledger 1 {store.home()}\n"


def note(store: Store, path: Path) -> None:
    """Remember that memsite wrote ``path`` (an entry or record file just linked)."""
    try:
        data = path.read_bytes()
        store.writable(store.cache_dir, children=True)
        ledger = store.written_ledger
        fresh = not ledger.is_file() or _first_line(ledger) != _header(store)
        flags = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | (os.O_TRUNC if fresh else os.O_APPEND)
        fd = os.open(ledger, flags, 0o644)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            if fresh:
                handle.write(_header(store))
            handle.write(f"{path.name} {zlib.crc32(data):08x}\n")
    except (OSError, ValueError, StorageError):
        return  # a cache (cache/ may be a link): without it the fact waits for its push


def _first_line(path: Path) -> str:
    with open(path, encoding="utf-8", errors="replace") as handle:
        return handle.readline(200)


def written(store: Store) -> dict[str, str]:
    """File name → the crc32 (hex) of the bytes memsite wrote there, for this clone."""
    ledger = store.written_ledger
    if store.why_unsafe(ledger) is not None:
        return {}
    found: dict[str, str] = {}
    with contextlib.suppress(OSError, UnicodeDecodeError), open(ledger, encoding="utf-8") as file:
        if file.readline(200) != _header(store):
            return {}
        for line in file.read(_LIMIT).splitlines():
            name, _, crc = line.partition(" ")
            if name and len(crc) == 8:
                found[name] = crc
    return found


def unchanged(store: Store, name: str, crc: str) -> bool:
    """Does entries/``name`` still hold the bytes memsite wrote?"""
    try:
        path = store.entry_path(name)
        with open(path, "rb") as handle:
            data = handle.read(store.max_entry_bytes + 1)
    except (OSError, StorageError):
        return False
    return f"{zlib.crc32(data):08x}" == crc
