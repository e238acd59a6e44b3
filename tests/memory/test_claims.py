"""Claims that stay true, end to end through the service and the CLI, in real git repositories:
anchors and drift (edit, rename, delete; committed or not), verify, staleness, retire, typed
links, forks and possible conflicts."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memsite.memory import Memory
from memsite.memory.records import DriftError
from memsite.storage.layout import Store
from tests.conftest import Clock, Invoke, git

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git missing")

DB = "import os\n\ndef connect():\n    return 'postgres'\n\nPORT = 5432\n"


@pytest.fixture
def project(store_root: Path) -> Path:
    """A git repository holding the store and src/db.py, committed."""
    root = store_root.parent
    git(root, "init", "-q", "-b", "main")
    (root / "src").mkdir()
    (root / "src" / "db.py").write_text(DB)
    (root / "README.md").write_text("# app\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "start")
    return root


def memory_at(store_root: Path, clock: Clock | None = None) -> Memory:
    store = Store(store_root)
    return Memory(store, store.load_config(), clock or Clock(), cwd=store_root.parent)


def states(memory: Memory) -> dict[str, list[tuple[str, str | None]]]:
    memory.invalidate()
    return {
        f["content"]: [(a["state"], a.get("now_path")) for a in f["anchors"]]
        for f in memory.reconcile()["facts"]
    }


def test_anchors_record_the_blob_and_the_span(project: Path, store_root: Path) -> None:
    memory = memory_at(store_root)
    written = memory.add(
        "Connections go through connect()", "architecture", anchors=["src/db.py:3-4", "README.md"]
    )
    raw = json.loads(Path(written["path"]).read_text())
    blob = git(project, "hash-object", "src/db.py")
    assert raw["anchors"][0]["path"] == "src/db.py" and raw["anchors"][0]["blob"] == blob
    assert raw["anchors"][0]["lines"] == [3, 4] and len(raw["anchors"][0]["span"]) == 40
    assert raw["anchors"][1] == {
        "path": "README.md",
        "blob": git(project, "hash-object", "README.md"),
    }
    assert states(memory) == {
        "Connections go through connect()": [("unchanged", None), ("unchanged", None)]
    }


def test_uncommitted_files_can_be_anchored_and_paths_are_checked(
    project: Path, store_root: Path
) -> None:
    memory = memory_at(store_root)
    (project / "new.py").write_text("x = 1\n")
    assert memory.add("new.py sets x", "architecture", anchors=["new.py"])["status"] == "written"
    for bad, message in [("../etc/passwd", "outside the project"), ("nope.py", "no such file")]:
        with pytest.raises(Exception, match=message):
            memory.add("y", "architecture", anchors=[bad])


@pytest.mark.parametrize("commit", [False, True])
def test_edit_move_rename_and_delete(project: Path, store_root: Path, commit: bool) -> None:
    memory = memory_at(store_root)
    memory.add("connect() returns postgres", "architecture", anchors=["src/db.py:3-4"])
    memory.add("The port lives in db.py", "architecture", anchors=["src/db.py"])

    def step(message: str) -> dict[str, list[tuple[str, str | None]]]:
        if commit:
            git(project, "add", "-A")
            git(project, "commit", "-qm", message)
        return states(memory)

    (project / "src" / "db.py").write_text('"""db"""\n' + DB)  # the span moves
    assert step("doc") == {
        "connect() returns postgres": [("moved", None)],
        "The port lives in db.py": [("changed", None)],
    }
    git(project, "mv", "src/db.py", "src/database.py")
    found = step("rename")
    assert found["connect() returns postgres"] == [("renamed", "src/database.py")]
    assert found["The port lives in db.py"] == [("renamed", "src/database.py")]
    (project / "src" / "database.py").unlink()
    found = step("delete")
    assert found["connect() returns postgres"] == [("missing", None)]


def test_a_plain_mv_without_git_is_still_found(project: Path, store_root: Path) -> None:
    memory = memory_at(store_root)
    memory.add("The port lives in db.py", "architecture", anchors=["src/db.py"])
    (project / "lib").mkdir()
    (project / "src" / "db.py").rename(project / "lib" / "db.py")
    assert states(memory) == {"The port lives in db.py": [("renamed", "lib/db.py")]}


def test_reconcile_exits_1_on_drift_and_writes_nothing(
    project: Path, store_root: Path, runner: Invoke
) -> None:
    assert (
        runner("add", "The port is 5432", "-c", "architecture", "--anchor", "src/db.py:6").exit_code
        == 0
    )
    before = sorted(p.name for p in (store_root / "entries").iterdir())
    clean = runner("reconcile", "--json")
    assert clean.exit_code == 0 and clean.json()["drifted"] == 0
    (project / "src" / "db.py").write_text(DB.replace("5432", "6543"))
    drifted = runner("reconcile")
    assert drifted.exit_code == 1
    assert "DRIFTED" in drifted.stdout and "src/db.py:6-6  changed" in drifted.stdout
    assert sorted(p.name for p in (store_root / "entries").iterdir()) == before
    listed = runner("list", "--json").json()
    assert listed[0]["drifted"] is True
    assert runner("search", "port", "--json").json()[0]["drifted"] is True
    assert runner("read", listed[0]["id"], "--json").json()["anchors"][0]["state"] == "changed"


def test_drift_marks_the_index_and_review(project: Path, store_root: Path) -> None:
    memory = memory_at(store_root)
    memory.add("The port is 5432", "architecture", anchors=["src/db.py:6"])
    memory.add("Services talk over HTTP", "architecture")
    memory.compact()
    text = (store_root / "index.md").read_text()
    assert "check:" not in text
    (project / "src" / "db.py").write_text(DB.replace("5432", "6543"))
    memory.invalidate()
    assert memory.status()["derived"] == "stale"  # the file changed: the index must say so
    memory.compact()
    lines = (store_root / "index.md").read_text().splitlines()
    assert lines[-1] == "- The port is 5432 (check: src/db.py changed)"  # after fresh facts
    assert lines[-2] == "- Services talk over HTTP"
    kinds = [f.kind for f in memory.findings()]
    assert kinds.count("drift") == 1


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


def test_compaction_output_is_deterministic(project: Path, store_root: Path) -> None:
    memory = memory_at(store_root)
    memory.add("The port is 5432", "architecture", anchors=["src/db.py:6"])
    fact = memory.add("We ship on Fridays", "operations")["id"]
    memory.retire(fact, "no more")
    memory.compact()
    first = {p.name: p.read_bytes() for p in store_root.glob("**/*.md")}
    (project / "src" / "db.py").write_text(DB.replace("5432", "6543"))
    memory.invalidate()
    memory.compact()
    drifted = {p.name: p.read_bytes() for p in store_root.glob("**/*.md")}
    assert drifted != first
    memory.compact(full=True)
    assert {p.name: p.read_bytes() for p in store_root.glob("**/*.md")} == drifted
    shutil.rmtree(store_root / "cache")
    fresh = memory_at(store_root)
    fresh.compact()
    assert {p.name: p.read_bytes() for p in store_root.glob("**/*.md")} == drifted


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
