"""A fast, conservative estimate of how many tokens a text costs an agent.

memsite keeps what it puts in front of an agent (``index.md``, search results) under a token
budget. Agents count with byte-level BPE tokenizers such as OpenAI's ``cl100k_base`` and
``o200k_base``. Shipping their vocabularies (megabytes) and running them thousands of times per
index build is not worth it, so :func:`estimate_tokens` charges text by a few fixed rules. The
rules are meant to give an upper bound on both tokenizers for real text: English prose, source
code, Markdown, JSON, shell, CJK, Cyrillic, emoji, numbers, hashes, UUIDs, URLs and paths.
The estimate is deliberately pessimistic: if it is too high, the index drops a bullet or two; if
it is too low, the budget is overrun without anyone noticing.

How the tokenizers work, and what each part of a text is charged
----------------------------------------------------------------
First a regular expression cuts the text into words, groups of up to three digits, runs of
punctuation and runs of whitespace. A single space is glued to the word or punctuation after
it. Then BPE merges the UTF-8 bytes of each piece into vocabulary tokens. A common English
word is one token. A rare piece falls apart into short fragments, down to one token per byte.
A piece never costs more tokens than it has bytes. The estimate charges:

* 2 tokens for every non-empty text (``_MARGIN``). This absorbs a word or two that BPE splits
  more finely than the rules below expect (see "Limits").
* ASCII words, meaning runs of ASCII letters and digits. They are cut the way the tokenizers
  cut them, into digit groups, ALL-CAPS runs and lower-case runs with at most one leading
  capital (``XMLHttpRequest`` becomes ``XML``, ``Http``, ``Request``; ``k8s`` becomes ``k``,
  ``8``, ``s``):

  - digits: 1 token per 3 digits (the tokenizers never merge more than three);
  - ALL-CAPS: 1 token per letter;
  - a lower-case or Capitalised piece of n letters: ceil(n / 4), plus 1 per 2 letters past the
    tenth (long runs are glued words or identifiers); ceil(2n / 3) instead when the piece has
    no vowel (``pnpm``, ``nvm``) or its word also has digits (hex such as ``9fceb02d``); 1 more
    per ``j``, ``q``, ``x`` or ``z``; 1 more for a Capitalised piece of five or more letters
    (names such as ``Scunthorpe`` split finely).

* 1 token per byte that is not an ASCII letter, digit or space. This covers punctuation,
  newlines, tabs, control characters and every UTF-8 byte of non-ASCII text. Because of the
  bytes bound this is safe for any script or symbol: CJK (3 bytes a character, 1-3 tokens),
  Cyrillic (2 bytes, usually well under 1 token), emoji (4 bytes a code point; ZWJ sequences,
  flags and skin tones are several code points).
* Spaces. A space followed by a letter or punctuation is free, because it merges into the
  following token. Any other space costs 1 (before a digit, newline, tab, control character,
  non-ASCII character or the end of the text). A run of two or more spaces costs 1 more, plus
  1 per 64 spaces.

Measured against both tokenizers on the corpora in ``tests/core/test_estimate.py``, the estimate is
about 1.5x the real count on English prose and Markdown bullets, 1.4-1.8x on code, JSON and
config files, 1.6-2x on emoji, 2.6-3.9x on CJK and 3-7x on Cyrillic. Non-ASCII text is charged
by the bytes bound, because a rare character really does cost one token per byte.

Limits
------
Without the vocabulary, a rare lower-case word looks the same as a common one. Random letters,
rot13, transliterated names and glued abbreviations (``asimddp``) can cost up to ~0.7 tokens a
letter, where ordinary words cost about a quarter of that. Such words are covered by the margin
(one or two per call) and by the slack that the rest of the text leaves. The slack is usually
large: punctuation, digits, spaces and common words are all charged generously. As a wider
check, the estimate was run on the 3.3 million distinct lines of the installed Python packages
(Python, stubs, Markdown, reST, JSON, YAML, JS, HTML, CSS, gettext catalogues): 0.006% of them
were under-counted, all of this kind (lists of Fortran routine names, rot13, transliterated
names), and none of the 34,000 files was under-counted as a whole.

Speed: O(n). Each call runs a handful of C-level passes over the UTF-8 bytes (``translate``,
``split``, ``count``) and looks up a memoised cost for each word. A 200-character line takes
a few microseconds.
"""

from __future__ import annotations

import re

__all__ = ["estimate_tokens"]

_MARGIN = 2
"""Tokens added to every non-empty estimate, for words that are rarer than they look."""

_LOWER = b"abcdefghijklmnopqrstuvwxyz"
_UPPER = _LOWER.upper()
_DIGITS = b"0123456789"
_ALNUM = _LOWER + _UPPER + _DIGITS
_PUNCTUATION = bytes(b for b in range(0x21, 0x7F) if b not in _ALNUM)

# bytes.translate tables, one byte in, one byte out (every pass below runs in C).
# ASCII letters and digits stay, everything else becomes a space: .split() then yields the words.
_WORD_BYTES = bytes(b if b in _ALNUM else 0x20 for b in range(256))
# Deleted before counting the bytes that cost one token each.
_FREE_BYTES = _ALNUM + b" "
# What follows a space: "a" for what it merges into (letter, punctuation), "#" for the rest.
_SPACE_CONTEXT = bytes(
    0x20 if b == 0x20 else 0x61 if b in _LOWER + _UPPER + _PUNCTUATION else 0x23 for b in range(256)
)

# Pieces of an ASCII word, as the tokenizers cut them: ALL-CAPS before a Capitalised piece,
# a lower-case run with at most one leading capital, the remaining ALL-CAPS, digits.
_PIECES = re.compile(rb"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_VOWEL = re.compile(rb"[aeiouAEIOU]")
_RARE_LETTERS = re.compile(rb"[jqxzJQXZ]")
_MEMO_LIMIT = 1 << 16


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def _word_cost(word: bytes) -> int:
    """Tokens charged for one run of ASCII letters and digits (rules in the module docstring)."""
    has_digits = not word.isalpha()
    cost = 0
    for piece in _PIECES.findall(word):
        n = len(piece)
        if piece.isdigit():
            cost += _ceil_div(n, 3)
        elif piece.isupper():
            cost += n
        else:
            charge = _ceil_div(n, 4) if n <= 10 else 3 + _ceil_div(n - 10, 2)
            if n > 1 and (has_digits or _VOWEL.search(piece) is None):
                charge = max(charge, _ceil_div(2 * n, 3))
            if n >= 5 and piece[:1].isupper():
                charge += 1
            cost += charge + len(_RARE_LETTERS.findall(piece))
    return cost


class _WordCosts(dict[bytes, int]):
    """Memo of :func:`_word_cost`: index bullets repeat most of their words."""

    def __missing__(self, word: bytes) -> int:
        cost = self[word] = _word_cost(word)
        return cost


_word_costs = _WordCosts()


def estimate_tokens(text: str) -> int:
    """Tokens ``text`` costs, never fewer than cl100k_base or o200k_base count on real text.

    See the module docstring for the rules and their limits. ``estimate_tokens("") == 0``.
    """
    if not text:
        return 0
    raw = text.encode("utf-8", "surrogatepass")
    if len(_word_costs) > _MEMO_LIMIT:
        _word_costs.clear()
    words = sum(map(_word_costs.__getitem__, raw.translate(_WORD_BYTES).split()))
    per_byte = len(raw.translate(None, _FREE_BYTES))
    context = raw.translate(_SPACE_CONTEXT)
    lone_spaces = context.count(b" #") + context.endswith(b" ")
    space_runs = context.count(b"a  ") + context.count(b"#  ") + context.startswith(b"  ")
    long_runs = context.count(b" " * 64)
    return _MARGIN + words + per_byte + lone_spaces + space_runs + long_runs
