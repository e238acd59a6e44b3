"""`memsite check --base REF`: the entry files a pull request adds, checked before merging.

Only files added between the merge base of REF and HEAD count (what the branch brings). Each
is a problem when it is malformed, holds a suspected secret (not allowed by a person), says
what an active fact of its category says already, forks a fact (a second active successor),
or possibly conflicts with an active fact without a relation settling it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memsite.errors import MemsiteError

if TYPE_CHECKING:
    from memsite.core.entry import Entry
    from memsite.memory import Memory


class BaseNotFoundError(MemsiteError):
    """The base of a check cannot be found (exit 2): unknown ref or shallow history."""

    exit_code = 2


def added_files(memory: Memory, base: str) -> tuple[str, list[str]]:
    """The merge base of ``base`` and HEAD, and the entry file names added since it."""
    from memsite.storage.git import added_since, commit_of, merge_base, repo_top

    entries = memory.store.entries_dir
    top = repo_top(entries)
    if commit_of(top, base) is None:
        raise BaseNotFoundError(
            f"cannot find {base!r} in this repository: fetch it first (e.g. `git fetch origin "
            f"{base.removeprefix('origin/')}`)"
        )
    commit, why = merge_base(top, base)
    if commit is None:
        raise BaseNotFoundError(f"cannot find the merge base of {base!r} and HEAD: {why}")
    folder = os.path.relpath(entries.resolve(), top).replace(os.sep, "/")
    names = []
    for path in added_since(top, commit, folder):
        if "/" not in path[len(folder) + 1 :] and path.endswith(".json"):
            names.append(Path(path).name)
    return commit, sorted(set(names))


def check(memory: Memory, base: str) -> dict[str, Any]:
    """Problems of the entry files added since the merge base (see the module's rules)."""
    from memsite.core.schema import ACTIVE, SUPERSEDED
    from memsite.memory.review import conflict_findings, secret_findings

    commit, names = added_files(memory, base)
    added = set(names)
    state = memory.state()
    result = state.result
    problems: list[dict[str, Any]] = []

    def problem(file: str, kind: str, message: str, ids: list[str]) -> None:
        problems.append({"file": file, "kind": kind, "message": message, "ids": ids})

    for bad in state.scan.invalid:
        if bad.filename in added:
            problem(bad.filename, "invalid_file", f"{bad.filename} {bad.message}", [])
    new = [e for e in result.entries if e.filename in added]
    new_ids = {e.id for e in new}
    for finding in secret_findings(memory):
        if finding.kind == "secret" and finding.files[0] in added:
            problem(finding.files[0], "secret", finding.message, list(finding.ids))
    saying: dict[tuple[str, str], list[Entry]] = {}
    for other in result.entries:
        if result.status[other.id] != SUPERSEDED:
            saying.setdefault((other.category, other.normalized), []).append(other)
    for entry in new:
        same = [
            other
            for other in saying.get((entry.category, entry.normalized), [])
            if other.id != entry.id and other.id not in entry.supersedes
        ]
        if same:
            problem(
                entry.filename,
                "duplicate",
                f"{entry.short_id} says what {same[0].short_id} says already in "
                f"{entry.category}: drop the new file",
                [entry.id, same[0].id],
            )
    for finding in result.findings:
        if finding.kind == "fork" and new_ids & set(finding.ids[1:]):
            file = next(f for i, f in zip(finding.ids, finding.files, strict=True) if i in new_ids)
            problem(file, "fork", finding.message, list(finding.ids))
    for finding in conflict_findings(memory, only=new_ids):
        file = next(f for i, f in zip(finding.ids, finding.files, strict=True) if i in new_ids)
        problem(file, "possible_conflict", finding.message, list(finding.ids))
    active = sum(1 for e in new if result.status[e.id] == ACTIVE)
    records = sum(1 for r in state.scan.records if r.filename in added)
    return {
        "base": commit,
        "files": len(names),
        "entries": len(new),
        "active": active,
        "records": records,
        "problems": problems,
    }
