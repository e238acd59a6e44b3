"""Compaction rules: one table per rule, plus hypothesis properties."""

from __future__ import annotations

import random
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memsite.core.compaction import compact
from memsite.core.entry import Entry, entry_from_object

T0 = datetime(2026, 3, 1, tzinfo=UTC)
CATS = ["conventions", "architecture", "operations", "decisions"]


def ident(n: int) -> str:
    return str(uuid.UUID(int=n + 1, version=4))


def entry(
    n: int,
    content: str | None = None,
    *,
    minutes: int | None = None,
    category: str = "conventions",
    supersedes: Any = None,
    key: str | None = None,
    confidence: str = "medium",
) -> Entry:
    created = T0 + timedelta(minutes=n if minutes is None else minutes)
    obj = {
        "id": ident(n),
        "category": category,
        "content": content if content is not None else f"fact number {n}",
        "created": created.strftime("%Y-%m-%dT%H:%M:%S.000Z"),
        "supersedes": supersedes,
        "confidence": confidence,
        "key": key,
    }
    return entry_from_object(obj, f"{n}.json")


def statuses(*entries: Entry) -> dict[int, str]:
    result = compact(list(entries), CATS)
    back = {ident(n): n for n in range(100)}
    return {back[i]: s for i, s in result.status.items()}


def kinds(*entries: Entry) -> list[str]:
    return sorted(f.kind for f in compact(list(entries), CATS).findings)


SUPERSESSION = [
    ("single", [entry(1), entry(2, supersedes=ident(1))], {1: "superseded", 2: "active"}),
    (
        "transitive chain A->B->C leaves only A",
        [entry(1), entry(2, supersedes=ident(1)), entry(3, supersedes=ident(2))],
        {1: "superseded", 2: "superseded", 3: "active"},
    ),
    (
        "list supersedes merges two facts",
        [entry(1), entry(2), entry(3, supersedes=[ident(1), ident(2)])],
        {1: "superseded", 2: "superseded", 3: "active"},
    ),
    (
        "dangling id is ignored",
        [entry(1), entry(2, supersedes=ident(50))],
        {1: "active", 2: "active"},
    ),
    (
        "an older entry may supersede a newer one",
        [entry(5), entry(1, supersedes=ident(5))],
        {5: "superseded", 1: "active"},
    ),
    (
        "cross-category supersession",
        [entry(1, category="operations"), entry(2, category="decisions", supersedes=ident(1))],
        {1: "superseded", 2: "active"},
    ),
    (
        "two-cycle: newest member survives",
        [entry(1, supersedes=ident(2)), entry(2, supersedes=ident(1))],
        {1: "superseded", 2: "active"},
    ),
    (
        "three-cycle: newest member survives",
        [
            entry(1, supersedes=ident(3)),
            entry(2, supersedes=ident(1)),
            entry(3, supersedes=ident(2)),
        ],
        {1: "superseded", 2: "superseded", 3: "active"},
    ),
    (
        "cycle head superseded from outside",
        [
            entry(1, supersedes=ident(2)),
            entry(2, supersedes=ident(1)),
            entry(3, supersedes=ident(2)),
        ],
        {1: "superseded", 2: "superseded", 3: "active"},
    ),
    (
        "self-supersession is ignored",
        [entry(1, supersedes=ident(1))],
        {1: "active"},
    ),
]


@pytest.mark.parametrize(
    ("label", "entries", "expected"), SUPERSESSION, ids=[s[0] for s in SUPERSESSION]
)
def test_supersession_rules(label: str, entries: list[Entry], expected: dict[int, str]) -> None:
    assert statuses(*entries) == expected


DUPLICATES = [
    (
        "same normalized content: newest wins",
        [entry(1, "Use pnpm."), entry(2, "  use   PNPM!")],
        {1: "duplicate", 2: "active"},
    ),
    (
        "different categories are not duplicates",
        [entry(1, "Use pnpm"), entry(2, "Use pnpm", category="operations")],
        {1: "active", 2: "active"},
    ),
    (
        "NFKC folds full-width letters",
        [entry(1, "ｕｓｅ pnpm"), entry(2, "use pnpm")],
        {1: "duplicate", 2: "active"},
    ),
    (
        "superseding the winner does not revive the loser",
        [entry(1, "use pnpm"), entry(2, "use pnpm"), entry(3, "use bun", supersedes=ident(2))],
        {1: "duplicate", 2: "superseded", 3: "active"},
    ),
    (
        "equal times: higher confidence wins",
        [entry(1, "use pnpm", minutes=0, confidence="high"), entry(2, "use pnpm", minutes=0)],
        {1: "active", 2: "duplicate"},
    ),
]


@pytest.mark.parametrize(
    ("label", "entries", "expected"), DUPLICATES, ids=[d[0] for d in DUPLICATES]
)
def test_duplicate_rules(label: str, entries: list[Entry], expected: dict[int, str]) -> None:
    assert statuses(*entries) == expected


CONTRADICTIONS = [
    (
        "same key: last write wins",
        [entry(1, "npm", key="pm"), entry(2, "pnpm", key="pm")],
        {1: "overridden", 2: "active"},
    ),
    (
        "same key, same time: confidence breaks the tie",
        [
            entry(1, "npm", key="pm", minutes=0, confidence="low"),
            entry(2, "pnpm", key="pm", minutes=0),
        ],
        {1: "overridden", 2: "active"},
    ),
    (
        "same time, same confidence: greatest id wins",
        [entry(1, "npm", key="pm", minutes=0), entry(2, "pnpm", key="pm", minutes=0)],
        {1: "overridden", 2: "active"},
    ),
    (
        "same key in another category does not contradict",
        [entry(1, "npm", key="pm"), entry(2, "pnpm", key="pm", category="operations")],
        {1: "active", 2: "active"},
    ),
    (
        "superseding the key winner does not revive the loser",
        [
            entry(1, "npm", key="pm"),
            entry(2, "pnpm", key="pm"),
            entry(3, "gone", supersedes=ident(2)),
        ],
        {1: "overridden", 2: "superseded", 3: "active"},
    ),
    (
        "an amendment wins over the fact it amends, whose writer's clock ran fast",
        [entry(1, "npm", key="pm", minutes=10), entry(2, "pnpm", key="pm", supersedes=ident(1))],
        {1: "superseded", 2: "active"},
    ),
    (
        "...and over what that fact's clock put before it",
        [
            entry(1, "yarn", key="pm", minutes=7),
            entry(2, "npm", key="pm", minutes=10),
            entry(3, "pnpm", key="pm", minutes=5, supersedes=ident(2)),
        ],
        {1: "overridden", 2: "superseded", 3: "active"},
    ),
    (
        "a chain of amendments, each behind the last, ends at the newest link",
        [
            entry(1, "npm", key="pm", minutes=30),
            entry(2, "pnpm", key="pm", minutes=20, supersedes=ident(1)),
            entry(3, "bun", key="pm", minutes=10, supersedes=ident(2)),
        ],
        {1: "superseded", 2: "superseded", 3: "active"},
    ),
    (
        "a fact newer than the whole line still wins",
        [
            entry(1, "npm", key="pm", minutes=10),
            entry(2, "pnpm", key="pm", minutes=5, supersedes=ident(1)),
            entry(3, "bun", key="pm", minutes=11),
        ],
        {1: "superseded", 2: "overridden", 3: "active"},
    ),
    (
        "the same text as the amended fact, written behind its clock, is no duplicate",
        [entry(1, "use pnpm", minutes=10), entry(2, "use pnpm", supersedes=ident(1))],
        {1: "superseded", 2: "active"},
    ),
]


@pytest.mark.parametrize(
    ("label", "entries", "expected"), CONTRADICTIONS, ids=[c[0] for c in CONTRADICTIONS]
)
def test_contradiction_rules(label: str, entries: list[Entry], expected: dict[int, str]) -> None:
    assert statuses(*entries) == expected


FINDINGS = [
    ("dangling", [entry(1, supersedes=ident(60))], ["dangling_supersedes"]),
    ("cycle", [entry(1, supersedes=ident(2)), entry(2, supersedes=ident(1))], ["cycle"]),
    ("duplicate", [entry(1, "a b"), entry(2, "A  b.")], ["duplicate"]),
    ("contradiction", [entry(1, "x", key="k"), entry(2, "y", key="k")], ["contradiction"]),
    (
        "explicit supersession with the same key is no contradiction",
        [entry(1, "x", key="k"), entry(2, "y", key="k", supersedes=ident(1))],
        [],
    ),
    (
        "a duplicate pair that was superseded needs nothing done",
        [entry(1, "a b"), entry(2, "A  b."), entry(3, "c", supersedes=[ident(1), ident(2)])],
        [],
    ),
    (
        "two successors of one fact fork",
        [entry(1, "a"), entry(2, "b", supersedes=ident(1)), entry(3, "c", supersedes=ident(1))],
        ["fork"],
    ),
]


def test_a_retired_fact_is_out_and_brings_nothing_back() -> None:
    entries = [entry(1, "a b"), entry(2, "A  b."), entry(3, "x", key="k"), entry(4, "y", key="k")]
    result = compact(entries, CATS, retired={ident(2), ident(4), ident(1)})
    status = {e.id: result.status[e.id] for e in entries}
    assert status == {
        ident(1): "duplicate",  # only an entry that would be active is retired
        ident(2): "retired",
        ident(3): "overridden",
        ident(4): "retired",
    }
    assert result.findings == []  # the winners are retired: nothing left to settle


@pytest.mark.parametrize(("label", "entries", "expected"), FINDINGS, ids=[f[0] for f in FINDINGS])
def test_findings(label: str, entries: list[Entry], expected: list[str]) -> None:
    assert kinds(*entries) == expected


def test_chain_connects_both_directions_newest_first() -> None:
    entries = [entry(1), entry(2, supersedes=ident(1)), entry(3, supersedes=ident(2)), entry(4)]
    result = compact(entries, CATS)
    assert [e.id for e in result.chain(ident(2))] == [ident(3), ident(2), ident(1)]
    assert [e.id for e in result.replaced(ident(3))] == [ident(2), ident(1)]
    assert [e.id for e in result.replaced_by(ident(1))] == [ident(3), ident(2)]
    assert [e.id for e in result.chain(ident(4))] == [ident(4)]


def test_repeated_id_keeps_one_entry_and_reports_the_other() -> None:
    first = entry(1, "old text")
    second = entry_from_object({**first.raw, "content": "new text"}, "z.json")
    result = compact([first, second], CATS)
    assert len(result.entries) == 1
    assert [f.kind for f in result.findings] == ["invalid_file"]


# --- properties ----------------------------------------------------------------------------

CONTENTS = ["use pnpm", "Use pnpm.", "use bun", "deploy on friday", "never deploy on friday"]


@st.composite
def stores(draw: st.DrawFn) -> list[Entry]:
    n = draw(st.integers(min_value=0, max_value=25))
    made = []
    for i in range(n):
        sup = draw(st.lists(st.integers(0, n + 2), max_size=2))
        made.append(
            entry(
                i,
                draw(st.sampled_from(CONTENTS)) + draw(st.sampled_from(["", "", " today"])),
                minutes=draw(st.integers(0, 5)),
                category=draw(st.sampled_from(CATS[:2])),
                supersedes=[ident(s) for s in sup] or None,
                key=draw(st.sampled_from([None, None, "pm", "deploy"])),
                confidence=draw(st.sampled_from(["high", "medium", "low"])),
            )
        )
    return made


@settings(max_examples=200, deadline=None)
@given(stores(), st.randoms(use_true_random=False))
def test_compaction_is_independent_of_file_order(entries: list[Entry], rnd: random.Random) -> None:
    shuffled = list(entries)
    rnd.shuffle(shuffled)
    a, b = compact(entries, CATS), compact(shuffled, CATS)
    assert a.status == b.status
    assert [e.id for e in a.entries] == [e.id for e in b.entries]
    assert sorted(f.as_dict().__repr__() for f in a.findings) == sorted(
        f.as_dict().__repr__() for f in b.findings
    )


@settings(max_examples=200, deadline=None)
@given(stores())
def test_every_entry_gets_exactly_one_status_and_active_entries_are_unique(
    entries: list[Entry],
) -> None:
    result = compact(entries, CATS)
    assert set(result.status) == {e.id for e in entries}
    active = result.active()
    assert len({(e.category, e.normalized) for e in active}) == len(active)
    keys = [(e.category, e.key) for e in active if e.key]
    assert len(set(keys)) == len(keys)
    named = {s for e in entries for s in e.supersedes if s != e.id}
    for e in active:
        # an active entry is named by nobody, or only from inside a cycle it heads
        assert e.id not in named or any(f.kind == "cycle" for f in result.findings)


@settings(max_examples=150, deadline=None)
@given(stores(), st.data())
def test_superseding_an_entry_never_grows_the_active_set(
    entries: list[Entry], data: st.DataObject
) -> None:
    before = compact(entries, CATS)
    if not before.active():
        return
    target = data.draw(st.sampled_from(before.active()))
    newer = entry(90, "a completely new fact", minutes=10_000, supersedes=target.id)
    after = compact([*entries, newer], CATS)
    assert target.id not in {e.id for e in after.active()}
    assert {e.id for e in after.active()} <= {e.id for e in before.active()} | {newer.id}


@settings(max_examples=300, deadline=None)
@given(stores())
def test_a_successor_never_loses_to_what_it_supersedes(entries: list[Entry]) -> None:
    """Whatever the clocks: no entry is a duplicate of, or overridden by, one of the entries
    it supersedes (directly or through others)."""
    result = compact(entries, CATS)
    older_of: dict[str, list[str]] = {}
    for older, newer in result.superseded_by.items():
        for n in newer:
            older_of.setdefault(n, []).append(older)
    for e in result.entries:
        line: set[str] = set()
        stack = [e.id]
        while stack:
            for older in older_of.get(stack.pop(), []):
                if older not in line:
                    line.add(older)
                    stack.append(older)
        assert result.winner.get(e.id) not in line
