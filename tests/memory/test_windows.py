"""Validity windows judged against the memory's clock: a fact past its valid_to is expired,
one before its valid_from is upcoming; both are flagged in outputs and left out of index.md
and `context` (which are rebuilt when a window opens or closes), and review lists the expired
ones. Real stores, a fixed clock."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memsite.errors import InvalidInputError
from memsite.memory import Memory
from tests.conftest import Clock, write_raw
from tests.memory.conftest import memory_at

START = datetime(2026, 3, 7, 14, 30, tzinfo=UTC)
FREEZE = "Deploys are frozen for the quarter close"
MOVE = "The office moves to the new building"
PNPM = "Use pnpm, never npm or yarn"


@pytest.fixture
def windows(store_root: Path) -> tuple[Memory, Clock, dict[str, str]]:
    """A fact that holds through 2026-03-31, one that starts on 2026-04-15, one always."""
    clock = Clock(START)
    memory = memory_at(store_root, clock)
    ids = {
        "freeze": memory.add(FREEZE, "operations", valid_to="2026-03-31")["id"],
        "move": memory.add(MOVE, "operations", valid_from="2026-04-15")["id"],
        "pnpm": memory.add(PNPM, "conventions")["id"],
    }
    return memory, clock, ids


def at(store_root: Path, moment: datetime) -> Memory:
    return memory_at(store_root, Clock(moment))


@pytest.mark.parametrize(
    ("moment", "expected"),
    [
        (datetime(2026, 3, 7, tzinfo=UTC), {"move": "upcoming"}),
        (datetime(2026, 3, 31, 23, 59, 59, tzinfo=UTC), {"move": "upcoming"}),  # its last day
        (datetime(2026, 4, 1, tzinfo=UTC), {"freeze": "expired", "move": "upcoming"}),
        (datetime(2026, 4, 15, tzinfo=UTC), {"freeze": "expired"}),  # from the day's start
    ],
)
def test_out_of_window_is_judged_by_the_memorys_clock(
    windows: tuple[Memory, Clock, dict[str, str]],
    store_root: Path,
    moment: datetime,
    expected: dict[str, str],
) -> None:
    from memsite.memory.windows import out_of_window

    _, _, ids = windows
    found = out_of_window(at(store_root, moment))
    assert found == {ids[name]: state for name, state in expected.items()}


def test_list_read_and_search_flag_the_fact_and_keep_the_window(
    windows: tuple[Memory, Clock, dict[str, str]], store_root: Path
) -> None:
    _, _, ids = windows
    memory = at(store_root, datetime(2026, 4, 2, tzinfo=UTC))
    listed = {row["id"]: row for row in memory.list_entries()}
    assert listed[ids["freeze"]]["expired"] is True
    assert listed[ids["freeze"]]["valid_to"] == "2026-03-31"
    assert listed[ids["move"]]["upcoming"] is True
    assert listed[ids["move"]]["valid_from"] == "2026-04-15"
    assert not {"expired", "upcoming", "valid_from", "valid_to"} & set(listed[ids["pnpm"]])
    read = memory.read(ids["freeze"])
    assert read["expired"] is True and read["status"] == "expired"
    assert memory.read(ids["move"])["status"] == "active"  # upcoming: a flag only
    (hit,) = memory.search("frozen quarter", include_all=True)
    assert hit["status"] == "expired" and hit["expired"] is True
    (plain,) = memory.search("frozen quarter")
    assert plain["expired"] is True and "status" not in plain
    statuses = {row["id"]: row["status"] for row in memory.list_entries(include_all=True)}
    assert statuses == {ids["freeze"]: "expired", ids["move"]: "active", ids["pnpm"]: "active"}


def test_a_memory_opened_at_another_time_judges_as_of_then(
    windows: tuple[Memory, Clock, dict[str, str]], store_root: Path
) -> None:
    _, _, ids = windows
    before = at(store_root, datetime(2026, 3, 1, tzinfo=UTC)).read(ids["freeze"])
    after = at(store_root, datetime(2026, 5, 1, tzinfo=UTC)).read(ids["freeze"])
    assert before["status"] == "active" and "expired" not in before
    assert after["status"] == "expired" and after["expired"] is True


def test_index_and_context_leave_out_facts_outside_their_window(
    windows: tuple[Memory, Clock, dict[str, str]], store_root: Path
) -> None:
    memory, clock, ids = windows
    memory.compact()
    index = (store_root / "index.md").read_text("utf-8")
    assert FREEZE in index and MOVE not in index and PNPM in index
    report = memory.context_report()
    assert ids["move"] not in report["included"] + report["omitted"]  # left out, not omitted
    # the freeze ends and the move starts: the saved index.md is stale, context rebuilds it
    clock.moment = datetime(2026, 4, 20, tzinfo=UTC)
    later = memory.reopen()
    text = later.context()
    assert FREEZE not in text and MOVE in text and PNPM in text
    assert (store_root / "index.md").read_text("utf-8") == text
    assert FREEZE not in later.index_text()


def test_a_window_closing_makes_the_saved_views_stale(
    windows: tuple[Memory, Clock, dict[str, str]], store_root: Path
) -> None:
    from memsite.memory.views import is_fresh

    memory, clock, _ = windows
    memory.compact()
    assert is_fresh(memory.reopen())
    clock.moment = datetime(2026, 3, 31, 23, 0, tzinfo=UTC)  # still its last day
    assert is_fresh(memory.reopen())
    clock.moment = datetime(2026, 4, 1, 0, 0, tzinfo=UTC)
    assert not is_fresh(memory.reopen())


def test_review_lists_expired_facts_with_the_day_they_expired(
    windows: tuple[Memory, Clock, dict[str, str]], store_root: Path
) -> None:
    memory, _, ids = windows
    assert not [f for f in memory.review()["findings"] if f["kind"] == "expired"]
    later = at(store_root, datetime(2026, 6, 1, tzinfo=UTC))
    other = later.add("The canary runs in eu-west-1", "operations", valid_to="2026-04-01T12:00:00Z")
    found = [f for f in later.review()["findings"] if f["kind"] == "expired"]
    assert [f["ids"] for f in found] == [[ids["freeze"]], [other["id"]]]  # longest expired first
    assert found[0]["message"].startswith(f"{ids['freeze'][:8]}: expired at the end of 2026-03-31")
    assert "expired at 2026-04-01 12:00 UTC" in found[1]["message"]


def test_a_superseded_or_retired_fact_past_its_window_is_not_reviewed(
    windows: tuple[Memory, Clock, dict[str, str]], store_root: Path
) -> None:
    memory, _, ids = windows
    memory.retire(ids["freeze"], "the quarter closed")
    later = at(store_root, datetime(2026, 6, 1, tzinfo=UTC))
    assert not [f for f in later.review()["findings"] if f["kind"] == "expired"]
    assert later.read(ids["freeze"])["status"] == "retired"


def test_amend_keeps_the_window_unless_given(
    windows: tuple[Memory, Clock, dict[str, str]], store_root: Path
) -> None:
    memory, _, ids = windows
    kept = memory.amend(ids["freeze"], FREEZE + " and the year close")
    assert memory.read(kept["id"])["valid_to"] == "2026-03-31"
    longer = memory.amend(kept["id"], FREEZE + " and the year close.", valid_to="2026-12-31")
    assert memory.read(longer["id"])["valid_to"] == "2026-12-31"
    opened = memory.amend(ids["move"], MOVE + " in May", valid_from="")
    shown = memory.read(opened["id"])
    assert "valid_from" not in shown and "upcoming" not in shown
    with pytest.raises(InvalidInputError, match="valid_to 2026-04-01 is not after valid_from"):
        memory.amend(opened["id"], MOVE, valid_from="2026-05-01", valid_to="2026-04-01")


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"valid_to": "2026-02-30"}, "invalid valid_to '2026-02-30': use a date (2026-03-31)"),
        ({"valid_from": "next week"}, "invalid valid_from 'next week'"),
        ({"valid_from": "2026-04-02", "valid_to": "2026-04-01"}, "is not after valid_from"),
    ],
)
def test_a_bad_window_is_refused_before_anything_is_written(
    store_root: Path, given: dict[str, str], message: str
) -> None:
    memory = memory_at(store_root, Clock(START))
    with pytest.raises(InvalidInputError, match=re.escape(message)):
        memory.add(FREEZE, "operations", **given)  # type: ignore[arg-type]
    assert not list((store_root / "entries").glob("*.json"))


def test_writing_a_fact_out_of_its_window_warns(store_root: Path) -> None:
    memory = memory_at(store_root, Clock(START))
    past = memory.add(FREEZE, "operations", valid_from="2025-12-01", valid_to="2025-12-31")
    assert "valid_to 2025-12-31 is past: the fact is expired" in " ".join(past["warnings"])
    ahead = memory.add(MOVE, "operations", valid_from="2026-04-15T09:00:00+02:00")
    assert "valid_from 2026-04-15T07:00:00.000Z is ahead" in " ".join(ahead["warnings"])
    assert not memory.add(PNPM, "conventions", valid_to="2026-12-31")["warnings"]


def test_a_hand_written_window_is_read_from_the_file(store_root: Path) -> None:
    from tests.conftest import make_entry

    obj = make_entry(FREEZE, "operations", valid_to="2026-03-31")
    obj["valid_to"] = "2026-03-01T00:00:00+01:00"  # another writer: an offset, no fraction
    write_raw(store_root, obj)
    memory = memory_at(store_root, Clock(START))
    (row,) = memory.list_entries()
    assert row["expired"] is True and row["valid_to"] == "2026-03-01T00:00:00+01:00"
