"""Facts tied to the project's files: anchors recorded, followed through edits, moves and renames,
reconcile, and the markers index.md gives drifted facts."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from memsite.memory import Memory
from tests.conftest import Invoke, git
from tests.memory.conftest import DB, memory_at


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
