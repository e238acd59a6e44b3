"""The store's own files as `review`, `status` and `check` report them: symbolic links where
memsite writes derived files (it refuses to write through them: ``Store.writable``) and derived
files committed to git (memsite rebuilds them from entries/; a committed one is whatever its
author made it, symlinks included). Paths are shown as a person types them for ``git rm``:
relative to the project's folder.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from memsite.core import review as rules
from memsite.storage.layout import DERIVED_NAMES

if TYPE_CHECKING:
    from memsite.core.review import Finding
    from memsite.memory import Memory


class Report(NamedTuple):
    """What is wrong with the store's own files."""

    unsafe: list[tuple[str, str]]  # (a link's path, what is wrong and what to do)
    tracked: dict[str, list[str]]  # a derived path → the tracked files at or under it


def report(memory: Memory) -> Report:
    """The links in the way of derived files (a few lstat calls and a scan of each derived
    folder) and the derived files git tracks (one ``git ls-files``; daily/ counts unless
    memory.trackDaily shares the logs; without git, none)."""
    from memsite.storage.git import tracked_files

    store = memory.store
    unsafe = [(store.relative(path), problem) for path, problem in store.unsafe_paths()]
    names = [n for n in DERIVED_NAMES if n != "daily" or not memory.config.track_daily]
    tracked: dict[str, list[str]] = {}
    for path in tracked_files(store.root, names):
        top = store.relative(store.root / path.split("/", 1)[0])
        tracked.setdefault(top, []).append(store.relative(store.root / path))
    return Report(unsafe, tracked)


def findings(found: Report) -> list[Finding]:
    """Review's findings of ``found``: each link, then each derived path with tracked files."""
    return [rules.unsafe_path(problem) for _, problem in found.unsafe] + [
        rules.tracked_derived(top, files) for top, files in sorted(found.tracked.items())
    ]


def status_fields(found: Report) -> dict[str, list[str]]:
    """`status`'s fields: the links' paths, and the derived paths holding tracked files."""
    return {
        "unsafe_paths": [path for path, _ in found.unsafe],
        "tracked_derived": sorted(found.tracked),
    }


def problems(found: Report) -> list[dict[str, Any]]:
    """`check`'s problems of ``found``, one per finding (each fails the check: the store must
    hold no such link or tracked file whatever the pull request adds)."""
    paths = [path for path, _ in found.unsafe] + sorted(found.tracked)
    return [
        {"file": path, "kind": f.kind, "message": f.message, "ids": []}
        for path, f in zip(paths, findings(found), strict=True)
    ]
