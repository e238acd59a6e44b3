"""What the portal's pages show, as values: entry views (hashable: equal views render to
equal HTML), entry pages with their history, categories, tags, findings, sessions, and the
whole :class:`Portal`. Pure; ``derive`` makes them from what the memory gives.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

from memsite.core.compaction import reachable
from memsite.core.entry import Entry, format_created
from memsite.core.markdown import category_title
from memsite.core.schema import ACTIVE, STATUSES
from memsite.core.text import is_name
from memsite.core.trust import HIDDEN_TEXT
from memsite.portal.standing import FactClaims, LinkRef
from memsite.portal.text import safe_title
from memsite.portal.trust import Origin

if TYPE_CHECKING:
    from memsite.portal.releases import ReleaseRef, ReleaseView

STATUS_LABELS = {status: status.capitalize() for status in STATUSES}


@functools.lru_cache(maxsize=4096)  # (category and tag names repeat across entries)
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
    status, its successors, (only when the trust gate holds it back) why, and whether it
    drifted or went stale. Made only when
    written (at 100k entries the texts of every file would hold ~70 MB)."""

    entry: Entry
    status: str
    superseded_by: tuple[str, ...]
    held: str | None = None  # why the trust gate keeps it from agents
    flags: tuple[tuple[str, bool], ...] = ()  # drifted, stale, ... (``FactClaims.flags``)
    # What ``entry`` was made from: its file's name, a digest of its original object and
    # whether the full scan redacted it (``PortalCache.redacted``), which ``portal.keys``
    # uses instead of the whole object (b"": none, the object is used).
    origin: bytes = b""

    def text(self) -> str:
        obj = {**self.entry.raw, "status": self.status, "superseded_by": list(self.superseded_by)}
        if self.held:
            obj["held_back"] = self.held
        obj.update(self.flags)
        return json.dumps(obj, indent=2, ensure_ascii=False) + "\n"


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
    held: str | None = None  # why the trust gate keeps it from agents (``core.trust``)
    window: str | None = None  # "expired" or "upcoming": in force but not holding now
    _hash: int = field(default=0, init=False, repr=False, compare=False)
    _digest: str = field(default="", init=False, repr=False, compare=False)  # portal.keys

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
    origin: Origin | None = None  # who added it, in which commit, its trust
    hidden: tuple[str, ...] = ()  # a held-back fact's hidden characters, described
    releases: tuple[ReleaseRef, ...] = ()  # the releases it was active in (``build --releases``)


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
    origins: dict[str, Origin] = field(default_factory=dict)  # entry id → where it came from
    releases: tuple[ReleaseView, ...] = ()  # the memory at each release, oldest first
    # entry id → the releases it was active in, oldest first (``portal.releases``)
    active_in: dict[str, tuple[ReleaseRef, ...]] = field(default_factory=dict)
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
            origin=self.origins.get(entry_id),
            hidden=_hidden(entry.content) if entry.held == HIDDEN_TEXT else (),
            releases=self.active_in.get(entry_id, ()),
        )


def _hidden(text: str, shown: int = 5) -> tuple[str, ...]:
    """The first hidden characters of ``text``, each as ``U+… (NAME) at character N``, and
    how many more there are."""
    from memsite.core.hidden import describe, hidden_at

    found = hidden_at(text)
    out = tuple(f"{describe(char)} at character {at + 1}" for at, char in found[:shown])
    return out + ((f"and {len(found) - shown} more",) if len(found) > shown else ())


@functools.lru_cache(maxsize=4096)
def _tag(name: str) -> Tag:
    """A tag as views hold it: one object per name."""
    return Tag(name, slug(name))


def entry_view(
    entry: Entry,
    status: str,
    edges: Sequence[str],
    titles: dict[str, str],
    badges: tuple[bool, bool, str | None, str | None] | None = None,
    held: str | None = None,
) -> EntryView:
    stale, drifted, verified, window = badges or (False, False, None, None)
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
        tags=tuple(map(_tag, entry.tags)),
        key=entry.key,
        agent=entry.agent,
        reason=entry.reason,
        filename=entry.filename,
        status=status,
        supersedes=tuple(edges),
        stale=stale,
        drifted=drifted,
        verified=verified,
        held=held,
        window=window,
    )
