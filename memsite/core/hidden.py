"""Invisible and direction-changing characters: text a reviewer cannot see but an agent reads. Pure.

A fact is read by people (a diff, the portal, a terminal) and by agents (index.md, context, MCP).
The characters below show nothing, or reorder what is shown, so a line that reads "run the tests"
can carry an instruction only the agent receives: the Unicode tag characters U+E0020–E007F mirror
ASCII one for one and models decode them (the "rules file backdoor"); runs of variation selectors
carry one byte each behind a single emoji ("emoji smuggling"); bidi overrides make a reviewer read
a command the shell does not run ("Trojan Source"). Writes refuse them (``core.validate``) and
what agents receive has them stripped (:func:`strip_hidden`).

Always hidden, refused wherever they stand (why: [i] invisible, [r] reorders what is shown,
[c] carries hidden data, [s] splits a word past any filter):

| code points    | names                                                          | why     |
|----------------|----------------------------------------------------------------|---------|
| U+E0000–E007F  | Tags block: LANGUAGE TAG, TAG SPACE … CANCEL TAG (1)           | i, c    |
| U+E0100–E01EF  | VARIATION SELECTOR-17 … 256 (2)                                | i, c    |
| U+FE00–FE0D    | VARIATION SELECTOR-1 … 14                                      | i, c    |
| U+200B         | ZERO WIDTH SPACE                                               | i, s    |
| U+200E, U+200F | LEFT-TO-RIGHT MARK, RIGHT-TO-LEFT MARK                         | i, r    |
| U+061C         | ARABIC LETTER MARK                                             | i, r    |
| U+202A–202E    | LRE, RLE, PDF, LRO, RLO: bidi embeddings and overrides         | r       |
| U+2060–2064    | WORD JOINER, FUNCTION APPLICATION, INVISIBLE TIMES / SEP / PLUS | i, s   |
| U+2066–2069    | LRI, RLI, FSI, PDI: bidi isolates                              | r       |
| U+206A–206F    | deprecated format characters (U+2065 is unassigned, in too)    | i, r    |
| U+FEFF         | ZERO WIDTH NO-BREAK SPACE (byte order mark)                    | i, s    |
| U+00AD         | SOFT HYPHEN (shown only at a line break)                       | i, s    |
| U+034F         | COMBINING GRAPHEME JOINER                                      | i, s    |
| U+115F, U+1160 | HANGUL CHOSEONG FILLER, HANGUL JUNGSEONG FILLER (3)            | i       |
| U+3164, U+FFA0 | HANGUL FILLER, HALFWIDTH HANGUL FILLER (3)                     | i       |
| U+17B4, U+17B5 | KHMER VOWEL INHERENT AQ, AA (Unicode advises against them)     | i       |
| U+180B–180F    | MONGOLIAN FREE VARIATION SELECTORS, VOWEL SEPARATOR (4)        | i, s    |
| U+FFF9–FFFB    | INTERLINEAR ANNOTATION ANCHOR, SEPARATOR, TERMINATOR           | i       |
| U+13430–1343F  | Egyptian hieroglyph format controls (5)                        | i       |
| U+1BCA0–1BCA3  | SHORTHAND FORMAT LETTER OVERLAP … UP STEP (5)                  | i       |
| U+1D173–1D17A  | MUSICAL SYMBOL BEGIN BEAM … END PHRASE                         | i       |

(1) the subdivision flags (England, Scotland, Wales) are spelt with tags: refused with them.
(2) ideographic variation sequences of CJK text are refused with them; they are rare in typed
text. (3) blank letters, a known way to hide text; modern Korean does not type them.
(4) Mongolian text needing them is refused. (5) invisible outside specialist fonts. No fact
about code is written in these scripts.

Hidden unless in place (where a script or an emoji needs them, they are kept):

| code points    | names                                   | kept when                           |
|----------------|-----------------------------------------|-------------------------------------|
| U+200C, U+200D | ZERO WIDTH NON-JOINER, ZERO WIDTH JOINER | one stands between two visible     |
|                |                                         | non-ASCII characters                |
| U+FE0E, U+FE0F | VARIATION SELECTOR-15, -16              | one follows a visible character     |

So Persian and Indic words keep their joiners, emoji ZWJ sequences (woman technologist, U+1F469
U+200D U+1F4BB; the rainbow flag, whose joiner follows the flag's VS16: U+1F3F3 U+FE0F U+200D
U+1F308) and presentation selectors (warning sign U+26A0 U+FE0F, the keycap 1 U+FE0F U+20E3)
stay; a joiner between ASCII letters, at either end or next to another, and a second selector
in a row, are hidden (they split words, or carry data one character at a time). This file
spells every such character as an escape, so that it holds none itself.

Every other format character (category Cf) is visible where it is used and stays: the Arabic
number signs U+0600–0605, END OF AYAH U+06DD and U+08E2, the pound and piastre marks U+0890–0891,
SYRIAC ABBREVIATION MARK U+070F and the Kaithi number signs U+110BD and U+110CD. A test checks
that every Cf character of the running Python's Unicode database is in one list or the other.

What stays possible, and why it is not closed: a kept joiner or presentation selector carries
under two bits per visible non-ASCII character, and no model reads that as words; look-alike
letters (a Cyrillic "а" for a Latin "a") are visible, and out of scope here.

Positions are offsets into the string (0 is the first character); messages count from 1.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

# (first, last) code points, refused wherever they stand.
ALWAYS: tuple[tuple[int, int], ...] = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200B),
    (0x200E, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0D),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF9, 0xFFFB),
    (0x13430, 0x1343F),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE007F),
    (0xE0100, 0xE01EF),
)
JOINERS = "\u200c\u200d"
PRESENTATION = "\ufe0e\ufe0f"
# Format characters (Cf) that show a sign where they are used: kept.
VISIBLE_FORMAT: tuple[tuple[int, int], ...] = (
    (0x0600, 0x0605),
    (0x06DD, 0x06DD),
    (0x070F, 0x070F),
    (0x0890, 0x0891),
    (0x08E2, 0x08E2),
    (0x110BD, 0x110BD),
    (0x110CD, 0x110CD),
)


def _ranges(ranges: tuple[tuple[int, int], ...]) -> str:
    return "".join(
        re.escape(chr(a)) if a == b else f"{re.escape(chr(a))}-{re.escape(chr(b))}"
        for a, b in ranges
    )


@cache
def _pattern() -> re.Pattern[str]:
    """One pass over the text. Each branch starts with its character and then looks back, so
    the scan only stops at candidates; every look is one or two characters wide (linear)."""
    always = _ranges(ALWAYS)
    special = always + JOINERS + PRESENTATION
    # A visible character: not whitespace, not a control, not one of ours.
    shown = rf"[^\s\x00-\x1f\x7f-\x9f{special}]"
    # ... and not ASCII: what a joiner may stand between.
    wide = rf"[^\s\x00-\x9f{special}]"
    vs, zj = f"[{PRESENTATION}]", f"[{JOINERS}]"
    return re.compile(
        rf"[{always}]"
        rf"|{vs}(?<!{shown}{vs})"
        rf"|{zj}(?<!{wide}{zj})(?<!{wide}{vs}{zj})"
        rf"|{zj}(?!{wide})"
    )


def hidden_at(text: str) -> list[tuple[int, str]]:
    """Each hidden character of ``text`` with its offset, in order."""
    if text.isascii():
        return []
    return [(m.start(), m.group()) for m in _pattern().finditer(text)]


def first_hidden(text: str) -> tuple[int, str] | None:
    """The first hidden character of ``text`` and its offset (None: there is none)."""
    if text.isascii():
        return None
    found = _pattern().search(text)
    return None if found is None else (found.start(), found.group())


def has_hidden(text: str) -> bool:
    return first_hidden(text) is not None


def strip_hidden(text: str) -> str:
    """``text`` without its hidden characters; what is kept stays in place (idempotent: a kept
    joiner's neighbours are visible characters, which are never removed)."""
    if text.isascii():
        return text
    return _pattern().sub("", text)


def describe(char: str) -> str:
    """``U+E0041 (TAG LATIN CAPITAL LETTER A)``: how a message names a character."""
    return f"U+{ord(char):04X} ({unicodedata.name(char, 'unassigned')})"


def hidden_problem(kind: str, text: str) -> str | None:
    """One line naming the first hidden character of ``text`` (None: there is none)."""
    first = first_hidden(text)
    if first is None:
        return None
    offset, char = first
    count = len(hidden_at(text))
    what = "an invisible character" if count == 1 else f"{count} invisible characters, the first"
    return (
        f"{kind} holds {what} {describe(char)} at position {offset + 1}: "
        f"remove {'it' if count == 1 else 'them'} and write again"
    )
