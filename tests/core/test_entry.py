"""Entry parsing (lenient), building (strict) and normalization."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

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
