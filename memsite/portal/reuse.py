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
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memsite.errors import StorageError
from memsite.files import write_atomic
from memsite.version import __version__

if TYPE_CHECKING:
    from memsite.memory import Memory

FORMAT = 1
RESTORED = "MEMSITE_CACHE_RESTORED"
_CHECK = 16  # bytes of the digest that ends the file


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


def inputs() -> tuple[Any, ...]:
    """What every key also depends on: memsite's version, its templates and site-config
    files (an editable install changes them without a new version), Python's version (the
    file is ``marshal``'s)."""
    from memsite.portal.resources import site_config_dir, templates_dir

    digest = hashlib.blake2b(digest_size=16)
    for top in (templates_dir(), site_config_dir()):
        for folder, dirs, names in os.walk(top):
            dirs.sort()
            for name in sorted(names):
                path = os.path.join(folder, name)
                digest.update(os.path.relpath(path, top).encode("utf-8", "surrogateescape"))
                with contextlib.suppress(OSError), open(path, "rb") as handle:
                    digest.update(hashlib.blake2b(handle.read(), digest_size=16).digest())
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
    if _marker(site_dir) != saved["marker"]:
        say(
            f"the site in {site_dir} is not the one the build cache describes; "
            "building the whole site"
        )
        return None
    if saved["config"] != _digest(config):
        say("the config changed since the last build: every page is drawn again")
    state: dict[str, Any] = saved["state"]
    return state


def save(memory: Memory, site_dir: Path, state: dict[str, Any]) -> None:
    """Keep ``state`` for the next build into ``site_dir`` (a cache: not written, nothing is
    lost but time)."""
    store, config = memory.store, memory.store.config_bytes()
    saved = {
        "inputs": inputs(),
        "home": store.home(),
        "marker": _marker(site_dir),
        "config": _digest(config),
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
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)


def _digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=_CHECK).digest()


def _marker(site_dir: Path) -> str:
    from memsite.portal.site import MARKER

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
    state = saved["state"]
    shapes = (
        _pairs(state.get("written"), str, bytes) and all(map(_inside, state["written"])),
        _pairs(state.get("lunr"), bytes, bytes),
        _groups(state.get("tags")),
        _groups(state.get("groups")),
    )
    keys = {"inputs", "home", "marker", "config"}
    return saved if all(shapes) and keys <= saved.keys() else None


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
    return isinstance(found, dict) and all(
        type(k) is bytes
        and type(pages) is list
        and all(type(p) is tuple and len(p) == 2 and all(type(s) is str for s in p) for p in pages)
        for k, pages in found.items()
    )
