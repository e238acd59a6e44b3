"""The pull-request gate's pure rules (``core.gate``): the facts a branch adds, as a reviewer
reads them, and the new facts that plausibly overlap an active fact with nothing recorded
between them (the git side, with real branches, is ``tests/memory/test_check.py``)."""

from __future__ import annotations

from typing import Any

from memsite.core.anchors import make_anchor
from memsite.core.compaction import compact
from memsite.core.entry import Entry, entry_from_object
from memsite.core.gate import added_facts, overlap_problems
from memsite.core.secrets import ALLOW_KEY
from tests.conftest import make_entry

DB = make_anchor("src/db.py", b"POOL = 20\n", None)


def fact(n: int, content: str, category: str = "operations", **fields: Any) -> Entry:
    allowed = fields.pop("allow_secret", False)
    obj = make_entry(content, category, f"2026-03-0{n}T10:00:00.000Z", **fields)
    obj["id"] = f"{n:08d}-0000-4000-8000-000000000000"
    if allowed:
        obj[ALLOW_KEY] = True
    return entry_from_object(obj, f"2026-03-0{n}T10-00-00Z-{n:08d}.json")


def test_the_added_facts_are_the_active_ones_oldest_first_on_one_line() -> None:
    old = fact(1, "Deploys need two approvals")
    first = fact(2, "Deploys need three approvals")
    second = fact(3, "Deploys need\nfour\x1b[2J approvals", supersedes=[first.id])
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    leak = fact(4, f"The CI token is {token}", allow_secret=True)  # a person allowed it
    result = compact([old, first, second, leak], ["operations"])
    added = added_facts([leak, second, first], result)
    assert [a["id"] for a in added] == [second.id, leak.id]  # first is superseded
    assert added[0] == {
        "id": second.id,
        "category": "operations",
        "content": "Deploys need four[2J approvals",  # one line, no control character
    }
    assert token not in added[1]["content"] and "[redacted" in added[1]["content"]


def test_a_shared_anchored_file_overlaps_until_a_relation_or_supersession() -> None:
    old = fact(1, "The pool holds 20 connections", "architecture", anchors=[DB])
    new = fact(2, "Queries give up after five seconds", anchors=[DB])
    (found,) = overlap_problems([new], [old], related=())
    assert found["kind"] == "overlaps" and found["ids"] == [new.id, old.id]
    assert found["file"] == new.filename
    assert "both anchored to src/db.py" in found["message"]
    assert overlap_problems([new], [old], related={(old.id, new.id)}) == []
    newer = fact(3, "Queries give up after five seconds", anchors=[DB], supersedes=[old.id])
    assert overlap_problems([newer], [old], related=()) == []


def test_a_near_duplicate_of_its_category_overlaps() -> None:
    old = fact(1, "Releases are cut on Tuesdays")
    new = fact(2, "Releases are always cut on Tuesdays")
    elsewhere = fact(3, "Releases are always cut on Tuesdays", "conventions")
    (found,) = overlap_problems([new], [old], related=())
    assert "83% the same words" in found["message"]
    assert f"--supersedes {old.short_id}" in found["message"]
    assert overlap_problems([elsewhere], [old], related=()) == []  # another category
    assert overlap_problems([new], [old], (), reported={(old.id, new.id)}) == []  # said already
    unrelated = fact(4, "Deploys need two approvals")
    assert overlap_problems([unrelated], [old], related=()) == []


def test_one_problem_per_new_fact_naming_every_overlap() -> None:
    olds = [fact(n, f"Fact number {n} about the pool", anchors=[DB]) for n in (1, 2, 3)]
    new = fact(4, "The pool is sized by POOL", anchors=[DB])
    (found,) = overlap_problems([new], olds, related=())
    assert found["ids"] == [new.id, olds[2].id, olds[1].id, olds[0].id]  # newest first
    assert "(and 2 more:" in found["message"]
