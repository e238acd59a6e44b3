"""The review's text pass made from the index's rows (a build worker's way) gives exactly the
findings made from the entries in memory."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from memsite.memory import Memory, review
from memsite.parallel import can_fork
from memsite.storage.layout import Store
from tests.conftest import Clock, make_entry, write_raw
from tests.memory.conftest import memory_at
from tests.secrets_corpus import body

UUID = "{:08x}-1111-4111-8111-111111111111"


def _memory(store_root: Path) -> Memory:
    store = Store(store_root)
    return Memory(store, store.load_config(), Clock(), cwd=store_root.parent)


def _plant(store_root: Path) -> None:
    token = "ghp_" + body("scan-findings", "abcdefghijklmnopqrstuvwxyz0123456789", 36)
    facts = [
        ("conventions", "Use pnpm for every package install in the web workspace"),
        ("conventions", "Use pnpm for every package install in the web workspace today"),
        ("conventions", "Run the linter before each commit to the main branch"),
        ("architecture", "The database is Postgres 15"),
        ("architecture", "The database is Postgres 16"),
        ("architecture", "The cache is Redis 7 with two replicas"),
        ("operations", f"Deploy with the token {token} from the vault"),
        ("operations", "Deploys need two approvals from the platform team"),
        ("operations", "Deploys need two approvals from the platform team members"),
    ]
    for n, (category, content) in enumerate(facts):
        created = f"2026-03-0{1 + n % 5}T10:0{n}:00.000Z"
        write_raw(store_root, make_entry(content, category, created, id=UUID.format(n)))
    # Superseded and duplicated: neither may show in the near-duplicates or conflicts.
    older = make_entry(
        "Use pnpm for every package install in the web workspace",
        "conventions",
        "2026-02-01T10:00:00.000Z",
        id=UUID.format(90),
    )
    write_raw(store_root, older)
    newer = make_entry(
        "Use pnpm 9 for every package install in the web workspace",
        "conventions",
        "2026-02-02T10:00:00.000Z",
        id=UUID.format(91),
        supersedes=[UUID.format(90)],
    )
    write_raw(store_root, newer)
    again = make_entry(
        f"A copy under another name holds {token}",
        "operations",
        "2026-01-01T10:00:00.000Z",
        id=UUID.format(7),
    )
    write_raw(store_root, again, "2026-01-01T10-00-00Z-again.json")


def _from_memory(memory: Memory) -> review.ScanFindings:
    result = memory.state().result
    kept = ((e, result.status[e.id]) for e in result.entries)
    records = memory.state().scan.records
    return review.scan_findings(memory, kept, records, result.by_id.__getitem__)


def test_from_the_index_equals_from_memory(store_root: Path) -> None:
    _plant(store_root)
    memory = _memory(store_root)
    memory.relate(UUID.format(5), UUID.format(2), "conflicts-with")
    memory.invalidate()
    state = memory.state()
    snapshot = memory.model.index.snapshot()
    assert snapshot is not None
    with snapshot:
        kept = sorted(e.filename for e, _ in snapshot.kept_entries())
    assert kept == sorted(e.filename for e in state.result.entries)

    scanned = review.scan_findings_from_index(memory, lambda: True)
    assert scanned is not None
    assert scanned == _from_memory(memory)
    assert scanned.seen == review.seen_digest(state.result.status.items())
    found = review.findings(memory, scanned)
    kinds = [f.kind for f in found]
    for kind in ("near_duplicate", "possible_conflict", "secret", "invalid_file"):
        assert kind in kinds
    assert len([k for k in kinds if k == "possible_conflict"]) == 2  # Postgres, conflicts-with
    assert found == memory.findings()
    # The secret findings in the compaction's order of entries, as the review lists them.
    assert [f for f in found if f.kind == "secret"] == review.secret_findings(memory)


def test_a_pass_over_other_entries_is_not_used(store_root: Path) -> None:
    _plant(store_root)
    memory = _memory(store_root)
    memory.state()
    other = _memory(store_root)
    new = other.add(
        "Use pnpm for every package install in the web workspace, always", "conventions"
    )
    scanned = review.scan_findings_from_index(other, lambda: True)
    assert scanned is not None
    assert scanned.seen != review.seen_digest(memory.state().result.status.items())
    # The pass saw the new fact (in a near-duplicate); the review of the earlier read does not.
    near = [f for found in scanned.near_duplicates.values() for f in found]
    assert any(new["id"] in f.ids for f in near)
    found = review.findings(memory, scanned)
    assert found == review.findings(memory)
    assert not any(new["id"] in f.ids for f in found)


def test_no_pass_until_the_parent_says_so(store_root: Path) -> None:
    _plant(store_root)
    memory = _memory(store_root)
    assert review.scan_findings_from_index(memory, lambda: False) is None


@pytest.mark.skipif(not can_fork(), reason="needs fork and two CPUs")
def test_a_forked_build_takes_the_pass_from_its_worker(
    store_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memsite.portal.build import build_site

    _plant(store_root)
    calls = tmp_path / "calls"
    made = review.scan_findings

    def recorded(*args: Any, **kwargs: Any) -> review.ScanFindings:
        with calls.open("a") as out:
            out.write(f"{os.getpid()}\n")
        return made(*args, **kwargs)

    monkeypatch.setattr(review, "scan_findings", recorded)
    memory = _memory(store_root)
    _, portal, result = build_site(memory, tmp_path / "site", parallel=True)
    pids = calls.read_text().split()
    assert len(pids) == 1 and int(pids[0]) != os.getpid()  # once, in the worker
    expected = _memory(store_root).findings()
    assert result.findings == len(expected)
    assert [(f.kind, f.entries[0].id) for f in portal.findings] == [
        (f.kind, f.ids[0]) for f in expected
    ]


def test_possible_conflicts_without_a_key(store_root: Path) -> None:
    memory = memory_at(store_root)
    a = memory.add("The database is Postgres 15", "architecture")["id"]
    b = memory.add("The database is Postgres 16", "architecture")["id"]
    memory.add("The cache is Redis 7", "architecture")
    memory.add("Deploys need two approvals", "operations")
    found = [f for f in memory.findings() if f.kind == "possible_conflict"]
    assert [sorted(f.ids) for f in found] == [sorted((a, b))]
    assert "15" in found[0].message and "distinct-from" in found[0].message
    memory.relate(a, b, "distinct-from", reason="two clusters")
    memory.invalidate()
    assert not [f for f in memory.findings() if f.kind == "possible_conflict"]


def test_conflicts_with_is_reported_and_superseding_resolves(store_root: Path) -> None:
    memory = memory_at(store_root)
    a = memory.add("Releases are cut from main", "operations")["id"]
    b = memory.add("Hotfixes go straight to production", "operations")["id"]
    memory.relate(b, a, "conflicts-with")
    memory.invalidate()
    assert [f.kind for f in memory.findings()] == ["possible_conflict"]
    memory.amend(b, "Hotfixes are cut from main too")
    memory.invalidate()
    assert [f.kind for f in memory.findings()] == []


def test_many_facts_about_one_subject_are_one_finding(store_root: Path) -> None:
    clock = Clock()
    memory = memory_at(store_root, clock)
    ids = []
    for n in (4, 8, 16, 32):
        clock.tick(minutes=1)
        ids.append(memory.add(f"Worker pool size is {n}", "operations")["id"])
    memory.add("The database is Postgres 15", "architecture")
    memory.add("The database is Postgres 16", "architecture")
    found = [f for f in memory.findings() if f.kind == "possible_conflict"]
    assert len(found) == 2  # one group of four, one pair
    group = next(f for f in found if len(f.ids) == 4)
    assert set(group.ids) == set(ids) and group.ids[0] == ids[-1]  # newest first
    assert group.message.startswith("4 facts in operations are about one subject")
