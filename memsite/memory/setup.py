"""`memsite init`: a store where one belongs (``.memsite/`` in the project, a LeanSpec
project's ``.lean-spec/memory/``, or the folder given), its default config, .gitignore and
.gitattributes, and on request the git hooks that recompact after git changed the entries.
A store that would shadow one in a parent folder is refused (unless forced)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memsite.errors import StorageError, StoreNotFoundError
from memsite.storage.layout import Store, default_root


def store_root(explicit: str | None, cwd: Path) -> Path:
    """Where `init` puts the store: the folder given (``--store``), else the default one of
    ``cwd`` (``storage.layout.default_root``)."""
    return (cwd / explicit).resolve() if explicit else default_root(cwd)


def nearest_folder(root: Path) -> Path:
    """The project folder of a store at ``root``, or its nearest parent that exists (before
    `init` has made it)."""
    project = Store(root).project_root
    return next(p for p in (project, *project.parents) if p.is_dir())


def init_store(
    explicit: str | None,
    cwd: Path,
    *,
    force: bool = False,
    git_hook: bool = False,
) -> dict[str, Any]:
    """Create the store (idempotent); ``git_hook``: install the post-merge, post-checkout and
    post-rewrite hooks. Returns what was created and the store's root."""
    root = store_root(explicit, cwd)
    if git_hook:  # refused before anything is created, not after
        from memsite.storage.git import repo_top

        repo_top(nearest_folder(root))
    if explicit is None and not force:  # a folder given with --store is a choice made
        _refuse_nested(root)
    store, created = Store.init(root, force=force)
    store.load_config()  # a malformed existing config is reported now, not later
    hooks: list[str] = []
    if git_hook:
        from memsite.storage.git import install_hooks

        hooks = install_hooks(store.root, store.project_root)
    return {"store": store, "created": created, "hooks": hooks}


def _refuse_nested(root: Path) -> None:
    """Refuse a new store at the default place (``root``) when a parent folder holds one:
    commands run below would find the new, empty store first and no longer see the
    project's. A store that exists already (init again) shadows nothing new."""
    folder = Store(root).project_root
    if (root / "entries").is_dir() or folder.parent == folder:
        return
    try:
        above = Store.locate(None, {}, folder.parent)
    except StoreNotFoundError:
        return
    raise StorageError(
        f"a memory store exists above this folder, at {above.root}: run memsite from there "
        "(it finds that store from any folder below), or pass --force to create a nested store"
    )
