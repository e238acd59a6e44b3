"""The Markdown export's folder: one file per fact and a manifest of what the export wrote.

A later export into the same folder removes only the files the manifest lists that are
unchanged since; it never touches any other file, and refuses a name it needs that holds
something else.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from memsite.core import transfer as formats
from memsite.errors import InvalidInputError, StorageError
from memsite.files import (
    file_kind,
    read_bounded,
    read_text,
    replace_if_changed,
    storage_errors,
    unlink,
)

LEGACY_MARKER = ".memsite-export"  # what exports before the manifest left in their folder
BUNDLE_FILE_MAX = 1 << 20  # a bundle's file is one fact: a larger one is not the export's


def write_bundle(folder: Path, files: dict[str, bytes]) -> None:
    """Write the bundle's files and its manifest into ``folder``. Of the files the manifest
    lists (an earlier export's), those unchanged since and gone from this export are removed;
    no other file is touched: a name this export needs that holds anything else is refused."""
    kind = file_kind(folder)
    if kind not in ("missing", "a folder"):
        raise InvalidInputError(f"{folder} is {kind}: give a folder for the Markdown bundle")
    with storage_errors("read", folder):
        present = {item.name for item in os.scandir(folder)} if kind == "a folder" else set()
    if present and not present & {formats.MANIFEST, LEGACY_MARKER}:
        raise InvalidInputError(
            f"{folder} is not empty and is no memsite export: give an empty or new folder"
        )
    ours = _manifest(folder) if formats.MANIFEST in present else {}
    digests = {name: formats.digest(data) for name, data in files.items()}
    held = {name: _digest_of(folder / name) for name in present & (set(files) | set(ours))}
    blocked = [
        name
        for name in sorted(present & set(files))
        if held[name] != digests[name] and (held[name] is None or held[name] != ours.get(name))
    ]
    if blocked:
        more = f" (and {len(blocked) - 1} more)" if len(blocked) > 1 else ""
        raise InvalidInputError(
            f"{folder}: {blocked[0]}{more} was not written by memsite export, or was changed "
            "since: move it away, or export to another folder"
        )
    with storage_errors("write", folder):
        folder.mkdir(parents=True, exist_ok=True)
        for name, data in sorted(files.items()):
            replace_if_changed(folder / name, data)
        for name, digest in sorted(ours.items()):
            if name not in files and held.get(name) == digest:
                unlink(folder / name)
        replace_if_changed(folder / formats.MANIFEST, formats.manifest_text(digests).encode())


def _manifest(folder: Path) -> dict[str, str]:
    """name → SHA-256 of what an earlier export wrote ({} when the manifest is unreadable)."""
    try:
        text = read_text(folder / formats.MANIFEST, BUNDLE_FILE_MAX)
    except StorageError:
        return {}
    return formats.manifest_files(text) if text else {}


def _digest_of(path: Path) -> str | None:
    """The SHA-256 of a regular file (never a link, a FIFO or a device), or None."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return None
        return formats.digest(read_bounded(path, BUNDLE_FILE_MAX))
    except (OSError, OverflowError):
        return None
