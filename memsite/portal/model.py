"""The portal's view of the memory: redacted entry views, slugs, history links. Pure.

Redaction happens here and only here: :func:`build_portal` passes every entry-derived string
(content, category, tags, key, agent, reason, unknown keys, finding messages, and the
evidence, reasons and anchor paths of records and claims) through
:func:`memsite.core.secrets.redact` once, and every page, JSON file, search index and raw file
of the portal is made from the result. Statuses come from the compaction of the original entries, so
redaction never changes which entry wins.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from memsite.core.budget import IndexItem, index_item, render_items
from memsite.core.compaction import ACTIVE, STATUSES, Compaction, Finding, reachable
from memsite.core.entry import Entry, format_created
from memsite.core.markdown import category_title
from memsite.core.secrets import redact
from memsite.core.text import is_name, printable
from memsite.portal.redact import Redactor
from memsite.portal.standing import FactClaims, LinkRef, redact_all
from memsite.portal.text import safe_title

STATUS_LABELS = {status: status.capitalize() for status in STATUSES}


def slug(name: str) -> str:
    """A URL path segment for a category or tag name.

    Names that follow the naming rule are their own slug; anything else (possible in files
    written by other tools) gets ``_`` plus a hash, which no valid name can start with.
    """
    if is_name(name):
        return name
    return "_" + hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:12]


class JsonSource(NamedTuple):
    """An entry's JSON file (``entries/<id>.json``) before it is made: the redacted entry, its
    status and its successors. Made only when written (at 100k entries the texts of every
    file would hold ~70 MB)."""

    entry: Entry
    status: str
    superseded_by: tuple[str, ...]

    def text(self) -> str:
        obj = {**self.entry.raw, "status": self.status, "superseded_by": list(self.superseded_by)}
        return json.dumps(obj, indent=2, ensure_ascii=False) + "\n"


class PortalCache:
    """What stays valid between builds of one store (``serve``): redacted entries and views.

    Keys hold everything an output is made from (the file name and its whole object, the
    status, the supersession links, whether the full scan applies), so a hit is always right.
    Views that come back identical keep every render cache downstream warm.
    """

    def __init__(self, redactor: Redactor | None = None) -> None:
        self.redactor = redactor or Redactor()
        self._entries: dict[tuple[Any, ...], Entry] = {}
        self._views: dict[tuple[Any, ...], EntryView] = {}
        self._json: dict[tuple[Any, ...], JsonSource] = {}
        self._items: dict[tuple[Any, ...], IndexItem] = {}
        self._titles: dict[str, str] = {}
        # (id of an entry object, full) → (that object, its key, its redacted entry): an entry
        # met again as the same object (serve keeps unchanged ones) needs no key made.
        self._same: dict[tuple[int, bool], tuple[Entry, tuple[Any, ...], Entry]] = {}
        # The entry files' links on the repository host, and what they were read for
        # (HEAD, the store's folder in the repository, repo_url): see build.file_links.
        self.file_links: tuple[Any, dict[str, str]] = (None, {})

    def redacted(self, entry: Entry, full: bool) -> tuple[tuple[Any, ...], Entry]:
        same = self._same.get((id(entry), full))
        if same is not None and same[0] is entry:  # the very object seen before (serve)
            return same[1], same[2]
        # A digest of the object, not its text: at 100k entries the texts held ~55 MB.
        digest = hashlib.blake2b(repr(entry.raw).encode("utf-8", "surrogatepass"), digest_size=16)
        key = (entry.filename, digest.digest(), full)
        found = self._entries.get(key)
        if found is None:
            found = self._entries[key] = self.redactor.redact(entry, full)
        self._same[id(entry), full] = (entry, key, found)
        return key, found

    def view(
        self,
        key: tuple[Any, ...],
        entry: Entry,
        status: str,
        edges: Sequence[str],
        claims: FactClaims | None = None,
    ) -> EntryView:
        badges = claims.badges if claims is not None else None
        vkey = (key, status, tuple(edges), badges)
        found = self._views.get(vkey)
        if found is None:
            found = self._views[vkey] = _view(entry, status, edges, self._titles, badges)
        return found

    def json_source(
        self, key: tuple[Any, ...], entry: Entry, status: str, successors: Sequence[str]
    ) -> JsonSource:
        """What an entry's JSON file is made from, as one object per distinct input: the
        same object again for an unchanged entry, so the site can tell the file is written."""
        jkey = (key, status, tuple(successors))
        found = self._json.get(jkey)
        if found is None:
            found = self._json[jkey] = JsonSource(entry, status, jkey[2])
        return found

    def index_item(self, key: tuple[Any, ...], entry: Entry) -> IndexItem:
        """The redacted entry's line in index.md, with its cost (see ``core.budget``)."""
        found = self._items.get(key)
        if found is None:
            found = self._items[key] = index_item(entry)
        return found

    def keep_only(self, keys: set[tuple[Any, ...]]) -> None:
        """Forget entries that are gone (long serve sessions), once there are enough of them
        to be worth a pass (at 100k entries one costs a few tenths of a second)."""
        slack = len(keys) // 10 + 256
        sizes = (len(self._entries), len(self._same), len(self._views), len(self._json))
        if max(sizes) <= len(keys) + slack:
            return
        self._same = {k: v for k, v in self._same.items() if v[1] in keys}
        self._entries = {k: v for k, v in self._entries.items() if k in keys}
        self._items = {k: v for k, v in self._items.items() if k in keys}
        self._views = {k: v for k, v in self._views.items() if k[0] in keys}
        self._json = {k: v for k, v in self._json.items() if k[0] in keys}


@dataclass(frozen=True, slots=True)
class Tag:
    name: str
    slug: str


@dataclass(frozen=True, slots=True)
class EntryView:
    """One entry as pages show it. Hashable: equal views render to equal HTML."""

    id: str
    category: str
    category_slug: str
    category_title: str
    content: str
    title: str
    created: str
    day: str
    when: str
    confidence: str
    tags: tuple[Tag, ...]
    key: str | None
    agent: str | None
    reason: str | None
    filename: str
    status: str
    supersedes: tuple[str, ...]
    stale: bool = False
    drifted: bool = False
    verified: str | None = None  # the day of the latest verification
    _hash: int = field(default=0, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Views are dictionary keys of the render caches: hash the fields once.
        fields = (self.id, self.content, self.status, self.category, self.supersedes, self.tags)
        object.__setattr__(self, "_hash", hash(fields))

    def __hash__(self) -> int:
        return self._hash

    @property
    def short_id(self) -> str:
        return self.id[:8]

    @property
    def status_label(self) -> str:
        return STATUS_LABELS.get(self.status, self.status)

    @property
    def active(self) -> bool:
        return self.status == ACTIVE


@dataclass(frozen=True, slots=True)
class LinkView:
    """A typed link on an entry page: the other fact's view (None: not in this checkout)."""

    ref: LinkRef
    other: EntryView | None


@dataclass(frozen=True, slots=True)
class EntryPage:
    """Everything an entry page shows: the entry and its relations, each as a view."""

    entry: EntryView
    newer: tuple[EntryView, ...]
    older: tuple[EntryView, ...]
    replaced_by: tuple[EntryView, ...]
    current: tuple[EntryView, ...]
    winner: EntryView | None
    losers: tuple[EntryView, ...]
    claims: FactClaims | None = None
    links: tuple[LinkView, ...] = ()
    file_href: str | None = None  # the entry file on the repository host, at its commit


@dataclass
class CategoryView:
    name: str
    slug: str
    title: str
    configured: bool
    active: list[EntryView] = field(default_factory=list)
    inactive: list[EntryView] = field(default_factory=list)

    @property
    def total(self) -> int:
        return len(self.active) + len(self.inactive)

    def count(self, status: str) -> int:
        if status == ACTIVE:
            return len(self.active)
        return sum(1 for e in self.inactive if e.status == status)


@dataclass
class TagView:
    name: str
    slug: str
    active: list[EntryView] = field(default_factory=list)
    inactive: list[EntryView] = field(default_factory=list)

    @property
    def total(self) -> int:
        return len(self.active) + len(self.inactive)


@dataclass(frozen=True)
class FindingView:
    kind: str
    message: str
    entries: tuple[EntryView, ...]
    files: tuple[str, ...]


@dataclass(frozen=True)
class SessionView:
    """A session's daily logs as the timeline shows them (lines redacted, printable)."""

    name: str
    days: tuple[str, ...]
    lines: tuple[str, ...]

    @property
    def anchor(self) -> str:
        return f"s-{self.name}"


@dataclass
class Portal:
    """The whole memory as the portal shows it, redacted, newest first."""

    site_name: str
    description: str | None
    entries: list[EntryView]
    by_id: dict[str, EntryView]
    categories: list[CategoryView]
    tags: list[TagView]
    index_md: str
    json_sources: dict[str, JsonSource]
    edges: dict[str, list[str]]
    superseded_by: dict[str, list[str]]
    winner: dict[str, str]
    losers: dict[str, list[str]]
    findings: list[FindingView] = field(default_factory=list)
    sessions: list[SessionView] = field(default_factory=list)
    claims: dict[str, FactClaims] = field(default_factory=dict)
    file_links: dict[str, str] = field(default_factory=dict)  # entry id → its file's link
    position: dict[str, int] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if not self.position:
            self.position = {e.id: n for n, e in enumerate(self.entries)}

    def with_findings(self, findings: Iterable[Finding]) -> Portal:
        """The same portal showing ``findings`` on its review page (a new object)."""
        return dataclasses.replace(self, findings=finding_views(findings, self))

    def counts(self) -> dict[str, int]:
        totals = dict.fromkeys(STATUSES, 0)
        for entry in self.entries:
            totals[entry.status] = totals.get(entry.status, 0) + 1
        return totals

    def _closure(self, start: str, step: Callable[[str], Iterable[str]]) -> tuple[EntryView, ...]:
        seen = reachable(start, step)
        ordered = sorted((i for i in seen if i in self.by_id), key=self.position.__getitem__)
        return tuple(self.by_id[i] for i in ordered)

    def page(self, entry_id: str) -> EntryPage:
        """The entry page data of one entry: history both ways, banner targets."""
        entry = self.by_id[entry_id]
        empty: list[str] = []
        if entry_id in self.edges or entry_id in self.superseded_by:
            older = self._closure(entry_id, lambda i: self.edges.get(i, empty))
            newer = self._closure(entry_id, lambda i: self.superseded_by.get(i, empty))
        else:
            older = newer = ()
        direct = tuple(self.by_id[i] for i in self.superseded_by.get(entry_id, empty))
        current = tuple(e for e in newer if e.active)
        winner_id = self.winner.get(entry_id)
        losers = tuple(self.by_id[i] for i in self.losers.get(entry_id, empty))
        claims = self.claims.get(entry_id)
        links = tuple(LinkView(r, self.by_id.get(r.other)) for r in claims.links) if claims else ()
        return EntryPage(
            entry=entry,
            newer=newer,
            older=older,
            replaced_by=direct,
            current=current,
            winner=self.by_id.get(winner_id) if winner_id else None,
            losers=losers,
            claims=claims,
            links=links,
            file_href=self.file_links.get(entry_id),
        )


def _view(
    entry: Entry,
    status: str,
    edges: Sequence[str],
    titles: dict[str, str],
    badges: tuple[bool, bool, str | None] | None = None,
) -> EntryView:
    stale, drifted, verified = badges or (False, False, None)
    created = format_created(entry.created)
    category = entry.category
    if category not in titles:
        titles[category] = safe_title(category_title(category) or category)
    return EntryView(
        id=entry.id,
        category=category,
        category_slug=slug(category),
        category_title=titles[category],
        content=entry.content,
        title=safe_title(entry.content),
        created=created,
        day=created[:10],
        when=f"{created[:10]} {created[11:16]} UTC",
        confidence=entry.confidence,
        tags=tuple(Tag(t, slug(t)) for t in entry.tags),
        key=entry.key,
        agent=entry.agent,
        reason=entry.reason,
        filename=entry.filename,
        status=status,
        supersedes=tuple(edges),
        stale=stale,
        drifted=drifted,
        verified=verified,
    )


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
    budget: int,
    cache: PortalCache | None = None,
    *,
    findings: Sequence[Finding] = (),
    sessions: Sequence[tuple[str, Sequence[tuple[str, Sequence[str]]]]] = (),
    claims: Mapping[str, FactClaims] | None = None,
    file_links: Mapping[str, str] | None = None,
) -> Portal:
    """Redact the compaction result once and derive every view the pages need.

    ``findings`` are the review's: entries whose full secret scan found something are
    redacted with the full scan, and the review page shows them. ``sessions`` are the daily
    logs shared in git (name, [(day, lines)]), newest session first; their lines are
    redacted with the full scan (a log is free text) and stripped of control characters.
    ``claims`` are the facts' standings (only facts with something to show), redacted here.
    ``file_links`` are the entry files' links on the repository host, by file name; a file
    whose name redaction changes gets none (it would show the unredacted name).
    """
    cache = cache or PortalCache()
    full = secret_ids(findings)
    keyed = [cache.redacted(e, e.id in full) for e in result.entries]
    safe_categories = list(dict.fromkeys(cache.redactor.text(c) for c in result.categories))
    safe_claims = redact_all(claims or {}, cache.redactor.text)
    views = [
        cache.view(k, e, result.status[e.id], result.edges.get(e.id, ()), safe_claims.get(e.id))
        for k, e in keyed
    ]
    categories, tags = _groups(views, safe_categories, set(weights), cache._titles)
    # index.md as core.budget.render_index makes it, from lines kept between builds.
    lines: dict[str, list[IndexItem]] = defaultdict(list)
    for key, entry in keyed:
        if result.status[entry.id] == ACTIVE:
            lines[entry.category].append(cache.index_item(key, entry))
    sections = {c: lines[c] for c in safe_categories if lines.get(c)}
    losers: dict[str, list[str]] = defaultdict(list)
    for loser in result.entries:
        if loser.id in result.winner:
            losers[result.winner[loser.id]].append(loser.id)
    json_sources = {
        e.id: cache.json_source(k, e, result.status[e.id], result.superseded_by.get(e.id, ()))
        for k, e in keyed
    }
    cache.keep_only({k for k, _ in keyed})
    links = file_links or {}
    linked = {
        v.id: links[v.filename]
        for v, original in zip(views, result.entries, strict=True)
        if v.filename in links and v.filename == original.filename
    }
    description = site.get("site_description")
    portal = Portal(
        site_name=str(site.get("site_name") or "Project memory"),
        description=str(description) if description else None,
        entries=views,
        by_id={v.id: v for v in views},
        categories=categories,
        tags=tags,
        index_md=render_items(sections, weights, budget),
        json_sources=json_sources,
        edges=dict(result.edges),
        superseded_by=dict(result.superseded_by),
        winner=dict(result.winner),
        losers=dict(losers),
        claims=safe_claims,
        file_links=linked,
        sessions=[
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
        ],
    )
    return portal.with_findings(findings)


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
