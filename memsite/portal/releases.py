"""The portal's release pages (``build --releases``, ``site.releases``) as values: for each git
tag matching the pattern, what changed since the release before it and the facts active then.
Pure; ``derive`` makes them from what the memory gives (``memory.releases``).

A release page is a list, never a copy of entry pages: each fact is one row linking to its
entry page (``entries/<id>/``), shared by every release, or, when today's memory no longer
holds it, its title as plain text with its short id. A row is about 160 bytes, so a release
costs a few hundred bytes per fact active in it (see ``benchmarks/bench_releases.py``).

Tag names come from git, so from anyone who can push one: a tag names its pages only
through :func:`~memsite.portal.model.slug` (``v1.2`` is its own slug; ``<b>`` or
``release/1`` get a hash), and is shown only as escaped text.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, NamedTuple

from memsite.core.markdown import category_title
from memsite.portal.model import EntryView, slug
from memsite.portal.paging import ROWS_PER_PAGE, PageSpec, page_path, pager
from memsite.portal.text import safe_title

RELEASES = "as-of/"
RELEASE_SHELL = "as-of/memsite-shell/"  # the frame of every release page (as month pages)
# The sections of a release's pages, in order: the changes since the release before (these),
# then the facts active at the release, a section a category.
CHANGES = {"added": "Added", "replaced": "Replaced", "retired": "Retired", "removed": "Removed"}


@dataclass(frozen=True, slots=True)
class ReleaseRef:
    """A release as an entry page names it: its tag and the slug of its pages."""

    tag: str
    slug: str


@dataclass(frozen=True, slots=True)
class ReleaseFact:
    """A fact as a release page lists it: linked to its entry page when today's portal has it
    (``linked``), else its title (empty when no release kept its text) and short id."""

    id: str
    title: str
    category_slug: str
    category_title: str
    linked: bool

    @property
    def short_id(self) -> str:
        return self.id[:8]


Replacement = tuple[ReleaseFact, tuple[ReleaseFact, ...]]


@dataclass(frozen=True)
class ReleaseView:
    """One release: the tag, its commit and day, the release before it (None: the first), the
    facts active then by category (title, slug, facts) and what changed since the one before.
    Hashable: equal views render to equal pages."""

    tag: str
    slug: str
    commit: str
    day: str
    previous: ReleaseRef | None
    categories: tuple[tuple[str, str, tuple[ReleaseFact, ...]], ...]
    added: tuple[ReleaseFact, ...]
    replaced: tuple[Replacement, ...]
    retired: tuple[ReleaseFact, ...]
    removed: tuple[ReleaseFact, ...]

    @property
    def title(self) -> str:
        return safe_title(f"Release {self.tag}")

    @property
    def short_commit(self) -> str:
        return self.commit[:12]

    @property
    def active_count(self) -> int:
        return sum(len(facts) for _, _, facts in self.categories)

    @property
    def ref(self) -> ReleaseRef:
        return ReleaseRef(self.tag, self.slug)


class Section(NamedTuple):
    """A section of one page of a release: ``kind`` (a change, or "active": one category's
    facts), its heading, its anchor, its rows on this page, how many it has in all, whether
    it began on an earlier page, and whether its part (the changes, the active facts) did."""

    kind: str
    heading: str
    anchor: str
    rows: tuple[Any, ...]
    total: int
    continued: bool
    part_continued: bool

    @property
    def part(self) -> str:
        return "active" if self.kind == "active" else "changes"


def release_views(
    releases: Sequence[Mapping[str, Any]],
    views: Mapping[str, EntryView],
    order: Sequence[str],
    redact: Callable[[str], str],
) -> tuple[tuple[ReleaseView, ...], dict[str, tuple[ReleaseRef, ...]]]:
    """Each release (``memory.releases``, oldest first) as the pages show it, and each fact of
    ``views`` (today's portal) → the releases it was active in, oldest first.

    ``order``: the category slugs in the portal's order (others follow by title). A fact
    today's portal does not hold shows the text of the latest release that had it, redacted
    with ``redact`` (the portal's redactor)."""
    texts = {f["id"]: f for release in releases for f in release["active"]}
    facts = _Facts(views, texts, redact)
    rank = {name: n for n, name in enumerate(order)}
    out: list[ReleaseView] = []
    active_in: dict[str, list[ReleaseRef]] = {}
    previous: ReleaseRef | None = None
    for release in releases:
        tag = str(release["tag"])
        ref = ReleaseRef(tag, slug(tag))
        active = [facts(f["id"]) for f in release["active"]]
        for fact in active:
            if fact.linked:
                active_in.setdefault(fact.id, []).append(ref)
        first = previous is None
        view = ReleaseView(
            tag=tag,
            slug=ref.slug,
            commit=str(release["commit"]),
            day=str(release["date"])[:10],
            previous=previous,
            categories=_by_category(active, rank),
            added=() if first else tuple(facts(i) for i in release["added"]),
            replaced=tuple(
                (facts(r["id"]), tuple(facts(i) for i in r["by"])) for r in release["replaced"]
            ),
            retired=tuple(facts(i) for i in release["retired"]),
            removed=tuple(facts(i) for i in release["removed"]),
        )
        out.append(view)
        previous = ref
    return tuple(out), {i: tuple(refs) for i, refs in active_in.items()}


class _Facts:
    """Release facts by id, each made once: from today's view, else from a release's text."""

    def __init__(
        self,
        views: Mapping[str, EntryView],
        texts: Mapping[str, Mapping[str, Any]],
        redact: Callable[[str], str],
    ) -> None:
        self.views, self.texts, self.redact = views, texts, redact
        self.made: dict[str, ReleaseFact] = {}

    def __call__(self, fact_id: str) -> ReleaseFact:
        found = self.made.get(fact_id)
        if found is None:
            found = self.made[fact_id] = self._make(fact_id)
        return found

    def _make(self, fact_id: str) -> ReleaseFact:
        view = self.views.get(fact_id)
        if view is not None:
            return ReleaseFact(fact_id, view.title, view.category_slug, view.category_title, True)
        text = self.texts.get(fact_id)
        if text is None:  # a successor no release had active, and gone since
            return ReleaseFact(fact_id, "", "", "", False)
        name = self.redact(str(text["category"]))
        title = safe_title(category_title(name) or name)
        return ReleaseFact(
            fact_id, safe_title(self.redact(str(text["content"]))), slug(name), title, False
        )


def _by_category(
    facts: Sequence[ReleaseFact], rank: Mapping[str, int]
) -> tuple[tuple[str, str, tuple[ReleaseFact, ...]], ...]:
    """The facts by category (title, slug, facts in the order given): the portal's
    categories first, in its order, then the others by title."""
    groups: dict[str, list[ReleaseFact]] = {}
    titles: dict[str, str] = {}
    for fact in facts:
        groups.setdefault(fact.category_slug, []).append(fact)
        titles.setdefault(fact.category_slug, fact.category_title)
    ordered = sorted(groups, key=lambda s: (rank.get(s, len(rank)), titles[s], s))
    return tuple((titles[s], s, tuple(groups[s])) for s in ordered)


def release_sections(release: ReleaseView, per_page: int = ROWS_PER_PAGE) -> list[list[Section]]:
    """The sections of each page of ``release``: its changes, then its active facts by
    category, ``per_page`` rows to a page (a section may go on over the next page)."""
    whole: list[tuple[str, str, str, tuple[Any, ...]]] = [
        (kind, heading, kind, getattr(release, kind))
        for kind, heading in CHANGES.items()
        if getattr(release, kind)
    ]
    whole += [("active", title, f"c-{s}", facts) for title, s, facts in release.categories]
    pages: list[list[Section]] = [[]]
    room = per_page
    began: dict[str, int] = {}  # each part → the page it began on
    for kind, heading, anchor, rows in whole:
        start = 0
        while start < len(rows):
            if room == 0:
                pages.append([])
                room = per_page
            piece = rows[start : start + room]
            part = began.setdefault("active" if kind == "active" else "changes", len(pages))
            section = Section(kind, heading, anchor, piece, len(rows), start > 0, part < len(pages))
            pages[-1].append(section)
            start += len(piece)
            room -= len(piece)
    return pages


def release_page_specs(release: ReleaseView) -> list[PageSpec]:
    """The pages of one release (``as-of/<slug>/``, then ``as-of/<slug>~2/``…)."""
    base = f"{RELEASES}{release.slug}/"
    pieces = release_sections(release)
    out = []
    for number, sections in enumerate(pieces, 1):
        path = page_path(base, number)
        title = release.title
        if len(pieces) > 1:
            title += f" (page {number} of {len(pieces)})"
        context = {
            "release": release,
            "sections": sections,
            "pager": pager(base, number, len(pieces)),
        }
        out.append(PageSpec(path, title, "release.html", RELEASE_SHELL, context))
    return out


def release_groups(
    releases: Sequence[ReleaseView],
) -> Iterator[tuple[Any, Callable[[], list[PageSpec]]]]:
    """The release pages in groups (as ``Renderer.main_page_groups``): the list of releases,
    newest first, then each release's pages, keyed by its view. None without releases."""
    if not releases:
        return
    newest = tuple(reversed(releases))
    listed = {"releases": newest}
    yield None, lambda: [PageSpec(RELEASES, "Releases", "releases.html", RELEASES, listed)]
    for release in newest:
        yield ("release", release), partial(release_page_specs, release)
