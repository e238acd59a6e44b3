"""Portal pages from the Jinja templates in ``templates/``: the body of every page, and the
texts of llms.txt and feed.xml (``feed``).

Pages are rendered as ready HTML (Jinja with autoescape; entry text through the ``text`` filter),
never as Markdown. A :class:`Renderer` keeps what it rendered keyed by the (hashable) views it
rendered from, so a rebuild after one new entry renders only the pages and fragments whose
data changed. The templates are files: this module reads them (through Jinja's loader).
"""

from __future__ import annotations

import calendar
import re
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from markupsafe import Markup

from memsite.core.review import KINDS
from memsite.portal.feed import FEED_NAMESPACE, feed_changes, xml_text
from memsite.portal.model import (
    CategoryView,
    EntryPage,
    EntryView,
    FindingView,
    Portal,
    TagView,
)
from memsite.portal.paging import (
    ROWS_PER_PAGE,
    PageSpec,
    chunks,
    page_path,
    pager,
    split_cards_and_rows,
)
from memsite.portal.releases import release_groups
from memsite.portal.resources import templates_dir
from memsite.portal.text import (
    plain_text,
    render_plain,
    render_text,
    safe_title,
    short_heading,
    word_diff,
)

RECENT = 15
ENTRY_SHELL = "entries/memsite-shell/"
TAG_SHELL = "tags/memsite-shell/"
MONTH_SHELL = "timeline/memsite-shell/"
# The review pages show this many findings each (by kind), and entries of each finding: at
# 10k entries one page of every finding was 22,168 px high.
REVIEW_PER_PAGE = 50
REVIEW_SHOWN_ENTRIES = 12
_SHORT_ID = re.compile(r"\b[0-9a-f]{8}\b")
_MARKUP = re.compile(r"(<code>.*?</code>|<a [^>]*>.*?</a>)", re.DOTALL)


@dataclass(frozen=True)
class PageOut:
    """One HTML page of the portal: where it goes, its title, its body (the page content).

    ``shell`` names the MkDocs-rendered page frame the body is put into: entry and tag pages
    share one frame each; every other page has its own (its place in the navigation).
    """

    path: str
    title: str
    body: str
    shell: str


def root_for(path: str) -> str:
    """The relative prefix from a page at ``path`` (a folder URL) back to the portal root."""
    return "../" * path.count("/")


# Pages rendered together, with a key: pages of equal keys are equal (None: no key).
PageGroup = tuple[Any, Callable[[], list[PageOut]]]


class Renderer:
    """Renders portal pages; remembers fragments and bodies between builds (for serve)."""

    def __init__(self, templates: Path | None = None, host_search: str | None = None) -> None:
        """``host_search``: where the search page sends readers without JavaScript (the
        host site's search, in plugin mode; see ``plugin``)."""
        from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

        self.env = Environment(
            loader=FileSystemLoader(str(templates or templates_dir())),
            autoescape=select_autoescape(
                enabled_extensions=("html", "xml"), default_for_string=True, default=False
            ),
            undefined=StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
            auto_reload=False,
        )
        self.host_search = host_search
        self.env.filters["text"] = render_text
        self.env.filters["plain"] = render_plain
        self.env.filters["short_heading"] = short_heading
        self.env.globals["word_diff"] = word_diff
        self.env.filters["xml"] = xml_text
        self.env.filters["finding"] = finding_html
        macros = self.env.get_template("macros.html").module
        self._card_macro: Callable[..., Markup] = macros.card  # type: ignore[attr-defined]
        self._row_macro: Callable[..., Markup] = macros.row  # type: ignore[attr-defined]
        self._cards: dict[tuple[str, EntryView], Markup] = {}
        self._rows: dict[tuple[str, EntryView], Markup] = {}

    # --- fragments ------------------------------------------------------------------------

    def card(self, entry: EntryView, root: str) -> Markup:
        key = (root, entry)
        html = self._cards.get(key)
        if html is None:
            html = self._cards[key] = self._card_macro(entry, root)
        return html

    def row(self, entry: EntryView, root: str) -> Markup:
        key = (root, entry)
        html = self._rows.get(key)
        if html is None:
            html = self._rows[key] = self._row_macro(entry, root)
        return html

    def _render(self, name: str, path: str, **context: Any) -> str:
        root = root_for(path)
        return self.env.get_template(name).render(
            root=root,
            card=lambda e: self.card(e, root),
            row=lambda e: self.row(e, root),
            **context,
        )

    def forget_except(self, portal: Portal) -> None:
        """Drop remembered fragments of views that no longer exist (long serve sessions), once
        there are enough of them to be worth a pass (at 100k entries one costs 0.3 s)."""
        roots = 3  # the page depths a view's card or row is usually made for
        limit = roots * (len(portal.entries) + len(portal.entries) // 10 + 256)
        if len(self._cards) <= limit and len(self._rows) <= limit:
            return
        live = set(portal.entries)
        self._cards = {k: v for k, v in self._cards.items() if k[1] in live}
        self._rows = {k: v for k, v in self._rows.items() if k[1] in live}

    # --- pages ----------------------------------------------------------------------------

    def entry_page(self, page: EntryPage) -> PageOut:
        # Not remembered: the site rewrites an entry page only when its data changed (and at
        # 100k entries the bodies would hold 400 MB).
        body = self._render("entry.html", f"entries/{page.entry.id}/", page=page)
        return PageOut(f"entries/{page.entry.id}/", page.entry.title, body, ENTRY_SHELL)

    def tag_page_list(self, tag: TagView) -> list[PageOut]:
        """The pages of one tag (about 100 cards each)."""
        return self._pages(
            f"tags/{tag.slug}/",
            safe_title(f"#{tag.name}"),
            "tag.html",
            tag.active,
            tag.inactive,
            TAG_SHELL,
            tag=tag,
        )

    def tag_pages(self, portal: Portal) -> list[PageOut]:
        return [page for _, render in self.tag_page_groups(portal) for page in render()]

    def tag_page_groups(self, portal: Portal) -> Iterator[PageGroup]:
        """Each tag's pages as a group keyed by its views (see :meth:`main_page_groups`)."""
        for tag in portal.tags:
            key = (("tag", tag.name, tag.slug), tuple(tag.active), tuple(tag.inactive))
            yield key, partial(self.tag_page_list, tag)

    def _pages(
        self,
        base: str,
        title: str,
        template: str,
        cards: Sequence[EntryView],
        rows: Sequence[EntryView],
        shell: str | None,
        **context: Any,
    ) -> list[PageOut]:
        """A list of cards then rows over as many pages as it needs (see ``paging``); every
        page after the first uses the first page's frame (``shell`` None: its own)."""
        pieces = split_cards_and_rows(cards, rows)
        out = []
        for number, (page_cards, page_rows) in enumerate(pieces, 1):
            path = page_path(base, number)
            named = title if number == 1 else f"{title} (page {number} of {len(pieces)})"
            body = self._render(
                template,
                path,
                cards=page_cards,
                rows=page_rows,
                pager=pager(base, number, len(pieces)),
                **context,
            )
            out.append(PageOut(path, named, body, shell or base))
        return out

    def _nav_page(self, path: str, title: str, template: str, **context: Any) -> PageOut:
        """A page of the navigation: its own shell, its body from ``template``."""
        return PageOut(path, title, self._render(template, path, **context), path)

    def category_pages(self, category: CategoryView) -> list[PageOut]:
        base = f"categories/{category.slug}/"
        return self._pages(
            base,
            category.title,
            "category.html",
            category.active,
            category.inactive,
            None,
            category=category,
        )

    def _timeline_groups(self, portal: Portal) -> Iterator[PageGroup]:
        """The timeline: an index of months (with the sessions), and each month's changes by
        day, newest first, over as many pages as the month needs (a group a month)."""
        months: dict[str, list[EntryView]] = {}
        for entry in portal.entries:
            months.setdefault(entry.day[:7], []).append(entry)
        on_day: dict[str, list[Any]] = {}
        for session in portal.sessions:
            for day in session.days:
                on_day.setdefault(day, []).append(session)
        yield (
            None,
            lambda: [
                self._nav_page(
                    "timeline/",
                    "Timeline",
                    "timeline.html",
                    months=[(m, len(v), month_title(m)) for m, v in months.items()],
                    total=len(portal.entries),
                    sessions=portal.sessions,
                    releases=len(portal.releases),
                )
            ],
        )
        for month, entries in months.items():
            sessions = {d: tuple(v) for d, v in on_day.items() if d.startswith(month)}
            yield (
                ("month", month, tuple(entries), tuple(sorted(sessions.items()))),
                partial(self.month_pages, month, entries, sessions),
            )

    def month_pages(
        self, month: str, entries: Sequence[EntryView], on_day: Mapping[str, Sequence[Any]]
    ) -> list[PageOut]:
        """One month of the timeline (``on_day``: the sessions of its days)."""
        base = f"timeline/{month}/"
        pieces = chunks(entries, ROWS_PER_PAGE)
        pages = []
        for number, piece in enumerate(pieces, 1):
            days: dict[str, list[EntryView]] = {}
            for entry in piece:
                days.setdefault(entry.day, []).append(entry)
            path = page_path(base, number)
            title = month_title(month)
            if len(pieces) > 1:
                title += f" (page {number} of {len(pieces)})"
            body = self._render(
                "month.html",
                path,
                title=title,
                days=list(days.items()),
                total=len(entries),
                on_day=on_day,
                pager=pager(base, number, len(pieces)),
            )
            pages.append(PageOut(path, title, body, MONTH_SHELL))
        return pages

    def main_pages(self, portal: Portal) -> Iterator[PageOut]:
        """Home, categories, tags index, timeline, review and search: one shell each. One
        page at a time: at 100k entries the category and timeline pages hold 300 MB."""
        for _, render in self.main_page_groups(portal):
            yield from render()

    def main_page_groups(self, portal: Portal) -> Iterator[PageGroup]:
        """The main pages in order, in groups: (key, what renders them). Pages of a group whose
        key equals an earlier one's are the same (None: no key, cheap pages rendered always);
        so ``serve`` renders only the category and month pages a change touched."""
        yield None, lambda: [self.home_page(portal)]
        for category in portal.categories:
            key = (
                ("category", category.name, category.slug, category.title, category.configured),
                tuple(category.active),
                tuple(category.inactive),
            )
            yield key, partial(self.category_pages, category)
        by_count = sorted(portal.tags, key=lambda t: (-len(t.active), -t.total, t.name))
        yield None, lambda: [self._nav_page("tags/", "Tags", "tags.html", tags=by_count)]
        yield from self._timeline_groups(portal)
        yield from self.spec_groups(release_groups(portal.releases))
        yield None, lambda: self.review_pages(portal)
        yield (
            None,
            lambda: [
                self._nav_page(
                    "search/",
                    "Search",
                    "search.html",
                    categories=portal.categories,
                    tags=portal.tags,
                    host_search=self.host_search,
                )
            ],
        )

    def spec_groups(
        self, groups: Iterable[tuple[Any, Callable[[], list[PageSpec]]]]
    ) -> Iterator[PageGroup]:
        """Groups of pages a pure module laid out (``PageSpec``), rendered here."""
        for key, specs in groups:
            yield key, partial(self._spec_pages, specs)

    def _spec_pages(self, specs: Callable[[], list[PageSpec]]) -> list[PageOut]:
        return [
            PageOut(s.path, s.title, self._render(s.template, s.path, **s.context), s.shell)
            for s in specs()
        ]

    def home_page(self, portal: Portal) -> PageOut:
        return self._nav_page(
            "",
            portal.site_name,
            "home.html",
            portal=portal,
            counts=portal.counts(),
            recent=portal.entries[:RECENT],
            held=sum(1 for origin in portal.origins.values() if origin.held),
            shown_statuses=[status for status, n in portal.counts().items() if n],
            index_lines=index_lines(portal.index_md, portal.entries),
        )

    def review_pages(self, portal: Portal) -> list[PageOut]:
        """The review's findings by kind, ``REVIEW_PER_PAGE`` to a page (see ``paging``)."""
        groups = review_groups(portal.findings)
        pieces = chunks([f for _, _, items in groups for f in items], REVIEW_PER_PAGE)
        starts: dict[str, int] = {}
        for number, piece in enumerate(pieces, 1):
            for finding in piece:
                starts.setdefault(finding.kind, number)
        totals = {kind: len(items) for kind, _, items in groups}
        out = []
        for number, piece in enumerate(pieces, 1):
            path = page_path("review/", number)
            here = pager("review/", number, len(pieces))
            kinds = [
                (k, n, ("" if starts[k] == number else f"../{page_path('review/', starts[k])}"))
                for k, n in totals.items()
            ]
            body = self._render(
                "review.html",
                path,
                findings=portal.findings,
                kinds=[(k, n, f"{href}#{k}") for k, n, href in kinds],
                totals=totals,
                groups=review_groups(piece),
                pager=here,
                shown_entries=REVIEW_SHOWN_ENTRIES,
            )
            title = "Review" if number == 1 else f"Review (page {number} of {len(pieces)})"
            out.append(PageOut(path, title, body, "review/"))
        return out

    def llms_txt(self, portal: Portal, base_url: str = "") -> str:
        return self.env.get_template("llms.txt").render(
            portal=portal, counts=portal.counts(), base=base_url
        )

    def feed_xml(self, portal: Portal, base_url: str = "") -> str:
        """The Atom feed of the latest changes; links relative to the root without a base URL.

        Dated by its newest change, never by the build: the same memory gives the same bytes.
        """
        changes = feed_changes(portal)
        name = base_url or portal.site_name
        return self.env.get_template("feed.xml").render(
            portal=portal,
            changes=changes,
            base=base_url,
            feed_id=f"urn:uuid:{uuid.uuid5(FEED_NAMESPACE, name)}",
            updated=changes[0].updated if changes else "1970-01-01T00:00:00.000Z",
        )


def month_title(month: str) -> str:
    """``2026-11`` → ``November 2026``."""
    year, number = month.split("-")
    return f"{calendar.month_name[int(number)]} {year}"


def review_groups(findings: Iterable[FindingView]) -> list[tuple[str, str, list[FindingView]]]:
    """Findings by kind as (kind, what to do, findings), in the order of ``core.review.KINDS``;
    other kinds follow in the order they first appear. Each kind keeps its findings' order."""
    groups: dict[str, list[FindingView]] = {}
    for finding in findings:
        groups.setdefault(finding.kind, []).append(finding)
    order = list(KINDS)
    kinds = sorted(groups, key=lambda k: order.index(k) if k in KINDS else len(order))
    return [(kind, KINDS.get(kind, ""), groups[kind]) for kind in kinds]


def index_lines(index_md: str, entries: Iterable[EntryView]) -> list[tuple[str, str | None]]:
    """index.md's lines, each bullet with the id of the active fact it shows (None: another
    line, or a bullet no fact's text starts like: the index cuts long facts with "…")."""
    by_text = {plain_text(e.content): e.id for e in entries if e.active}
    out: list[tuple[str, str | None]] = []
    for line in index_md.splitlines():
        text = line[2:] if line.startswith("- ") else None
        found = by_text.get(text) if text else None
        if text and found is None and text.endswith("…"):
            stem = text[:-1].rstrip()
            found = next((i for t, i in by_text.items() if stem and t.startswith(stem)), None)
        out.append((line, found))
    return out


def finding_html(message: str, entries: Sequence[EntryView], root: str) -> Markup:
    """A finding's message as HTML: code spans rendered, each short id of its entries linked
    to the entry's page (outside code and links)."""
    ids = {e.short_id: e.id for e in entries}

    def link(match: re.Match[str]) -> str:
        short = match.group(0)
        return f'<a href="{root}entries/{ids[short]}/">{short}</a>' if short in ids else short

    parts = _MARKUP.split(str(render_text(message)))
    for n in range(0, len(parts), 2):
        parts[n] = _SHORT_ID.sub(link, parts[n])
    return Markup("".join(parts))
