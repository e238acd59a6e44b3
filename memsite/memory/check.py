"""`memsite check --base REF`: the entry files a pull request adds, checked before merging.

Only files added between the merge base of REF and HEAD count (what the branch brings). The
report lists the active facts they add (``added``: what agents will be told once the branch
merges, for a reviewer to read). Each file is a problem when it is malformed, holds a
suspected secret (not allowed by a person), says what an active fact of its category says
already, forks a fact (a second active successor), possibly conflicts with an active fact
without a relation settling it (``core.conflicts``: "JWTs signed with RS256" beside "JWTs
signed with HS256"), or plausibly overlaps an active fact the branch did not add with no
relation recorded (``core.gate.overlap_problems``: both anchored to one file, or nearly the
same words). The config file is a problem while a site setting would carry markup into the
portal (``config_problems``), and the store is while a derived path is a symbolic link or git
tracks a derived file (``store_problems``).
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


def config_problems(memory: Memory) -> list[dict[str, Any]]:
    """The site settings that would carry markup into the portal (``siteconfig``), as
    problems of the config file (whichever branch brought them: the portal would show them)."""
    from memsite.core.siteconfig import markup_problems

    name = memory.store.config_path.name
    found = markup_problems(memory.config.site)
    return [{"file": name, "kind": "config_markup", "message": m, "ids": []} for m in found]


def branch_changes(memory: Memory, commit: str) -> tuple[list[tuple[str, str]], list[str]]:
    """What the branch does besides adding files: (git's status letter, name) of the entry
    files it modified, deleted or retyped, and the settings its config change touches."""
    from memsite.core.gate import config_changes
    from memsite.storage.git import changed_since, file_at, repo_top
    from memsite.storage.layout import CONFIG_MAX_BYTES

    store = memory.store
    top = repo_top(store.entries_dir)

    def rel(path: Path) -> str:
        return os.path.relpath(path.resolve(), top).replace(os.sep, "/")

    folder, config = rel(store.entries_dir), rel(store.config_path)
    entries, settings = [], []
    for status, path in changed_since(top, commit, [folder, config]):
        if path == config:
            before = _json(file_at(top, commit, config, CONFIG_MAX_BYTES))
            after = _json(file_at(top, "HEAD", config, CONFIG_MAX_BYTES))
            settings = config_changes(before, after) or ["(formatting only)"]
        elif status != "A" and "/" not in path[len(folder) + 1 :]:
            entries.append((status, Path(path).name))
    return entries, settings


def _json(data: bytes | None) -> Any:
    import json

    try:
        return json.loads(data) if data is not None else {}
    except ValueError:
        return "(not valid JSON)"


def check(memory: Memory, base: str) -> dict[str, Any]:
    """Problems of what the branch since the merge base does to the memory (see the module's
    rules and ``core.gate``'s)."""
    from memsite.core import gate
    from memsite.core.schema import ACTIVE

    commit, names = added_files(memory, base)
    added = set(names)
    changed, settings = branch_changes(memory, commit)
    state = memory.state()
    result = state.result
    new = [e for e in result.entries if e.filename in added]
    problems = gate.changed_file_problems(changed, {e.filename: e.id for e in result.entries})
    problems += added_problems(memory, new, added)
    problems += gate.future_problems(new, memory.now())
    problems += gate.override_problems(new, result, added)
    problems += gate.retire_problems(state.scan.records, added, result)
    problems += config_problems(memory)
    problems += store_problems(memory)
    return {
        "base": commit,
        "files": len(names),
        "entries": len(new),
        "active": sum(1 for e in new if result.status[e.id] == ACTIVE),
        "added": gate.added_facts(new, result),
        "records": sum(1 for r in state.scan.records if r.filename in added),
        "config_changes": settings,
        "problems": problems,
    }


def added_problems(memory: Memory, new: list[Entry], added: set[str]) -> list[dict[str, Any]]:
    """The problems of the files the branch adds (``new``: the entries among them): malformed,
    holding a secret (each scanned alone, once), a duplicate, a fork, a possible conflict, an
    overlap with an active fact the branch did not add."""
    from memsite.core.gate import duplicate_problems, problem
    from memsite.memory.review import conflict_findings, secret_findings

    state = memory.state()
    new_ids = {e.id for e in new}
    found = [
        problem(bad.filename, "invalid_file", f"{bad.filename} {bad.message}")
        for bad in state.scan.invalid
        if bad.filename in added
    ]
    for finding in secret_findings(memory, only=new):
        if finding.kind == "secret" and finding.files[0] in added:
            found.append(problem(finding.files[0], "secret", finding.message, finding.ids))
    found += duplicate_problems(new, state.result)
    forks = [f for f in state.result.findings if f.kind == "fork" and new_ids & set(f.ids[1:])]
    conflicts = conflict_findings(memory, only=new_ids)
    for kind, findings in (("fork", forks), ("possible_conflict", conflicts)):
        for finding in findings:
            file = next(f for i, f in zip(finding.ids, finding.files, strict=True) if i in new_ids)
            found.append(problem(file, kind, finding.message, finding.ids))
    reported = {
        (a, b) if a < b else (b, a)
        for f in conflicts
        for a in f.ids
        if a in new_ids
        for b in f.ids
        if b != a
    }
    return found + overlaps(memory, new, added, reported)


def overlaps(
    memory: Memory, new: list[Entry], added: set[str], reported: set[tuple[str, str]]
) -> list[dict[str, Any]]:
    """``core.gate.overlap_problems`` of the active facts the branch adds, against the active
    facts it did not add, with the pairs relate records link (``reported``: pairs a possible
    conflict names already)."""
    from memsite.core.gate import overlap_problems
    from memsite.core.records import RELATE
    from memsite.core.schema import ACTIVE

    state = memory.state()
    result = state.result
    mine = [e for e in new if result.status[e.id] == ACTIVE]
    if not mine:
        return []
    others = [
        e for e in result.entries if result.status[e.id] == ACTIVE and e.filename not in added
    ]
    related = {
        (r.target, r.other) if r.target < r.other else (r.other, r.target)
        for r in state.scan.records
        if r.kind == RELATE and r.other is not None
    }
    return overlap_problems(mine, others, related, reported)


def store_problems(memory: Memory) -> list[dict[str, Any]]:
    """The store's own problems, whatever the branch adds: a symbolic link where memsite
    writes derived files, or derived files tracked by git (``memory.derived``)."""
    from memsite.memory import derived

    return derived.problems(derived.report(memory))
