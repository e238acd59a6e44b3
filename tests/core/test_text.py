"""The shared text rules: normalization, word tokens, one-line folding, names, control
characters and the walks over JSON values."""

from __future__ import annotations

import json

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from memsite.core.text import (
    as_name,
    counted,
    has_surrogate,
    is_name,
    json_safe,
    map_strings,
    normalize,
    one_line,
    printable,
    shorten,
    split_names,
    strings_of,
    word_tokens,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (" Use  PNPM!!. ", "use pnpm"),
        ("Ｕｓｅ pnpm", "use pnpm"),  # NFKC
        ("ﬁle", "file"),  # NFKC ligature
        ("Done.\n", "done"),
        ("why?", "why?"),
        ("...", ""),
    ],
)
def test_normalize(text: str, expected: str) -> None:
    assert normalize(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("use pnpm_9, not npm-8", ["use", "pnpm_9", "not", "npm", "8"]),
        ("日本語 tests", ["日", "本", "語", "tests"]),
        ("한국 ok", ["한", "국", "ok"]),
        ("カタカナ", ["カ", "タ", "カ", "ナ"]),
        ("café naïve", ["café", "naïve"]),
        ("", []),
    ],
)
def test_word_tokens(text: str, expected: list[str]) -> None:
    assert word_tokens(text) == expected


def test_one_line_and_shorten() -> None:
    assert one_line("  a \t b\n\n c\u00a0d ") == "a b c d"
    assert shorten("abc", 3) == "abc"
    assert shorten("abcd", 3) == "ab…"
    assert shorten("a  b\nc d e f", 5) == "a b …"


def test_split_names_keeps_order_without_repeats() -> None:
    assert split_names(["A, b", "a", " ,, ", "B,c"]) == ["a", "b", "c"]
    assert split_names(["A, b", "a", "B"], lower=False) == ["A", "b", "a", "B"]
    assert split_names([]) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("  Payments API!! ", "payments-api"),
        ("A__B", "a__b"),
        (".hidden_", "hidden"),
        ("---", None),
        ("", None),
        ("✓", None),
        ("x" * 70, "x" * 64),
        ("x" * 63 + "-y", "x" * 63),  # cut at 64, then the trailing '-' goes
    ],
)
def test_as_name(text: str, expected: str | None) -> None:
    assert as_name(text) == expected


@given(st.text(max_size=80))
def test_as_name_gives_a_name_or_none(text: str) -> None:
    name = as_name(text)
    assert name is None or is_name(name)


def test_printable_removes_controls_and_bidi() -> None:
    text = "a\x1b[31mb\u202ec\nd\te\x85f\x7fg\u2066h\u200fi"
    assert printable(text) == "a[31mbcdefghi"
    assert printable(text, multiline=True) == "a[31mbc\nd\tefghi"
    assert printable("plain é 日本") == "plain é 日本"


@given(st.text(max_size=40))
def test_printable_leaves_nothing_a_terminal_obeys(text: str) -> None:
    shown = printable(text)
    assert not any(ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 for c in shown)
    assert printable(shown) == shown


_MIXED = st.text(
    alphabet=st.sampled_from("ab é日\n\t\x00\x1b\x7f\x85\x9f\u061c\u200e\u202e\u2069\\[]^-")
    | st.characters(),
    min_size=1,
    max_size=60,
)


@settings(max_examples=150, deadline=None)
@given(_MIXED, st.integers(min_value=1, max_value=300))
@example("é\x1b[31m\u202e\n\t\x85", 400)
def test_long_text_is_cleaned_as_the_tables_say(piece: str, times: int) -> None:
    """Long text that is not ASCII goes through a regex (str.translate is slow on it): the
    same result as the tables, for short and long text alike."""
    from memsite.core import text as rules

    text = piece * times
    for multiline, table in ((False, rules._STRIP_INLINE), (True, rules._STRIP_BLOCK)):
        assert printable(text, multiline=multiline) == text.translate(table)
    assert json_safe(text) == text.translate(rules._JSON_UNSAFE)


def test_json_safe_escapes_what_json_leaves_raw() -> None:
    dumped = json.dumps("a\x7fb\x85c\u202ed\x01é", ensure_ascii=False)
    safe = json_safe(dumped)
    assert safe == '"a\\u007fb\\u0085c\\u202ed\\u0001é"'
    assert json.loads(safe) == json.loads(dumped)


def test_has_surrogate() -> None:
    assert has_surrogate("a\ud800") is True
    assert has_surrogate("😀 ok") is False


def test_strings_of_and_map_strings_reach_keys_and_values() -> None:
    value = {"a": ["b", {"c": "d"}, 3], "e": "f", "n": None}
    assert sorted(strings_of(value)) == ["a", "b", "c", "d", "e", "f", "n"]
    assert list(strings_of("x")) == ["x"]
    assert list(strings_of(7)) == []
    assert map_strings(value, str.upper) == {"A": ["B", {"C": "D"}, 3], "E": "F", "N": None}
    assert map_strings((1, "x"), str.upper) == (1, "x")  # only lists and dicts are walked


@pytest.mark.parametrize(
    ("number", "noun", "plural", "expected"),
    [
        (1, "entry", None, "1 entry"),
        (2, "entry", None, "2 entries"),
        (0, "fact", None, "0 facts"),
        (1, "anchored fact", None, "1 anchored fact"),
        (3, "daily log", None, "3 daily logs"),
        (2, "day", None, "2 days"),  # a vowel before the y
        (2, "index", "indexes", "2 indexes"),
    ],
)
def test_counted_is_singular_for_one_only(
    number: int, noun: str, plural: str | None, expected: str
) -> None:
    assert counted(number, noun, plural) == expected
