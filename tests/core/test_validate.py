"""Writing is strict: build_entry's errors with their exact messages, the object's key order,
and the free-text and name checks it relies on."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone

import pytest

from memsite.core.anchors import Anchor
from memsite.core.entry import entry_from_object
from memsite.core.validate import (
    Limits,
    build_entry,
    check_agent,
    check_imported,
    check_name,
    check_text,
    serialize,
)
from memsite.errors import InvalidEntryFileError, InvalidInputError

NOW = datetime(2026, 3, 7, 14, 30, 0, 456789, tzinfo=UTC)
ID = "a1b2c3d4-5678-40ab-8def-1234567890ab"
OTHER = "b1b2c3d4-5678-40ab-8def-1234567890ab"


def build(**changes: object) -> dict[str, object]:
    args: dict[str, object] = {
        "content": "Use pnpm",
        "category": "conventions",
        "categories": ["conventions", "decisions"],
        "created": NOW,
        "entry_id": ID,
    }
    args.update(changes)
    return build_entry(**args)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        (
            {"category": "misc"},
            "unknown category 'misc': use one of conventions, decisions "
            "(or add it to memory.categories in config.json)",
        ),
        (
            {"tags": [f"t{n}" for n in range(21)]},
            "21 tags, over the limit of 20: keep the most useful ones",
        ),
        ({"confidence": "certain"}, "invalid confidence 'certain': use high, medium or low"),
        ({"supersedes": ["a1b2c3d4"]}, "invalid supersedes id 'a1b2c3d4': give a full entry id"),
        ({"key": "Package Manager"}, "invalid key 'Package Manager': use 1-64 characters of a-z"),
        ({"key": "-x"}, "invalid key '-x'"),
        ({"tags": ["ok", "not ok"]}, "invalid tag 'not ok'"),
        ({"content": "x" * 4001}, "content is 4001 characters, over the limit of 4000: split it"),
        ({"content": "a\x00b"}, "content holds a NUL character: remove it"),
        ({"content": "a\ud800"}, "content is not valid UTF-8 text: fix its encoding"),
        ({"reason": "x" * 1001}, "reason is 1001 characters, over the limit of 1000"),
        ({"agent": "a\x1bb"}, "invalid agent name: use at most 64 printable characters"),
    ],
)
def test_build_entry_refuses_with_a_reason(changes: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidInputError) as caught:
        build(**changes)
    assert str(caught.value).startswith(message)


def test_the_object_has_its_keys_in_order() -> None:
    anchor = Anchor("src/db.py", "d" * 40)
    obj = build(
        tags=["PNPM", "tooling"],
        supersedes=[OTHER.upper(), OTHER],
        confidence="high",
        agent="  claude  ",
        key="package-manager",
        reason="  newer version  ",
        anchors=[anchor],
        valid_from="2026-03-01",
        valid_to="2026-03-31",
    )
    assert obj == {
        "id": ID,
        "category": "conventions",
        "content": "Use pnpm",
        "created": "2026-03-07T14:30:00.456Z",
        "agent": "claude",
        "tags": ["pnpm", "tooling"],
        "supersedes": OTHER,
        "confidence": "high",
        "key": "package-manager",
        "reason": "newer version",
        "valid_from": "2026-03-01",
        "valid_to": "2026-03-31",
        "anchors": [{"path": "src/db.py", "blob": "d" * 40}],
    }
    assert list(obj) == [
        "id",
        "category",
        "content",
        "created",
        "agent",
        "tags",
        "supersedes",
        "confidence",
        "key",
        "reason",
        "valid_from",
        "valid_to",
        "anchors",
    ]


def test_defaults_and_optional_keys_left_out() -> None:
    obj = build(
        agent="   ",
        reason="  ",
        created=datetime(2026, 3, 7, 16, tzinfo=timezone(timedelta(hours=2))),
    )
    assert list(obj) == [
        "id",
        "category",
        "content",
        "created",
        "agent",
        "tags",
        "supersedes",
        "confidence",
    ]
    assert obj["agent"] is None and obj["tags"] == [] and obj["supersedes"] is None
    assert obj["confidence"] == "medium"
    assert obj["created"] == "2026-03-07T14:00:00.000Z"  # in UTC


def test_several_superseded_ids_stay_a_list() -> None:
    assert build(supersedes=[ID, OTHER.upper()])["supersedes"] == [ID, OTHER]


def test_limits_are_configurable() -> None:
    limits = Limits(content_max=5, tags_max=1, agent_max=3)
    with pytest.raises(InvalidInputError, match="over the limit of 5"):
        build(content="abcdef", limits=limits)
    with pytest.raises(InvalidInputError, match="2 tags, over the limit of 1"):
        build(content="abc", tags=["a", "b"], limits=limits)
    assert build(content="abcde", tags=["a"], agent="abc", limits=limits)["agent"] == "abc"


def test_a_generated_id_is_a_uuid_and_the_object_reads_back() -> None:
    obj = build(entry_id=None, tags=["x"], key="k")
    entry = entry_from_object(json.loads(serialize(obj)), "f.json")
    assert entry.id == obj["id"] and len(entry.id) == 36
    assert (entry.content, entry.tags, entry.key) == ("Use pnpm", ("x",), "k")


def test_serialize_is_indented_utf8_with_a_final_newline() -> None:
    assert (
        serialize({"content": "Straße", "n": 1})
        == b'{\n  "content": "Stra\xc3\x9fe",\n  "n": 1\n}\n'
    )


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("", "note is empty: give the text"),
        (" \n", "note is empty"),
        ("x" * 11, "note is 11 characters"),
    ],
)
def test_check_text(value: str, message: str) -> None:
    with pytest.raises(InvalidInputError, match=message):
        check_text("note", value, 10)


def test_check_name_returns_the_name() -> None:
    assert check_name("tag", "a.b_c-1") == "a.b_c-1"
    with pytest.raises(InvalidInputError, match="invalid tag 'A'"):
        check_name("tag", "A")


TAG_A = "\U000e0041"  # TAG LATIN CAPITAL LETTER A: invisible, read by models as "A"


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"content": f"Use pnpm{TAG_A}"}, "content holds an invisible character U+E0041"),
        ({"reason": "newer\u202e"}, "reason holds an invisible character U+202E"),
        ({"key": "pkg\u200b"}, "key holds an invisible character U+200B"),
        ({"tags": ["ok", f"x{TAG_A}"]}, "tag holds an invisible character U+E0041"),
        ({"agent": "claude\ufe01"}, "agent holds an invisible character U+FE01"),
    ],
)
def test_build_entry_refuses_hidden_characters_in_every_text(
    changes: dict[str, object], message: str
) -> None:
    with pytest.raises(InvalidInputError) as caught:
        build(**changes)
    assert str(caught.value).startswith(message)


def test_check_agent_trims_and_refuses_hidden_characters() -> None:
    assert check_agent("  claude ") == "claude" and check_agent("  ") is None
    with pytest.raises(InvalidInputError) as caught:
        check_agent(f"claude{TAG_A}")
    assert str(caught.value).startswith("agent holds an invisible character U+E0041")


@pytest.mark.parametrize(
    ("obj", "message"),
    [
        ({"content": f"a{TAG_A}"}, "content holds an invisible character U+E0041 (TAG LATIN "),
        ({"tags": ["ok", "\u200b"]}, "tags holds an invisible character U+200B"),
        ({"x": {"deep": ["\u2066"]}}, "x holds an invisible character U+2066"),
        ({f"k{TAG_A}": 1}, "a key holds an invisible character U+E0041"),
    ],
)
def test_check_imported_names_the_key_holding_them(obj: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidInputError) as caught:
        check_imported(obj)
    assert str(caught.value).startswith(message)


def test_check_imported_keeps_core_entry_rules_and_passes_clean_objects() -> None:
    check_imported({"content": "Use pnpm \U0001f469\u200d\U0001f4bb", "tags": ["a"], "n": 1.5})
    with pytest.raises(InvalidEntryFileError):
        check_imported({"content": "a\ud800"})


@pytest.mark.parametrize(
    ("given", "written"),
    [
        ({"valid_from": "2026-03-31"}, {"valid_from": "2026-03-31"}),
        ({"valid_to": " 2026-03-31 "}, {"valid_to": "2026-03-31"}),
        ({"valid_to": "2026-03-31T20:00:00+02:00"}, {"valid_to": "2026-03-31T18:00:00.000Z"}),
        ({"valid_from": "", "valid_to": None}, {}),  # empty: open (amend clears a side so)
        (
            {"valid_from": "2026-03-31", "valid_to": "2026-03-31"},
            {"valid_from": "2026-03-31", "valid_to": "2026-03-31"},
        ),
    ],
)
def test_a_window_is_written_as_a_day_or_a_utc_time(
    given: dict[str, object], written: dict[str, str]
) -> None:
    obj = build(**given)
    assert {k: obj[k] for k in ("valid_from", "valid_to") if k in obj} == written
    entry = entry_from_object(obj)  # reads back as it was meant
    assert (entry.window.start is None) == ("valid_from" not in written)


@pytest.mark.parametrize(
    ("given", "message"),
    [
        (
            {"valid_to": "2026-02-30"},
            "invalid valid_to '2026-02-30': use a date (2026-03-31) or "
            "a UTC time (2026-03-31T18:00:00Z)",
        ),
        ({"valid_from": "tomorrow"}, "invalid valid_from 'tomorrow'"),
        ({"valid_from": "2026-03-31T18:00Z"}, "invalid valid_from '2026-03-31T18:00Z'"),
        (
            {"valid_from": "2026-04-01", "valid_to": "2026-03-31"},
            "valid_to 2026-03-31 is not after valid_from 2026-04-01: give a window that ends after "
            "it starts",
        ),
        # equal to the millisecond once written: an empty window
        (
            {"valid_from": "2026-04-01T00:00:00.0001Z", "valid_to": "2026-04-01T00:00:00.0009Z"},
            "is not after valid_from",
        ),
    ],
)
def test_a_bad_window_is_refused_in_one_line(given: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidInputError) as caught:
        build(**given)
    assert message in str(caught.value) and "\n" not in str(caught.value)
