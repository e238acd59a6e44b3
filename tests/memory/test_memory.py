"""The service layer with a controlled clock: daily logs, pruning, snapshot, search ranking."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest

from memsite.core.compaction import compact
from memsite.memory import Memory
from memsite.storage.entries import scan
from memsite.storage.layout import Store
from tests.conftest import Clock, make_entry, write_raw


def open_memory(root: Path, clock: Clock) -> Memory:
    store = Store(root)
    return Memory(store, store.load_config(), clock)


def test_daily_logs_older_than_retention_are_pruned(store_root: Path, clock: Clock) -> None:
    memory = open_memory(store_root, clock)
    start = clock.moment
    for days in (0, 10, 29, 31, 45):
        clock.moment = start - timedelta(days=days)
        memory.log(f"note from {days} days ago", "s1")
    clock.moment = start
    names = sorted(p.name for p in (store_root / "daily").iterdir())
    assert len(names) == 5
    dry = memory.prune(dry_run=True)
    assert len(dry["daily"]) == 2 and len(list((store_root / "daily").iterdir())) == 5
    result = open_memory(store_root, clock).compact()
    expired = {f"daily/{(start - timedelta(days=d)).strftime('%Y-%m-%d')}-s1.md" for d in (31, 45)}
    assert set(result["pruned_daily"]) == expired
    kept = {(start - timedelta(days=d)).strftime("%Y-%m-%d") for d in (0, 10, 29)}
    assert {p.name[:10] for p in (store_root / "daily").iterdir()} == kept


def test_daily_logs_never_reach_the_index(store_root: Path, clock: Clock) -> None:
    memory = open_memory(store_root, clock)
    memory.log("secret plan for the refactor", None)
    memory.add("Use pnpm", "conventions")
    memory.compact()
    assert "refactor" not in (store_root / "index.md").read_text()


def chain(memory: Memory, clock: Clock) -> list[str]:
    ids = []
    for text in ("Node 18", "Node 20", "Node 22"):
        clock.tick(days=1)
        answer = memory.add(text, "conventions", supersedes=ids[-1:])
        ids.append(answer["id"])
    return ids


def test_prune_before_removes_old_inactive_entries_with_their_chain(
    store_root: Path, clock: Clock
) -> None:
    memory = open_memory(store_root, clock)
    c, b, a = chain(memory, clock)  # a supersedes b supersedes c
    clock.tick(days=30)
    cutoff = clock.moment.date()
    result = memory.prune(before=cutoff)
    assert sorted(result["entries"]) == sorted([b, c])
    assert [e["id"] for e in open_memory(store_root, clock).list_entries(include_all=True)] == [a]


def test_prune_keeps_an_entry_whose_superseded_target_is_too_new(
    store_root: Path, clock: Clock
) -> None:
    memory = open_memory(store_root, clock)
    c, b, a = chain(memory, clock)
    # C was created first; pruning only before B's day would take B but not C: C would revive
    b_day = datetime.fromisoformat(memory.read(b)["created"].replace("Z", "+00:00")).date()
    result = memory.prune(before=b_day + timedelta(days=1), dry_run=True)
    assert set(result["entries"]) == {b, c}
    # with the cut between C and B, nothing may go: pruning C alone is fine, B alone is not
    result = memory.prune(before=b_day)
    assert result["entries"] == [c]
    assert [e["id"] for e in open_memory(store_root, clock).list_entries()] == [a]


def test_prune_does_not_revive_a_duplicate(store_root: Path, clock: Clock) -> None:
    memory = open_memory(store_root, clock)
    first = memory.add("use pnpm", "conventions")["id"]
    write_raw(
        store_root,
        make_entry(
            "Use pnpm.",
            created=clock.moment + timedelta(seconds=5),
            id="77777777-7777-4777-8777-777777777777",
        ),
    )
    clock.tick(seconds=10)
    newest = memory.add("use bun", "conventions", supersedes=["77777777"])["id"]
    clock.tick(days=3)
    memory = open_memory(store_root, clock)
    assert memory.read(first)["status"] == "duplicate"
    result = memory.prune(before=clock.moment.date() + timedelta(days=1))
    # pruning the superseded winner would hand the duplicate group back to `first`: it goes too
    assert set(result["entries"]) == {first, "77777777-7777-4777-8777-777777777777"}
    assert [e["id"] for e in open_memory(store_root, clock).list_entries()] == [newest]


def test_index_follows_writes_from_other_processes(store_root: Path, clock: Clock) -> None:
    memory = open_memory(store_root, clock)
    memory.add("The cache is Redis 7", "architecture")
    assert (store_root / "cache" / "index.sqlite3").exists()
    # another tool drops an entry in: the next search must see it
    write_raw(
        store_root, make_entry("Queue is RabbitMQ", id="12345678-1234-4234-8234-123456789abc")
    )
    hits = open_memory(store_root, clock).search("rabbitmq")
    assert [h["id"] for h in hits] == ["12345678-1234-4234-8234-123456789abc"]
    # and a hand-deleted file disappears from results
    next((store_root / "entries").glob("*12345678.json")).unlink()
    assert open_memory(store_root, clock).search("rabbitmq") == []


def test_incremental_index_matches_a_full_rebuild(store_root: Path, clock: Clock) -> None:
    memory = open_memory(store_root, clock)
    ids = []
    for i in range(12):
        clock.tick(minutes=1)
        sup = ids[-1:] if i % 3 == 2 else []
        key = "pm" if i % 4 == 0 else None
        ids.append(
            memory.add(f"fact {i % 5} about things", "conventions", supersedes=sup, key=key)["id"]
        )
    incremental = Memory(memory.store, memory.config, clock).index().entries.statuses()
    shutil.rmtree(store_root / "cache")
    rebuilt = Memory(memory.store, memory.config, clock).index().entries.statuses()
    full = compact(scan(memory.store).entries, ())
    assert incremental == rebuilt == {e.filename: full.status[e.id] for e in full.entries}
    assert set(incremental.values()) >= {"active", "superseded", "duplicate"}


def test_search_ranks_tags_and_key_and_prefers_exact_over_fuzzy(
    store_root: Path, clock: Clock
) -> None:
    memory = open_memory(store_root, clock)
    plain = memory.add("The deployment uses helm charts", "operations")["id"]
    clock.tick()
    tagged = memory.add("Rollbacks use helm rollback", "operations", tags=["helm"])["id"]
    clock.tick()
    keyed = memory.add("Charts are linted in CI", "operations", key="helm")["id"]
    clock.tick()
    memory.add("Nothing to see here", "operations")
    memory.add("The charts use holm, a typo", "decisions")
    hits = memory.search("helm", mode="exact")  # the lexical ranking and its scores
    # an exact match exists, so the typo neighbour "holm" is not pulled in
    assert [h["id"] for h in hits][2:] == [plain]
    assert {h["id"] for h in hits[:2]} == {tagged, keyed}
    assert hits[1]["score"] > hits[2]["score"] > 0
    assert {h["id"] for h in memory.search("helmz")} >= {tagged, plain, keyed}


def test_search_recency_breaks_near_ties(store_root: Path, clock: Clock) -> None:
    memory = open_memory(store_root, clock)
    old = memory.add("Flaky test in checkout suite", "operations")["id"]
    clock.tick(days=400)
    new = memory.add("Flaky checkout suite test", "operations")["id"]
    assert [h["id"] for h in memory.search("flaky checkout")] == [new, old]


@pytest.mark.parametrize(
    ("query", "found"),
    [("postgress", True), ("postgre", True), ("psotgres", True), ("kubernetes", False)],
)
def test_search_tolerates_typos(store_root: Path, clock: Clock, query: str, found: bool) -> None:
    memory = open_memory(store_root, clock)
    memory.add("The database is Postgres 16", "architecture")
    assert bool(memory.search(query)) is found


def test_search_limit_category_and_all(store_root: Path, clock: Clock) -> None:
    memory = open_memory(store_root, clock)
    first = memory.add("redis cache one", "architecture")["id"]
    clock.tick()
    memory.add("redis cache two", "operations", supersedes=[first])
    assert len(memory.search("redis", limit=1)) == 1
    assert [h["category"] for h in memory.search("redis", category="operations")] == ["operations"]
    everything = memory.search("redis", include_all=True)
    assert sorted(h["status"] for h in everything) == ["active", "superseded"]


def test_config_budget_and_categories_drive_context(store_root: Path, clock: Clock) -> None:
    (store_root / "config.json").write_text(
        json.dumps({"memory": {"autoInjectTokenBudget": 150, "categories": {"gotchas": 1}}})
    )
    memory = open_memory(store_root, clock)
    for i in range(30):
        clock.tick()
        memory.add(f"gotcha number {i} with several words of detail", "gotchas")
    text = memory.context()
    assert text.startswith("<!-- Auto-generated") and "## Gotchas" in text
    shown = text.count("\n- ")
    assert 0 < shown < 30
    assert f"\n{30 - shown} more active facts did not fit" in text


def test_future_entry_is_kept_and_reported(store_root: Path, clock: Clock) -> None:
    memory = open_memory(store_root, clock)
    later = clock.moment + timedelta(days=2)
    write_raw(
        store_root,
        make_entry("from the future", created=later, id="99999999-9999-4999-8999-999999999999"),
    )
    kinds = [f["kind"] for f in memory.review()["findings"]]
    assert kinds == ["future_timestamp"]
    assert memory.list_entries()[0]["content"] == "from the future"


def test_prune_rejects_nothing_active(store_root: Path, clock: Clock) -> None:
    memory = open_memory(store_root, clock)
    memory.add("still true", "conventions")
    assert memory.prune(before=date(2999, 1, 1))["entries"] == []
    assert len(memory.list_entries()) == 1


def test_created_time_is_the_injected_clock(store_root: Path) -> None:
    clock = Clock(datetime(2026, 3, 7, 14, 30, 0, 123456, tzinfo=UTC))
    memory = open_memory(store_root, clock)
    answer = memory.add("fact", "conventions")
    assert Path(answer["path"]).name.startswith("2026-03-07T14-30-00Z-")
    assert memory.read(answer["id"])["created"] == "2026-03-07T14:30:00.123Z"
