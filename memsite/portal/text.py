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
# What a title swaps, one replace() each: str.translate with a table that maps to other than
# ASCII goes character by character through the table (~12 µs a fact's text with a quote in
# it, against ~0.5 µs; a build titles every fact). No replacement holds a character replaced
# after it, so the order does not matter.
_TITLE_SWAPS = (("<", "‹"), (">", "›"), ('"', "”"), ("'", "’"), ("&", "＆"), ("`", ""))


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


def plain_text(text: str) -> str:
    """Entry text on one line, whitespace collapsed (for titles, snippets, search)."""
    return one_line(text)


def safe_title(text: str, width: int = 80) -> str:
    """A one-line label of at most ``width`` characters without ``< > " ' & `````.

    The characters that could start markup or end an attribute are swapped for look-alikes,
    so the label is the same escaped or not and survives any theme's handling of titles.
    """
    for markup, look_alike in _TITLE_SWAPS:
        text = text.replace(markup, look_alike)
    line = plain_text(text)
    if len(line) > width:
        cut = line[: width - 1]
        space = cut.rfind(" ")
        if space > width // 2:
            cut = cut[:space]
        line = cut.rstrip(" ,;:.-") + "…"
    return line or "(empty)"


# The end of a first sentence: . ! or ? then a space and what starts a sentence (a capital, a
# digit, a backtick or a quote), outside code spans.
_SENTENCE_END = re.compile(r"[.!?](?=\s+[A-Z0-9`\"'(])")
HEADING_MAX = 240


def split_sentence(text: str) -> tuple[str, str]:
    """(the fact's first sentence, what follows it) for a page heading; a fact of one
    sentence, or whose first sentence is too short or too long to head a page, is all
    heading."""
    spans = [(m.start(), m.end()) for m in _CODE_RE.finditer(text)]
    for match in _SENTENCE_END.finditer(text):
        end = match.end()
        if any(start < end <= stop for start, stop in spans):
            continue
        if 20 <= end <= HEADING_MAX:
            return text[:end], text[end:].strip()
        break
    return text, ""


# A page heading holds at most this many characters (three lines of a phone's H1): the full
# text follows it.
HEADING_WIDTH = 72


def short_heading(text: str, width: int = HEADING_WIDTH) -> str:
    """A fact's page heading: its first sentence (:func:`split_sentence`) on one line when it
    fits in ``width`` characters, else its first words with "…", never cut inside a code
    span (a span too long to keep is left out)."""
    line = plain_text(split_sentence(text)[0])
    if len(line) <= width:
        return line
    spans = [(m.start(), m.end()) for m in _CODE_RE.finditer(line)]
    inside = {n for start, stop in spans for n in range(start, stop)}
    cuts = [n for n in range(1, width) if line[n] == " " and n not in inside]
    cut = line[: cuts[-1]] if cuts else line[:width].replace("`", "")
    return cut.rstrip(" ,;:.-") + "…"


def render_plain(text: str) -> Markup:
    """Entry text as HTML for inside a link: escaped, code spans as ``<code>``, no links."""
    out: list[str] = []
    pos = 0
    for match in _CODE_RE.finditer(text):
        out.append(escape(text[pos : match.start()]))
        out.append(f"<code>{escape(match.group(2).strip())}</code>")
        pos = match.end()
    out.append(escape(text[pos:]))
    return Markup("".join(out))


# A diff's tokens: a code span whole (its inside is never split), a run of whitespace, a word.
_TOKEN_RE = re.compile(r"(?<!`)(`+)(?!`).+?(?<!`)\1(?!`)|\s+|[^\s`]+|`+", re.DOTALL)
# Below this share of words kept, a diff shows the old and the new text whole, one above the
# other: alternating single words read as noise.
BLOCK_BELOW = 0.5


def _tokens(text: str) -> list[str]:
    return [match.group(0) for match in _TOKEN_RE.finditer(text)]


def _words(tokens: list[str]) -> int:
    return sum(1 for token in tokens if not token.isspace())


# Every page of a supersession chain shows each of its diffs: remembered, a build makes each
# once (at 10k generated entries 1,583 diffs, asked for 5,174 times; ~0.23 ms each).
@lru_cache(maxsize=32768)
def word_diff(old: str, new: str) -> Markup:
    """What changed from ``old`` to ``new``: removed words in ``<del>``, added ones in
    ``<ins>`` (code spans and links rendered as in :func:`render_text`); when most words
    changed, the old text in one ``<del>`` block and the new one in one ``<ins>`` block."""
    from difflib import SequenceMatcher

    before, after = _tokens(old), _tokens(new)
    matcher = SequenceMatcher(None, before, after, autojunk=False)
    opcodes = matcher.get_opcodes()
    kept = sum(_words(after[b0:b1]) for op, _, _, b0, b1 in opcodes if op == "equal")
    if kept < BLOCK_BELOW * max(_words(before), _words(after), 1):
        return Markup(
            f'<del class="memsite-diff-old">{render_text(old)}</del>'
            f'<ins class="memsite-diff-new">{render_text(new)}</ins>'
        )
    out: list[str] = []
    for op, a0, a1, b0, b1 in opcodes:
        if op == "equal":
            out.append(render_text("".join(after[b0:b1])))
            continue
        if a1 > a0:
            out.append(f"<del>{render_text(''.join(before[a0:a1]))}</del>")
        if b1 > b0:
            out.append(f"<ins>{render_text(''.join(after[b0:b1]))}</ins>")
    return Markup("".join(out))
