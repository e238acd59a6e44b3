"""Stores of a past state (``memory.asof``): a store of its own under ``cache/as-of/``, whose
entries/ holds exactly the entry files of then, so that every command reads it with the same
code, and answers byte for byte as it would have then.

- **At a date**, entries/ holds hard links to the store's files written up to then, brought
  in step with the store at each use (files that arrived by git with an older name appear);
  its read model starts as a copy of the store's and takes out what came later.
- **At a commit**, entries/ holds the commit's entry files, read with one ``git ls-tree`` and
  one ``git cat-file --batch`` (no checkout, the work tree untouched). A commit never
  changes: the folder is made under a temporary name and renamed into place whole, so one
  killed half way is never used, and it serves every later question about that commit.

The least recently used folders go once more than :data:`KEEP` are kept.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import time
from pathlib import Path

from memsite.files import storage_errors
from memsite.storage import git
from memsite.storage.layout import Store

KEEP = 12  # past states kept under cache/as-of/
ABANDONED_SECONDS = 3600  # a temporary folder this old was left by a killed process
MODES = (git.EXECUTABLE, git.REGULAR, git.LINK)
MADE = ".made"  # in a commit's folder, once whole: the clone that made it (``Store.home``)


def _folder(store: Store) -> Path:
    # The folder and the states in it are no links; below them entries/ may hold links, as
    # entry folders may (never followed: an entry file that is a link is refused unread).
    folder = store.writable(store.cache_dir / "as-of", children=True)
    with storage_errors("create", folder):
        folder.mkdir(parents=True, exist_ok=True)
    return folder


def at_date(store: Store, wanted: list[tuple[str, int]], name: str) -> Store:
    """The store of ``store``'s entry files in ``wanted`` (name, inode), under ``name``."""
    root = _folder(store) / name
    entries = store.writable(root / "entries")
    with storage_errors("write", root):
        entries.mkdir(parents=True, exist_ok=True)
        _mirror(store.entries_dir, wanted, entries)
        if not (root / "cache" / "index.sqlite3").exists():
            _seed(store, root)
    _used(root)
    return Store(root, origin=store)


def _mirror(source: Path, wanted: list[tuple[str, int]], target: Path) -> None:
    """Make ``target`` hold the files ``wanted`` of ``source`` (hard links, so that the read
    model sees the same inodes), and nothing else."""
    inodes = dict(wanted)
    with os.scandir(target) as items:
        held = {item.name: item.inode() for item in items}
    for name, inode in held.items():
        if inodes.get(name) != inode:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(target / name)
    for name, inode in inodes.items():
        if held.get(name) != inode:
            _link(source / name, target / name)


def _link(source: Path, target: Path) -> None:
    with contextlib.suppress(FileExistsError, FileNotFoundError):  # another reader, a delete
        try:
            os.link(source, target, follow_symlinks=False)  # a symbolic link stays one
        except OSError:  # no hard links here: a copy (read models then read it again)
            shutil.copy2(source, target, follow_symlinks=False)


def _seed(store: Store, root: Path) -> None:
    """Start the past state's read model from the store's: only what came later is taken
    out (the store's own first, when it has none, is built by the reader as usual)."""
    from memsite.storage.readmodel import Index

    if store.index_db.is_file():
        Index(Store(root, origin=store)).seed(store.index_db)


def at_commit(store: Store, top: Path, commit: str, folder: str, config: str) -> Store | None:
    """The store of the entry files in ``folder`` at ``commit`` (paths relative to ``top``),
    with the commit's ``config`` file; None when the commit has no such folder."""
    root = _folder(store) / f"c-{commit}"
    if not _made_here(store, root):
        _discard(store, root)
        files = git.tree_files(top, commit, [folder.rstrip("/") + "/", config])
        entries = [f for f in files if f.path != config]
        if not entries:
            return None
        _make(store, root, (entries, [f for f in files if f.path == config]), top)
    _used(root)
    return Store(root, origin=store)


def _make(
    store: Store, root: Path, files: tuple[list[git.TreeFile], list[git.TreeFile]], top: Path
) -> None:
    """Write the commit's entry files and config into a temporary folder, then rename it
    into place."""
    entries, config = files
    limit = store.max_entry_bytes
    readable = [f for f in [*entries, *config] if f.mode in MODES and f.size <= limit]
    found = git.blobs(top, [f.blob for f in readable])
    building = root.with_name(f".{root.name}.{os.getpid()}.{os.urandom(4).hex()}")
    with storage_errors("write", root):
        (building / "entries").mkdir(parents=True)
        for item in entries:
            name = item.path.rsplit("/", 1)[-1]
            if name.endswith(".json") and not name.startswith("."):
                _write(building / "entries" / name, item, found.get(item.blob))
        for item in config:
            if item.mode != git.LINK and item.blob in found:
                (building / "config.json").write_bytes(found[item.blob])
        (building / MADE).write_text(store.home(), encoding="utf-8")
        try:
            os.rename(building, root)
        except OSError:  # another reader put it in place first: theirs is the same
            shutil.rmtree(building, ignore_errors=True)


def _made_here(store: Store, root: Path) -> bool:
    """Was ``root`` made whole by memsite in this clone? Its marker names the clone (as the
    read model does, ``Store.home``): a folder committed with ``git add -f`` from elsewhere, or
    left without its entries/, is made again, never read."""
    try:
        with open(root / MADE, encoding="utf-8") as handle:
            mine = handle.read(200) == store.home()
    except (OSError, UnicodeDecodeError):
        return False
    return mine and (root / "entries").is_dir() and not (root / "entries").is_symlink()


def _discard(store: Store, root: Path) -> None:
    """Put a folder that must not be read out of the way (renamed first: a reader never sees
    it half removed), unless another reader has just made it whole."""
    if os.path.lexists(root) and not _made_here(store, root):
        aside = root.with_name(f".{root.name}.{os.getpid()}.{os.urandom(4).hex()}.old")
        with contextlib.suppress(OSError):
            os.rename(root, aside)
            shutil.rmtree(aside, ignore_errors=True)


def _write(path: Path, item: git.TreeFile, data: bytes | None) -> None:
    """One file as a checkout would make it: its bytes, a link (never followed), or, for a
    file larger than entries may be, a sparse file of its size (refused as a checkout's is)."""
    if item.mode == git.LINK:
        try:
            os.symlink((data or b"").decode(errors="replace") or "missing", path)
        except (OSError, ValueError):  # a target no file system takes (a NUL, too long)
            os.symlink("unusable-link", path)
    elif data is not None:
        path.write_bytes(data)
    elif item.mode in (git.REGULAR, git.EXECUTABLE):
        with open(path, "wb") as handle:
            handle.truncate(item.size)


def _used(root: Path) -> None:
    """Mark ``root`` as just used, and let the least recently used states go (and the
    temporaries of killed processes)."""
    with contextlib.suppress(OSError):
        os.utime(root)
    folder = root.parent
    try:
        items = list(os.scandir(folder))
    except OSError:
        return
    now = time.time()
    kept = []
    for item in items:
        with contextlib.suppress(OSError):
            when = item.stat(follow_symlinks=False).st_mtime
            if item.name.startswith("."):
                if now - when > ABANDONED_SECONDS:
                    shutil.rmtree(item.path, ignore_errors=True)
            else:
                kept.append((when, item.path))
    for _, path in sorted(kept, reverse=True)[KEEP:]:
        if path != str(root):
            shutil.rmtree(path, ignore_errors=True)
