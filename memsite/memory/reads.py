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
    from memsite.memory.claims import Standing
    from memsite.storage.index import Row

QUERY_MAX = 1000


def entry_json(entry: Entry, **extra: Any) -> dict[str, Any]:
    """The on-disk object for output, with suspected secrets redacted (unless allowed)."""
    shown = redact_object(entry.raw) if entry.is_suspect() else dict(entry.raw)
    return {**shown, **extra}


def read(memory: Memory, ref: str) -> dict[str, Any]:
    from memsite.core.records import first_retirements
    from memsite.memory.claims import compact_component, standings

    entry = memory.resolve(ref)
    # A status depends only on the entries linked to it (see storage.index): compacting them
    # alone gives what a full compaction would.
    result = compact_component(memory, entry.id)
    index = memory.index()
    records = index.records_about([entry.id]) if index.has_records() else []
    standing = standings(memory, [entry], records)[entry.id]
    extra: dict[str, Any] = standing.fields()
    if standing.anchors:
        extra["anchors"] = standing.anchor_report()
    if standing.verified:
        extra["verifications"] = [
            {"id": r.id, "created": r.raw["created"], "evidence": redact(r.text or "") or None}
            for r in standing.verified
        ]
    if standing.links:
        extra["links"] = [
            {**link, "reason": redact(link["reason"]) if link["reason"] else None}
            for link in _with_content(memory, standing.links)
        ]
    retirement = first_retirements(records).get(entry.id)
    if result.status[entry.id] == "retired" and retirement is not None:
        extra["retired"] = {
            "created": retirement.raw["created"],
            "reason": redact(retirement.text or ""),
        }
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
        **extra,
    )


def _with_content(memory: Memory, links: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Links with the other fact's text and status (a fact not in this checkout has none)."""
    index = memory.index()
    ids = {link["id"] for link in links}
    others = {e.id: e for e in index.entries_with_ids(ids)}
    statuses = index.statuses_of(ids)
    shown = []
    for link in links:
        other = others.get(link["id"])
        if other is None:
            shown.append({**link, "content": None, "status": None})
        else:
            content = entry_json(other)["content"]
            shown.append({**link, "content": content, "status": statuses.get(other.id)})
    return shown


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
    found = _standing_fields(memory, chosen)
    if include_all:
        return [entry_json(e, status=result.status[e.id], **found[e.id]) for e in chosen]
    return [entry_json(e, **found[e.id]) for e in chosen]


def _standing_fields(memory: Memory, entries: list[Entry]) -> dict[str, dict[str, Any]]:
    """drifted / stale / verified for each entry, where they apply (see ``claims``)."""
    from memsite.memory.claims import standings

    found = standings(memory, entries)
    return {entry_id: standing.fields() for entry_id, standing in found.items()}


CANDIDATES = 200  # entries FTS5 hands to the ranking


def search(
    memory: Memory,
    query: str,
    category: str | None = None,
    limit: int = 20,
    include_all: bool = False,
    daily: bool = False,
    expand: bool = False,
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
    chosen = scored[: max(limit, 0)]
    from memsite.memory.claims import standings

    entries = {hit.id: hit.entry() for _, hit in chosen if not isinstance(hit, dict)}
    standing = standings(memory, list(entries.values()))  # the flags, and links for --expand
    flags = {entry_id: known.fields() for entry_id, known in standing.items()}
    out: list[dict[str, Any]] = []
    for key, hit in chosen:
        if isinstance(hit, dict):
            out.append({**hit, "score": key[0]})
        elif include_all:
            entry = entries[hit.id]
            out.append(entry_json(entry, score=key[0], status=hit.status, **flags[hit.id]))
        else:
            out.append(entry_json(entries[hit.id], score=key[0], **flags[hit.id]))
    if expand:
        out += _linked(memory, list(entries), standing, include_all)
    return out


def _linked(
    memory: Memory, hits: list[str], found: dict[str, Standing], include_all: bool
) -> list[dict[str, Any]]:
    """The facts linked to ``hits`` (either way; ``found``: their standings) that are not hits
    themselves, each with ``via``: the hit it was reached from and the link's type and
    direction."""
    from memsite.core.compaction import ACTIVE

    index = memory.index()
    reached: dict[str, dict[str, Any]] = {}
    for hit in hits:  # in rank order: a fact reached twice keeps its best hit
        for link in found[hit].links:
            if link["id"] not in hits and link["id"] not in reached:
                reached[link["id"]] = {
                    "id": hit,
                    "type": link["type"],
                    "direction": link["direction"],
                }
    if not reached:
        return []
    others = {e.id: e for e in index.entries_with_ids(set(reached))}
    statuses = index.statuses_of(others)
    shown = [i for i in reached if i in others and (include_all or statuses.get(i) == ACTIVE)]
    extra = _standing_fields(memory, [others[i] for i in shown])
    out = []
    for other in shown:
        fields: dict[str, Any] = {"via": reached[other], **extra[other]}
        if include_all:
            fields["status"] = statuses.get(other)
        out.append(entry_json(others[other], **fields))
    return out


def _daily_lines(memory: Memory) -> Iterator[tuple[str, int, str, float]]:
    for day, path in daily_logs(memory.store):
        created = datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp()
        for number, line in enumerate(log_lines(path), 1):
            if line.startswith("- "):
                yield f"daily/{path.name}", number, line[2:], created
