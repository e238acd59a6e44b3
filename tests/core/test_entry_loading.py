"""``load_object`` skips the walk over every value when the text shows it has nothing to find
(no escape, few brackets, no number too large): its answers stay those of the full check."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from memsite.core.entry import MAX_DEPTH, check_value, load_object
from memsite.errors import InvalidEntryFileError

_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(alphabet=st.characters(codec="utf-8"), max_size=8),
    st.sampled_from(["\\ud800", "1e999", "[", "{", "\\u00e9"]),
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=40,
)


def _answer(text: str) -> str:
    try:
        load_object(text.encode("utf-8"))
    except InvalidEntryFileError as exc:
        return str(exc)
    return "ok"


def _full_answer(text: str) -> str:
    """The check done the long way: parse, then walk every value."""
    try:
        obj: Any = json.loads(text)
        if not isinstance(obj, dict):
            return "not a JSON object"
        check_value(obj)
    except InvalidEntryFileError as exc:
        return str(exc)
    except RecursionError:
        return f"nested deeper than {MAX_DEPTH} levels"
    return "ok"


def _deep(levels: int) -> str:
    return '{"a": ' + "[" * levels + "1" + "]" * levels + "}"


@settings(max_examples=400)
@given(_VALUES, st.sampled_from(["", "1e999", '"\\ud800"', '"\\ud83d\\ude00"', "1" + "0" * 400]))
@example({"a": 1}, "1e999")
def test_the_shortcut_answers_as_the_full_walk(value: Any, extra: str) -> None:
    text = json.dumps({"v": value}, ensure_ascii=False)
    if extra:
        text = text[:-1] + f', "x": [{extra}]}}'
    assert _answer(text) == _full_answer(text)


def test_nesting_at_the_limit_either_way() -> None:
    for levels in range(MAX_DEPTH - 3, MAX_DEPTH + 3):
        assert _answer(_deep(levels)) == _full_answer(_deep(levels))


def test_a_huge_number_is_refused_even_without_escapes() -> None:
    assert _answer('{"a": 1e999}') == "holds a number too large to be finite"
    assert _answer('{"a": 1' + "0" * 400 + ".5}") == "holds a number too large to be finite"
    assert _answer('{"a": 1.5e3}') == "ok"
