"""Untrusted entry text to HTML: escaped, with only code spans and http(s) links as markup. Pure.

Entry text comes from agents, other tools and other branches, so it is never handed to Markdown,
to Jinja as template source, or to a browser as markup. ``render_text`` escapes everything and
turns exactly two constructs into tags: `code spans` and bare ``http(s)://`` URLs.
``safe_title`` makes a short label that holds no HTML-special character at all, so it stays
inert whatever a theme does with it (raw insertion, ``striptags``, attributes).
"""

from __future__ import annotations

import re
from functools import lru_cache
from html import escape

from markupsafe import Markup

from memsite.core.text import one_line

# A code span: a run of N backticks, then anything up to the next run of exactly N backticks.
_CODE_RE = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.DOTALL)
_URL_RE = re.compile(r"\bhttps?://[^\s<>\"'`\x00-\x1f\x7f]+", re.IGNORECASE)
_TRAILING = ".,;:!?'\")]}*_~"
_TITLE_SWAP = str.maketrans({"<": "‹", ">": "›", '"': "”", "'": "’", "&": "＆", "`": ""})


def _trim_url(url: str) -> str:
    """Drop trailing punctuation that ends a sentence, keeping balanced closing brackets."""
    while url and url[-1] in _TRAILING:
        last = url[-1]
        if last == ")" and url.count("(") >= url.count(")"):
            break
        if last == "]" and url.count("[") >= url.count("]"):
            break
        url = url[:-1]
    return url


def _linkify(text: str) -> str:
    """Escape ``text``; bare http(s) URLs become links (escaped in href and text)."""
    out: list[str] = []
    pos = 0
    for match in _URL_RE.finditer(text):
        url = _trim_url(match.group(0))
        if not url.split("://", 1)[1]:
            continue
        out.append(escape(text[pos : match.start()]))
        safe = escape(url)
        out.append(f'<a href="{safe}" rel="nofollow noopener noreferrer">{safe}</a>')
        pos = match.start() + len(url)
    out.append(escape(text[pos:]))
    return "".join(out)


def render_text(text: str) -> Markup:
    """Entry text as HTML: escaped, code spans as ``<code>``, http(s) URLs as links."""
    out: list[str] = []
    pos = 0
    for match in _CODE_RE.finditer(text):
        out.append(_linkify(text[pos : match.start()]))
        inner = match.group(2)
        if inner.strip() and inner.startswith(" ") and inner.endswith(" "):
            inner = inner[1:-1]
        out.append(f"<code>{escape(inner)}</code>")
        pos = match.end()
    out.append(_linkify(text[pos:]))
    return Markup("".join(out))


@lru_cache(maxsize=1 << 16)
def search_html(text: str) -> str:
    """Entry text for Material's search index: escaped, code spans kept as ``<code>``."""
    out: list[str] = []
    pos = 0
    for match in _CODE_RE.finditer(text):
        out.append(escape(text[pos : match.start()]))
        out.append(f"<code>{escape(match.group(2).strip())}</code>")
        pos = match.end()
    out.append(escape(text[pos:]))
    return plain_text("".join(out))


def plain_text(text: str) -> str:
    """Entry text on one line, whitespace collapsed (for titles, snippets, search)."""
    return one_line(text)


def safe_title(text: str, width: int = 80) -> str:
    """A one-line label of at most ``width`` characters without ``< > " ' & `````.

    The characters that could start markup or end an attribute are swapped for look-alikes,
    so the label is the same escaped or not and survives any theme's handling of titles.
    """
    line = plain_text(text.translate(_TITLE_SWAP))
    if len(line) > width:
        cut = line[: width - 1]
        space = cut.rfind(" ")
        if space > width // 2:
            cut = cut[:space]
        line = cut.rstrip(" ,;:.-") + "…"
    return line or "(empty)"
