"""Reading the memory: one entry with its history, lists, ranked search, the agents' index.

Every answer is JSON-ready: an entry is its on-disk object with suspected secrets redacted in
every string (unknown keys too), plus the fields the operation adds.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from memsite.core.entry import Entry, check_name
from memsite.core.secrets import redact, redact_object
from memsite.core.text import normalize, word_tokens
from memsite.errors import InvalidInputError
from memsite.storage.daily import daily_logs, log_lines
from memsite.storage.entries import read_entry

if TYPE_CHECKING:
    from memsite.core.ranking import Corpus
    from memsite.memory import Memory

QUERY_MAX = 1000


def entry_json(entry: Entry, **extra: Any) -> dict[str, Any]:
    """The on-disk object for output, with suspected secrets redacted (unless allowed)."""
    shown = redact_object(entry.raw) if entry.is_suspect() else dict(entry.raw)
    return {**shown, **extra}


def read(memory: Memory, ref: str) -> dict[str, Any]:
    entry = memory.resolve(ref)
    result = memory.state().result
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
    result = memory.state().result
    tag = _check_filters(category, tag)
    chosen = [
        e
        for e in (result.entries if include_all else result.active())
        if (category is None or e.category == category) and (tag is None or tag in e.tags)
    ]
    if limit is not None:
        chosen = chosen[: max(limit, 0)]
    if include_all:
        return [entry_json(e, status=result.status[e.id]) for e in chosen]
    return [entry_json(e) for e in chosen]


def search(
    memory: Memory,
    query: str,
    category: str | None = None,
    limit: int = 20,
    include_all: bool = False,
    daily: bool = False,
) -> list[dict[str, Any]]:
    from memsite.core.ranking import entry_corpus, rank

    if not query.strip():
        raise InvalidInputError("search query is empty: give words to look for")
    if len(query) > QUERY_MAX:
        raise InvalidInputError(f"search query is over {QUERY_MAX} characters: shorten it")
    _check_filters(category)
    if include_all:
        pool = memory.state().result.entries
        corpus = entry_corpus(e for e in pool if category is None or e.category == category)
    else:
        corpus = memory.snapshot().corpus(category)
    if daily:
        _add_daily_lines(memory, corpus)
    out: list[dict[str, Any]] = []
    for hit in rank(corpus, query, memory.now(), limit=max(limit, 0)):
        if not hit.ref:
            text = redact(hit.text)
            out.append(
                {
                    "source": "daily",
                    "file": hit.file,
                    "line": hit.line,
                    "text": text,
                    "score": hit.score,
                }
            )
            continue
        entry = _load_hit(memory, hit.ref, hit.file)
        if entry is None:
            continue  # removed or broken since the snapshot was taken
        if include_all:
            status = memory.state().result.status[entry.id]
            out.append(entry_json(entry, score=hit.score, status=status))
        else:
            out.append(entry_json(entry, score=hit.score))
    return out


def _load_hit(memory: Memory, ref: str, filename: str) -> Entry | None:
    state = memory.model.loaded()
    if state is not None:
        return state.result.by_id.get(ref)
    return read_entry(memory.store, filename)


def _add_daily_lines(memory: Memory, corpus: Corpus) -> None:
    for day, path in daily_logs(memory.store):
        created = datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp()
        for number, line in enumerate(log_lines(path), 1):
            if line.startswith("- "):
                tokens = word_tokens(normalize(line[2:]))
                corpus.add(tokens, created, file=f"daily/{path.name}", line=number, text=line[2:])
