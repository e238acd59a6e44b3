"""The portal's view of the memory: redacted entry views, slugs, history links. Pure.

Redaction happens here and only here: :func:`build_portal` passes every entry-derived string
(content, category, tags, key, agent, reason, unknown keys, finding messages) through
:func:`memsite.secrets.redact` once, and every page, JSON file, search index and raw file of the
portal is made from the result. Statuses come from the compaction of the original entries, so
redaction never changes which entry wins.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from memsite.compaction import ACTIVE, STATUSES, Compaction, Finding, reachable
from memsite.entry import NAME_RE, Entry, format_created
from memsite.secrets import is_allowed, redact
from memsite.site.text import safe_title
from memsite.views import category_title, render_index

STATUS_LABELS = {
    "active": "Active",
    "superseded": "Superseded",
    "duplicate": "Duplicate",
    "overridden": "Overridden",
}


def slug(name: str) -> str:
    """A URL path segment for a category or tag name.

    Names that follow the naming rule are their own slug; anything else (possible in files
    written by other tools) gets ``_`` plus a hash, which no valid name can start with.
    """
    if NAME_RE.fullmatch(name):
        return name
    return "_" + hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:12]


class Redactor:
    """Redaction of entries for publishing, each distinct text scanned once per process.

    Entries go through :func:`memsite.secrets.redact` (its quick pre-filter decides when the
    detect-secrets library looks closer); entries in ``full_ids`` — those whose full library
    scan (``memsite review``) found something — are redacted with the full scan. Entries the
    team marked ``allow_secret`` (a reviewed false positive) are published as they are.
    """

    def __init__(self, full_ids: Iterable[str] = ()) -> None:
        self.full_ids = set(full_ids)
        self._memo: dict[tuple[str, bool], str] = {}

    def text(self, value: str, full: bool = False) -> str:
        key = (value, full)
        out = self._memo.get(key)
        if out is None:
            out = self._memo[key] = redact(value, full=full)
        return out

    def value(self, value: Any, full: bool) -> Any:
        if isinstance(value, str):
            return self.text(value, full)
        if isinstance(value, list):
            return [self.value(v, full) for v in value]
        if isinstance(value, dict):
            return {self.text(str(k), full): self.value(v, full) for k, v in value.items()}
        return value

    def __call__(self, entry: Entry) -> Entry:
        if is_allowed(entry.raw):
            return entry
        full = entry.id in self.full_ids
        text = self.text
        return dataclasses.replace(
            entry,
            category=text(entry.category, full),
            content=text(entry.content, full),
            tags=tuple(text(t, full) for t in entry.tags),
            agent=None if entry.agent is None else text(entry.agent, full),
            key=None if entry.key is None else text(entry.key, full),
            reason=None if entry.reason is None else text(entry.reason, full),
            raw=self.value(dict(entry.raw), full),
        )


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
        self._json: dict[tuple[Any, ...], str] = {}
        self._titles: dict[str, str] = {}

    def redacted(self, entry: Entry) -> tuple[tuple[Any, ...], Entry]:
        key = (entry.filename, repr(entry.raw), entry.id in self.redactor.full_ids)
        found = self._entries.get(key)
        if found is None:
            found = self._entries[key] = self.redactor(entry)
        return key, found

    def view(
        self, key: tuple[Any, ...], entry: Entry, status: str, edges: Sequence[str]
    ) -> EntryView:
        vkey = (key, status, tuple(edges))
        found = self._views.get(vkey)
        if found is None:
            found = self._views[vkey] = _view(entry, status, edges, self._titles)
        return found

    def json_text(
        self, key: tuple[Any, ...], entry: Entry, status: str, successors: Sequence[str]
    ) -> str:
        jkey = (key, status, tuple(successors))
        found = self._json.get(jkey)
        if found is None:
            obj = {**entry.raw, "status": status, "superseded_by": list(successors)}
            found = self._json[jkey] = json.dumps(obj, indent=2, ensure_ascii=False) + "\n"
        return found

    def keep_only(self, keys: set[tuple[Any, ...]]) -> None:
        """Forget entries that are gone (long serve sessions)."""
        self._entries = {k: v for k, v in self._entries.items() if k in keys}
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
class EntryPage:
    """Everything an entry page shows: the entry and its relations, each as a view."""

    entry: EntryView
    newer: tuple[EntryView, ...]
    older: tuple[EntryView, ...]
    replaced_by: tuple[EntryView, ...]
    current: tuple[EntryView, ...]
    winner: EntryView | None
    losers: tuple[EntryView, ...]


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
    json_texts: dict[str, str]
    edges: dict[str, list[str]]
    superseded_by: dict[str, list[str]]
    winner: dict[str, str]
    losers: dict[str, list[str]]
    findings: list[FindingView] = field(default_factory=list)
    position: dict[str, int] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if not self.position:
            self.position = {e.id: n for n, e in enumerate(self.entries)}

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
        return EntryPage(
            entry=entry,
            newer=newer,
            older=older,
            replaced_by=direct,
            current=current,
            winner=self.by_id.get(winner_id) if winner_id else None,
            losers=losers,
        )


def _view(entry: Entry, status: str, edges: Sequence[str], titles: dict[str, str]) -> EntryView:
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
    )


def build_portal(
    result: Compaction,
    site: Mapping[str, Any],
    weights: Mapping[str, float],
    budget: int,
    cache: PortalCache | None = None,
) -> Portal:
    """Redact the compaction result once and derive every view the pages need."""
    cache = cache or PortalCache()
    redactor = cache.redactor
    keyed = [cache.redacted(e) for e in result.entries]
    redacted = [e for _, e in keyed]
    safe_result = dataclasses.replace(
        result,
        entries=redacted,
        by_id={e.id: e for e in redacted},
        categories=list(dict.fromkeys(redactor.text(c) for c in result.categories)),
        findings=[],
    )
    titles = cache._titles
    views = [cache.view(k, e, result.status[e.id], result.edges.get(e.id, ())) for k, e in keyed]
    by_id = {v.id: v for v in views}

    configured = set(weights)
    categories: dict[str, CategoryView] = {}
    for name in safe_result.categories:
        categories[name] = CategoryView(
            name=name,
            slug=slug(name),
            title=titles.get(name) or safe_title(category_title(name) or name),
            configured=name in configured,
        )
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

    losers: dict[str, list[str]] = defaultdict(list)
    for loser in result.entries:
        if loser.id in result.winner:
            losers[result.winner[loser.id]].append(loser.id)
    json_texts = {
        e.id: cache.json_text(k, e, result.status[e.id], result.superseded_by.get(e.id, ()))
        for k, e in keyed
    }
    cache.keep_only({k for k, _ in keyed})
    site_name = str(site.get("site_name") or "Project memory")
    description = site.get("site_description")
    return Portal(
        site_name=site_name,
        description=str(description) if description else None,
        entries=views,
        by_id=by_id,
        categories=list(categories.values()),
        tags=sorted(tags.values(), key=lambda t: t.name),
        index_md=render_index(safe_result, weights, budget),
        json_texts=json_texts,
        edges=dict(result.edges),
        superseded_by=dict(result.superseded_by),
        winner=dict(result.winner),
        losers=dict(losers),
    )


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
