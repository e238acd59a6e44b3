"""The portal's view of the memory, derived from what the memory gives it: redacted entry
views, categories and tags, history links, findings, each fact's claims. Pure.

Redaction happens here and only here: :func:`build_portal` passes every entry-derived string
(content, category, tags, key, agent, reason, unknown keys, finding messages, the
evidence, reasons and anchor paths of records and claims, and the names of the authors of
the commits that added the entry files) through
:func:`memsite.core.secrets.redact` once (through the cache's redactor), and every page, JSON
file, search index and raw file of the portal is made from the result. Statuses come from
the compaction of the original entries, so redaction never changes which entry wins.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from memsite.core.compaction import Compaction
from memsite.core.entry import Entry
from memsite.core.markdown import category_title
from memsite.core.review import Finding
from memsite.core.secrets import redact
from memsite.core.text import printable
from memsite.portal.cache import PortalCache
from memsite.portal.model import (
    CategoryView,
    EntryView,
    FindingView,
    JsonSource,
    Portal,
    SessionView,
    TagView,
    slug,
)
from memsite.portal.releases import release_views
from memsite.portal.standing import FactClaims, redact_all
from memsite.portal.text import safe_title
from memsite.portal.trust import Origin, redact_origins


def secret_ids(findings: Iterable[Finding]) -> set[str]:
    """Entries whose full (detect-secrets) scan found something: redact them with it too."""
    return {i for f in findings if f.kind == "secret" for i in f.ids}


def full_scan_changes(
    cache: PortalCache, entries: Iterable[Entry], findings: Iterable[Finding]
) -> bool:
    """Would the full scan redact any entry of ``findings``' secrets differently from the quick
    one? Usually not: the quick scan lets through everything the full one confirms."""
    full = secret_ids(findings)
    return any(
        cache.redacted(e, True)[1] != cache.redacted(e, False)[1] for e in entries if e.id in full
    )


def _groups(
    views: Sequence[EntryView], names: Iterable[str], configured: set[str], titles: dict[str, str]
) -> tuple[list[CategoryView], list[TagView]]:
    """Category and tag pages' data: their entries split into active and inactive."""
    categories: dict[str, CategoryView] = {}
    for name in names:
        title = titles.get(name) or safe_title(category_title(name) or name)
        categories[name] = CategoryView(name, slug(name), title, name in configured)
    tags: dict[str, TagView] = {}
    for view in views:
        cat = categories.setdefault(
            view.category,
            CategoryView(view.category, view.category_slug, view.category_title, False),
        )
        (cat.active if view.active else cat.inactive).append(view)
        for tag in view.tags:
            tag_view = tags.setdefault(tag.name, TagView(tag.name, tag.slug))
            (tag_view.active if view.active else tag_view.inactive).append(view)
    return list(categories.values()), sorted(tags.values(), key=lambda t: t.name)


def build_portal(
    result: Compaction,
    site: Mapping[str, Any],
    weights: Mapping[str, float],
    index_md: str,
    cache: PortalCache | None = None,
    *,
    findings: Sequence[Finding] = (),
    sessions: Sequence[tuple[str, Sequence[tuple[str, Sequence[str]]]]] = (),
    claims: Mapping[str, FactClaims] | None = None,
    file_links: Mapping[str, str] | None = None,
    origins: Mapping[str, Origin] | None = None,
) -> Portal:
    """Redact the compaction result once and derive every view the pages need.

    ``index_md`` is index.md as the memory gives it to agents (the home page and
    ``/index.md`` show exactly that). ``findings`` are the review's: entries whose full
    secret scan found something are redacted with the full scan, and the review page shows
    them. ``sessions`` are the daily logs shared in git (name, [(day, lines)]), newest
    session first; their lines are redacted with the full scan (a log is free text) and
    stripped of control characters. ``claims`` are the facts' standings and ``origins``
    where they came from and whether the trust gate holds them back (``portal.trust``),
    both only for facts with something to show, redacted here (the authors' names too).
    ``file_links`` are the entry files' links on the repository host, by file name; a file
    whose name redaction changes gets none (it would show the unredacted name).
    """
    cache = cache or PortalCache()
    full = secret_ids(findings)
    keyed = [cache.redacted(e, e.id in full) for e in result.entries]
    safe_categories = list(dict.fromkeys(cache.redactor.text(c) for c in result.categories))
    safe_claims = redact_all(claims or {}, cache.redactor.text)
    safe_origins = redact_origins(origins or {}, cache.redactor.text)
    views, json_sources = _entry_views(result, keyed, cache, safe_claims, safe_origins)
    categories, tags = _groups(views, safe_categories, set(weights), cache.titles)
    cache.keep_only({k for k, _ in keyed})
    description = site.get("site_description")
    portal = Portal(
        site_name=str(site.get("site_name") or "Project memory"),
        description=str(description) if description else None,
        entries=views,
        by_id={v.id: v for v in views},
        categories=categories,
        tags=tags,
        index_md=index_md,
        json_sources=json_sources,
        edges=dict(result.edges),
        superseded_by=dict(result.superseded_by),
        winner=dict(result.winner),
        losers=_losers(result),
        claims=safe_claims,
        file_links=_linked(views, result.entries, file_links or {}),
        origins=safe_origins,
        sessions=_session_views(sessions, cache),
    )
    return with_findings(portal, findings)


def _entry_views(
    result: Compaction,
    keyed: Sequence[tuple[tuple[Any, ...], Entry]],
    cache: PortalCache,
    claims: Mapping[str, FactClaims],
    origins: Mapping[str, Origin],
) -> tuple[list[EntryView], dict[str, JsonSource]]:
    """Each redacted entry's view and what its JSON file is made from."""
    held = {i: o.held for i, o in origins.items() if o.held}
    status, edges, successors = result.status, result.edges, result.superseded_by
    views = [
        cache.view(k, e, status[e.id], edges.get(e.id, ()), claims.get(e.id), held.get(e.id))
        for k, e in keyed
    ]
    json_sources = {
        e.id: cache.json_source(
            k, e, status[e.id], successors.get(e.id, ()), held.get(e.id), _flags(claims, e.id)
        )
        for k, e in keyed
    }
    return views, json_sources


def _flags(claims: Mapping[str, FactClaims], entry_id: str) -> tuple[tuple[str, bool], ...]:
    found = claims.get(entry_id)
    return found.flags if found is not None else ()


def _losers(result: Compaction) -> dict[str, list[str]]:
    """Each winner of a duplicate or a contradiction → the entries it won over."""
    losers: dict[str, list[str]] = defaultdict(list)
    for loser in result.entries:
        if loser.id in result.winner:
            losers[result.winner[loser.id]].append(loser.id)
    return dict(losers)


def _linked(
    views: Sequence[EntryView], entries: Sequence[Entry], links: Mapping[str, str]
) -> dict[str, str]:
    """Entry id → its file's link; none for a file whose name redaction changed."""
    return {
        v.id: links[v.filename]
        for v, original in zip(views, entries, strict=True)
        if v.filename in links and v.filename == original.filename
    }


def _session_views(
    sessions: Sequence[tuple[str, Sequence[tuple[str, Sequence[str]]]]], cache: PortalCache
) -> list[SessionView]:
    """The sessions' logs as the timeline shows them: lines redacted with the full scan (a
    log is free text) and stripped of control characters."""
    return [
        SessionView(
            name,
            tuple(day for day, _ in logs),
            tuple(
                printable(cache.redactor.text(line, full=True))
                for _, lines in logs
                for line in lines
                if line.startswith("- ")
            ),
        )
        for name, logs in sessions
    ]


def finding_views(findings: Iterable[Finding], portal: Portal) -> list[FindingView]:
    """Review findings for the portal, their messages redacted, their entries as views."""
    return [
        FindingView(
            kind=f.kind,
            message=redact(f.message),
            entries=tuple(portal.by_id[i] for i in dict.fromkeys(f.ids) if i in portal.by_id),
            files=tuple(redact(name) for name in f.files),
        )
        for f in findings
    ]


def with_releases(
    portal: Portal, releases: Sequence[Mapping[str, Any]], cache: PortalCache
) -> Portal:
    """The same portal showing the memory at each release (``memory.releases``, oldest
    first; a new object): the texts of facts gone since are redacted here too."""
    if not releases:
        return portal
    order = [c.slug for c in portal.categories]
    shown, active_in = release_views(releases, portal.by_id, order, cache.redactor.text)
    return dataclasses.replace(portal, releases=shown, active_in=active_in)


def with_findings(portal: Portal, findings: Iterable[Finding]) -> Portal:
    """The same portal showing ``findings`` on its review page (a new object)."""
    return dataclasses.replace(portal, findings=finding_views(findings, portal))
