"""Byte-pair encoding as Llama 2's tokenizer does it (the semantic extra's model uses it),
for one short text at a time: a query or a prompt, where loading the whole tokenizer (95 ms
for its 61,249 merges) would cost more than the search. The caller looks pieces and merges up
(``piece_id``, ``merge_rank``: the read model holds them), so only the ones a text needs are
read.

The rules, as the tokenizer's JSON gives them and ``tests/core/test_bpe.py`` checks against the
``tokenizers`` library on random text: the special tokens (``<unk>``, ``<s>``, ``</s>``) are cut
out first; each other part gets "▁" prepended and its spaces turned into "▁"; each character
is a piece when the vocabulary holds it, else its UTF-8 bytes (``<0x41>``); then the adjacent
pair with the lowest merge rank is merged, the leftmost first, until no pair merges. No piece
holds "▁" after a character that is not one, so each word is merged on its own.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping

MARK = "\u2581"  # "▁", the tokenizer's space
_WORD = re.compile(f"{MARK}*[^{MARK}]+|{MARK}+")

Lookup = Callable[[str], "int | None"]
TEXT_MAX = 2000  # characters of a text that are embedded (its start)
WORD_MAX = 40  # characters of a run without spaces merged as one word; longer runs are cut
_LONG = re.compile(f"[^ ]{{{WORD_MAX}}}(?=[^ ])")  # words are cut at spaces only (``encode``)


def bounded(text: str) -> str:
    """``text`` as it is embedded: its start, with runs of more than ``WORD_MAX`` characters
    without a space (tabs and line breaks are not spaces to the tokenizer) cut by spaces.
    Merging a word costs the square of its length, and an entry file may hold a megabyte
    without a space; both ways of embedding take this text."""
    return _LONG.sub(lambda found: found.group() + " ", text[:TEXT_MAX])


def encode(
    text: str, specials: Mapping[str, int], piece_id: Lookup, merge_rank: Lookup
) -> list[int]:
    """The token ids of ``text`` (no special token added). ``merge_rank`` takes a pair as
    "left right" (the tokenizer's own spelling of a merge)."""
    ids: list[int] = []
    for part, special in _parts(text, specials):
        if special is not None:
            ids.append(special)
            continue
        normal = MARK + part.replace(" ", MARK)
        for word in _WORD.findall(normal):
            ids += _word_ids(word, piece_id, merge_rank)
    return ids


def _parts(text: str, specials: Mapping[str, int]) -> Iterator[tuple[str, int | None]]:
    """``text`` cut at the special tokens: (part, None) for text, (token, id) for them."""
    if not specials:
        yield from [(text, None)] if text else []
        return
    pattern = "|".join(re.escape(s) for s in sorted(specials, key=len, reverse=True))
    start = 0
    for found in re.finditer(pattern, text):
        if found.start() > start:
            yield text[start : found.start()], None
        yield found.group(), specials[found.group()]
        start = found.end()
    if start < len(text):
        yield text[start:], None


def _word_ids(word: str, piece_id: Lookup, merge_rank: Lookup) -> list[int]:
    symbols = list(word)
    known = [piece_id(s) is not None for s in symbols]
    ranks: dict[tuple[str, str], int | None] = {}
    while len(symbols) > 1:
        best: tuple[int, int] | None = None
        for i in range(len(symbols) - 1):
            if not (known[i] and known[i + 1]):
                continue
            pair = (symbols[i], symbols[i + 1])
            if pair not in ranks:
                ranks[pair] = merge_rank(f"{pair[0]} {pair[1]}")
            rank = ranks[pair]
            if rank is not None and (best is None or rank < best[0]):
                best = (rank, i)
        if best is None:
            break
        i = best[1]
        symbols[i : i + 2] = [symbols[i] + symbols[i + 1]]
        known[i : i + 2] = [True]
    ids: list[int] = []
    for symbol, held in zip(symbols, known, strict=True):
        number = piece_id(symbol) if held else None
        if number is not None:
            ids.append(number)
            continue
        for byte in symbol.encode("utf-8"):
            fallback = piece_id(f"<0x{byte:02X}>")
            if fallback is not None:
                ids.append(fallback)
    return ids
