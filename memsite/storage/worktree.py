"""The project's files as anchors see them: each file hashed at most once per run, and its
blob id kept across runs in ``cache/anchors.marshal`` by file stat, so checking 2,000 anchors
costs a stat each while nothing changed. Renames are followed with git.

Anchor paths come from entry files (untrusted): a path is opened only when its real path,
symlinks resolved, stays inside the project.
"""

from __future__ import annotations

import contextlib
import marshal
import os
from pathlib import Path
from stat import S_ISREG

from memsite.core.anchors import blob_id
from memsite.errors import StorageError
from memsite.files import read_bounded, write_atomic

READ_MAX = 16 << 20  # a file larger than this is hashed but never searched for a span
_CACHE_FORMAT = 1


class WorkTree:
    """The files of one project, read for anchors (``save()`` keeps what was hashed)."""

    def __init__(self, root: Path, cache_path: Path | None) -> None:
        self.root = root
        self._real_root = os.path.realpath(root)
        self._cache_path = cache_path
        self._known = self._load()
        self._changed = False
        self._blobs: dict[str, str | None] = {}
        self._by_name: dict[str, list[str]] | None = None

    def _load(self) -> dict[str, tuple[int, int, int, int, str]]:
        if self._cache_path is None:
            return {}
        try:
            with open(self._cache_path, "rb") as handle:
                data = marshal.load(handle)
        except (OSError, EOFError, ValueError, TypeError):
            return {}
        if not isinstance(data, dict) or data.get("format") != _CACHE_FORMAT:
            return {}
        files = data.get("files")
        return files if isinstance(files, dict) else {}

    def save(self) -> None:
        """Keep the blob ids hashed in this run (the cache is derived: failures are ignored)."""
        if self._cache_path is None or not self._changed:
            return
        data = marshal.dumps({"format": _CACHE_FORMAT, "files": self._known})
        with contextlib.suppress(OSError, StorageError):
            write_atomic(self._cache_path, data, tmp_dir=self._cache_path.parent / "tmp")
        self._changed = False

    def _inside(self, path: str) -> str | None:
        """The file's real path when it stays inside the project, else None."""
        real = os.path.realpath(os.path.join(self.root, path))
        if real == self._real_root or not real.startswith(self._real_root + os.sep):
            return None
        return real

    def blob(self, path: str) -> str | None:
        """The git blob id of the project file ``path`` (None: no such file inside it)."""
        if path in self._blobs:
            return self._blobs[path]
        found = self._blob(path)
        self._blobs[path] = found
        return found

    def _blob(self, path: str) -> str | None:
        real = self._inside(path)
        if real is None:
            return None
        try:
            info = os.stat(real)
        except OSError:
            return None
        if not S_ISREG(info.st_mode):
            return None
        stamp = (info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
        known = self._known.get(path)
        if known is not None and tuple(known[:4]) == stamp:
            return known[4]
        data = self.read(path)
        if data is None:
            return None
        blob = blob_id(data)
        self._known[path] = (*stamp, blob)
        self._changed = True
        return blob

    def read(self, path: str) -> bytes | None:
        """The file's bytes (None: missing, outside the project, not a file, or too large)."""
        real = self._inside(path)
        if real is None:
            return None
        try:  # a regular file only: a FIFO anchor opened for reading would never answer
            return read_bounded(real, READ_MAX)
        except (OSError, OverflowError):
            return None

    def renamed(self, paths: list[str]) -> dict[str, str]:
        """Where git says each of ``paths`` (missing now) went: uncommitted renames first, then
        renames in recent history (followed along a chain); {} outside a git repository."""
        from memsite.storage.git import renames, show_prefix

        prefix = show_prefix(self.root)
        moves = renames(self.root, [prefix + p for p in paths])
        found = {}
        for path in paths:
            current = prefix + path
            seen = {current}
            while current in moves and moves[current] not in seen:
                current = moves[current]
                seen.add(current)
            if current != prefix + path and current.startswith(prefix):
                found[path] = current[len(prefix) :]
        return found

    def same_name_files(self, path: str) -> list[str]:
        """Files named like ``path`` elsewhere in the project (a rename git has not seen)."""
        if self._by_name is None:
            self._by_name = self._names()
        return self._by_name.get(os.path.basename(path), [])

    def _names(self, limit: int = 2000) -> dict[str, list[str]]:
        """File name → the project's files of that name, from one walk per run (hidden
        folders and node_modules skipped; at most ``limit`` folders visited)."""
        found: dict[str, list[str]] = {}
        for visited, (folder, dirs, files) in enumerate(os.walk(self.root)):
            if visited >= limit:
                break
            dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "node_modules")
            relative = os.path.relpath(folder, self.root)
            for name in sorted(files):
                path = name if relative == os.curdir else os.path.join(relative, name)
                found.setdefault(name, []).append(path.replace(os.sep, "/"))
        return {name: sorted(paths) for name, paths in found.items()}
