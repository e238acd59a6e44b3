"""``core.bpe`` encodes a query as the ``tokenizers`` library does with the semantic model's own
tokenizer file, on any text: a query's vector is only right if its ids are."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memsite.core.bpe import encode
from memsite.storage import embedding


@cache
def tables() -> tuple[Any, dict[str, int], dict[str, int], dict[str, int]]:
    from tokenizers import Tokenizer

    path = embedding.folder() / embedding.TOKENIZER  # type: ignore[operator]
    loaded = json.loads(path.read_text(encoding="utf-8"))
    merges = {
        (m if isinstance(m, str) else " ".join(m)): rank
        for rank, m in enumerate(loaded["model"]["merges"])
    }
    specials = {t["content"]: t["id"] for t in loaded["added_tokens"]}
    return Tokenizer.from_file(str(path)), loaded["model"]["vocab"], merges, specials


def both(text: str) -> tuple[list[int], list[int]]:
    tokenizer, vocab, merges, specials = tables()
    theirs = tokenizer.encode(text, add_special_tokens=False).ids
    return encode(text, specials, vocab.get, merges.get), theirs


@pytest.mark.parametrize(
    "text",
    [
        "how do I run one integration test by name",
        "pnmp install --frozen-lockfile",
        "  two  spaces\tand a tab\nand a line",
        "émojis 🎉 and 中文 and Ω",
        "a<s>b</s>c<unk>d",
        "<s>",
        "",
        " ",
        "▁▁marks▁ of ▁ the tokenizer",
        "x" * 300,
    ],
)
def test_known_texts(text: str) -> None:
    ours, theirs = both(text)
    assert ours == theirs


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab cXY▁<>/s\t\n🎉é中-_.07")), max_size=30))
def test_any_text_of_tricky_characters(text: str) -> None:
    ours, theirs = both(text)
    assert ours == theirs


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=40))
def test_any_text(text: str) -> None:
    ours, theirs = both(text)
    assert ours == theirs
