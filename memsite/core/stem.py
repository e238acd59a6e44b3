"""The one search analysis, for the CLI's index (FTS5) and the portal's search: word tokens,
then Porter stems (:func:`entry_terms`). Pure.

The stemmer is Martin Porter's 1980 algorithm in the form lunr.js uses (his own revision, with
``bli → ble`` and ``logi → log`` in step 2, and the regular-expression reading of consonants),
so that a word stems the same way here, in the portal's search and in its prebuilt Lunr index
(tests compare it with lunr.py's stemmer over a large vocabulary). Written here rather than
imported: importing lunr costs ~16 ms that `memsite search` cannot spend.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from typing import NamedTuple

from memsite.core.text import normalize, word_tokens

_c = "[^aeiou]"
_v = "[aeiouy]"
_C = _c + "[^aeiouy]*"
_V = _v + "[aeiou]*"
_M_GT0 = re.compile(f"^({_C})?{_V}{_C}")
_M_EQ1 = re.compile(f"^({_C})?{_V}{_C}({_V})?$")
_M_GT1 = re.compile(f"^({_C})?{_V}{_C}{_V}{_C}")
_HAS_VOWEL = re.compile(f"^({_C})?{_v}")
_CVC = re.compile(f"^{_C}{_v}[^aeiouwxy]$")

_1A = re.compile(r"^(.+?)(ss|i)es$")
_1A_S = re.compile(r"^(.+?)([^s])s$")
_1B_EED = re.compile(r"^(.+?)eed$")
_1B = re.compile(r"^(.+?)(ed|ing)$")
_1B_E = re.compile(r"(at|bl|iz)$")
_1B_DOUBLE = re.compile(r"([^aeiouylsz])\1$")
_1C = re.compile(r"^(.+?)y$")
_STEP2 = {
    "ational": "ate",
    "tional": "tion",
    "enci": "ence",
    "anci": "ance",
    "izer": "ize",
    "bli": "ble",
    "alli": "al",
    "entli": "ent",
    "eli": "e",
    "ousli": "ous",
    "ization": "ize",
    "ation": "ate",
    "ator": "ate",
    "alism": "al",
    "iveness": "ive",
    "fulness": "ful",
    "ousness": "ous",
    "aliti": "al",
    "iviti": "ive",
    "biliti": "ble",
    "logi": "log",
}
_STEP3 = {
    "icate": "ic",
    "ative": "",
    "alize": "al",
    "iciti": "ic",
    "ical": "ic",
    "ful": "",
    "ness": "",
}
_2 = re.compile(f"^(.+?)({'|'.join(_STEP2)})$")
_3 = re.compile(f"^(.+?)({'|'.join(_STEP3)})$")
_4 = re.compile(
    r"^(.+?)(al|ance|ence|er|ic|able|ible|ant|ement|ment|ent|ou|ism|ate|iti|ous|ive|ize)$"
)
_4_ION = re.compile(r"^(.+?)(s|t)(ion)$")
_5 = re.compile(r"^(.+?)e$")
_ASCII_WORD = re.compile(r"[a-z]+")


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """The Porter stem of a lower-case word; words that are not plain a-z are kept as they are."""
    if len(word) < 3 or not _ASCII_WORD.fullmatch(word):
        return word
    initial_y = word[0] == "y"
    if initial_y:
        word = "Y" + word[1:]  # a leading y is a consonant
    word = _step1(word)
    if (m := _2.match(word)) and _M_GT0.search(m[1]):
        word = m[1] + _STEP2[m[2]]
    if (m := _3.match(word)) and _M_GT0.search(m[1]):
        word = m[1] + _STEP3[m[2]]
    if m := _4.match(word):
        if _M_GT1.search(m[1]):
            word = m[1]
    elif (m := _4_ION.match(word)) and _M_GT1.search(m[1] + m[2]):
        word = m[1] + m[2]
    if m := _5.match(word):
        base = m[1]
        if _M_GT1.search(base) or (_M_EQ1.search(base) and not _CVC.search(base)):
            word = base
    if word.endswith("ll") and _M_GT1.search(word):
        word = word[:-1]
    return "y" + word[1:] if initial_y else word


def _step1(word: str) -> str:
    if (m := _1A.match(word)) or (m := _1A_S.match(word)):
        word = m[1] + m[2]
    if m := _1B_EED.match(word):
        if _M_GT0.search(m[1]):
            word = word[:-1]
    elif (m := _1B.match(word)) and _HAS_VOWEL.search(m[1]):
        word = m[1]
        if _1B_E.search(word):
            word += "e"
        elif _1B_DOUBLE.search(word):
            word = word[:-1]
        elif _CVC.search(word):
            word += "e"
    if (m := _1C.match(word)) and _HAS_VOWEL.search(m[1]):
        word = m[1] + "i"
    return word


def terms(text: str) -> list[str]:
    """The search terms of any text: normalized, split into word tokens, each stemmed."""
    return [stem(t) for t in word_tokens(normalize(text))]


@lru_cache(maxsize=65536)
def name_terms(name: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A tag's or key's search terms and its raw words (names repeat a lot: cached). The CLI's
    index and the portal's both analyse names here."""
    return tuple(terms(name)), tuple(word_tokens(normalize(name)))


MIN_WORD = 3  # the shortest word kept for spelling suggestions (typo matching)


class Terms(NamedTuple):
    """A fact's search analysis (:func:`entry_terms`)."""

    body: list[str]  # each content token stemmed, in order
    meta: list[str]  # the terms of its tags and key, each once, in order
    words: set[str]  # its raw words (content and names): spelling keeps the long ones
    distinct: int  # how many distinct tokens its content has (the near-duplicate size)


def entry_terms(normalized: str, names: Iterable[str]) -> Terms:
    """The search analysis of a fact's normalized content and its tag and key ``names``."""
    tokens = word_tokens(normalized)
    meta: dict[str, None] = {}
    words = set(tokens)
    distinct = len(words)
    for name in names:
        terms, name_words = name_terms(name)
        meta.update(dict.fromkeys(terms))
        words.update(name_words)
    return Terms(list(map(stem, tokens)), list(meta), words, distinct)
