"""Records about facts: which objects read as a verify, retire or relate record (and why not),
build_record's objects reading back, and the first retirement of each fact."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memsite.core.anchors import Anchor
from memsite.core.records import (
    LINK_TYPES,
    Record,
    build_record,
    first_retirements,
    is_record,
    record_from_object,
)
from memsite.errors import InvalidEntryFileError

T = datetime(2026, 3, 7, 9, 15, tzinfo=UTC)
R = "c0c0c0c0-0000-4000-8000-000000000001"
A = "a1b2c3d4-5678-40ab-8def-1234567890ab"
B = "b1b2c3d4-5678-40ab-8def-1234567890ab"


def obj(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "record": "retire",
        "id": R,
        "target": A,
        "created": "2026-03-07T09:15:00Z",
    }
    base.update(changes)
    return {k: v for k, v in base.items() if v is not None}


def test_a_record_is_an_object_with_a_record_key() -> None:
    assert is_record({"record": None}) and not is_record({"content": "x"})


def test_a_relate_record_reads_in_lower_case() -> None:
    record = record_from_object(
        obj(
            record="relate",
            id=R.upper(),
            target=A.upper(),
            other=B.upper(),
            type="refines",
            reason="why",
        ),
        "r.json",
    )
    assert record == Record(
        R, "relate", A, T, text="why", other=B, link="refines", filename="r.json"
    )
    assert record.short_id == "c0c0c0c0"


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"record": "delete"}, "'record' must be one of verify, retire, relate"),
        ({"target": None}, "a retire record needs a string 'target'"),
        ({"created": 5}, "a retire record needs a string 'created'"),
        ({"id": "c0c0c0c0"}, "a record's 'id' and 'target' must be UUIDs"),
        ({"created": "yesterday"}, "'created' is not an RFC 3339 time"),
        ({"agent": "a\nb"}, "'agent' must be at most 256 printable characters"),
        ({"agent": "x" * 257}, "'agent' must be at most 256"),
        ({"reason": ["x"]}, "'reason' must be a string of at most 4000"),
        ({"reason": "x" * 4001}, "'reason' must be a string"),
        ({"record": "verify", "evidence": 1}, "'evidence' must be a string"),
        ({"record": "relate", "type": "refines"}, "a relate record needs the UUID of the 'other'"),
        (
            {"record": "relate", "other": B, "type": "contradicts"},
            "'type' must be one of refines, ",
        ),
        (
            {"record": "verify", "anchors": [{"path": "../x", "blob": "d" * 40}]},
            "anchor path '../x'",
        ),
    ],
)
def test_unusable_records_are_refused_with_a_reason(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidEntryFileError) as caught:
        record_from_object(obj(**changes))
    assert str(caught.value).startswith(message)


def test_the_text_key_follows_the_kind() -> None:
    verify = record_from_object(obj(record="verify", evidence="ran it", reason="ignored"))
    assert verify.text == "ran it" and verify.anchors == ()
    assert record_from_object(obj(evidence="ignored", reason="gone")).text == "gone"
    assert record_from_object(obj(reason="", agent="")).text is None
    assert record_from_object(obj(agent="")).agent is None


@pytest.mark.parametrize("link", LINK_TYPES)
def test_every_link_type_round_trips(link: str) -> None:
    built = build_record(
        "relate", A, T, other=B, link=link, text="because", agent="me", record_id=R
    )
    assert list(built) == ["record", "id", "target", "created", "agent", "other", "type", "reason"]
    record = record_from_object(json.loads(json.dumps(built)))
    assert (record.kind, record.link, record.other, record.text, record.agent) == (
        "relate",
        link,
        B,
        "because",
        "me",
    )
    assert record.created == T and record.raw["created"] == "2026-03-07T09:15:00.000Z"


def test_verify_and_retire_round_trip() -> None:
    anchor = Anchor("src/db.py", "d" * 40, (3, 4), "e" * 40)
    verify = build_record("verify", A, T, text="checked", anchors=[anchor], record_id=R)
    assert "other" not in verify and verify["evidence"] == "checked"
    assert record_from_object(verify).anchors == (anchor,)
    retire = build_record("retire", A, T)
    assert list(retire) == ["record", "id", "target", "created", "agent"]
    assert record_from_object(retire).kind == "retire" and len(retire["id"]) == 36


@given(
    st.lists(st.tuples(st.sampled_from(["verify", "retire"]), st.sampled_from([A, B])), max_size=8)
)
def test_first_retirements_keep_the_oldest(plan: list[tuple[str, str]]) -> None:
    records = [
        Record(f"{n:08x}-0000-4000-8000-000000000000", kind, target, T + timedelta(minutes=n))
        for n, (kind, target) in enumerate(plan)
    ]
    found = first_retirements(records)
    assert set(found) == {target for kind, target in plan if kind == "retire"}
    for target, record in found.items():
        assert record == next(r for r in records if r.kind == "retire" and r.target == target)
