"""`memsite init`: a store where one belongs (``.memsite/`` in the project, a LeanSpec
project's ``.lean-spec/memory/``, or the folder given), its default config and .gitignore, and
on request the git hooks that recompact after git changed the entries."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memsite.storage.layout import Store, default_root


def init_store(
    explicit: str | None,
    cwd: Path,
    *,
    force: bool = False,
    git_hook: bool = False,
) -> dict[str, Any]:
    """Create the store (idempotent); ``git_hook``: install the post-merge, post-checkout and
    post-rewrite hooks. Returns what was created and the store's root."""
    root = (cwd / explicit).resolve() if explicit else default_root(cwd)
    store, created = Store.init(root, force=force)
    store.load_config()  # a malformed existing config is reported now, not later
    hooks: list[str] = []
    if git_hook:
        from memsite.storage.git import install_hooks

        hooks = install_hooks(store.root, store.project_root)
    return {"store": store, "created": created, "hooks": hooks}
