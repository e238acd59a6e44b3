"""Search data of the portal: the prebuilt Lunr index, its id map, and Material's documents.

The Lunr index is made with lunr.py: its text pipeline (trimmer, stop-word filter, Porter
stemmer, the same algorithms as lunr.js) turns each field into terms at build time. What ships
is compact: for every term, the short integer refs of the entries holding it per field (delta
coded; a ref repeated once per extra occurrence). The browser hands these postings to lunr.js's
own ``Builder``, which computes the BM25 field vectors exactly as lunr does, so nothing in the
browser runs the text pipeline again. Shipping lunr.py's serialized field vectors instead would
cost about 1.8 MB gzipped at 10,000 entries; this costs about half.

``refs`` are positions in ``memsite-docs.json`` (the separate id map, with what a result line
shows). ``tests/site/test_search_index.py`` rebuilds a lunr.py ``Index`` from the postings and
checks it equals the one lunr.py's stock ``Builder`` makes.
"""

from __future__ import annotations

import itertools
import json
import re
import sys
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

from memsite.core.compaction import STATUSES
from memsite.portal.model import EntryView, Portal

# Where the index splits words (lunr's default is whitespace and '-'): also paths, snake_case,
# dotted names and punctuation, so `migrations/0042_add_accounts.sql` is found by "accounts".
# The browser uses the same expression (it is written into the index file) for queries.
SEPARATOR = r"[\s\u00a0\-/\\.,;:!?()\[\]{}<>\"'`=&|#@$%_+*~^]+"
_SPLIT = re.compile(SEPARATOR)
FIELDS = ("content", "tags", "category", "key")
BOOSTS = (1, 8, 2, 4)
LUNR_FILE = "search/memsite-lunr.json"
DOCS_FILE = "search/memsite-docs.json"


def import_lunr() -> None:
    """Import lunr.py without its optional NLTK language support (which pulls in SciPy, ~2 s).

    MkDocs' and Material's search plugins import lunr.py too, so the portal build calls this
    before MkDocs runs.
    """
    if "lunr" in sys.modules:
        return
    blocked = "nltk" not in sys.modules
    if blocked:
        sys.modules["nltk"] = None  # type: ignore[assignment]
    try:
        import lunr  # noqa: F401
    finally:
        if blocked:
            del sys.modules["nltk"]


@cache
def _pipeline() -> Callable[[str], str | None]:
    import_lunr()
    from lunr.stemmer import stemmer
    from lunr.stop_word_filter import stop_word_filter
    from lunr.token import Token
    from lunr.trimmer import trimmer

    @cache
    def term(word: str) -> str | None:
        token: Any = Token(word, {})
        for step in (trimmer, stop_word_filter, stemmer):
            token = step(token)
            if not token:
                return None
        text = str(token)
        return text or None

    return term


def analyze(text: str) -> list[str]:
    """The index terms of ``text``: lower-cased, split, then lunr.py's pipeline per word."""
    term = _pipeline()
    terms: list[str] = []
    for word in _SPLIT.split(text.lower()):
        if word:
            found = term(word)
            if found:
                terms.append(found)
    return terms


def field_values(entry: EntryView) -> tuple[str, str, str, str]:
    """The indexed text of an entry, in :data:`FIELDS` order."""
    return (entry.content, " ".join(t.name for t in entry.tags), entry.category, entry.key or "")


def build_postings(docs: Sequence[Sequence[str]]) -> dict[str, Any]:
    """The compact Lunr index of ``docs`` (each a sequence of field texts; ref = position)."""
    postings: dict[str, list[list[int]]] = {}
    nfields = len(FIELDS)
    for ref, values in enumerate(docs):
        for number, value in enumerate(values):
            if not value:
                continue
            for term in analyze(value):
                lists = postings.get(term)
                if lists is None:
                    lists = postings[term] = [[] for _ in range(nfields)]
                lists[number].append(ref)
    terms = sorted(postings)
    encoded: list[list[Any]] = []
    for term in terms:
        row: list[Any] = []
        for number, refs in enumerate(postings[term]):
            if refs:
                deltas = [refs[0]] + [b - a for a, b in itertools.pairwise(refs)]
                row.append([number, deltas])
        encoded.append(row)
    return {
        "version": 1,
        "lunr": "2.3.9",
        "separator": SEPARATOR,
        "fields": list(FIELDS),
        "boosts": list(BOOSTS),
        "documentCount": len(docs),
        "terms": terms,
        "postings": encoded,
    }


def decode_postings(data: dict[str, Any]) -> dict[str, list[dict[int, int]]]:
    """term → per field {ref: term frequency} (the inverse of :func:`build_postings`)."""
    out: dict[str, list[dict[int, int]]] = {}
    for term, row in zip(data["terms"], data["postings"], strict=True):
        fields: list[dict[int, int]] = [{} for _ in data["fields"]]
        for number, deltas in row:
            ref = 0
            for delta in deltas:
                ref += delta
                fields[number][ref] = fields[number].get(ref, 0) + 1
        out[term] = fields
    return out


def docs_map(portal: Portal) -> dict[str, Any]:
    """The id map: ref → id, title, category, tags, status, day (indexes into shared lists)."""
    categories = [c.name for c in portal.categories]
    cat_index = {name: n for n, name in enumerate(categories)}
    tags = [t.name for t in portal.tags]
    tag_index = {name: n for n, name in enumerate(tags)}
    statuses = list(STATUSES)
    status_index = {name: n for n, name in enumerate(statuses)}
    return {
        "version": 1,
        "categories": categories,
        "categoryTitles": [c.title for c in portal.categories],
        "tags": tags,
        "statuses": statuses,
        "docs": [
            [
                e.id,
                e.title,
                cat_index[e.category],
                [tag_index[t.name] for t in e.tags],
                status_index[e.status],
                e.day,
            ]
            for e in portal.entries
        ],
    }


def search_files(portal: Portal) -> dict[str, bytes]:
    """``search/memsite-lunr.json`` and ``search/memsite-docs.json`` for the portal."""
    postings = build_postings([field_values(e) for e in portal.entries])
    return {
        LUNR_FILE: _dump(postings),
        DOCS_FILE: _dump(docs_map(portal)),
    }


def _dump(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def material_docs(portal: Portal, prefix: str = "") -> list[dict[str, str]]:
    """Documents for Material's header search: one per active entry (escaped HTML text)."""
    from memsite.portal.text import search_html

    return [
        {
            "location": f"{prefix}entries/{e.id}/",
            "title": e.title,
            "text": search_html(e.content),
        }
        for e in portal.entries
        if e.active
    ]
