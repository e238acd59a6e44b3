"""Reading the memory: one entry with its history, lists, ranked search, the agents' index.

Every answer is JSON-ready: an entry is its on-disk object with suspected secrets redacted in
every string (unknown keys too), plus the fields the operation adds.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from itertools import islice
from typing import TYPE_CHECKING, Any

from memsite.core.entry import Entry, check_name
from memsite.core.secrets import redact, redact_object
from memsite.errors import InvalidInputError
from memsite.storage.daily import daily_logs, log_lines

if TYPE_CHECKING:
    from memsite.memory import Memory
    from memsite.storage.index import Row

QUERY_MAX = 1000


def entry_json(entry: Entry, **extra: Any) -> dict[str, Any]:
    """The on-disk object for output, with suspected secrets redacted (unless allowed)."""
    shown = redact_object(entry.raw) if entry.is_suspect() else dict(entry.raw)
    return {**shown, **extra}


def read(memory: Memory, ref: str) -> dict[str, Any]:
    from memsite.core.compaction import compact

    entry = memory.resolve(ref)
    # A status depends only on the entries linked to it (see storage.index): compacting them
    # alone gives what a full compaction would.
    result = compact(memory.index().component_entries(entry.id), ())
    return entry_json(
        entry,
        status=result.status[entry.id],
        superseded_by=list(result.superseded_by.get(entry.id, [])),
        chain=[
            {
                "id": e.id,
                "created": e.raw["created"],
                "status": result.status[e.id],
                "content": entry_json(e)["content"],
            }
            for e in result.chain(entry.id)
        ],
        file=entry.filename,
    )


def _check_filters(category: str | None, tag: str | None = None) -> str | None:
    if category is not None:
        check_name("category", category)
    return check_name("tag", tag.lower()) if tag is not None else None


def list_entries(
    memory: Memory,
    category: str | None = None,
    tag: str | None = None,
    include_all: bool = False,
    limit: int | None = None,
) -> list[dict[str, Any]]:
    tag = _check_filters(category, tag)
    wanted = None if limit is None else max(limit, 0)
    if include_all:
        result = memory.state().result
        pool: Iterable[Entry] = (
            e for e in result.entries if category is None or e.category == category
        )
    else:  # read in order from the index, only as far as the limit needs
        pool = (row.entry() for row in memory.index().active_in_order(category))
    chosen = list(islice((e for e in pool if tag is None or tag in e.tags), wanted))
    if include_all:
        return [entry_json(e, status=result.status[e.id]) for e in chosen]
    return [entry_json(e) for e in chosen]


CANDIDATES = 200  # entries FTS5 hands to the ranking


def search(
    memory: Memory,
    query: str,
    category: str | None = None,
    limit: int = 20,
    include_all: bool = False,
    daily: bool = False,
) -> list[dict[str, Any]]:
    from memsite.core import ranking
    from memsite.core.stem import terms as analyze

    if not query.strip():
        raise InvalidInputError("search query is empty: give words to look for")
    if len(query) > QUERY_MAX:
        raise InvalidInputError(f"search query is over {QUERY_MAX} characters: shorten it")
    _check_filters(category)
    index = memory.index()
    plan = ranking.plan(query, index.document_frequency, index.words_near, index.terms_with_prefix)
    found = index.candidates(
        [list(t.alternatives) for t in plan],
        category=category,
        include_all=include_all,
        limit=CANDIDATES,
    )
    stats = ranking.Stats(
        index.entry_count(),
        index.average_length(),
        index.document_frequency({a for t in plan for a in t.alternatives}),
    )
    today = memory.now().timestamp()
    scored: list[tuple[tuple[float, float, int, str, str, int], dict[str, Any] | Row]] = []
    for candidate in found:
        row = candidate.row
        value = ranking.score(
            plan,
            candidate.body.split(),
            candidate.meta.split(),
            stats,
            (today - row.created) / 86400,
        )
        if value > 0:
            scored.append(
                ((round(value, 6), row.created, row.confidence, row.id, row.file, 0), row)
            )
    if daily:
        for file, number, text, created in _daily_lines(memory):
            value = ranking.score(plan, analyze(text), (), stats, (today - created) / 86400)
            if value > 0:
                line = {"source": "daily", "file": file, "line": number, "text": redact(text)}
                scored.append(((round(value, 6), created, 0, "", file, -number), line))
    scored.sort(key=lambda pair: pair[0], reverse=True)
    out: list[dict[str, Any]] = []
    for key, hit in scored[: max(limit, 0)]:
        if isinstance(hit, dict):
            out.append({**hit, "score": key[0]})
        elif include_all:
            out.append(entry_json(hit.entry(), score=key[0], status=hit.status))
        else:
            out.append(entry_json(hit.entry(), score=key[0]))
    return out


def _daily_lines(memory: Memory) -> Iterator[tuple[str, int, str, float]]:
    for day, path in daily_logs(memory.store):
        created = datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp()
        for number, line in enumerate(log_lines(path), 1):
            if line.startswith("- "):
                yield f"daily/{path.name}", number, line[2:], created
