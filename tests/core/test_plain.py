"""Plain record classes (``core.plain``): equality and ``repr`` by the compared fields, as a
dataclass would give them, without importing dataclasses."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memsite.core.compaction import Compaction
from memsite.core.entry import Entry
from memsite.core.records import Record
from memsite.core.standing import Standing

T = datetime(2026, 3, 7, 14, 30, tzinfo=UTC)


def test_entries_are_equal_by_their_compared_fields_only() -> None:
    entry = Entry("a", "ops", "Deploys use ArgoCD", T, "high", raw={"x": 1})
    assert entry == entry.replace(raw={"y": 2}, suspect=True)  # carried, not compared
    assert entry != entry.replace(content="Deploys use Flux")
    assert entry != ("a", "ops")  # another class is never equal
    assert repr(entry).startswith("Entry(id='a', category='ops', content='Deploys use ArgoCD'")
    assert "raw" not in repr(entry)
    with pytest.raises(TypeError):
        hash(entry)  # mutable: unhashable, as the dataclass was


def test_records_are_frozen_and_hashed_as_compared() -> None:
    record = Record("r", "verify", "a", T, raw={"x": 1})
    same = Record("r", "verify", "a", T, raw={"y": 2})
    assert record == same and hash(record) == hash(same) and len({record, same}) == 1
    with pytest.raises(AttributeError):
        record.text = "changed"  # type: ignore[misc]


def test_standing_and_compaction_compare_every_field() -> None:
    assert Standing() == Standing() and Standing(stale=True) != Standing()
    assert repr(Standing(stale=True)).startswith("Standing(anchors=[], ")
    result = Compaction([], {}, {}, {}, {}, [], ["ops"])
    assert result == result.replace() and result != result.replace(categories=[])
