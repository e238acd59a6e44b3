"""The .memsite folder on disk: locating it, init, atomic entry writes, reading, daily logs.

This is the IO edge of memsite. Entry files are only ever created (atomically, with ``os.link``) or
deleted on request; nothing here rewrites one. A parse cache under ``cache/`` keeps reads of large
stores fast and is always safe to delete.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import re
import secrets
import time
import uuid
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from stat import S_ISLNK, S_ISREG
from typing import Any

from memsite import __version__
from memsite.config import Config, default_config_text, load_config
from memsite.entry import Entry, filename_for, parse_created, parse_entry, serialize
from memsite.errors import InvalidEntryFileError, MemsiteError, StoreNotFoundError

STORE_DIRNAME = ".memsite"
GITIGNORE = """\
# Written by `memsite init`. The memory is entries/ and config.json; the rest is derived.
compacted/
index.md
cache/
site/
daily/
"""
DAILY_RE = re.compile(r"(\d{4}-\d{2}-\d{2})-([a-z0-9][a-z0-9._-]{0,63})\.md")
TEMP_MAX_AGE = 3600.0
_CACHE_VERSION = 5


@dataclass(frozen=True)
class InvalidFile:
    filename: str
    message: str


@dataclass
class Scan:
    """Everything read from entries/: valid entries, unusable files, and a fingerprint."""

    entries: list[Entry]
    invalid: list[InvalidFile]
    fingerprint: str


def _entry_to_cache(entry: Entry) -> tuple[Any, ...]:
    return (
        entry.id,
        entry.category,
        None,  # the content is raw["content"]: stored once
        entry.created.timestamp(),
        entry.created.microsecond,
        entry.confidence,
        entry.tags,
        entry.supersedes,
        entry.agent,
        entry.key,
        entry.reason,
        dict(entry.raw),
        entry.normalized,
        entry.is_suspect(),
    )


def _entry_from_cache(row: tuple[Any, ...], filename: str) -> Entry:
    seconds = int(row[3])
    created = datetime.fromtimestamp(seconds, UTC).replace(microsecond=row[4])
    return Entry(
        id=row[0],
        category=row[1],
        content=row[11]["content"],
        created=created,
        confidence=row[5],
        tags=row[6],
        supersedes=row[7],
        agent=row[8],
        key=row[9],
        reason=row[10],
        filename=filename,
        raw=row[11],
        normalized=row[12],
        suspect=row[13],
    )


class Store:
    """A memory store: the folder that holds ``entries/``."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.entries_dir = root / "entries"
        self.compacted_dir = root / "compacted"
        self.index_path = root / "index.md"
        self.daily_dir = root / "daily"
        self.cache_dir = root / "cache"
        self.site_dir = root / "site"
        self.config_path = root / "config.json"
        # A LeanSpec store keeps its settings in the `memory` object of .lean-spec/config.json.
        self.foreign_config = (
            root.name == "memory"
            and root.parent.name == ".lean-spec"
            and not self.config_path.exists()
        )

    # --- locating ---------------------------------------------------------------------------

    @classmethod
    def locate(cls, explicit: str | None, env: Mapping[str, str], cwd: Path) -> Store:
        """Find the store: --store, else $MEMSITE_STORE, else the nearest .memsite/ upwards."""
        for source, value in (("--store", explicit), ("MEMSITE_STORE", env.get("MEMSITE_STORE"))):
            if value:
                path = (cwd / value).resolve()
                for candidate in (path, path / STORE_DIRNAME):
                    if (candidate / "entries").is_dir():
                        return cls(candidate)
                raise StoreNotFoundError(
                    f"no memory store at {path} (from {source}): "
                    f"run `memsite --store {value} init` to create one"
                )
        for folder in (cwd, *cwd.parents):
            candidate = folder / STORE_DIRNAME
            if (candidate / "entries").is_dir():
                return cls(candidate)
        raise StoreNotFoundError(
            "no memory store found in this folder or its parents: run `memsite init` "
            "(or pass --store PATH)"
        )

    @classmethod
    def init(cls, root: Path) -> tuple[Store, list[str]]:
        """Create the store folders, default config.json and .gitignore; idempotent."""
        created: list[str] = []
        try:
            for folder in (root, root / "entries"):
                if not folder.is_dir():
                    folder.mkdir(parents=True, exist_ok=True)
                    created.append(str(folder))
            store = cls(root)
            if not store.foreign_config and not store.config_path.exists():
                store.config_path.write_text(default_config_text(), encoding="utf-8")
                created.append(str(store.config_path))
            gitignore = root / ".gitignore"
            if not gitignore.exists():
                text = GITIGNORE
                with contextlib.suppress(MemsiteError):
                    if store.load_config().track_daily:  # daily logs are then shared in git
                        text = text.replace("daily/\n", "")
                gitignore.write_text(text, encoding="utf-8")
                created.append(str(gitignore))
        except OSError as exc:
            raise MemsiteError(f"cannot create the store at {root}: {exc.strerror}") from None
        return store, created

    def load_config(self) -> Config:
        if self.foreign_config:
            return load_config(self.root.parent / "config.json", foreign=True)
        return load_config(self.config_path)

    def config_bytes(self) -> bytes:
        path = self.root.parent / "config.json" if self.foreign_config else self.config_path
        try:
            return path.read_bytes()
        except OSError:
            return b""

    # --- writing ----------------------------------------------------------------------------

    def write_entry(
        self, obj: dict[str, Any], new_id: Callable[[], str] = lambda: str(uuid.uuid4())
    ) -> tuple[Path, dict[str, Any]]:
        """Write one entry atomically under a name no other writer can take.

        The bytes go to a temporary file that is fsynced and then hard-linked to the final
        name: ``os.link`` fails instead of overwriting, so on a clash a new id is drawn.
        """
        created = parse_created(obj["created"])
        tmp = self.entries_dir / f".tmp-{os.getpid()}-{secrets.token_hex(6)}"
        try:
            for _ in range(100):
                data = serialize(obj)
                with open(tmp, "wb") as handle:
                    handle.write(data)
                    handle.flush()
                    os.fsync(handle.fileno())
                final = self.entries_dir / filename_for(created, obj["id"])
                try:
                    os.link(tmp, final)
                except FileExistsError:
                    obj = {**obj, "id": new_id()}
                    continue
                finally:
                    tmp.unlink(missing_ok=True)
                self._fsync_dir(self.entries_dir)
                return final, obj
        except OSError as exc:
            raise MemsiteError(
                f"cannot write to {self.entries_dir}: {exc.strerror}: check its permissions"
            ) from None
        raise MemsiteError("could not find a free entry file name after 100 tries")

    @staticmethod
    def _fsync_dir(path: Path) -> None:
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    def delete_entry_file(self, filename: str) -> Path:
        path = self.entry_path(filename)
        try:
            path.unlink()
        except OSError as exc:
            raise MemsiteError(f"cannot delete {path}: {exc.strerror}") from None
        self._fsync_dir(self.entries_dir)
        return path

    def entry_path(self, filename: str) -> Path:
        """The path of an entry file; the name never leaves entries/."""
        if "/" in filename or "\\" in filename or filename in ("", ".", "..") or "\x00" in filename:
            raise MemsiteError(f"invalid entry file name {filename!r}")
        return self.entries_dir / filename

    # --- reading ----------------------------------------------------------------------------

    def _listing(self) -> list[tuple[str, str, os.stat_result]]:
        """Candidate entry files (``*.json``, not hidden) with their lstat, in name order."""
        try:
            items = list(os.scandir(self.entries_dir))
        except OSError as exc:
            raise MemsiteError(f"cannot read {self.entries_dir}: {exc.strerror}") from None
        found = []
        for item in items:
            name = item.name
            if name[-5:] != ".json" or name[0] == ".":
                continue
            with contextlib.suppress(OSError):  # removed meanwhile
                found.append((name, item.path, item.stat(follow_symlinks=False)))
        found.sort()
        return found

    def scan(self) -> Scan:
        """Read every entries/*.json; unusable files are reported, never touched."""
        cache_path = self.cache_dir / "entries.marshal"
        cache = self._load_cache(cache_path)
        new_cache: dict[str, tuple[int, int, Any, str | None]] = {}
        entries: list[Entry] = []
        invalid: list[InvalidFile] = []
        stamps: list[str] = []
        for name, path, info in self._listing():
            stamp = _stamp(name, info)
            if stamp is not None:
                stamps.append(stamp)
            if S_ISLNK(info.st_mode):
                invalid.append(InvalidFile(name, "is a symbolic link (entries must be files)"))
                continue
            if not S_ISREG(info.st_mode):
                invalid.append(InvalidFile(name, "is not a regular file"))
                continue
            hit = cache.get(name)
            if hit is not None and hit[0] == info.st_size and hit[1] == info.st_mtime_ns:
                row, error = hit[2], hit[3]
            else:
                row, error = self._parse_file(path, name)
            new_cache[name] = (info.st_size, info.st_mtime_ns, row, error)
            if error is not None:
                invalid.append(InvalidFile(name, error))
            else:
                entries.append(_entry_from_cache(row, name))
        if new_cache != cache:
            self._save_cache(cache_path, new_cache)
        return Scan(entries, invalid, combine_stamps(stamps))

    def fingerprint(self) -> str:
        """The same fingerprint as ``scan()`` gives, from names and stat data only (no reads)."""
        stamps = (_stamp(name, info) for name, _, info in self._listing())
        return combine_stamps(s for s in stamps if s is not None)

    @staticmethod
    def file_stamp(path: Path) -> str:
        stamp = _stamp(path.name, path.lstat())
        if stamp is None:
            raise MemsiteError(f"{path} is not a regular file")
        return stamp

    @staticmethod
    def _parse_file(path: str, name: str) -> tuple[Any, str | None]:
        try:
            with open(path, "rb") as handle:
                data = handle.read()
            return _entry_to_cache(parse_entry(data, name)), None
        except InvalidEntryFileError as exc:
            return None, str(exc)
        except OSError as exc:
            return None, f"cannot be read ({exc.strerror})"

    @staticmethod
    def _load_cache(path: Path) -> dict[str, tuple[int, int, Any, str | None]]:
        try:
            with open(path, "rb") as handle:
                version, data = marshal.loads(handle.read())
        except (OSError, EOFError, ValueError, TypeError):
            return {}
        if version != (_CACHE_VERSION, __version__) or not isinstance(data, dict):
            return {}
        return data

    def _save_cache(self, path: Path, data: dict[str, tuple[int, int, Any, str | None]]) -> None:
        # The cache is an optimisation: a read-only store still works without it.
        with contextlib.suppress(OSError, ValueError):
            self.cache_dir.mkdir(exist_ok=True)
            self.write_derived(path, marshal.dumps(((_CACHE_VERSION, __version__), data)))

    # --- derived files ----------------------------------------------------------------------

    def write_derived(self, path: Path, data: bytes) -> bool:
        """Replace a derived file atomically; leave it alone (mtime too) when unchanged."""
        try:
            if path.read_bytes() == data:
                return False
        except OSError:
            pass
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
        try:
            tmp.write_bytes(data)
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)
        return True

    def stale_temporaries(self, now: float) -> Iterator[Path]:
        """Temporary files of writers that died: names starting with '.', older than an hour."""
        try:
            listing = list(os.scandir(self.entries_dir))
        except OSError:
            return
        for item in listing:
            if item.name.startswith(".tmp-") and not item.name.endswith(".json"):
                with contextlib.suppress(OSError):
                    if now - item.stat(follow_symlinks=False).st_mtime > TEMP_MAX_AGE:
                        yield Path(item.path)

    # --- daily logs -------------------------------------------------------------------------

    def append_log(self, text: str, session: str, now: datetime) -> Path:
        path = self.daily_dir / f"{now.strftime('%Y-%m-%d')}-{session}.md"
        line = f"- {now.strftime('%H:%M:%S')}Z {' '.join(text.split())}\n"
        try:
            self.daily_dir.mkdir(exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                if os.fstat(fd).st_size == 0:
                    header = f"# Daily log {now.strftime('%Y-%m-%d')} ({session})\n\n"
                    os.write(fd, header.encode("utf-8"))
                os.write(fd, line.encode("utf-8"))
            finally:
                os.close(fd)
        except OSError as exc:
            raise MemsiteError(f"cannot write to {self.daily_dir}: {exc.strerror}") from None
        return path

    def daily_logs(self) -> list[tuple[date, Path]]:
        """Daily log files, oldest first, dated by their file names."""
        logs: list[tuple[date, Path]] = []
        with contextlib.suppress(OSError):
            for item in os.scandir(self.daily_dir):
                match = DAILY_RE.fullmatch(item.name)
                if match and item.is_file(follow_symlinks=False):
                    with contextlib.suppress(ValueError):
                        logs.append((date.fromisoformat(match.group(1)), Path(item.path)))
        return sorted(logs)


def _stamp(name: str, info: os.stat_result) -> str | None:
    """What the fingerprint knows of one entry file: name, size and mtime (links: name only)."""
    if S_ISLNK(info.st_mode):
        return f"{name}:link"
    if S_ISREG(info.st_mode):
        return f"{name}:{info.st_size}:{info.st_mtime_ns}"
    return None


def _stamp_value(stamp: str) -> int:
    data = stamp.encode()
    # Two CRCs (forwards and backwards) give 64 bits per file: cheap, and ample for a cache key.
    return (zlib.crc32(data) << 32) | zlib.crc32(data[::-1])


def combine_stamps(stamps: Iterable[str], start: str | None = None) -> str:
    """An order-independent fingerprint of file stamps; ``start`` extends an earlier one.

    It is a sum of per-file hashes, so a writer that adds one file can update it without
    listing the folder again.
    """
    total = int(start, 16) if start else 0
    for stamp in stamps:
        total = (total + _stamp_value(stamp)) % (1 << 64)
    return f"{total:016x}"


def clock() -> datetime:
    return datetime.now(UTC)


def wall_time() -> float:
    return time.time()
