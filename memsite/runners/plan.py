"""Install and uninstall as plans: every file's text before and after, computed first (reading
only), written by :func:`apply` once every file could be understood. ``--dry-run`` is a plan
that is not applied.

``<store>/agents.json`` (the manifest) records what install created, so uninstall deletes the
files memsite created and gives existing files their original bytes back. It is meant to be
committed with the instruction files it describes, so that uninstall works from any clone.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memsite.errors import StorageError
from memsite.files import read_text, storage_errors, write_atomic
from memsite.runners import registry
from memsite.runners.base import Runner, Target, Wiring
from memsite.runners.edits import dump_json


@dataclass
class Plan:
    """File contents before and after (None: absent); only changed files are listed."""

    changes: dict[str, tuple[str | None, str | None]] = field(default_factory=dict)
    unchanged: list[str] = field(default_factory=list)
    dirs_created: list[str] = field(default_factory=list)
    dirs_removed: list[str] = field(default_factory=list)

    def record(self, rel: str, before: str | None, after: str | None) -> None:
        if before == after:
            self.unchanged.append(rel)
        else:
            self.changes[rel] = (before, after)

    def seen(self, rel: str) -> bool:
        return rel in self.changes or rel in self.unchanged

    @property
    def written(self) -> list[str]:
        return [rel for rel, (_, after) in self.changes.items() if after is not None]

    @property
    def removed(self) -> list[str]:
        gone = [rel for rel, (_, after) in self.changes.items() if after is None]
        return gone + [f"{d}/" for d in self.dirs_removed]


def detect_runners(root: Path) -> list[Runner]:
    """The runners the repository shows signs of using; all of them when it shows none."""
    known = list(registry().values())
    found = [r for r in known if r.detected(lambda rel: (root / rel).exists())]
    return found or known


def _read(root: Path, rel: str) -> str | None:
    try:
        return read_text(root / rel)
    except StorageError as exc:
        raise StorageError(f"{exc}: fix it or leave this runner out") from None


def _load_manifest(wiring: Wiring) -> dict[str, Any]:
    text = _read(wiring.root, wiring.manifest_rel)
    try:
        data = json.loads(text) if text else {}
    except (ValueError, RecursionError):
        data = {}
    files = data.get("files") if isinstance(data, dict) else None
    dirs = data.get("dirs") if isinstance(data, dict) else None
    return {
        "files": files if isinstance(files, dict) else {},
        "dirs": [d for d in dirs if isinstance(d, str)] if isinstance(dirs, list) else [],
    }


def _files(
    plan: Plan, wiring: Wiring, runners: Iterable[Runner]
) -> Iterator[tuple[Target, str | None]]:
    """Each target of ``runners`` once (runners can share a file), with its current text."""
    for target in (t for runner in runners for t in runner.targets):
        if not plan.seen(target.rel):
            yield target, _read(wiring.root, target.rel)


def plan_install(wiring: Wiring, runners: Iterable[Runner]) -> Plan:
    """Every file change `agents install` makes for ``runners``; nothing is written."""
    plan = Plan()
    manifest = _load_manifest(wiring)
    files: dict[str, Any] = dict(manifest["files"])
    for target, before in _files(plan, wiring, runners):
        record = dict(files.get(target.rel) or {"created": before is None})
        after = target.install(wiring, before, record)
        plan.record(target.rel, before, after)
        if before != after or target.rel in files:
            files[target.rel] = record
        if before is None:
            for parent in reversed(Path(target.rel).parents[:-1]):
                folder = parent.as_posix()
                if not (wiring.root / folder).exists() and folder not in plan.dirs_created:
                    plan.dirs_created.append(folder)
    dirs = manifest["dirs"] + [d for d in plan.dirs_created if d not in manifest["dirs"]]
    new_manifest = dump_json({"version": 1, "files": dict(sorted(files.items())), "dirs": dirs})
    before = _read(wiring.root, wiring.manifest_rel)
    if plan.changes or before is not None:
        plan.record(wiring.manifest_rel, before, new_manifest if files else before)
    return plan


def plan_uninstall(wiring: Wiring, runners: Iterable[Runner]) -> Plan:
    """Every file change `agents uninstall` makes: memsite's blocks, keys and files go."""
    plan = Plan()
    manifest = _load_manifest(wiring)
    files: dict[str, Any] = dict(manifest["files"])
    for target, before in _files(plan, wiring, runners):
        record = files.pop(target.rel, None)
        if before is not None:
            plan.record(target.rel, before, target.uninstall(before, record))
    remaining_dirs = _emptied_dirs(wiring, plan, manifest["dirs"])
    before = _read(wiring.root, wiring.manifest_rel)
    if before is not None:
        after = None
        if files or remaining_dirs:
            data = {"version": 1, "files": dict(sorted(files.items())), "dirs": remaining_dirs}
            after = dump_json(data)
        plan.record(wiring.manifest_rel, before, after)
    return plan


def _emptied_dirs(wiring: Wiring, plan: Plan, dirs: list[str]) -> list[str]:
    """Mark for removal the folders install created that the plan empties; the rest stay."""
    gone = {rel for rel, (_, after) in plan.changes.items() if after is None}
    remaining = []
    for rel in sorted(dirs, key=lambda d: -d.count("/")):
        path = wiring.root / rel
        if not path.is_dir():
            continue
        with storage_errors("read", path):
            left = [p.name for p in path.iterdir() if f"{rel}/{p.name}" not in gone]
        if left:
            remaining.append(rel)
        else:
            plan.dirs_removed.append(rel)
            gone.add(rel)
    return remaining


def apply(wiring: Wiring, plan: Plan) -> None:
    """Write the plan: new contents atomically, deletions, then folders memsite emptied."""
    for rel in plan.dirs_created:
        with storage_errors("create", wiring.root / rel):
            (wiring.root / rel).mkdir(parents=True, exist_ok=True)
    for rel, (_, after) in plan.changes.items():
        path = wiring.root / rel
        if after is None:
            with storage_errors("delete", path):
                path.unlink(missing_ok=True)
        else:
            write_atomic(path, after.encode("utf-8"))
    for rel in plan.dirs_removed:
        with storage_errors("remove", wiring.root / rel):
            (wiring.root / rel).rmdir()
