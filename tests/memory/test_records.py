"""Records about facts: verify (and re-pin), staleness, retire, typed links, forks from two
branches."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memsite.memory.records import DriftError
from tests.conftest import Clock, Invoke, git
from tests.memory.conftest import DB, memory_at


def test_verify_refuses_drift_unless_repinned(project: Path, store_root: Path) -> None:
    clock = Clock()
    memory = memory_at(store_root, clock)
    fact = memory.add("The port is 5432", "architecture", anchors=["src/db.py:6"])["id"]
    clock.tick(seconds=5)
    first = memory.verify(fact, "read db.py")
    assert first["repinned"] == []
    (project / "src" / "db.py").write_text(DB.replace("5432", "6543"))
    memory.invalidate()
    with pytest.raises(DriftError, match="--repin"):
        memory.verify(fact[:8])
    clock.tick(seconds=5)
    repinned = memory.verify(
        fact[:8], "the port moved to 6543 and the fact was amended", repin=True
    )
    assert repinned["repinned"] == ["src/db.py:6-6"]
    memory.invalidate()
    read = memory.read(fact)
    assert "drifted" not in read and read["anchors"][0]["state"] == "unchanged"
    assert [v["evidence"] for v in read["verifications"]] == [
        "read db.py",
        "the port moved to 6543 and the fact was amended",
    ]
    assert read["verified"] == repinned_time(store_root, repinned["record"])


def repinned_time(store_root: Path, record_id: str) -> str:
    for path in (store_root / "entries").iterdir():
        obj = json.loads(path.read_text())
        if obj["id"] == record_id:
            return str(obj["created"])
    raise AssertionError(record_id)


def test_staleness_follows_writes_and_verifications(store_root: Path) -> None:
    config = store_root / "config.json"
    data = json.loads(config.read_text())
    data["memory"]["reviewAfterDays"] = {"operations": 90}
    config.write_text(json.dumps(data))
    clock = Clock(datetime(2026, 1, 1, tzinfo=UTC))
    memory = memory_at(store_root, clock)
    old = memory.add("Deploys run on Fridays", "operations")["id"]
    clock.tick(days=30)
    memory.add("Backups run nightly", "operations")
    never = memory.add("Use pnpm", "conventions")["id"]  # no review period for conventions
    clock.moment = datetime(2026, 1, 1, tzinfo=UTC) + timedelta(days=95)
    memory.invalidate()
    listed = {e["content"]: e.get("stale", False) for e in memory.list_entries()}
    assert listed == {
        "Deploys run on Fridays": True,
        "Backups run nightly": False,
        "Use pnpm": False,
    }
    memory.compact()
    text = (store_root / "index.md").read_text()
    assert "- Deploys run on Fridays (unconfirmed since 2026-01-01)" in text
    stale = [f for f in memory.findings() if f.kind == "stale"]
    assert [f.ids for f in stale] == [(old,)]
    memory.verify(old, "still true: see the release calendar")
    memory.invalidate()
    assert "stale" not in memory.read(old) and never
    clock.tick(days=40)  # a day later than the other's period: now the other one is stale
    memory.invalidate()
    assert [f.kind for f in memory.findings() if f.kind == "stale"] == ["stale"]


def test_bad_review_periods_are_config_errors(store_root: Path, runner: Invoke) -> None:
    config = store_root / "config.json"
    data = json.loads(config.read_text())
    data["memory"]["reviewAfterDays"] = {"operations": 0}
    config.write_text(json.dumps(data))
    result = runner("list")
    assert result.exit_code == 1 and "reviewAfterDays" in result.stderr
    assert "Traceback" not in result.stderr


def test_retire_withdraws_a_fact_and_keeps_its_history(store_root: Path, runner: Invoke) -> None:
    fact = runner("add", "We ship on Fridays", "-c", "operations", "--json").json()["id"]
    runner("add", "Backups run nightly", "-c", "operations")
    assert runner("retire", fact[:8]).exit_code == 2  # --reason is required
    done = runner("retire", fact[:8], "--reason", "release trains replaced Friday ships", "--json")
    assert done.exit_code == 0 and done.json()["status"] == "retired"
    assert [e["content"] for e in runner("list", "--json").json()] == ["Backups run nightly"]
    assert runner("search", "fridays", "--json").json() == []
    assert runner("search", "fridays", "--all", "--json").json()[0]["status"] == "retired"
    assert runner("compact").exit_code == 0
    assert "Fridays" not in (store_root / "index.md").read_text()
    assert "Fridays" not in (store_root / "compacted" / "operations.md").read_text()
    read = runner("read", fact, "--json").json()
    assert read["status"] == "retired"
    assert read["retired"]["reason"] == "release trains replaced Friday ships"
    again = runner("retire", fact, "--reason", "twice")
    assert again.exit_code == 1 and "is retired" in again.stderr
    assert runner("status", "--json").json()["retired"] == 1


def test_links_both_ways_and_search_expand(store_root: Path, runner: Invoke) -> None:
    base = runner("add", "The API uses Fastify", "-c", "architecture", "--json").json()["id"]
    plugin = runner("add", "Auth is a Fastify plugin", "-c", "architecture", "--json").json()["id"]
    other = runner("add", "Queues use BullMQ", "-c", "architecture", "--json").json()["id"]
    linked = runner(
        "relate",
        plugin[:8],
        base[:8],
        "--type",
        "depends-on",
        "--reason",
        "plugins need the server",
        "--json",
    )
    assert linked.exit_code == 0 and linked.json()["status"] == "related"
    assert runner("relate", plugin, base, "--type", "depends-on", "--json").json()["status"] == (
        "exists"
    )
    assert runner("relate", plugin, plugin, "--type", "refines").exit_code == 1
    assert runner("relate", plugin, base, "--type", "owns").exit_code == 2
    runner("relate", base, other, "--type", "supports")
    links = runner("read", base, "--json").json()["links"]
    assert [(x["id"], x["type"], x["direction"]) for x in links] == [
        (plugin, "depends-on", "in"),
        (other, "supports", "out"),
    ]
    assert links[0]["content"] == "Auth is a Fastify plugin"
    assert "<- depends-on" in runner("read", base).stdout
    hits = runner("search", "auth plugin", "--expand", "--json").json()
    assert [h["id"] for h in hits][:2] == [plugin, base]
    assert hits[1]["via"] == {"id": plugin, "type": "depends-on", "direction": "out"}
    assert other not in [h["id"] for h in hits]  # one step only
    plain = runner("search", "auth plugin", "--json").json()
    assert all("via" not in h for h in plain)


def test_two_branches_amending_one_fact_fork(project: Path, store_root: Path) -> None:
    memory = memory_at(store_root)
    fact = memory.add("The database is Postgres 15", "architecture")["id"]
    git(project, "add", "-A")
    git(project, "commit", "-qm", "fact")
    git(project, "checkout", "-qb", "upgrade")
    memory.invalidate()
    memory.amend(fact, "The database is Postgres 16")
    git(project, "add", "-A")
    git(project, "commit", "-qm", "16")
    git(project, "checkout", "-q", "main")
    memory.invalidate()
    memory.amend(fact, "The database is Postgres 15.6")
    git(project, "add", "-A")
    git(project, "commit", "-qm", "15.6")
    git(project, "merge", "-q", "--no-edit", "upgrade")
    memory = memory_at(store_root)
    forks = [f for f in memory.findings() if f.kind == "fork"]
    assert len(forks) == 1 and forks[0].ids[0] == fact
    assert len(forks[0].ids) == 3
    heirs = [e["id"] for e in memory.list_entries()]
    assert sorted(heirs) == sorted(forks[0].ids[1:])
    memory.add("The database is Postgres 16", "architecture", supersedes=heirs)
    memory.invalidate()
    assert not [f for f in memory.findings() if f.kind == "fork"]
