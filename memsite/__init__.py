"""memsite: one shared, git-native project memory for AI coding agents.

The library's public face::

    import memsite
    memory = memsite.open_memory()            # the nearest .memsite/ (or pass a path)
    memory.add("Always use pnpm.", "conventions")
    memory.search("package manager")

Names are imported on first use, so that ``memsite --help`` stays fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memsite.version import __version__

__all__ = [
    "AmbiguousIdError",
    "ConfigError",
    "Entry",
    "EntryNotFoundError",
    "InvalidEntryFileError",
    "InvalidInputError",
    "Memory",
    "MemsiteError",
    "SecretFoundError",
    "StorageError",
    "Store",
    "StoreNotFoundError",
    "__version__",
    "open_memory",
]

_LAZY = {
    "Memory": "memsite.memory",
    "Entry": "memsite.core.entry",
    "Store": "memsite.storage.layout",
}

if TYPE_CHECKING:
    from pathlib import Path

    from memsite.core.entry import Entry
    from memsite.memory import Memory
    from memsite.storage.layout import Store


def open_memory(store: str | Path | None = None) -> Memory:
    """Open the store at ``store`` (or $MEMSITE_STORE, or the nearest .memsite/ upwards)."""
    from memsite.memory import Memory

    return Memory.open(None if store is None else str(store))


def __getattr__(name: str) -> Any:
    import importlib

    # Not ``from memsite import errors``: before memsite.errors is loaded, that form asks this
    # module for ``errors`` first, which lands here again (a RecursionError on
    # ``memsite.MemsiteError`` or ``from memsite import parallel`` in a fresh process).
    errors = importlib.import_module("memsite.errors")
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    if hasattr(errors, name) and name in __all__:
        return getattr(errors, name)
    raise AttributeError(f"module 'memsite' has no attribute {name!r}")
