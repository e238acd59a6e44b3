"""What a ``memsite build`` leaves for the next one, in another process: the key of what each
file of the site was made from, the tag, category and month pages by their groups' keys, and
MkDocs' search index in pieces (see :class:`~memsite.portal.site.Site`). The next build of
the same folder renders and writes only what has a new key.

The state is one file in the store's ``cache/`` (``build-<folder>.marshal``), stamped with
memsite's version, a digest of its templates and this clone (``Store.home``), and ending in
a digest of the rest. It is believed only when all of these hold and the site folder is the
one it describes: the folder's marker names the digest of everything the build wrote. Else
the build starts over (one line says why), and a damaged, foreign or crafted file is never
trusted. Before a build changes the folder it deletes the state, and writes it again only
once the folder is whole: a build killed at any point leaves none, so the next one starts
over.

In CI, a workflow that restores ``cache/`` from an earlier run of itself (``actions/cache``,
after deleting whatever the checkout put there) sets ``MEMSITE_CACHE_RESTORED=1``: the state
is then believed though another clone made it.
"""

from __future__ import annotations

import contextlib
import hashlib
import marshal
import os
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from memsite.errors import StorageError
from memsite.files import digest_tree, write_atomic
from memsite.version import __version__

if TYPE_CHECKING:
    from memsite.memory import Memory

FORMAT = 1
RESTORED = "MEMSITE_CACHE_RESTORED"
_CHECK = 16  # bytes of the digest that ends the file
MARKER = ".memsite-site"  # the file that says memsite made a site folder (DESIGN §9)
SURVEY = "survey"  # a loaded state's key for the folder as the build found it (Survey)


def state_path(memory: Memory, site_dir: Path) -> Path:
    """The state file of builds into ``site_dir``."""
    store = memory.store
    name = hashlib.blake2b(os.fsencode(str(site_dir)), digest_size=8).hexdigest()
    return store.cache_dir / f"build-{name}.marshal"


def marker_line(written: Mapping[str, bytes]) -> str:
    """The marker's last line: a digest of every file the build wrote and its key (the same
    for a build from nothing and one that went on from the last)."""
    digest = hashlib.blake2b(digest_size=16)
    for rel, key in sorted(written.items()):  # (marshal's bytes are not canonical)
        name = rel.encode("utf-8", "surrogateescape")
        digest.update(b"%d:%s%d:%s" % (len(name), name, len(key), key))
    return f"Build {digest.hexdigest()}\n"


_LIBRARIES = ("jinja2", "markupsafe", "mkdocs", "mkdocs-material", "pymdown-extensions")


def inputs() -> tuple[Any, ...]:
    """What every key also depends on: memsite's version, its code, templates and
    site-config files (an editable install changes them without a new version), the
    versions of the libraries that draw the pages, and Python's (the file is ``marshal``'s)."""
    from importlib.metadata import PackageNotFoundError, version

    import memsite
    from memsite.portal.resources import site_config_dir, templates_dir

    digest = hashlib.blake2b(digest_size=16)
    for name in _LIBRARIES:
        with contextlib.suppress(PackageNotFoundError):
            digest.update(f"{name}={version(name)};".encode())
    digest_tree(digest, Path(memsite.__file__).parent, ".py")
    digest_tree(digest, templates_dir())
    digest_tree(digest, site_config_dir())
    return (FORMAT, __version__, sys.version_info[:2], digest.digest())


def load(memory: Memory, site_dir: Path, say: Callable[[str], None]) -> dict[str, Any] | None:
    """The state of the last build into ``site_dir``, if it may be believed (else None, and
    ``say`` gets the one line why, unless there was none)."""
    store, config = memory.store, memory.store.config_bytes()
    path = state_path(memory, site_dir)
    shown = store.relative(path)
    if store.why_unsafe(path) is not None:
        return None
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except FileNotFoundError:
        return None
    except OSError as exc:
        say(f"cannot read the build cache {shown} ({exc.strerror}); building the whole site")
        return None
    saved = _parse(data)
    if saved is None:
        say(f"the build cache {shown} was damaged; building the whole site")
        return None
    if saved["inputs"] != inputs():
        say(f"the build cache {shown} was made by another memsite; building the whole site")
        return None
    if saved["home"] != store.home() and os.environ.get(RESTORED) != "1":
        say(
            f"the build cache {shown} was not made in this clone (it came with the files); "
            "building the whole site"
        )
        return None
    state: dict[str, Any] = saved["state"]
    line = marker_line(state["written"]).strip()
    if not (_marker(site_dir) == saved["marker"] == line):
        say(
            f"the site in {site_dir} is not the one the build cache describes; "
            "building the whole site"
        )
        return None
    try:
        found = survey(site_dir)
    except OSError as exc:  # a folder or file gone or unreadable midway (another tool)
        say(f"cannot read the site in {site_dir} ({exc.strerror}); building the whole site")
        return None
    if found.link is not None:
        say(f"the site in {site_dir} holds a symbolic link ({found.link}); building the whole site")
        return None
    if saved["config"] != _digest(config):
        say("the config changed since the last build: what it shows is drawn again")
    # A file that is not as this build left it (edited, deleted, replaced) is written again.
    kept, files = saved["files"], found.files
    state["written"] = {r: k for r, k in state["written"].items() if files.get(r) == kept.get(r)}
    state[SURVEY] = found  # the sweep's starting point (Site.sweep_surveyed): not saved
    return state


class Survey(NamedTuple):
    """What a site folder holds: every file (relative path → size and mtime in whole
    seconds: an archive such as CI's cache may keep no finer time), a symbolic link found in
    it (a build that went on from the last would write and delete through it; None: there
    is none), and how many names each folder holds ("" the top, else "path/")."""

    files: dict[str, tuple[int, int]]
    link: str | None
    folders: dict[str, int]


_SPLIT = 2_000  # folders to survey at one depth from which a forked child takes half


def survey(site_dir: Path) -> Survey:
    """The folder as it is (see :class:`Survey`); stops at the first symbolic link. Read a
    depth at a time until one holds many folders (``entries/``: one per entry), which two
    processes then read, half each (at 100k entries one took ~3 s)."""
    from memsite.parallel import in_halves

    files: dict[str, tuple[int, int]] = {}
    held: dict[str, int] = {}
    level = [("", str(site_dir))]
    while level:
        if len(level) >= _SPLIT:
            for more_files, more_held, link, problem in in_halves(_walk, level, _SPLIT):
                if problem is not None:  # (raised in the child: said here as it was there)
                    raise OSError(0, problem)
                files.update(more_files)
                held.update(more_held)
                if link is not None:
                    return Survey(files, link, held)
            break
        below: list[tuple[str, str]] = []
        for prefix, folder in level:
            link = _scan(prefix, folder, files, held, below)
            if link is not None:
                return Survey(files, link, held)
        level = below
    return Survey(files, None, held)


_Walked = tuple[dict[str, tuple[int, int]], dict[str, int], "str | None", "str | None"]


def _walk(folders: Sequence[tuple[str, str]]) -> list[_Walked]:
    """``folders`` and all they hold, as :func:`survey` gives them, and why they could not
    be read (None: they could), as one item of a list (for ``in_halves``)."""
    files: dict[str, tuple[int, int]] = {}
    held: dict[str, int] = {}
    pending = list(folders)
    try:
        while pending:
            prefix, folder = pending.pop()
            link = _scan(prefix, folder, files, held, pending)
            if link is not None:
                return [(files, held, link, None)]
    except OSError as exc:
        return [(files, held, None, exc.strerror or str(exc))]
    return [(files, held, None, None)]


def _scan(
    prefix: str,
    folder: str,
    files: dict[str, tuple[int, int]],
    held: dict[str, int],
    below: list[tuple[str, str]],
) -> str | None:
    """One folder: its files into ``files``, its count of names into ``held``, its folders
    onto ``below``; the first symbolic link in it (None: there is none)."""
    count = 0
    with os.scandir(folder) as items:
        for item in items:
            rel = prefix + item.name
            count += 1
            if item.is_symlink():
                return rel
            if item.is_dir(follow_symlinks=False):
                below.append((rel + "/", item.path))
            else:
                info = item.stat(follow_symlinks=False)
                files[rel] = (info.st_size, int(info.st_mtime))
    held[prefix] = count
    return None


@contextlib.contextmanager
def locked(memory: Memory, site_dir: Path) -> Iterator[bool | None]:
    """Hold the lock of builds into ``site_dir`` (a file beside the state): True when held,
    False when another build holds it, None when it cannot be taken here (no advisory
    locks, or a cache that cannot be written: then no state is read or written)."""
    try:
        import fcntl
    except ImportError:  # no advisory locks here: never share a state
        yield None
        return
    store = memory.store
    path = state_path(memory, site_dir).with_suffix(".lock")
    try:
        store.writable(store.cache_dir, children=True)
        store.cache_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
    except (StorageError, OSError):
        yield None
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            yield False
            return
        yield True
    finally:
        os.close(fd)


def save(
    memory: Memory,
    site_dir: Path,
    state: dict[str, Any],
    listing: Mapping[str, tuple[int, int]] | None = None,
    marker: str | None = None,
) -> None:
    """Keep ``state`` for the next build into ``site_dir``, with what its folder holds now
    (a cache: not written, nothing is lost but time). ``listing``: the folder's files as
    the build's sweep found them, the marker written since (else the folder is surveyed);
    ``marker``: the marker's line as the build wrote it (else made again: 0.4 s at 100k)."""
    store, config = memory.store, memory.store.config_bytes()
    try:
        if listing is None:
            files, link, _ = survey(site_dir)
            if link is not None:
                return
        else:
            info = os.lstat(site_dir / MARKER)
            files = {**listing, MARKER: (info.st_size, int(info.st_mtime))}
    except OSError:  # the next build starts over
        return
    saved = {
        "inputs": inputs(),
        "home": store.home(),
        "marker": marker or marker_line(state["written"]).strip(),
        "config": _digest(config),
        "files": files,
        "state": state,
    }
    body = marshal.dumps(saved)
    path = state_path(memory, site_dir)
    with contextlib.suppress(StorageError, OSError):
        store.writable(store.cache_dir, children=True)
        write_atomic(path, body + _digest(body), tmp_dir=store.tmp_dir)


def forget(memory: Memory, site_dir: Path) -> None:
    """Delete the state of builds into ``site_dir``: the folder is about to change."""
    path = state_path(memory, site_dir)
    if memory.store.why_unsafe(path) is None:
        try:
            os.unlink(path)
        except FileNotFoundError:
            return
        with contextlib.suppress(OSError):  # gone for good before the folder changes
            fd = os.open(path.parent, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)


def _digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=_CHECK).digest()


def _marker(site_dir: Path) -> str:
    try:
        with open(site_dir / MARKER, "rb") as handle:
            text = handle.read(1 << 12).decode("utf-8", "replace")
    except OSError:
        return ""
    return text.rpartition("\n")[0].rpartition("\n")[2]


def _parse(data: bytes) -> dict[str, Any] | None:
    """The saved object, if the file is whole and every part has the shape it should."""
    body, check = data[:-_CHECK], data[-_CHECK:]
    if len(data) <= _CHECK or _digest(body) != check:
        return None
    try:
        saved = marshal.loads(body)
    except (EOFError, ValueError, TypeError):
        return None
    if not isinstance(saved, dict) or not isinstance(saved.get("state"), dict):
        return None
    state, files = saved["state"], saved.get("files", ())
    shapes = (
        _pairs(state.get("written"), str, bytes) and all(map(_inside, state["written"])),
        _pairs(state.get("lunr"), bytes, bytes),
        _groups(state.get("tags")),
        _groups(state.get("groups")),
        _search_memo(state.get("search", {})),
        _pairs(files, str, tuple)
        and all([type(n) for n in v] == [int, int] for v in files.values()),
    )
    keys = {"inputs", "home", "marker", "config"}
    return saved if all(shapes) and keys <= saved.keys() else None


def _search_memo(found: Any) -> bool:
    """The search index's memo (``portal.searchpatch.Memo``), or none (``{}``)."""
    if found == {}:
        return True
    return (
        isinstance(found, dict)
        and found.keys() == {"digests", "total", "sums"}
        and type(found["digests"]) is bytes
        and len(found["digests"]) % 16 == 0
        and type(found["total"]) is int
        and _pairs(found["sums"], str, tuple)
        and all(n.startswith("search/") and _inside(n) for n in found["sums"])
        and all([type(n) for n in v] == [int, int] for v in found["sums"].values())
    )


def _pairs(found: Any, key: type, value: type) -> bool:
    return isinstance(found, dict) and all(
        type(k) is key and type(v) is value for k, v in found.items()
    )


def _inside(rel: str) -> bool:
    """A path the site may hold: relative, forward slashes, no part that leaves the folder."""
    parts = rel.split("/")
    return (
        bool(rel)
        and "\\" not in rel
        and "\0" not in rel
        and all(part not in ("", ".", "..") for part in parts)
    )


def _groups(found: Any) -> bool:
    """Groups' pages: key → [(page path, title)], each path one the site may hold."""
    return isinstance(found, dict) and all(
        type(k) is bytes
        and type(pages) is list
        and all(
            type(p) is tuple
            and len(p) == 2
            and all(type(s) is str for s in p)
            and (not p[0] or _inside(p[0].removesuffix("/")))
            for p in pages
        )
        for k, pages in found.items()
    )
