"""The named things of a fact and the slots they fill, as the conflict rule reads them
(``core.conflicts``, rule 2). Pure.

A *named thing* is a value (``15``, ``3.11``, ``rs256``, ``30s``, ``2026-01-31``, ``02:00``)
or a name of a family of alternatives (``core.alternatives``). A number inside a path or a
name (``migrations/20250906_x.sql``, ``gro-2720-fix``, ``/v1/``) is none, nor a number right
after a word that names a document ("ADR-004", "PR #671", "May 2025"), nor a name in a part
of a clause that denies it ("yarn is not supported", "never squashed", "the ESLint config was
removed": parts end at commas and clauses).

Each named thing fills two *slots*: the word before it and the word after it (function words
and prepositions skipped, within one clause; none next to "repository" or "project", which
names a project), with its kind: its family, or a value's shape (``9`` a number, ``a9`` letters
and a number, ``9a`` a number and a unit, ``date``, ``time``). A slot also keeps what the named
thing is about: the nearest ``BEFORE`` words before it (light verbs left out) and the names
the fact affirms before it.

Only the tokens around named things are looked at, so a long fact without any costs one
regular-expression pass.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Sequence
from functools import cache, lru_cache
from typing import NamedTuple

from memsite.core.alternatives import IDENTIFIERS, families
from memsite.core.stem import stem

BEFORE = 8
_REACH = 4 * BEFORE  # the tokens looked at on either side of a named thing
# The tokens: a date, a time of day, a value (not inside a path or a name), a word, a comma,
# a clause's end. Values start only at the start of a run of letters: from inside one a MiB
# run of letters would be read again from every position (issue 30, item 4).
_SCAN = re.compile(
    r"(?<![\w-])\d{4}-\d{2}-\d{2}(?![\w-])|(?<![\w:])\d{1,2}:\d{2}(?::\d{2})?(?![\w:])"
    r"|(?<![\w/-])[a-z_]*\d+(?:[._]\d+)*[a-z]*(?![\w/])|[a-z_]+|;|,|\.(?=\s)"
)
_SHAPE = re.compile(r"([a-z_]*)\d+(?:[._]\d+)*([a-z]*)")
_DIGIT = re.compile(r"\d")
_DIGITS = frozenset("0123456789")
_ENDS = frozenset((";", "."))
_BREAKS = frozenset((";", ".", ","))
_CONTRACTED = frozenset(
    "don doesn didn isn aren wasn weren won can couldn shouldn wouldn mustn haven hasn".split()
)
# A part of a clause holding one of these denies the names in it.
DENIALS = frozenset(
    """not no never none nothing nobody neither nor cannot without avoid avoids avoided
    disallow disallowed forbid forbidden prohibited removed deprecated dropped retired
    obsolete longer""".split()
)
# Skipped when looking for a named thing's neighbours: function words and prepositions.
SKIPPED = (
    frozenset(
        """a an the and or but if then than so of to in on at by for from with into onto over
    under as is are was were be been being am it its this that these those there here we our
    us you your they their them he she his her i me my do does did done has have had will
    would shall should can could may might must also just only all any each every some such
    very more most less least which who whom whose what when where why how t s after before
    up out within per via about around across through between during since until off down
    upon against behind below above like while because both either e g eg ie etc""".split()
    )
    | DENIALS
)
# A name next to one of these (stemmed) names a project ("in the Bun repository"), not a pick.
_PROJECT = frozenset(("repositori", "repo", "project", "codebas", "monorepo"))
_LIGHT = """use uses used using run runs ran running need needs needed require requires
    required set sets get gets make makes keep keeps always now new"""


class Slot(NamedTuple):
    """A named thing in one of its slots: ``<word|kind`` (after ``word``) or ``>word|kind``."""

    key: str
    name: str
    before: frozenset[str]  # the words before it, stemmed ("=name" for a name)


@cache
def light() -> frozenset[str]:
    """The light verbs, stemmed: words that say nothing of what a fact is about."""
    return frozenset(stem(word) for word in _LIGHT.split())


def slots_of(normalized: str) -> tuple[tuple[Slot, ...], frozenset[str]]:
    """The slots of the named things a fact affirms, and the names it affirms (canonical, or
    the values as written)."""
    tokens = _SCAN.findall(normalized)
    if _DIGIT.search(normalized) is None and families().keys().isdisjoint(tokens):
        return (), frozenset()  # most facts name nothing: one check at C speed
    fact = _Fact(tokens)
    found: list[Slot] = []
    names: set[str] = set()
    for position in fact.affirmed:
        pairs = fact.things[position]
        before = fact.before(position)
        for side, step in (("<", -1), (">", 1)):
            if neighbour := fact.neighbour(position, step):
                found += [Slot(f"{side}{neighbour}|{k}", n, before) for k, n in pairs]
        names.update(name for _, name in pairs)
    return tuple(found), frozenset(names)


@lru_cache(maxsize=65536)
def _as_word(token: str) -> str:
    """A token that is no named thing, as a neighbour: its stem, or "" if it is skipped (a
    function word, a comma or a clause's end, a number that names something)."""
    if token in SKIPPED or token in _BREAKS or token[0] in _DIGITS or token[-1] in _DIGITS:
        return ""
    return stem(token)


class _Fact:
    """A fact's tokens read once: its named things by position (those a part of a clause
    denies apart), its words, and where its clauses end; each question about a named thing
    then costs a few steps, whatever the fact's length."""

    def __init__(self, tokens: list[str]) -> None:
        self.tokens = tokens
        table = families()
        things = {i: table[t] for i, t in enumerate(tokens) if t in table}
        values = [i for i, t in enumerate(tokens) if t[0] in _DIGITS or t[-1] in _DIGITS]
        for i in values:
            if i not in things and (not i or tokens[i - 1] not in IDENTIFIERS):
                things[i] = ((_kind(tokens[i]), tokens[i]),)
        self.things = things
        breaks = [i for i, token in enumerate(tokens) if token in _BREAKS]
        denials = [
            i
            for i, token in enumerate(tokens)
            if token in DENIALS or (token == "t" and i and tokens[i - 1] in _CONTRACTED)
        ]
        self.affirmed = [i for i in sorted(things) if not _denied(i, breaks, denials)]
        self.ends = [i for i in breaks if tokens[i] in _ENDS]
        self.words = [
            things[i][0][1] if i in things else _as_word(token) for i, token in enumerate(tokens)
        ]
        weak = light()
        # the words that say what a named thing is about (not light, not named)
        self.marks = [
            i for i, w in enumerate(self.words) if w and w not in weak and i not in things
        ]
        self.near = [i for i, w in enumerate(self.words) if w]

    def neighbour(self, at: int, step: int) -> str:
        """The nearest word or named thing from ``at`` in direction ``step``, within the
        clause and ``_REACH`` tokens ("" if none, or if it names a project)."""
        place = bisect_left(self.near, at) + (1 if step > 0 else -1)
        if not 0 <= place < len(self.near):
            return ""
        position = self.near[place]
        low, high = min(at, position), max(at, position)
        end = bisect_left(self.ends, low)
        if high - low > _REACH or (end < len(self.ends) and self.ends[end] < high):
            return ""
        word = self.words[position]
        return "" if word in _PROJECT else word

    def before(self, at: int) -> frozenset[str]:
        """What the named thing at ``at`` is about: the nearest ``BEFORE`` words before it
        (light verbs left out, within ``_REACH`` tokens), and every name it affirms before it
        in the fact (a name says what follows is about it: "Ruby 3.3" is not "Go 1.22")."""
        place = bisect_left(self.marks, at)
        found = [
            self.words[position]
            for position in self.marks[max(0, place - BEFORE) : place]
            if position >= at - _REACH
        ]
        for position in self.affirmed[: bisect_left(self.affirmed, at)]:
            found += [f"={name}" for _, name in self.things[position]]
        return frozenset(found)


def _denied(position: int, breaks: Sequence[int], denials: Sequence[int]) -> bool:
    """Whether the part of a clause holding ``position`` (``breaks``: where parts end) holds
    a denial (``denials``: where they are)."""
    part = bisect_left(breaks, position)
    start = breaks[part - 1] if part else -1
    end = breaks[part] if part < len(breaks) else 1 << 62
    first = bisect_left(denials, start)
    return first < len(denials) and denials[first] < end


def _kind(value: str) -> str:
    """A value's shape: a date, a time, or letters before and after a number (``a9a``)."""
    if "-" in value:
        return "date"
    if ":" in value:
        return "time"
    match = _SHAPE.fullmatch(value)
    if match is None:
        return "value"
    return ("a" if match.group(1) else "") + "9" + ("a" if match.group(2) else "")
