"""Review findings: every kind a builder makes is one the portal orders and explains, and the
rules and messages of the conflict, duplicate, contradiction and fork findings."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest

from memsite.core.anchors import Anchor, Located
from memsite.core.entry import Entry, entry_from_object
from memsite.core.records import Record, build_record, record_from_object
from memsite.core.review import (
    KINDS,
    Finding,
    cycle,
    dangling,
    drift,
    fork_findings,
    future_findings,
    group_findings,
    invalid_file_findings,
    near_duplicates_in,
    repeated_id,
    secret_findings,
    self_supersession,
    stale,
    tracked_derived,
    unknown_category_findings,
    unsafe_path,
)
from memsite.core.review_conflicts import category_conflicts, conflict_findings
from memsite.core.standing import expired
from memsite.core.trust import held_findings
from tests.conftest import make_entry

T = datetime(2026, 3, 7, tzinfo=UTC)
IDS = [f"{c * 8}-5678-40ab-8def-1234567890ab" for c in "abcdef"]
NODE = ["Use node 18 for the build server", "Use node 20 for the build server"]
PNPM = ["Always use pnpm, never npm or yarn.", "Use pnpm, never npm or yarn"]


def fact(n: int, text: str, category: str = "conventions", **fields: object) -> Entry:
    obj = make_entry(text, category, created=T + timedelta(minutes=n), id=IDS[n], **fields)
    return entry_from_object(obj, f"{n}.json")


def relate(target: str, other: str, link: str) -> Record:
    return record_from_object(build_record("relate", target, T, other=other, link=link))


def test_every_kind_a_builder_makes_is_ordered_and_explained() -> None:
    a, b, c = fact(0, NODE[0]), fact(1, NODE[1]), fact(2, "Use pnpm", "misc")
    d, e = fact(3, PNPM[0]), fact(4, PNPM[1])
    by_id = {x.id: x for x in (a, b, c, d, e)}
    pairs = [(a.id, a.normalized), (b.id, b.normalized)]
    near = [(d.id, d.normalized), (e.id, e.normalized)]
    made: list[Finding] = [
        *invalid_file_findings([("x.json", "not JSON")]),
        repeated_id(a, b),
        self_supersession(a),
        dangling(a, [IDS[5]]),
        cycle([b, a]),
        *group_findings(
            {("conventions", "x"): [b, a]},
            {("conventions", "k"): [b, a]},
            {a.id: "overridden", b.id: "active"},
            by_id,
        ),
        *fork_findings([a], {a.id: [b.id, c.id]}, {b.id: "active", c.id: "active"}, by_id),
        *near_duplicates_in([("conventions", near)], by_id.__getitem__),
        *secret_findings(a, ["an AWS key"], allowed=False),
        *secret_findings(a, ["an AWS key"], allowed=True),
        *conflict_findings({"conventions": pairs}, [], by_id.__getitem__),
        *unknown_category_findings([c], ["conventions"]),
        *future_findings([a], T - timedelta(days=1)),
        drift(a, [(Anchor("src/x.py", "d" * 40), Located("changed"))]),
        stale(a, T, 90),
        expired(fact(5, "Deploys are frozen", valid_to="2026-03-31")),
        unsafe_path(".memsite/compacted is a symbolic link"),
        tracked_derived(".memsite/index.md", [".memsite/index.md"]),
        *held_findings(
            {a.id: "hidden_text", b.id: "suspicious:pipe-to-shell", c.id: "unreviewed"},
            {x.id: x.filename for x in (a, b, c)},
            "origin/main",
        ),
    ]
    assert {f.kind for f in made} == set(KINDS)


def test_tracked_derived_files_are_one_finding_per_derived_path() -> None:
    one = tracked_derived(".memsite/index.md", [".memsite/index.md"])
    assert one.message.startswith(".memsite/index.md is derived but tracked by git: ")
    assert one.message.endswith("`git rm -r --cached .memsite/index.md`")
    many = tracked_derived(".memsite/site", [f".memsite/site/{n}.html" for n in range(5)])
    assert many.message.startswith(
        "5 derived files under .memsite/site are tracked by git (.memsite/site/0.html, "
        ".memsite/site/1.html, .memsite/site/2.html and 2 more): "
    )


def test_a_pair_that_differs_in_a_number_may_conflict() -> None:
    a, b = fact(0, NODE[0]), fact(1, NODE[1])
    found = conflict_findings(
        {"conventions": [(b.id, b.normalized), (a.id, a.normalized)]}, [], {a.id: a, b.id: b}.get
    )
    assert found == [
        Finding(
            "possible_conflict",
            (b.id, a.id),
            ("1.json", "0.json"),
            "aaaaaaaa and bbbbbbbb in conventions may disagree (18 vs 20): supersede the one "
            "that is wrong, or if both hold, "
            "`memsite relate aaaaaaaa bbbbbbbb --type distinct-from`",
        )
    ]


@pytest.mark.parametrize("link", ["distinct-from", "refines", "supports", "depends-on"])
def test_any_relation_but_conflicts_with_silences_a_pair(link: str) -> None:
    a, b = fact(0, NODE[0]), fact(1, NODE[1])
    per = {"conventions": [(a.id, a.normalized), (b.id, b.normalized)]}
    assert conflict_findings(per, [relate(b.id, a.id, link)], {a.id: a, b.id: b}.get) == []


def test_conflicts_with_forces_a_finding_once() -> None:
    a, b, c = fact(0, NODE[0]), fact(1, "Deploy on Fridays"), fact(2, NODE[1])
    by_id = {e.id: e for e in (a, b, c)}
    per = {"conventions": [(e.id, e.normalized) for e in (a, b, c)]}
    records = [relate(b.id, a.id, "conflicts-with"), relate(a.id, c.id, "conflicts-with")]
    found = conflict_findings(per, records, by_id.get)
    assert [f.ids for f in found] == [(a.id, b.id), (a.id, c.id)]
    assert found[0].message == (
        "aaaaaaaa and bbbbbbbb are marked conflicts-with: supersede or retire the one that is wrong"
    )
    assert conflict_findings(per, records, by_id.get, only=[b.id]) == found[:1]
    # a link to a fact that is not active (not given) says nothing
    assert conflict_findings({"conventions": per["conventions"][:2]}, records[1:], by_id.get) == []


def test_many_facts_about_one_subject_are_one_finding() -> None:
    texts = [f"Use node {v} for the build server" for v in (16, 18, 20, 22)]
    facts = [fact(n, t) for n, t in enumerate(texts)]
    per = {"conventions": [(e.id, e.normalized) for e in facts]}
    [found] = conflict_findings(per, [], {e.id: e for e in facts}.get)
    assert found.ids == tuple(e.id for e in reversed(facts))  # newest first
    assert found.message.startswith(
        "4 facts in conventions are about one subject but differ in a number, a version, a name "
        "or a negation (dddddddd, cccccccc, bbbbbbbb, aaaaaaaa): "
    )


def test_near_identical_facts_are_one_finding_newest_first() -> None:
    words = ("alpha", "beta", "gamma", "delta")
    facts = [
        fact(n, f"Use pnpm for every package install in the web workspace {w}")
        for n, w in enumerate(words)
    ]
    given = [(e.id, e.normalized) for e in facts]
    [found] = near_duplicates_in([("conventions", given)], {e.id: e for e in facts}.__getitem__)
    assert found.ids == tuple(e.id for e in reversed(facts))
    assert found.files == ("3.json", "2.json", "1.json", "0.json")
    assert found.message == (
        "4 entries in conventions say almost the same (each is at least 80% similar to "
        "another: dddddddd, cccccccc, bbbbbbbb, aaaaaaaa): write one fact that supersedes them "
        "all (memsite add --supersedes A --supersedes B ...), or retire the extra ones"
    )


def test_duplicates_and_contradictions_count_only_while_the_newest_is_active() -> None:
    a, b, c = fact(0, "Use pnpm"), fact(1, "use pnpm."), fact(2, "Use yarn")
    by_id = {e.id: e for e in (a, b, c)}
    dup = {("conventions", "use pnpm"): [b, a], ("conventions", "use yarn"): [c]}
    key = {("conventions", "pm"): [c, b], ("conventions", "solo"): [a]}
    status = {a.id: "duplicate", b.id: "overridden", c.id: "active"}
    assert [f.message for f in group_findings(dup, key, status, by_id)] == [
        "2 entries in conventions disagree on key 'pm'; the newest (cccccccc) wins: "
        "supersede the others to settle it",
    ]
    status[b.id] = "active"
    found = group_findings(dup, {}, status, by_id)
    assert found == [
        Finding(
            "duplicate",
            (b.id, a.id),
            ("1.json", "0.json"),
            "2 entries in conventions say the same; the newest (bbbbbbbb) is kept",
        )
    ]


def test_fork_needs_two_active_heirs() -> None:
    a, b, c = fact(0, "Use pnpm 8"), fact(1, "Use pnpm 9"), fact(2, "Use pnpm 10")
    by_id = {e.id: e for e in (a, b, c)}
    heirs = {a.id: [b.id, c.id]}
    [found] = fork_findings(
        [a, b, c], heirs, {a.id: "superseded", b.id: "active", c.id: "active"}, by_id
    )
    assert found.ids == (a.id, b.id, c.id) and found.files == ("0.json", "1.json", "2.json")
    assert found.message.startswith(
        "2 active entries (bbbbbbbb, cccccccc) each supersede aaaaaaaa: "
    )
    assert (
        fork_findings(
            [a, b, c], heirs, {a.id: "superseded", b.id: "superseded", c.id: "active"}, by_id
        )
        == []
    )


def test_near_duplicates_name_both_and_their_similarity() -> None:
    d, e, f = fact(3, PNPM[0]), fact(4, PNPM[1]), fact(5, "Deploy on Fridays")
    by_id = {x.id: x for x in (d, e, f)}
    given = [(x.id, x.normalized) for x in (f, e, d)]
    [found] = near_duplicates_in([("conventions", given)], by_id.__getitem__)
    assert found.ids == (d.id, e.id) and found.files == ("3.json", "4.json")
    assert found.message == (
        "dddddddd and eeeeeeee in conventions are 86% similar: supersede one or merge them"
    )


def test_secret_findings_one_per_message() -> None:
    a = fact(0, "Use pnpm")
    hidden = secret_findings(a, ["an AWS key", "a token"], allowed=False)
    assert [f.kind for f in hidden] == ["secret", "secret"]
    assert hidden[1].message.startswith(
        "aaaaaaaa: a token; it is redacted everywhere memsite publishes"
    )
    [shown] = secret_findings(a, ["an AWS key"], allowed=True)
    assert shown.message.startswith(
        "aaaaaaaa: an AWS key, published as written because it is marked"
    )


def test_unknown_categories_are_grouped_and_sorted() -> None:
    a, b, c = fact(0, "x", "zeta"), fact(1, "y", "alpha"), fact(2, "z", "zeta")
    found = unknown_category_findings([a, b, c], ["conventions"])
    assert [(f.ids, f.files) for f in found] == [
        ((b.id,), ("1.json",)),
        ((a.id, c.id), ("0.json", "2.json")),
    ]
    assert found[1].message.startswith(
        "2 entries in category 'zeta', which the config does not list"
    )


def test_standing_and_file_messages() -> None:
    a = fact(0, "Use pnpm")
    assert (
        invalid_file_findings([("x.json", "not valid JSON")])[0].message
        == "x.json: not valid JSON; skipped"
    )
    assert dangling(a, [IDS[4]]).message == (
        f"aaaaaaaa supersedes {IDS[4]}, not in this checkout (it may live on another branch)"
    )
    assert (
        cycle([a, fact(1, "x")]).message
        == "supersession cycle: aaaaaaaa -> bbbbbbbb; the newest (aaaaaaaa) is kept"
    )
    moved = drift(
        a,
        [
            (Anchor("a.py", "d" * 40), Located("renamed", path="b.py")),
            (Anchor("c.py", "d" * 40), Located("missing")),
        ],
    )
    assert moved.message.startswith(
        "aaaaaaaa: a.py renamed to b.py, c.py missing since it was pinned"
    )
    assert stale(a, T, 90).message.startswith(
        "aaaaaaaa: not written or verified since 2026-03-07 (memory.reviewAfterDays: 90)"
    )
    assert future_findings([a], T - timedelta(minutes=5)) == []  # within the five minutes allowed
    assert Finding("x", ("i",), ("f",), "m").as_dict() == {
        "kind": "x",
        "ids": ["i"],
        "files": ["f"],
        "message": "m",
    }


def test_conflicts_do_not_depend_on_the_order_of_the_facts() -> None:
    """The rule's bounds keep the latest candidates met (``core.conflicts``), so the order
    the facts come in changed the groups of a large category (seen on the operations facts
    of a 10k generated store: 3 orders in 3 differed). The facts are taken in id order:
    every caller (a build's worker, `review`) and the memo of the pass (``memory.scanmemo``)
    agree."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from gen_store import build_entries

    facts = [
        entry_from_object(obj, f"{n}.json")
        for n, obj in enumerate(build_entries(10_000))
        if obj["category"] == "operations"
    ]
    by_id = {e.id: e for e in facts}
    given = [(e.id, e.normalized) for e in facts]
    first = category_conflicts("operations", given, set(), by_id.__getitem__)
    assert len(first) > 50  # templated facts with numbers: many groups
    for seed in range(3):
        random.Random(seed).shuffle(given)
        assert category_conflicts("operations", given, set(), by_id.__getitem__) == first
