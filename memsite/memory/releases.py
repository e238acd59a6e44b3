"""The memory at each release (``build --releases``, ``site.releases``): the facts active at
each tag matching a pattern, oldest first, and what changed since the release before it.

Each tag's entry files are read from git as ``--as-of TAG`` reads them, but without writing
them out: one ``git ls-tree`` per tag, then every blob of every tag in one ``git cat-file
--batch``, each parsed once (releases share most files), and compacted by the same rules
without a read model (a release needs statuses only). Texts are redacted as every output is.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memsite.core.entry import Entry
from memsite.core.records import Record
from memsite.core.schema import ACTIVE, RETIRED
from memsite.errors import InvalidInputError

if TYPE_CHECKING:
    from memsite.memory import Memory

PATTERN_MAX = 200


def releases(memory: Memory, pattern: str) -> list[dict[str, Any]]:
    """Each release: ``tag``, ``commit``, ``date``, ``active`` (facts: id, category, content,
    created), and since the release before it ``added``, ``replaced``, ``retired`` and
    ``removed`` (ids; a fact replaced names its successors in ``by``)."""
    from memsite.errors import GitError
    from memsite.storage import git

    _check(pattern)
    try:
        top = git.repo_top(memory.store.project_root)
    except GitError:
        raise InvalidInputError(
            "releases are git tags: this store is not in a git work tree (leave out --releases "
            "and site.releases)"
        ) from None
    out: list[dict[str, Any]] = []
    before: set[str] = set()  # the previous release's active facts
    redacted: dict[str, str] = {}  # text → as shown: releases share most facts
    for tag, commit, date, (result, successors) in _states(memory, top, pattern):
        active = [e for e in result.entries if result.status[e.id] == ACTIVE]
        now = {e.id for e in active}
        gone = [i for i in sorted(before) if i not in now]
        out.append(
            {
                "tag": tag,
                "commit": commit,
                "date": date,
                "active": [_fact(e, redacted) for e in active],
                "added": [e.id for e in active if e.id not in before],
                "replaced": [{"id": i, "by": successors[i]} for i in gone if successors.get(i)],
                "retired": [i for i in gone if result.status.get(i) == RETIRED],
                "removed": [i for i in gone if i not in result.status],
            }
        )
        before = now
    return out


def _check(pattern: str) -> None:
    bad = not pattern or len(pattern) > PATTERN_MAX or pattern.startswith("-")
    if bad or any(ord(c) < 32 for c in pattern):
        raise InvalidInputError(
            f"invalid releases pattern {pattern[:80]!r}: give a tag glob such as 'v*'"
        )
    fnmatch.translate(pattern)  # any text is a glob; git matches it as one too


def _states(memory: Memory, top: Path, pattern: str) -> Iterator[tuple[str, str, str, Any]]:
    """(tag, commit, date, (compaction, successors)) of each tag that holds the memory."""
    from memsite.core.compaction import compact
    from memsite.memory.asof import tree_paths
    from memsite.storage import git

    store = memory.store
    folder, config = tree_paths(store, top)
    folder += "/"
    tags = [
        (t, c, d, git.tree_files(top, c, [folder, config]))
        for t, c, d in git.tags_matching(top, pattern)
    ]
    limit = store.max_entry_bytes
    wanted = {
        f.blob
        for *_, files in tags
        for f in files
        if f.mode in (git.REGULAR, git.EXECUTABLE) and f.size <= limit
    }
    blobs = git.blobs(top, wanted)
    parsed: dict[tuple[str, str], Any] = {}
    for tag, commit, date, files in tags:
        entries: list[Entry] = []
        records: list[Record] = []
        for item in files:
            name = item.path.rsplit("/", 1)[-1]
            if item.path == config or item.blob not in blobs or not name.endswith(".json"):
                continue
            key = (name, item.blob)
            if key not in parsed:
                parsed[key] = _parsed(blobs[item.blob], name, limit)
            found = parsed[key]
            if isinstance(found, Record):
                records.append(found)
            elif found is not None:
                entries.append(found)
        if not entries and not records:
            continue  # a tag from before the memory existed
        categories = _categories(memory, [f for f in files if f.path == config], blobs)
        retired = {r.target for r in records if r.kind == "retire"}
        result = compact(entries, categories, retired, report=False)
        yield tag, commit, date, (result, {i: list(b) for i, b in result.superseded_by.items()})


def _parsed(data: bytes, name: str, limit: int) -> Any:
    """The entry or record a file's bytes hold (None: an invalid file, left out as a
    checkout's reader leaves it out)."""
    from memsite.storage.entries import parse_item

    found, _ = parse_item(data, name, limit)
    return found


def _categories(memory: Memory, config: list[Any], blobs: dict[str, bytes]) -> Any:
    """The categories of the config at the tag (the defaults when it has none, or an
    unreadable one: the release is shown, not refused)."""
    from memsite.core.config import Config, parse_config_text
    from memsite.errors import ConfigError
    from memsite.storage.git import LINK

    for item in config:
        if item.blob in blobs and item.mode != LINK:
            text = blobs[item.blob].decode("utf-8", errors="replace")
            try:
                return parse_config_text(
                    text, "config.json", foreign=memory.store.leanspec
                ).categories
            except ConfigError:
                break
    return Config().categories


def _fact(entry: Any, redacted: dict[str, str]) -> dict[str, Any]:
    from memsite.core.secrets import redact

    if entry.content not in redacted:
        redacted[entry.content] = redact(entry.content)
    return {
        "id": entry.id,
        "category": entry.category,
        "content": redacted[entry.content],
        "created": entry.raw.get("created"),
    }
