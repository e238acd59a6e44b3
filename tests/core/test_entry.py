"""Entry parsing (lenient), building (strict) and normalization."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memsite.core.entry import filename_for, format_created, parse_created
from memsite.core.text import normalize, word_tokens
from memsite.core.text import split_names as split_tags
from memsite.core.validate import Limits, build_entry
from memsite.errors import InvalidEntryFileError, InvalidInputError
from tests.oracles import parse_entry

GOOD = {
    "id": "a1b2c3d4-5678-40ab-8def-1234567890ab",
    "category": "conventions",
    "content": "Always use pnpm.",
    "created": "2026-03-07T14:30:00.123Z",
}


@pytest.mark.parametrize(
    ("changes", "check"),
    [
        ({}, lambda e: e.confidence == "medium" and e.tags == () and e.supersedes == ()),
        ({"id": GOOD["id"].upper()}, lambda e: e.id == GOOD["id"]),
        ({"id": "a1b2c3d4-5678-10ab-0def-1234567890ab"}, lambda e: e.id.startswith("a1b2")),
        ({"created": "2026-03-07T14:30:00Z"}, lambda e: e.created.second == 0),
        ({"created": "2026-03-07T16:30:00+02:00"}, lambda e: e.created.hour == 14),
        ({"agent": None, "tags": None, "supersedes": None, "key": None}, lambda e: e.key is None),
        ({"supersedes": GOOD["id"]}, lambda e: e.supersedes == (GOOD["id"],)),
        ({"tags": ["PNPM", "tooling"]}, lambda e: e.tags == ("pnpm", "tooling")),
        ({"x-custom": {"a": 1}}, lambda e: e.raw["x-custom"] == {"a": 1}),
        ({"category": "not-configured"}, lambda e: e.category == "not-configured"),
    ],
)
def test_reading_is_lenient(changes: dict[str, object], check: object) -> None:
    entry = parse_entry(json.dumps({**GOOD, **changes}).encode(), "x.json")
    assert callable(check) and check(entry)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b'{"id": "a1b2', "not valid JSON"),
        (b"\xff\xfe{}", "UTF-8"),
        (b"<<<<<<< HEAD\n{}\n=======\n{}\n>>>>>>> other\n", "merge-conflict"),
        (b"[1, 2]", "not a JSON object"),
        (json.dumps({**GOOD, "id": "../../etc/passwd"}).encode(), "UUID"),
        (json.dumps({**GOOD, "content": 42}).encode(), "'content' must be a string"),
        (json.dumps({**GOOD, "content": "  "}).encode(), "empty"),
        (json.dumps({**GOOD, "created": "yesterday"}).encode(), "RFC 3339"),
        (json.dumps({**GOOD, "tags": "a,b"}).encode(), "list of strings"),
        (json.dumps({**GOOD, "supersedes": 7}).encode(), "supersedes"),
        (json.dumps({**GOOD, "confidence": "sure"}).encode(), "confidence"),
        (json.dumps({k: v for k, v in GOOD.items() if k != "category"}).encode(), "category"),
    ],
)
def test_unusable_files_are_rejected_with_a_reason(data: bytes, message: str) -> None:
    with pytest.raises(InvalidEntryFileError, match=message):
        parse_entry(data, "x.json")


NOW = datetime(2026, 3, 7, 14, 30, 0, 123000, tzinfo=UTC)


def build(**changes: object) -> dict[str, object]:
    args: dict[str, object] = {
        "content": "Use pnpm",
        "category": "conventions",
        "categories": ["conventions", "decisions"],
        "created": NOW,
        "limits": Limits(content_max=50, tags_max=3, agent_max=10),
    }
    args.update(changes)
    return build_entry(**args)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"category": "misc"}, "unknown category 'misc': use one of conventions, decisions"),
        ({"content": "   "}, "content is empty"),
        ({"content": "x" * 51}, "over the limit of 50"),
        ({"tags": ["Bad Tag"]}, "invalid tag"),
        ({"tags": ["a", "b", "c", "d"]}, "4 tags"),
        ({"confidence": "sure"}, "invalid confidence"),
        ({"agent": "x" * 11}, "invalid agent"),
        ({"key": "../x"}, "invalid key"),
        ({"supersedes": ["../../etc/passwd"]}, "invalid supersedes id"),
    ],
)
def test_writing_is_strict(changes: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidInputError, match=message.replace("(", r"\(")):
        build(**changes)


def test_built_entry_has_the_documented_shape() -> None:
    obj = build(tags=["pnpm"], supersedes=["A1B2C3D4-5678-40AB-8DEF-1234567890AB"], key="pm")
    assert list(obj)[:8] == [
        "id",
        "category",
        "content",
        "created",
        "agent",
        "tags",
        "supersedes",
        "confidence",
    ]
    assert obj["created"] == "2026-03-07T14:30:00.123Z"
    assert obj["supersedes"] == "a1b2c3d4-5678-40ab-8def-1234567890ab"
    assert obj["key"] == "pm" and obj["confidence"] == "medium"


def test_file_name_and_time_format() -> None:
    assert format_created(NOW) == "2026-03-07T14:30:00.123Z"
    assert parse_created("2026-03-07T14:30:00.123Z") == NOW
    assert filename_for(NOW, GOOD["id"]) == "2026-03-07T14-30-00Z-a1b2c3d4.json"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("  Always   use PNPM!  ", "always use pnpm"),
        ("Use pnpm...", "use pnpm"),
        ("ＦＵＬＬ width", "full width"),
        ("Straße", "strasse"),
        ("line\nbreaks\tand tabs.", "line breaks and tabs"),
    ],
)
def test_normalize(text: str, expected: str) -> None:
    assert normalize(text) == expected


def test_word_tokens_split_cjk_per_character() -> None:
    assert word_tokens("使用 pnpm 管理") == ["使", "用", "pnpm", "管", "理"]


def test_split_tags_accepts_commas_and_repeats() -> None:
    assert split_tags(["a,b", " C ", "a"]) == ["a", "b", "c"]


# --- validity windows ----------------------------------------------------------------------------

DAY = datetime(2026, 3, 31, tzinfo=UTC)


@pytest.mark.parametrize(
    ("window", "start", "end"),
    [
        ({}, None, None),
        ({"valid_from": None, "valid_to": ""}, None, None),  # null or empty: open
        ({"valid_from": "2026-03-31"}, DAY, None),  # a day from its start
        ({"valid_to": "2026-03-31"}, None, DAY + timedelta(days=1)),  # through its end (UTC)
        ({"valid_from": "2026-03-31", "valid_to": "2026-03-31"}, DAY, DAY + timedelta(days=1)),
        ({"valid_to": "2026-03-31T20:00:00+02:00"}, None, DAY + timedelta(hours=18)),
        ({"valid_from": "2026-03-31T06:00:00.5Z"}, DAY + timedelta(hours=6, seconds=0.5), None),
        (
            {"valid_from": "0001-01-02", "valid_to": "9999-12-29"},
            datetime(1, 1, 2, tzinfo=UTC),
            datetime(9999, 12, 30, tzinfo=UTC),
        ),
    ],
)
def test_a_validity_window_is_read_from_the_file(
    window: dict[str, object], start: datetime | None, end: datetime | None
) -> None:
    entry = parse_entry(json.dumps({**GOOD, **window}).encode(), "x.json")
    assert entry.window == (start, end)
    assert all(entry.raw[k] == v for k, v in window.items())  # kept as written


@pytest.mark.parametrize(
    ("window", "message"),
    [
        ({"valid_from": 20260331}, "'valid_from' must be a date"),
        ({"valid_to": ["2026-03-31"]}, "'valid_to' must be a date"),
        ({"valid_to": "2026-02-30"}, "'valid_to' is not a date"),
        ({"valid_from": "31/03/2026"}, "'valid_from' is not a date"),
        ({"valid_from": "2026-3-31"}, "'valid_from' is not a date"),
        ({"valid_to": "9999-12-31"}, "'valid_to' is not a date"),  # its end overflows
        ({"valid_from": "2026-04-01", "valid_to": "2026-03-31"}, "'valid_to' is not after"),
        ({"valid_from": "2026-04-01T00:00:00Z", "valid_to": "2026-04-01T00:00:00Z"}, "not after"),
    ],
)
def test_a_bad_validity_window_makes_the_file_invalid(
    window: dict[str, object], message: str
) -> None:
    with pytest.raises(InvalidEntryFileError, match=message):
        parse_entry(json.dumps({**GOOD, **window}).encode(), "x.json")


WINDOW_VALUES = st.one_of(
    st.none(),
    st.integers(),
    st.floats(allow_nan=False),
    st.booleans(),
    st.text(max_size=40),
    st.dates().map(date.isoformat),
    st.datetimes(timezones=st.just(UTC)).map(lambda d: d.isoformat()),
    st.from_regex(r"[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}:[0-9]{2}Z)?", fullmatch=True),
    st.lists(st.text(max_size=10), max_size=2),
)


@given(WINDOW_VALUES, WINDOW_VALUES)
@settings(max_examples=400)
def test_any_window_value_is_read_or_reported_never_a_crash(start: object, end: object) -> None:
    obj = {**GOOD, "valid_from": start, "valid_to": end}
    try:
        entry = parse_entry(json.dumps(obj).encode(), "x.json")
    except InvalidEntryFileError:
        return
    window = entry.window
    if window.start is not None and window.end is not None:
        assert window.start < window.end
    for bound in window:
        assert bound is None or bound.tzinfo is not None
