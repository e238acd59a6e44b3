"""Pages of long lists: category and tag pages of about 100 cards, the timeline by month. Pure.

A list that does not fit one page continues on pages at the same depth as its first (so they
share its frame and every relative link holds): ``categories/ops/``, ``categories/ops~2/``,
``categories/ops~3/``. No name can hold ``~`` (names are ``[a-z0-9._-]``, and other names get a
hashed slug), so no page of one list can be mistaken for another list's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, TypeVar

T = TypeVar("T")

CARDS_PER_PAGE = 100
ROWS_PER_PAGE = 400


@dataclass(frozen=True)
class Link:
    """One place in a pager: its label, its href relative to the current page (None for the
    current page itself, or for a gap shown as …)."""

    label: str
    href: str | None
    current: bool = False


@dataclass(frozen=True)
class Pager:
    number: int
    count: int
    previous: str | None
    next: str | None
    links: tuple[Link, ...]

    @property
    def many(self) -> bool:
        return self.count > 1


class PageSpec(NamedTuple):
    """A page laid out by a pure module, for the renderer to render (``Renderer.spec_groups``):
    where it goes, its title, its template, its frame (``shell``) and the template's values."""

    path: str
    title: str
    template: str
    shell: str
    context: dict[str, Any]


def page_path(base: str, number: int) -> str:
    """The path of page ``number`` (from 1) of the list whose first page is ``base``."""
    return base if number == 1 else f"{base.rstrip('/')}~{number}/"


def _href(base: str, current: int, target: int) -> str:
    """A link from page ``current`` to page ``target``: all pages are siblings."""
    name = page_path(base, target).rstrip("/").rsplit("/", 1)[-1]
    return f"../{name}/"


def pager(base: str, number: int, count: int) -> Pager:
    """The pager of page ``number`` of ``count``: first, last and two either side of the
    current page, gaps shown once."""
    shown = sorted({1, count, *range(max(1, number - 2), min(count, number + 2) + 1)})
    links: list[Link] = []
    last = 0
    for target in shown:
        if target - last > 1:
            links.append(Link("…", None))
        if target == number:
            links.append(Link(str(target), None, True))
        else:
            links.append(Link(str(target), _href(base, number, target)))
        last = target
    return Pager(
        number,
        count,
        _href(base, number, number - 1) if number > 1 else None,
        _href(base, number, number + 1) if number < count else None,
        tuple(links),
    )


def chunks(items: Sequence[T], size: int) -> list[Sequence[T]]:
    """``items`` in pieces of ``size``; an empty list is one empty piece (a page says so)."""
    return [items[i : i + size] for i in range(0, len(items), size)] or [items[:0]]


def split_cards_and_rows(
    cards: Sequence[T], rows: Sequence[T], cards_per_page: int = CARDS_PER_PAGE
) -> list[tuple[Sequence[T], Sequence[T]]]:
    """Pages of a list: the ``cards`` (active entries) ``cards_per_page`` to a page, then the
    ``rows`` (inactive entries, a quarter of a card each) ``ROWS_PER_PAGE`` to a page. Rows
    that all fit in the room the last page of cards leaves start there."""
    pages = [(piece, rows[:0]) for piece in chunks(cards, cards_per_page) if piece]
    room = (cards_per_page - len(pages[-1][0])) * ROWS_PER_PAGE // cards_per_page if pages else 0
    if pages and len(rows) <= room:
        pages[-1] = (pages[-1][0], rows)
        return pages
    pages += [(cards[:0], piece) for piece in chunks(rows, ROWS_PER_PAGE) if piece]
    return pages or [(cards[:0], rows[:0])]
