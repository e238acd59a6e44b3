"""The layout of a store on disk: where each file lives, finding a store, creating one.

A store is the folder that holds ``entries/``: ``.memsite/`` by default, or a LeanSpec store
(``.lean-spec/memory/``), whose settings are the ``memory`` object of ``.lean-spec/config.json``.
Every path memsite uses is computed here, once, and every derived path is checked here before
memsite writes it (:meth:`Store.writable`): a symbolic link committed in place of compacted/,
cache/ or site/ would otherwise make memsite write wherever it points.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping
from pathlib import Path
from stat import S_ISDIR, S_ISLNK

from memsite.core.config import Config, default_config_text, parse_config_text
from memsite.core.entry import MAX_ENTRY_BYTES
from memsite.errors import ConfigError, StorageError, StoreNotFoundError
from memsite.files import read_text, storage_errors, write_atomic

STORE_DIRNAME = ".memsite"
LEANSPEC_DIRNAME = ".lean-spec"
GITIGNORE = """\
# Written by `memsite init`. The memory is entries/ and config.json (and agents.json, the record
# of what `memsite agents install` changed, so that uninstall works from any clone); the rest is
# derived and rebuilt from entries/.
compacted/
index.md
cache/
site/
daily/
"""
# Two branches that each append to one session's daily log would conflict on merge when daily/
# is tracked (memory.trackDaily); a log is a list of lines, so git's union merge keeps both.
GITATTRIBUTES_LINE = "daily/*.md merge=union"
CONFIG_MAX_BYTES = 1 << 20
# The derived files and folders (rebuilt from entries/, ignored by git), as names in the store.
DERIVED_NAMES = ("compacted", "index.md", "cache", "site", "daily")
# What a store folder may hold; a folder holding anything else is not one.
STORE_NAMES = frozenset(
    {"entries", "config.json", ".gitignore", "compacted", "index.md", "daily", "cache", "site"}
    | {"agents.json", ".gitattributes"}
)


def default_root(folder: Path) -> Path:
    """Where `init` puts a store in ``folder``: .memsite/, or a LeanSpec project's memory/."""
    lean = folder / LEANSPEC_DIRNAME
    if not (folder / STORE_DIRNAME).exists() and (lean / "config.json").is_file():
        return lean / "memory"
    return folder / STORE_DIRNAME


def _add_gitattributes(path: Path) -> bool:
    """Add the union merge of daily logs to the store's .gitattributes, keeping its other lines;
    True when the file was written (a file already holding the line is left as it is)."""
    if path.is_symlink():  # a committed link would have init copy whatever it points at
        raise StorageError(f"{path} is a symbolic link: replace it with a file, then run init")
    text = read_text(path, CONFIG_MAX_BYTES) or ""
    if GITATTRIBUTES_LINE in (line.strip() for line in text.splitlines()):
        return False
    if text and not text.endswith("\n"):
        text += "\n"
    write_atomic(path, (text + GITATTRIBUTES_LINE + "\n").encode())
    return True


class Store:
    """A memory store: the folder that holds ``entries/``, and every path inside it."""

    def __init__(
        self, root: Path, *, shadowed: Path | None = None, origin: Store | None = None
    ) -> None:
        self.root = root
        # The store a past state was cut from (``storage.cuts``): git, provenance and the
        # ledger of files written here are its; the store itself, otherwise.
        self.origin = origin or self
        # A LeanSpec store beside the .memsite/ that was chosen (status mentions it).
        self.shadowed = shadowed
        self.entries_dir = root / "entries"
        self.compacted_dir = root / "compacted"
        self.index_path = root / "index.md"
        self.daily_dir = root / "daily"
        self.cache_dir = root / "cache"
        self.tmp_dir = self.cache_dir / "tmp"
        # The derived caches under cache/ (each safe to delete: rebuilt from entries/).
        self.index_db = self.cache_dir / "index.sqlite3"  # the read model (storage.readmodel)
        self.clock_probe = self.cache_dir / "clock"  # the file system's clock (freshness)
        self.views_stamp = self.cache_dir / "state.json"  # what the views were built from
        self.secret_verdicts = self.cache_dir / "secrets.marshal"  # the full scan's verdicts
        self.secret_flagged = self.cache_dir / "flagged.json"  # the ids it found secrets in
        self.findings_memo = self.cache_dir / "findings.marshal"  # the text pass by category
        self.anchor_blobs = self.cache_dir / "anchors.marshal"  # anchored files' blob ids
        self.written_ledger = self.cache_dir / "written.log"  # files memsite wrote here
        self.trust_cache = self.cache_dir / "trust.marshal"  # the gate's verdicts (memory.trust)
        self.trust_files = self.cache_dir / "trust-files.marshal"  # its survey, reviewed files
        self.provenance_db = self.cache_dir / "provenance.sqlite3"  # who added each file
        self.hook_state = self.cache_dir / "agent-hooks.json"  # Claude Code's stop reminders
        self.serve_dir = self.cache_dir / "serve-site"  # the site `memsite serve` serves
        self.site_dir = root / "site"
        self.manifest_path = root / "agents.json"
        own_config = root / "config.json"
        # A LeanSpec store keeps its settings in the `memory` object of .lean-spec/config.json.
        self.leanspec = (
            origin is None
            and root.name == "memory"
            and root.parent.name == ".lean-spec"
            and not own_config.exists()
        )
        self.config_path = root.parent / "config.json" if self.leanspec else own_config
        # The folder agents and git see as the project: the parent of .memsite/ or .lean-spec/.
        self.project_root = root.parent.parent if self.leanspec else root.parent
        if origin is not None:
            self.project_root = origin.project_root

    def __repr__(self) -> str:
        return f"Store({str(self.root)!r})"

    # --- finding and creating ---------------------------------------------------------------

    @classmethod
    def locate(cls, explicit: str | None, env: Mapping[str, str], cwd: Path) -> Store:
        """Find the store: --store, else $MEMSITE_STORE, else the nearest store upwards.

        At each folder from ``cwd`` up, ``.memsite/`` is a store when it holds ``entries/``, and
        so is ``.lean-spec/memory/`` next to a ``.lean-spec/config.json``; when a folder holds
        both, ``.memsite/`` wins (and remembers the other, for `status`).
        """
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
            own = folder / STORE_DIRNAME
            lean = folder / LEANSPEC_DIRNAME
            lean_store = lean / "memory"
            has_lean = (lean / "config.json").is_file() and (lean_store / "entries").is_dir()
            if (own / "entries").is_dir():
                return cls(own.resolve(), shadowed=lean_store.resolve() if has_lean else None)
            if has_lean:
                return cls(lean_store.resolve())
        raise StoreNotFoundError(
            "no memory store found in this folder or its parents: run `memsite init` "
            "(or pass --store PATH)"
        )

    @classmethod
    def init(cls, root: Path, *, force: bool = False) -> tuple[Store, list[str]]:
        """Create the store folders, default config.json, .gitignore and .gitattributes (the
        union merge of daily logs, added to a file already there); idempotent.

        A folder that exists, is not empty and is not a store is refused (unless ``force``):
        the .gitignore would hide the project's own files and entries/ would land in it.
        """
        if root.exists() and not root.is_dir():
            raise StorageError(f"cannot create a store at {root}: it is a file")
        if not force and root.is_dir() and not (root / "entries").is_dir():
            with storage_errors("read", root):
                foreign = [p.name for p in root.iterdir() if p.name not in STORE_NAMES]
            if foreign:
                raise StorageError(
                    f"refusing to create a store in {root}: the folder is not empty and holds no "
                    "store; use a new folder (the default is .memsite/ in the project), or pass "
                    "--force to create it there anyway"
                )
        created: list[str] = []
        store = cls(root)
        with storage_errors("create the store at", root):
            for folder in (root, store.entries_dir, store.compacted_dir, store.daily_dir):
                if not folder.is_dir():
                    folder.mkdir(parents=True, exist_ok=True)
                    created.append(str(folder))
            if not store.leanspec and not store.config_path.exists():
                write_atomic(store.config_path, default_config_text().encode())
                created.append(str(store.config_path))
            gitignore = root / ".gitignore"
            if not gitignore.exists():
                text = GITIGNORE
                with contextlib.suppress(ConfigError):
                    if store.load_config().track_daily:  # daily logs are then shared in git
                        text = text.replace("daily/\n", "")
                write_atomic(gitignore, text.encode())
                created.append(str(gitignore))
            if _add_gitattributes(root / ".gitattributes"):
                created.append(str(root / ".gitattributes"))
        return store, created

    # --- config -----------------------------------------------------------------------------

    def config_bytes(self) -> bytes:
        try:
            with open(self.config_path, "rb") as handle:
                return handle.read(CONFIG_MAX_BYTES + 1)
        except OSError:
            return b""

    def load_config(self) -> Config:
        """The validated config; a missing file means the defaults."""
        try:
            text = read_text(self.config_path, CONFIG_MAX_BYTES)
        except StorageError as exc:
            raise ConfigError(f"{exc}: fix or remove it") from None
        if text is None:
            return Config()
        return parse_config_text(text, str(self.config_path), foreign=self.leanspec)

    # --- entries ----------------------------------------------------------------------------

    def entry_path(self, filename: str) -> Path:
        """The path of an entry file; the name never leaves entries/."""
        if (
            "/" in filename
            or "\\" in filename
            or "\x00" in filename
            or filename.strip(".") == ""
            or not filename.endswith(".json")
        ):
            raise StorageError(f"invalid entry file name {filename[:80]!r}")
        return self.entries_dir / filename

    @property
    def max_entry_bytes(self) -> int:
        return MAX_ENTRY_BYTES

    def home(self) -> str:
        """What binds a cache to this clone: the device and inode of entries/, which git never
        carries (a cache committed elsewhere, or crafted, names another); "" when unreadable."""
        try:
            info = os.stat(self.entries_dir)
        except OSError:
            return ""
        return f"{info.st_dev}:{info.st_ino}"

    def relative(self, path: Path) -> str:
        """``path`` relative to the project root when inside it (for messages), else as is."""
        try:
            return path.relative_to(self.project_root).as_posix()
        except ValueError:
            return str(path)

    # --- derived paths: checked before every write ------------------------------------------

    def writable(self, path: Path, *, children: bool = False, tree: bool = False) -> Path:
        """``path`` (a derived file or folder of this store) when memsite may write it, else
        StorageError saying which path is a symbolic link (or outside the store) and what to
        do. ``children``: no item directly in the folder is a link either (a folder whose
        files are opened by name: cache/, compacted/); ``tree``: nothing anywhere below it
        (a site folder, written file by file)."""
        problem = self.why_unsafe(path, children=children, tree=tree)
        if problem is not None:
            raise StorageError(f"refusing to write {self.relative(path)}: {problem}")
        return path

    def why_unsafe(self, path: Path, *, children: bool = False, tree: bool = False) -> str | None:
        """Why memsite must not write ``path`` (what to do, too), or None: it must lie in the
        store, and no component from the store root down to it (it included) may be a
        symbolic link, so nothing written there can land outside the store root. An ``lstat``
        a component, on strings (measured: ~5 µs for index.md, ~7 µs for cache/tmp, ~20 µs
        for cache/ with ``children``, its scan included)."""
        root, text = str(self.root), str(path)
        parts = text[len(root) + 1 :].split(os.sep) if text != root else []
        if (text != root and not text.startswith(root + os.sep)) or ".." in parts:
            return f"{path} is outside the store {self.root}"
        current = root
        mode = 0
        for part in parts:
            current = f"{current}{os.sep}{part}"
            try:
                mode = os.lstat(current).st_mode
            except OSError:  # missing (memsite makes it), or not a folder (the write says so)
                return None
            if S_ISLNK(mode):
                return self._link_problem(Path(current))
        if (children or tree) and S_ISDIR(mode):
            found = _links_below(Path(current), deep=tree)
            if found:
                return self._link_problem(min(found))
        return None

    def _link_problem(self, link: Path) -> str:
        shown = self.relative(link)
        if link == self.entries_dir:
            fix = "replace it with a real folder holding the entry files"
        else:
            fix = f"remove it (`git rm {shown}`, or delete it) and memsite rebuilds it"
        return (
            f"{shown} is a symbolic link, which memsite never writes through (it could lead "
            f"outside the store): {fix}"
        )

    def unsafe_paths(self) -> list[tuple[Path, str]]:
        """The links memsite refuses to write through, each with what to do (review, status
        and check report them): entries/ and every derived path, with the items directly in
        the derived folders."""
        found: dict[Path, str] = {}
        for path in (self.entries_dir, self.index_path):
            problem = self.why_unsafe(path)
            if problem is not None:
                found[path] = problem
        for folder in (self.compacted_dir, self.cache_dir, self.site_dir, self.daily_dir):
            problem = self.why_unsafe(folder)
            if problem is not None:
                found[folder] = problem
                continue
            for link in _links_below(folder, deep=False):
                found[link] = self._link_problem(link)
        return sorted(found.items())

    def _refuse_site_at(self, path: Path) -> None:
        """A build replaces its folder: never the store, a folder holding it (the repository
        root), or the entries."""
        real, root = Path(os.path.realpath(path)), Path(os.path.realpath(self.root))
        entries = Path(os.path.realpath(self.entries_dir))
        what = None
        if real == root:
            what = "the memory store itself"
        elif root.is_relative_to(real):
            what = (
                "the repository root"
                if real == self.project_root.resolve()
                else "a folder holding the store"
            )
        elif real.is_relative_to(entries):
            what = "inside the store's entries/"
        if what is not None:
            raise StorageError(
                f"refusing to build into {path}: it is {what}, and a build replaces its folder; "
                "choose a folder of its own with --site-dir (default: .memsite/site)"
            )

    def site_target(self, given: Path | None = None) -> Path:
        """Where a portal build writes: ``given`` (a --site-dir), else the store's site/. A
        folder in the store is checked like every derived path (nothing below it may be a
        link); one outside the store is the user's choice."""
        if given is None:
            return self.writable(self.site_dir, tree=True)
        path = Path(os.path.abspath(given))
        self._refuse_site_at(path)
        if path == self.root or self.root in path.parents:
            return self.writable(path, tree=True)
        return path.resolve()


def _links_below(folder: Path, *, deep: bool) -> list[Path]:
    """The symbolic links directly in ``folder`` (``deep``: anywhere below it, links to
    folders never entered); an unreadable folder holds none."""
    found: list[Path] = []
    pending = [folder]
    while pending:
        current = pending.pop()
        try:
            with os.scandir(current) as items:
                for item in items:
                    if item.is_symlink():
                        found.append(Path(item.path))
                    elif deep and item.is_dir(follow_symlinks=False):
                        pending.append(Path(item.path))
        except OSError:
            continue
    return found
