"""MkDocs' search index, ``search/search_index.json``, with one document per fact.

MkDocs' search plugins (MkDocs' own and Material's) write ``{"config", "docs": [{"location",
"title", "text"}, ...]}``, and more than the theme read it: Backstage TechDocs' search
collator indexes its ``docs`` for the whole organisation's search, and offline search plugins
load it. memsite's header box and search page use memsite's own split index instead
(``searchdata``: Lunr loads its whole index, tens of MB at 100k facts), and Material's search
stays idle in the standalone portal; this file is for everyone else.

Each fact is one document: its entry page as ``location``, its page title, its whole text, and
``category``, ``tags`` and ``status`` (extra keys, which readers of ``docs`` pass over or keep).
Search engines and themes may show ``text`` as HTML (Material does), so the text is escaped:
an entry's ``<`` is ``&lt;`` here, never markup.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from html import escape
from typing import Any

from memsite.core.text import one_line
from memsite.portal.keys import views_key
from memsite.portal.model import EntryView

INDEX = "search/search_index.json"


def fact_doc(entry: EntryView, location: str) -> dict[str, Any]:
    """The search document of one fact, whose page is at ``location``."""
    return {
        "location": location,
        "title": entry.title,
        "text": escape(one_line(entry.content), quote=False),
        "category": entry.category,
        "tags": [tag.name for tag in entry.tags],
        "status": entry.status,
    }


# One encoder for every piece (json.dumps with options makes a new one per call).
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def dump(obj: Any) -> str:
    """``obj`` as compact JSON, as MkDocs' search plugins write their index."""
    return _ENCODER.encode(obj)


def index_chunks(
    config: Mapping[str, Any],
    pages: Iterable[tuple[str, str]],
    entries: Sequence[EntryView],
    chunk: int = 2000,
    known: dict[bytes, bytes] | None = None,
) -> Iterator[bytes]:
    """The whole index in pieces: ``pages`` (location, title) as documents without text, then
    every fact, oldest first, ``chunk`` facts a piece. At 100k facts the index is about 46 MB
    (2 s to make): written piece by piece, it is never held whole (a cold build at 100k stays
    under its 1 GB). ``known`` keeps each piece by its facts' views (``keys.views_key``)
    between updates and builds: a new fact comes last, so the pieces before it are the same
    views, found again."""
    parts = [dump({"location": path, "title": title, "text": ""}) for path, title in pages]
    yield f'{{"config":{dump(config)},"docs":[{",".join(parts)}'.encode()
    oldest = entries[::-1]
    made: dict[bytes, bytes] = {}
    comma = b"," if parts else b""
    for start in range(0, len(oldest), chunk):
        views = oldest[start : start + chunk]
        key = views_key(views) if known is not None else b""
        data = known.get(key) if known is not None else None
        if data is None:  # a list's items, without its brackets
            data = dump([fact_doc(e, f"entries/{e.id}/") for e in views])[1:-1].encode()
        if known is not None:
            made[key] = data
        yield comma + data
        comma = b","
    yield b"]}"
    if known is not None:
        known.clear()
        known.update(made)


def with_facts(
    index: Mapping[str, Any], entries: Sequence[EntryView], location: Mapping[str, str]
) -> dict[str, Any]:
    """A host site's index (plugin mode) with one document per fact: whatever the host's
    search plugin made of the entry pages (``location``: entry id → its page's URL) is
    replaced by the fact's document."""
    pages = {url.split("#", 1)[0] for url in location.values()}
    docs = [
        doc
        for doc in index.get("docs", [])
        if not (isinstance(doc, dict) and str(doc.get("location", "")).split("#", 1)[0] in pages)
    ]
    docs += [fact_doc(e, location[e.id]) for e in entries if e.id in location]
    return {**index, "docs": docs}
