"""A fact's standing: the index marker for drifted, renamed and stale facts, the JSON fields,
links both ways with the newest reason, overdue review periods, and when it was confirmed."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from memsite.core.anchors import Anchor, Located
from memsite.core.entry import Entry, entry_from_object
from memsite.core.records import Record, build_record, record_from_object
from memsite.core.standing import (
    Standing,
    about_each,
    anchor_json,
    confirmed_at,
    current_anchors,
    expired,
    links_of,
    overdue,
    window_state,
)
from tests.conftest import make_entry

A = "a1b2c3d4-5678-40ab-8def-1234567890ab"
B = "b1b2c3d4-5678-40ab-8def-1234567890ab"
C = "c1b2c3d4-5678-40ab-8def-1234567890ab"
T = datetime(2026, 3, 7, 14, 30, tzinfo=UTC)
DB = Anchor("src/db.py", "d" * 40, (3, 4), "e" * 40)
API = Anchor("src/api.py", "f" * 40)


def entry(**fields: object) -> Entry:
    return entry_from_object(make_entry("Use pnpm", id=A, created=T, **fields), "a.json")


def record(kind: str, target: str, minutes: int, **fields: object) -> Record:
    rid = f"{minutes:08x}-0000-4000-8000-000000000000"
    built = build_record(kind, target, T + timedelta(minutes=minutes), record_id=rid, **fields)
    return record_from_object(built)


@pytest.mark.parametrize(
    ("anchors", "stale", "marker"),
    [
        ([], False, ""),
        ([(DB, Located("unchanged", (3, 4)))], True, " (unconfirmed since 2026-03-07)"),
        ([(DB, Located("moved", (8, 9)))], False, ""),
        ([(DB, Located("changed"))], True, " (check: src/db.py changed)"),
        ([(API, Located("missing"))], False, " (check: src/api.py missing)"),
        (
            [(API, Located("renamed", path="lib/api.py"))],
            False,
            " (check: src/api.py renamed to lib/api.py)",
        ),
        (
            [
                (DB, Located("unchanged", (3, 4))),
                (API, Located("missing")),
                (DB, Located("changed")),
            ],
            False,
            " (check: src/api.py missing +1)",
        ),
    ],
)
def test_marker(anchors: list[tuple[Anchor, Located]], stale: bool, marker: str) -> None:
    standing = Standing(anchors=anchors, stale=stale, confirmed=T)
    assert standing.marker() == marker
    assert standing.drifted is marker.startswith(" (check")


def test_a_stale_fact_without_a_confirmation_time_has_no_marker() -> None:
    assert Standing(stale=True).marker() == ""


def test_fields_are_present_only_when_they_apply() -> None:
    assert Standing().fields() == {}
    first, last = record("verify", A, 1), record("verify", A, 2)
    standing = Standing(anchors=[(API, Located("changed"))], verified=[first, last], stale=True)
    assert standing.fields() == {
        "drifted": True,
        "stale": True,
        "verified": "2026-03-07T14:32:00.000Z",
    }


def test_anchor_json_adds_where_the_anchor_is_now() -> None:
    assert anchor_json(DB, Located("unchanged", (3, 4)))["state"] == "unchanged"
    assert "now_lines" not in anchor_json(DB, Located("unchanged", (3, 4)))
    assert anchor_json(DB, Located("moved", (8, 9))) == {
        **DB.as_dict(),
        "state": "moved",
        "now_lines": [8, 9],
    }
    assert anchor_json(API, Located("renamed", path="lib/api.py")) == {
        "path": "src/api.py",
        "blob": "f" * 40,
        "state": "renamed",
        "now_path": "lib/api.py",
    }
    assert Standing(anchors=[(API, Located("missing"))]).anchor_report() == [
        {**API.as_dict(), "state": "missing"}
    ]


def test_links_go_both_ways_and_keep_the_newest_reason() -> None:
    records = [
        record("relate", A, 1, other=B, link="refines", text="old"),
        record("relate", C, 2, other=A, link="depends-on", text="needs it"),
        record("relate", A, 3, other=B, link="refines", text="new"),
        record("relate", B, 4, other=C, link="supports"),  # not about A
        record("verify", A, 5),
    ]
    assert links_of(A, records) == [
        {
            "id": C,
            "type": "depends-on",
            "direction": "in",
            "reason": "needs it",
            "created": "2026-03-07T14:32:00.000Z",
        },
        {
            "id": B,
            "type": "refines",
            "direction": "out",
            "reason": "new",
            "created": "2026-03-07T14:33:00.000Z",
        },
    ]
    assert [link["direction"] for link in links_of(B, records)] == ["in", "out"]


def test_a_fact_linked_to_itself_has_no_link() -> None:
    assert links_of(A, [record("relate", A, 1, other=A, link="supports")]) == []


@pytest.mark.parametrize(
    ("days", "age", "expected"),
    [(None, 1000, None), (30, 30, None), (30, 31, 30), (0, 0, None), (0, 1, 0)],
)
def test_overdue(days: int | None, age: int, expected: int | None) -> None:
    today = date(2026, 3, 7)
    assert overdue(days, today - timedelta(days=age), today) == expected


def test_about_each_names_targets_and_other_ends_in_order() -> None:
    one, two, three = (
        record("verify", A, 1),
        record("relate", B, 2, other=A, link="supports"),
        record("retire", B, 3),
    )
    about = about_each([one, two, three])
    assert about == {A: [one, two], B: [two, three]}


def test_confirmed_at_is_the_newest_of_writing_and_verifying() -> None:
    fact = entry()
    assert confirmed_at(fact, []) == T
    later = [
        record("verify", A, 10),
        record("verify", A, 5),
        record("verify", B, 60),
        record("retire", A, 90),
    ]
    assert confirmed_at(fact, later) == T + timedelta(minutes=10)


def test_current_anchors_follow_the_latest_repinning() -> None:
    fact = entry(anchors=[API])
    assert current_anchors(fact, []) == (API,)
    repinned = [
        record("verify", A, 1, anchors=[DB]),
        record("verify", A, 2),
        record("verify", B, 3, anchors=[API]),
    ]
    assert current_anchors(fact, repinned) == (DB,)


@pytest.mark.parametrize(
    ("window", "now", "expected"),
    [
        ({}, T, None),
        ({"valid_to": "2026-03-07"}, T, None),  # through the end of its day
        ({"valid_to": "2026-03-07"}, datetime(2026, 3, 8, tzinfo=UTC), "expired"),
        ({"valid_to": "2026-03-07T14:30:00Z"}, T - timedelta(microseconds=1), None),
        ({"valid_to": "2026-03-07T14:30:00Z"}, T, "expired"),  # a time: until then
        ({"valid_from": "2026-03-08"}, T, "upcoming"),
        ({"valid_from": "2026-03-07"}, T, None),  # from the start of its day
        ({"valid_from": "2026-03-07T14:30:01Z"}, T, "upcoming"),
        ({"valid_from": "2026-01-01", "valid_to": "2026-02-01"}, T, "expired"),
    ],
)
def test_window_state(window: dict[str, str], now: datetime, expected: str | None) -> None:
    assert window_state(entry(**window).window, now) == expected


def test_a_window_adds_its_flag_to_the_fields() -> None:
    assert Standing(window="expired").fields() == {"expired": True}
    assert Standing(window="upcoming", stale=True).fields() == {"stale": True, "upcoming": True}
    assert Standing(valid_from="2026-03-01").fields() == {}  # the window itself is the entry's


@pytest.mark.parametrize(
    ("valid_to", "when"),
    [
        ("2026-03-31", "expired at the end of 2026-03-31 (valid_to)"),
        ("2026-03-31T20:00:00+02:00", "expired at 2026-03-31 18:00 UTC (valid_to)"),
    ],
)
def test_the_expired_finding_says_when(valid_to: str, when: str) -> None:
    found = expired(entry(valid_to=valid_to))
    assert found.kind == "expired" and found.ids == (A,) and found.files == ("a.json",)
    assert found.message.startswith(f"{A[:8]}: {when}: it is left out of the index")
    assert found.message.endswith("or retire it")
