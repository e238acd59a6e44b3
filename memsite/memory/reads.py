"""Reading the memory: one entry with its history, lists, ranked search (daily logs too, and
the facts linked to the hits). Every answer is JSON-ready (``shapes``)."""

from __future__ import annotations

import sys
from bisect import bisect_left
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from itertools import islice
from typing import TYPE_CHECKING, Any

from memsite.core.entry import Entry
from memsite.core.schema import ACTIVE, RETIRED
from memsite.core.secrets import redact
from memsite.core.validate import check_name
from memsite.errors import EntryNotFoundError, InvalidInputError
from memsite.memory import shapes
from memsite.memory.anchors import standings
from memsite.memory.shapes import entry_json
from memsite.storage.daily import daily_logs, log_lines

if TYPE_CHECKING:
    from memsite.core import ranking
    from memsite.core.compaction import Compaction
    from memsite.core.standing import Standing
    from memsite.memory import Memory
    from memsite.storage.readmodel import Row

QUERY_MAX = 1000
CANDIDATES = 200  # entries FTS5 hands to the ranking
NEAR_TAGS = 10  # existing tags named when a tag filter matches no entry
# A hit's sort key: score, created, confidence, id, file, and the daily line (negated).
SortKey = tuple[float, float, int, str, str, int]


def compact_component(memory: Memory, entry_id: str) -> Compaction:
    """Compaction of the entries linked to ``entry_id``: a status depends only on them (see
    ``storage.readmodel``), so this is what a full compaction gives them."""
    from memsite.core.compaction import compact

    index = memory.index()
    linked = index.entries.component(entry_id)
    return compact(linked, (), index.records.retired([e.id for e in linked]), report=False)


def resolve(memory: Memory, ref: str) -> Entry:
    """An entry by full id or unique prefix of at least 4 hex characters."""
    index = memory.index()
    entry = index.entries.by_id(index.entries.match_id(ref))
    if entry is None:  # removed meanwhile
        raise EntryNotFoundError(f"no entry with id {ref!r}: it was removed meanwhile")
    return entry


def read(memory: Memory, ref: str) -> dict[str, Any]:
    """One entry with ``status``, ``superseded_by``, its whole ``chain`` and its standing."""
    from memsite.core.records import first_retirements

    entry = memory.resolve(ref)
    result = compact_component(memory, entry.id)
    index = memory.index()
    records = index.records.about([entry.id]) if index.records.any() else []
    standing = standings(memory, [entry], records)[entry.id]
    extra: dict[str, Any] = standing.fields()
    if standing.anchors:
        extra["anchors"] = standing.anchor_report()
    if standing.verified:
        extra["verifications"] = shapes.verifications(standing.verified)
    if standing.links:
        extra["links"] = _links_shown(memory, standing.links)
    retirement = first_retirements(records).get(entry.id)
    if result.status[entry.id] == RETIRED and retirement is not None:
        extra["retired"] = shapes.retirement(retirement)
    chain = [
        {
            "id": e.id,
            "created": e.raw["created"],
            "status": result.status[e.id],
            "content": shapes.content_of(e),
        }
        for e in result.chain(entry.id)
    ]
    return entry_json(
        entry,
        status=shapes.shown_status(result.status[entry.id], extra),
        superseded_by=list(result.superseded_by.get(entry.id, [])),
        chain=chain,
        file=entry.filename,
        **extra,
        **_trust_fields(memory, [entry])[entry.id],
    )


def _trust_fields(
    memory: Memory, entries: Iterable[Entry], with_provenance: bool = True
) -> dict[str, dict[str, Any]]:
    """``provenance`` (unless not wanted) and ``trust`` (and ``held_back``) of each entry
    (``memory.trust``)."""
    from memsite.memory.trust import fields_of

    return fields_of(memory, [(e.id, e.filename) for e in entries], with_provenance)


def _links_shown(memory: Memory, links: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Links with the other fact's text and status (a fact not in this checkout has none)."""
    index = memory.index()
    ids = {link["id"] for link in links}
    others = {e.id: e for e in index.entries.with_ids(ids)}
    statuses = index.entries.statuses_of(ids)
    return [shapes.linked(link, others.get(link["id"]), statuses.get(link["id"])) for link in links]


def _check_filters(memory: Memory, category: str | None, tag: str | None = None) -> str | None:
    """The filters checked: a category is the config's or one entries are in (else the same
    refusal as `add`'s, so that a typo is not answered with "No entries."); the tag, lower
    case (whether any entry has it is asked only when nothing matched: ``_check_tag``)."""
    if category is not None:
        check_name("category", category)
        known = dict.fromkeys([*memory.config.categories, *memory.index().entries.categories()])
        if category not in known:
            raise InvalidInputError(
                f"unknown category {category[:80]!r}: use one of {', '.join(known)}"
            )
    return check_name("tag", tag.lower()) if tag is not None else None


def _check_tag(memory: Memory, tag: str) -> None:
    """Refuse a tag no entry of any status has, naming the existing tags nearest it in
    alphabetical order (a typo keeps its first letters). An empty store has no tags to
    mistype: nothing is refused there, "No entries." is the whole truth."""
    entries = memory.index().entries.all()
    tags = sorted({t for e in entries for t in e.tags})
    if not entries or tag in tags:
        return
    at = bisect_left(tags, tag)
    near = tags[max(0, min(at - NEAR_TAGS // 2, len(tags) - NEAR_TAGS)) :][:NEAR_TAGS]
    hint = f"tags near it: {', '.join(near)}" if near else "no entry has any tag yet"
    raise InvalidInputError(f"no entry has the tag {tag[:80]!r}: {hint}")


def list_entries(
    memory: Memory,
    category: str | None = None,
    tag: str | None = None,
    include_all: bool = False,
    limit: int | None = None,
) -> list[dict[str, Any]]:
    """Active entries (``include_all``: every status, with ``status``), newest first."""
    tag = _check_filters(memory, category, tag)
    wanted = None if limit is None else min(max(limit, 0), sys.maxsize)  # islice's bounds
    if include_all:
        result = memory.state().result
        pool: Iterable[Entry] = (
            e for e in result.entries if category is None or e.category == category
        )
    else:  # read in order from the index, only as far as the limit needs
        pool = (row.entry() for row in memory.index().entries.active_in_order(category))
    chosen = list(islice((e for e in pool if tag is None or tag in e.tags), wanted))
    if tag is not None and not chosen:
        _check_tag(memory, tag)
    found = _standing_fields(memory, chosen)
    if include_all:
        status = result.status
        return [
            entry_json(e, status=shapes.shown_status(status[e.id], found[e.id]), **found[e.id])
            for e in chosen
        ]
    return [entry_json(e, **found[e.id]) for e in chosen]


def _standing_fields(memory: Memory, entries: list[Entry]) -> dict[str, dict[str, Any]]:
    """drifted / stale / verified for each entry, where they apply (see ``core.standing``),
    and where it came from and its trust (``memory.trust``)."""
    found = standings(memory, entries)
    trust = _trust_fields(memory, entries)
    return {entry_id: {**known.fields(), **trust[entry_id]} for entry_id, known in found.items()}


def check_query(memory: Memory, query: str, category: str | None) -> None:
    if not query.strip():
        raise InvalidInputError("search query is empty: give words to look for")
    if len(query) > QUERY_MAX:
        raise InvalidInputError(f"search query is over {QUERY_MAX} characters: shorten it")
    _check_filters(memory, category)


def exact(
    memory: Memory, query: str, category: str | None, include_all: bool, daily: bool
) -> list[tuple[SortKey, dict[str, Any] | Row]]:
    """The lexical ranking (``core.ranking`` over the index's candidates; ``daily``: the
    daily logs' lines too), best first."""
    plan, scored = _ranked(memory, query, category, include_all)
    if daily:
        scored += _daily_hits(memory, plan)
    scored.sort(key=lambda pair: pair[0], reverse=True)
    return scored


def shape_hits(
    memory: Memory,
    chosen: list[tuple[float, dict[str, Any] | Row, dict[str, Any]]],
    include_all: bool,
    expand: bool,
    with_provenance: bool = True,
) -> list[dict[str, Any]]:
    """The hits as search answers them: (score, hit, extra fields) each, in rank order; with
    ``expand`` the facts linked to them follow, each with ``via``; ``provenance`` only
    ``with_provenance``."""
    entries = {hit.id: hit.entry() for _, hit, _ in chosen if not isinstance(hit, dict)}
    standing = standings(memory, list(entries.values()))  # the flags, and links for --expand
    trust = _trust_fields(memory, entries.values(), with_provenance)
    flags = {
        entry_id: {**known.fields(), **trust[entry_id]} for entry_id, known in standing.items()
    }
    out: list[dict[str, Any]] = []
    for score, hit, extra in chosen:
        if isinstance(hit, dict):
            out.append({**hit, "score": score, **extra})
        elif include_all:
            entry = entries[hit.id]
            status = shapes.shown_status(hit.status, flags[hit.id])
            out.append(entry_json(entry, score=score, status=status, **flags[hit.id], **extra))
        else:
            out.append(entry_json(entries[hit.id], score=score, **flags[hit.id], **extra))
    if expand:
        out += _linked(memory, list(entries), standing, include_all)
    return out


def _ranked(
    memory: Memory, query: str, category: str | None, include_all: bool
) -> tuple[list[ranking.Term], list[tuple[SortKey, dict[str, Any] | Row]]]:
    """The query's plan, and the index's candidates that score, with their sort keys."""
    from memsite.core import ranking

    index = memory.index()
    plan = ranking.plan(
        query,
        index.search.document_frequency,
        index.search.words_near,
        index.search.terms_with_prefix,
    )
    found = index.search.candidates(
        [list(t.alternatives) for t in plan],
        category=category,
        include_all=include_all,
        limit=CANDIDATES,
    )
    stats = ranking.Stats(
        index.entries.count(),
        index.search.average_length(),
        index.search.document_frequency({a for t in plan for a in t.alternatives}),
    )
    today = memory.now().timestamp()
    scored: list[tuple[SortKey, dict[str, Any] | Row]] = []
    for candidate in found:
        row = candidate.row
        age = (today - row.created) / 86400
        value = ranking.score(plan, candidate.body.split(), candidate.meta.split(), stats, age)
        if value > 0:
            scored.append(
                ((round(value, 6), row.created, row.confidence, row.id, row.file, 0), row)
            )
    return plan, scored


def _daily_hits(
    memory: Memory, plan: list[ranking.Term]
) -> list[tuple[SortKey, dict[str, Any] | Row]]:
    """The daily logs' lines that the query's plan scores (entry statistics: the index's)."""
    from memsite.core import ranking
    from memsite.core.stem import terms as analyze

    index = memory.index()
    stats = ranking.Stats(
        index.entries.count(),
        index.search.average_length(),
        index.search.document_frequency({a for t in plan for a in t.alternatives}),
    )
    today = memory.now().timestamp()
    hits: list[tuple[SortKey, dict[str, Any] | Row]] = []
    for file, number, text, created in _daily_lines(memory):
        value = ranking.score(plan, analyze(text), (), stats, (today - created) / 86400)
        if value > 0:
            line = {"source": "daily", "file": file, "line": number, "text": redact(text)}
            hits.append(((round(value, 6), created, 0, "", file, -number), line))
    return hits


def _linked(
    memory: Memory, hits: list[str], found: dict[str, Standing], include_all: bool
) -> list[dict[str, Any]]:
    """The facts linked to ``hits`` (either way; ``found``: their standings) that are not hits
    themselves, each with ``via``: the hit it was reached from and the link's type and
    direction."""
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
    others = {e.id: e for e in index.entries.with_ids(set(reached))}
    statuses = index.entries.statuses_of(others)
    shown = [i for i in reached if i in others and (include_all or statuses.get(i) == ACTIVE)]
    extra = _standing_fields(memory, [others[i] for i in shown])
    out = []
    for other in shown:
        fields: dict[str, Any] = {"via": reached[other], **extra[other]}
        if include_all:
            fields["status"] = shapes.shown_status(statuses.get(other), extra[other])
        out.append(entry_json(others[other], **fields))
    return out


def _daily_lines(memory: Memory) -> Iterator[tuple[str, int, str, float]]:
    for day, path in daily_logs(memory.store):
        created = datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp()
        for number, line in enumerate(log_lines(path), 1):
            if line.startswith("- "):
                yield f"daily/{path.name}", number, line[2:], created
