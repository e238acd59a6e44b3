"""Every file of the portal, listed once: the pages (navigation pages, tag pages, entry
pages), the raw files for agents and feed readers, the search index and the static assets.
``memsite build`` writes them through :class:`~memsite.portal.site.Site` (incrementally, and
the search index as it is made); the MkDocs plugin adds the pages to the host site and writes
the files after MkDocs' build. Both take them from here."""

from __future__ import annotations

import gzip
from collections.abc import Callable, Iterable, Iterator
from html import escape
from typing import Any

from memsite.portal.model import Portal
from memsite.portal.render import PageOut, Renderer

# The portal's static files (site-config/docs/), which the MkDocs plugin adds to the host site.
STYLESHEET = "assets/memsite/portal.css"
ASSETS = (
    STYLESHEET,
    "assets/memsite/search.js",
    "assets/memsite/filter.js",
)


def raw_files(
    portal: Portal, renderer: Renderer, base_url: str = ""
) -> Iterator[tuple[str, Any, Callable[[], str]]]:
    """The non-HTML outputs: ``index.md``, ``llms.txt``, ``feed.xml`` and
    ``entries/<id>.json``, as (path, key, render): an entry's JSON file has its
    :class:`~memsite.portal.model.JsonSource` as key (the same object while the entry is
    unchanged), and is made only when ``render`` is called; the others' key is None."""
    yield ("index.md", None, lambda: portal.index_md)
    yield ("llms.txt", None, lambda: renderer.llms_txt(portal, base_url))
    yield ("feed.xml", None, lambda: renderer.feed_xml(portal, base_url))
    for entry_id, source in portal.json_sources.items():
        yield (f"entries/{entry_id}.json", source, source.text)


def nav_items(portal: Portal) -> list[tuple[str, str | list[tuple[str, str]]]]:
    """The navigation: title → page path (relative to the portal root), entries left out."""
    configured = [c for c in portal.categories if c.configured]
    return [
        ("Home", ""),
        ("Categories", [(c.title, f"categories/{c.slug}/") for c in configured]),
        ("Tags", "tags/"),
        ("Timeline", "timeline/"),
        ("Review", "review/"),
        ("Search", "search/"),
    ]


def pages(portal: Portal, renderer: Renderer) -> Iterator[PageOut]:
    """Every page: the navigation pages, each tag's pages, each entry's page."""
    yield from renderer.main_pages(portal)
    yield from renderer.tag_pages(portal)
    for entry in portal.entries:
        yield renderer.entry_page(portal.page(entry.id))


def files(portal: Portal, renderer: Renderer, base_url: str = "") -> Iterator[tuple[str, bytes]]:
    """Every file that is not a page: the raw files, then the search index."""
    from memsite.portal.searchdata import search_file_stream

    for rel, _, render in raw_files(portal, renderer, base_url):
        yield rel, render().encode("utf-8")
    yield from search_file_stream(portal)


def sitemap(paths: Iterable[str], site_url: str | None) -> bytes:
    """sitemap.xml as MkDocs writes it (no <loc> without a site_url), without build dates."""
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
    ]
    if site_url:
        base = site_url.rstrip("/") + "/"
        for path in paths:
            lines.append(f"    <url>\n         <loc>{escape(base + path)}</loc>\n    </url>")
    lines.append("</urlset>")
    return ("\n".join(lines) + "\n").encode("utf-8")


def gzipped(data: bytes) -> bytes:
    return gzip.compress(data, compresslevel=9, mtime=0)
