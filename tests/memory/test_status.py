"""`memsite status` through the service: counts, freshness, logs, findings, layout notes."""

from __future__ import annotations

import json
from pathlib import Path

from memsite.memory import Memory
from memsite.storage.layout import Store
from tests.conftest import Clock, git


def open_memory(store_root: Path, clock: Clock) -> Memory:
    return Memory.open(str(store_root), {}, store_root.parent, now=clock)


def test_an_empty_store(store_root: Path, clock: Clock) -> None:
    answer = open_memory(store_root, clock).status()
    assert answer["store"] == str(store_root) and answer["layout"] == "memsite"
    assert answer["notes"] == []
    assert answer["entries"] == answer["active"] == answer["invalid"] == 0
    assert answer["derived"] == "stale"  # nothing compacted yet
    assert set(answer["categories"]) == {"conventions", "architecture", "operations", "decisions"}
    for name in ("daily_logs", "findings", "drifted", "stale", "records"):
        assert answer[name] == 0, name


def test_counts_freshness_logs_and_records(store_root: Path, clock: Clock) -> None:
    memory = open_memory(store_root, clock)
    first = memory.add("Use pnpm.", "conventions")["id"]
    clock.tick()
    memory.amend(first, "Use pnpm 9 through corepack.")
    clock.tick()
    fact = memory.add("Releases are cut on Tuesdays.", "operations")["id"]
    memory.log("looked at the release script")
    memory.verify(fact, "the release script says so")
    (store_root / "entries" / "broken.json").write_text("[1, 2")
    memory.invalidate()  # a file another writer left
    memory.compact()
    answer = memory.reopen().status()
    assert answer["entries"] == 3 and answer["active"] == 2 and answer["superseded"] == 1
    assert answer["categories"]["conventions"] == {
        "active": 1,
        "superseded": 1,
        "duplicate": 0,
        "overridden": 0,
        "retired": 0,
    }
    assert answer["categories"]["operations"]["active"] == 1
    assert answer["invalid"] == 1 and answer["findings"] == 1  # the unreadable file
    assert answer["derived"] == "fresh"
    assert answer["daily_logs"] == 1 and answer["records"] == 1
    clock.tick()
    memory.add("The API is versioned in the path.", "architecture")
    assert memory.reopen().status()["derived"] == "stale"


def test_drifted_and_stale_facts_are_counted(store_root: Path, clock: Clock) -> None:
    project = store_root.parent
    git(project, "init", "-q")
    (project / "app.py").write_text("PORT = 5432\n")
    (store_root / "config.json").write_text(
        json.dumps({"memory": {"reviewAfterDays": {"operations": 5}}})
    )
    memory = open_memory(store_root, clock)
    memory.add("The port is 5432.", "architecture", anchors=["app.py"])
    memory.add("Deploys run on Tuesdays.", "operations")
    memory.add("Use pnpm.", "conventions")  # no review period: never stale
    fresh = memory.reopen().status()
    assert (fresh["findings"], fresh["drifted"], fresh["stale"]) == (0, 0, 0)
    (project / "app.py").write_text("PORT = 6543\n")
    clock.tick(days=30)
    answer = memory.reopen().status()
    assert (answer["findings"], answer["drifted"], answer["stale"]) == (2, 1, 1)
    assert answer["active"] == 3  # findings change no status


def test_a_shadowed_leanspec_store_is_noted(tmp_path: Path, clock: Clock) -> None:
    lean = tmp_path / ".lean-spec"
    (lean / "memory" / "entries").mkdir(parents=True)
    (lean / "config.json").write_text("{}")
    Store.init(tmp_path / ".memsite")
    memory = Memory.open(None, {}, tmp_path, now=clock)
    (note,) = memory.status()["notes"]
    assert note == (
        f"a LeanSpec store is also at {(lean / 'memory').resolve()}; memsite uses "
        f"{(tmp_path / '.memsite').resolve()} (pass --store .lean-spec/memory to use the other)"
    )
    lean_status = Memory.open(".lean-spec/memory", {}, tmp_path, now=clock).status()
    assert lean_status["layout"] == "leanspec" and lean_status["notes"] == []
