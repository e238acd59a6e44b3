"""Text rules shared by every layer: normalization, word tokens, one-line folding, names and
control characters. Pure.

Everything shown to a person or an agent passes through here once: ``one_line`` folds
whitespace, ``printable`` strips the control characters that a terminal would interpret
(escape sequences can set a terminal's title, move its cursor or hide text).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from functools import cache
from typing import Any

NAME_RE = re.compile(r"[a-z0-9][a-z0-9._-]{0,63}")
NAME_RULE = "1-64 characters of a-z, 0-9, '.', '_' or '-', starting with a letter or digit"
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
# C0 and C1 controls and DEL, plus the bidirectional overrides that reorder what a reader sees.
_CONTROLS = "".join(chr(c) for c in (*range(0x20), *range(0x7F, 0xA0)))
_BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_STRIP_INLINE = str.maketrans(dict.fromkeys(_CONTROLS + _BIDI))
_STRIP_BLOCK = str.maketrans(dict.fromkeys(_CONTROLS.replace("\n", "").replace("\t", "") + _BIDI))
_JSON_UNSAFE = str.maketrans({c: f"\\u{ord(c):04x}" for c in _CONTROLS[0x20:] + _BIDI})


def one_line(text: str) -> str:
    """``text`` on one line: every run of whitespace becomes one space, ends trimmed.
    (``str.split`` knows the same whitespace as ``\\s``, at a third of the regex's cost: the
    first build folds every entry's text.)"""
    return " ".join(text.split())


def normalize(content: str) -> str:
    """The comparable form of a fact: NFKC, casefold, one line, no trailing '.' or '!'."""
    return one_line(unicodedata.normalize("NFKC", content).casefold()).rstrip(".!").rstrip()


def word_tokens(normalized: str) -> list[str]:
    """Word tokens of normalized text: runs of word characters, CJK text split per character.
    ASCII text, which holds no CJK, takes plain ``\\w+``: its pattern compiles in 0.04 ms, the
    CJK classes' in ~3 ms, which `search` would pay on every run for an ASCII query."""
    if normalized.isascii():
        return _ascii_words().findall(normalized)
    return _words().findall(normalized)


@cache
def _ascii_words() -> re.Pattern[str]:
    return re.compile(r"\w+")


@cache
def _words() -> re.Pattern[str]:
    # One character class rather than a lookahead per character; compiled on first use.
    return re.compile(rf"[{_CJK}]|[^\W{_CJK}]+")


def shorten(text: str, width: int) -> str:
    """``text`` on one line, cut to ``width`` characters with an ellipsis."""
    line = one_line(text)
    return line if len(line) <= width else line[: width - 1] + "…"


def counted(number: int, noun: str, plural: str | None = None) -> str:
    """``number`` and ``noun``, plural unless one: "1 entry", "2 entries", "0 facts" (the
    plural is ``noun`` + "s", or "ies" for a consonant + "y", unless given)."""
    if number == 1:
        return f"1 {noun}"
    if plural is None:
        ies = noun.endswith("y") and noun[-2:-1] not in tuple("aeiou")
        plural = noun[:-1] + "ies" if ies else noun + "s"
    return f"{number} {plural}"


def split_names(values: Iterable[str], *, lower: bool = True) -> list[str]:
    """Names from repeated, comma-separated values, lower-cased, order kept, no repeats."""
    names: dict[str, None] = {}
    for value in values:
        for part in value.split(","):
            name = part.strip().lower() if lower else part.strip()
            if name:
                names[name] = None
    return list(names)


def is_name(value: str) -> bool:
    return NAME_RE.fullmatch(value) is not None


def as_name(text: str) -> str | None:
    """``text`` made a name (lower case, runs of other characters as '-', at most 64), or
    None when nothing is left: for tags and session ids that come from other tools."""
    value = re.sub(r"[^a-z0-9._-]+", "-", text.strip().lower()).strip("-._")[:64].rstrip("-._")
    return value if value and is_name(value) else None


# str.translate keeps to its fast path for ASCII text only: other text goes character by
# character through the table (index.md of 8 KB with accents: ~0.9 ms, against ~0.08 ms for
# a regex, which costs ~0.9 ms to compile once). Long text that is not ASCII takes the regex.
_LONG = 2_000


def printable(text: str, *, multiline: bool = False) -> str:
    """``text`` without control characters (newlines and tabs kept when ``multiline``)."""
    if len(text) > _LONG and not text.isascii():
        return _stripping(multiline).sub("", text)
    return text.translate(_STRIP_BLOCK if multiline else _STRIP_INLINE)


def json_safe(dumped: str) -> str:
    """JSON text with DEL, C1 controls and bidi overrides escaped too (json escapes only C0)."""
    if len(dumped) > _LONG and not dumped.isascii():
        return _unsafe().sub(_escaped, dumped)
    return dumped.translate(_JSON_UNSAFE)


@cache
def _stripping(multiline: bool) -> re.Pattern[str]:
    """The characters ``printable`` removes, as runs."""
    table = _STRIP_BLOCK if multiline else _STRIP_INLINE
    return re.compile("[" + re.escape("".join(map(chr, sorted(table)))) + "]+")


@cache
def _unsafe() -> re.Pattern[str]:
    """The characters ``json_safe`` escapes, one at a time."""
    return re.compile("[" + re.escape("".join(map(chr, sorted(_JSON_UNSAFE)))) + "]")


def _escaped(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def has_surrogate(text: str) -> bool:
    """Does ``text`` hold a lone surrogate (not valid Unicode; cannot be written as UTF-8)?"""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def strings_of(value: Any) -> Iterator[str]:
    """Every string in a JSON value, object keys included, depth first."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            for key, child in item.items():
                yield str(key)
                stack.append(child)
        elif isinstance(item, list | tuple):
            stack.extend(item)


def map_strings(value: Any, change: Callable[[str], str]) -> Any:
    """A JSON value with ``change`` applied to every string in it, object keys included."""
    if isinstance(value, str):
        return change(value)
    if isinstance(value, list):
        return [map_strings(v, change) for v in value]
    if isinstance(value, dict):
        return {change(str(k)): map_strings(v, change) for k, v in value.items()}
    return value
