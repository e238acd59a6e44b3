"""Entry files are untrusted: any bytes either read as a safe Entry or are rejected with a reason.

"Safe" means every later step can handle it: its names are names (a category becomes a file
name), its time survives arithmetic, and its object can be printed as JSON, marshalled into
the cache and written again.
"""

from __future__ import annotations

import json
import marshal
from datetime import timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memsite.core.entry import MAX_ENTRY_BYTES, Entry
from memsite.core.text import is_name
from memsite.core.validate import serialize
from memsite.errors import InvalidEntryFileError
from tests.oracles import parse_entry

GOOD = {
    "id": "a1b2c3d4-5678-40ab-8def-1234567890ab",
    "category": "conventions",
    "content": "Always use pnpm.",
    "created": "2026-03-07T14:30:00.123Z",
}
FIELDS = ("id", "category", "content", "created", "agent", "tags", "supersedes", "confidence")
FIELDS += ("key", "reason")


def with_extra(raw_value: str) -> bytes:
    """GOOD plus an unknown key holding ``raw_value`` (JSON text, written verbatim)."""
    return (json.dumps(GOOD)[:-1] + f', "x": {raw_value}}}').encode()


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (with_extra("9" * 5000), "more than 4,300 digits"),
        (with_extra("[" * 100_000 + "]" * 100_000), "nested deeper"),
        (with_extra("[" * 40 + "]" * 40), "nested deeper"),
        (with_extra("NaN"), "NaN"),
        (with_extra("Infinity"), "Infinity"),
        (with_extra("1e999"), "too large to be finite"),
        (json.dumps({**GOOD, "content": "bad \ud800"}).encode(), "lone surrogate"),
        (json.dumps({**GOOD, "x": {"\udfff": 1}}).encode(), "lone surrogate"),
        (json.dumps({**GOOD, "created": "0001-01-01T00:00:00+05:00"}).encode(), "'created'"),
        (json.dumps({**GOOD, "created": "9999-12-31T23:59:59-01:00"}).encode(), "'created'"),
        (json.dumps({**GOOD, "created": "9999-12-31T23:59:59.9999999Z"}).encode(), "'created'"),
        (json.dumps({**GOOD, "created": "2026-02-30T00:00:00Z"}).encode(), "'created'"),
        (b" " * (MAX_ENTRY_BYTES + 1), "byte limit"),
    ],
    ids=lambda value: repr(value[:40]) if isinstance(value, bytes) else None,
)
def test_values_that_would_crash_a_later_step_are_rejected(data: bytes, reason: str) -> None:
    with pytest.raises(InvalidEntryFileError, match=reason):
        parse_entry(data, "x.json")


PATH_TRICKS = [
    "../../CLAUDE",
    "/etc/passwd",
    "a/../../b",
    "..\\..\\windows",
    "x\x00y",
    "...",
    ".",
    "..",
    "a" * 300,
    "Conventions",
    "with space",
    "",
]


@pytest.mark.parametrize("field", ["category", "key", "tags"])
@pytest.mark.parametrize("name", PATH_TRICKS, ids=[repr(n[:20]) for n in PATH_TRICKS])
def test_names_that_are_not_names_are_rejected(field: str, name: str) -> None:
    value: Any = [name] if field == "tags" else name
    data = json.dumps({**GOOD, field: value}).encode()
    if field != "category" and name == "":
        assert parse_entry(data, "x.json")  # an empty key or tag means "none"
        return
    if field == "tags" and name == "Conventions":
        assert parse_entry(data, "x.json").tags == ("conventions",)  # tags are lower-cased
        return
    with pytest.raises(InvalidEntryFileError, match=r"not a valid name|empty"):
        parse_entry(data, "x.json")


@pytest.mark.parametrize("agent", ["bot\x1b]0;owned\x07", "a" * 257, "line\nbreak"])
def test_agent_must_be_a_short_printable_name(agent: str) -> None:
    with pytest.raises(InvalidEntryFileError, match="'agent'"):
        parse_entry(json.dumps({**GOOD, "agent": agent}).encode(), "x.json")


def assert_safe(entry: Entry) -> None:
    """Everything a later step does with an entry works."""
    assert is_name(entry.category)
    assert entry.key is None or is_name(entry.key)
    assert all(is_name(t) for t in entry.tags)
    assert entry.agent is None or entry.agent.isprintable()
    json.dumps(entry.raw, allow_nan=False, ensure_ascii=False).encode("utf-8")
    marshal.dumps(dict(entry.raw))
    serialize(entry.raw)
    (entry.created + timedelta(days=1)) - timedelta(days=2)
    entry.created.timestamp()
    entry.is_suspect()


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)


def _dumps(obj: Any) -> bytes:
    # surrogates and NaN as other JSON writers (and json.dumps) would write them
    return json.dumps(obj).encode()


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(
    field=st.sampled_from((*FIELDS, "unknown")),
    value=json_values,
    nested=st.integers(min_value=0, max_value=40),
)
def test_any_json_value_in_any_field_reads_safely_or_is_rejected(
    field: str, value: Any, nested: int
) -> None:
    for _ in range(nested if field == "unknown" else 0):
        value = [value]
    data = _dumps({**GOOD, field: value})
    try:
        entry = parse_entry(data, "x.json")
    except InvalidEntryFileError as exc:
        assert str(exc)
        return
    assert_safe(entry)


@settings(max_examples=400)
@given(st.binary(max_size=600))
def test_any_bytes_read_safely_or_are_rejected(data: bytes) -> None:
    try:
        entry = parse_entry(data, "x.json")
    except InvalidEntryFileError:
        return
    assert_safe(entry)


@settings(max_examples=300)
@given(st.text(max_size=300))
def test_any_text_spliced_into_a_good_entry_reads_safely_or_is_rejected(text: str) -> None:
    raw = json.dumps(GOOD)
    cut = len(raw) // 2
    for data in (raw[:cut] + text + raw[cut:], raw[:-1] + text + "}"):
        try:
            entry = parse_entry(data.encode("utf-8", "surrogatepass"), "x.json")
        except InvalidEntryFileError:
            continue
        assert_safe(entry)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=12,
)


def every_unchecked_string(raw: dict[str, Any]) -> list[str]:
    """The strings a secret could hide in, by the rule's plain wording: unknown keys, and
    every string of every value except the already-validated fields' string values."""
    from memsite.core.schema import CHECKED_VALUES as _CHECKED_VALUES
    from memsite.core.schema import SCHEMA_KEYS as _SCHEMA_KEYS
    from memsite.core.text import strings_of

    found = []
    for key, value in raw.items():
        if key not in _SCHEMA_KEYS:
            found.append(key)
        if key not in _CHECKED_VALUES or not isinstance(value, str):
            found += strings_of(value)
    return found


@given(
    st.dictionaries(
        st.sampled_from([*FIELDS, "anchors", "x", "token", ""]) | st.text(max_size=5),
        JSON_VALUES,
        max_size=8,
    ),
    st.text(min_size=1, max_size=2),
)
@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
def test_the_suspect_test_sees_exactly_the_unchecked_strings(
    raw: dict[str, Any], needle: str
) -> None:
    from memsite.core.entry import _any_suspect

    seen: list[str] = []

    def holds(text: str) -> bool:
        seen.append(text)
        return needle in text

    expected = any(needle in text for text in every_unchecked_string(raw))
    assert _any_suspect(raw, holds) is expected
    if not expected:  # it looked at every one of them, and nothing else
        assert sorted(seen) == sorted(every_unchecked_string(raw))
