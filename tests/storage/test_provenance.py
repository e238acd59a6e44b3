"""What git says about entry files, against real repositories: the key that changes with
HEAD, the index, refs and config; the survey of the reviewed ref; and who added each file."""

from __future__ import annotations

from pathlib import Path

import pytest

from memsite.storage import provenance as p
from tests.conftest import git
from tests.memory.test_trust import author, commit


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    root = tmp_path / "work"
    git(tmp_path, "clone", "-q", str(remote), str(root))
    git(root, "checkout", "-q", "-b", "main")
    (root / "mem" / "entries").mkdir(parents=True)
    (root / "mem" / "config.json").write_text("{}\n")
    (root / "mem" / "entries" / "a.json").write_text("{}\n")
    commit(root, "Alice", "a")
    git(root, "push", "-q", "origin", "main")
    git(root, "remote", "set-head", "origin", "main")
    return root


def test_the_key_changes_with_commits_pushes_and_config(clone: Path) -> None:
    keys = [p.git_key(clone / "mem", None)]
    (clone / "mem" / "entries" / "b.json").write_text("{}\n")
    commit(clone, "Bob", "b")
    keys.append(p.git_key(clone / "mem", None))
    git(clone, "push", "-q", "origin", "main")
    keys.append(p.git_key(clone / "mem", None))
    git(clone, "remote", "add", "other", "/nowhere")
    keys.append(p.git_key(clone / "mem", None))
    assert len(set(keys)) == 4
    assert p.git_key(clone / "mem", None) == keys[-1]


def test_outside_a_work_tree_the_key_says_so(tmp_path: Path) -> None:
    assert p.git_key(tmp_path, None) == ("none",)


def test_the_survey_lists_files_the_ref_holds_unchanged(clone: Path) -> None:
    entries = clone / "mem" / "entries"
    (entries / "b.json").write_text("{}\n")
    commit(clone, "Bob", "b")  # committed, not pushed
    (entries / "c.json").write_text("{}\n")  # not even committed
    found = p.survey(clone, "mem/entries/", None, "mem/config.json")
    assert found.on and found.ref == "origin/HEAD" and found.warning is None
    assert found.reviewed == frozenset({"a.json"})
    (entries / "a.json").write_text('{"changed": true}\n')
    assert p.survey(clone, "mem/entries/", None, "mem/config.json").reviewed == frozenset()


def test_who_added_each_file(clone: Path) -> None:
    entries = clone / "mem" / "entries"
    (entries / "b.json").write_text("{}\n")
    author(clone, "Bob & 'co' Jr", "add", "-A")
    author(clone, "Bob & 'co' Jr", "commit", "-q", "-m", "b")
    found = p.added(entries)
    assert set(found) == {"a.json", "b.json"}
    assert found["a.json"].author == "Alice" and found["a.json"].email == "alice@example.com"
    assert found["b.json"].author == "Bob & 'co' Jr" and found["b.json"].signature == "N"
    assert len(found["b.json"].commit) == 40


def test_the_lookup_is_cached_by_the_key(clone: Path, tmp_path: Path) -> None:
    entries = clone / "mem" / "entries"
    db = tmp_path / "provenance.sqlite3"
    first = p.lookup_added(db, ("k", 1), ["a.json", "zz.json"], entries, "home")
    assert set(first) == {"a.json"}
    (entries / "b.json").write_text("{}\n")
    commit(clone, "Bob", "b")
    assert p.lookup_added(db, ("k", 1), ["b.json"], entries, "home") == {}  # same key: cached
    assert set(p.lookup_added(db, ("k", 2), ["b.json"], entries, "home")) == {"b.json"}
    assert set(p.lookup_added(db, ("k", 2), ["b.json"], entries, "other")) == {"b.json"}


def test_the_lookup_follows_new_commits_as_a_whole_log_would(
    clone: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After each change of history (a commit, a merge of a branch, the same file added on
    two branches, a reset that rewrites history) the cache answers what one ``git log`` of
    the whole history answers; a commit on top of the cached HEAD reads only the new ones."""
    entries = clone / "mem" / "entries"
    db = tmp_path / "provenance.sqlite3"
    step = 0

    def agrees() -> dict[str, p.Added]:
        nonlocal step
        step += 1
        names = [*sorted(n.name for n in entries.iterdir()), "gone.json"]
        found = p.lookup_added(db, ("k", step), names, entries, "home")
        assert found == {n: a for n, a in p.added(entries).items() if n in names}
        return found

    agrees()
    (entries / "b.json").write_text("{}\n")
    commit(clone, "Bob", "b")
    logs = tmp_path / "trace"
    with monkeypatch.context() as patched:
        patched.setenv("GIT_TRACE", str(logs))
        assert set(agrees()) == {"a.json", "b.json"}
    assert ".." in logs.read_text()  # the commits since the cached HEAD, not the whole log
    git(clone, "checkout", "-q", "-b", "side", "HEAD~1")
    (entries / "c.json").write_text("{}\n")
    (entries / "b.json").write_text("{}\n")  # the same file, added on the branch too
    commit(clone, "Carol", "c and b")
    git(clone, "checkout", "-q", "main")
    (entries / "d.json").write_text("{}\n")
    commit(clone, "Dan", "d")
    agrees()
    git(clone, "merge", "-q", "--no-edit", "side")
    assert set(agrees()) == {"a.json", "b.json", "c.json", "d.json"}
    git(clone, "reset", "-q", "--hard", "HEAD~2")  # history rewritten: only a.json and b.json
    assert set(agrees()) == {"a.json", "b.json"}
    (entries / "e.json").write_text("{}\n")
    commit(clone, "Eve", "e")
    assert set(agrees()) == {"a.json", "b.json", "e.json"}


@pytest.mark.parametrize("planted", ["HEAD~1", "--output=planted"])
def test_a_crafted_cached_head_is_never_passed_to_git(
    clone: Path, tmp_path: Path, planted: str
) -> None:
    """The cache is a file anyone could write: a HEAD in it that is not a commit id (a
    revision git would resolve, an option) takes the whole history instead."""
    import sqlite3

    entries = clone / "mem" / "entries"
    db = tmp_path / "provenance.sqlite3"
    p.lookup_added(db, ("k", 1), ["a.json"], entries, "home")
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE state SET head = ?", (planted,))
        conn.execute("DELETE FROM added")  # what a range from the planted HEAD would miss
    (entries / "b.json").write_text("{}\n")
    commit(clone, "Bob", "b")
    found = p.lookup_added(db, ("k", 2), ["a.json", "b.json"], entries, "home")
    assert found == p.added(entries) and set(found) == {"a.json", "b.json"}
    assert not (clone / "mem" / "entries" / "planted").exists()


def test_a_log_started_ahead_is_the_one_the_lookup_reads(
    clone: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With no cache yet, :func:`log_ahead` starts the whole history's log; the lookup then
    reads its output (git is not asked for a log again) and answers as one ``git log`` does."""
    entries = clone / "mem" / "entries"
    (entries / "b.json").write_text("{}\n")
    commit(clone, "Bob", "b")
    expected = p.added(entries)
    db = tmp_path / "provenance.sqlite3"
    p.log_ahead(db, entries)
    started = p._AHEAD[str(entries)][2]
    asked: list[tuple[str, ...]] = []
    answer = p._answer
    monkeypatch.setattr(p, "_answer", lambda top, *args: asked.append(args) or answer(top, *args))
    assert p.lookup_added(db, ("k", 1), ["a.json", "b.json"], entries, "home") == expected
    assert not [args for args in asked if "log" in args]
    assert started.returncode == 0 and str(entries) not in p._AHEAD
    p.log_ahead(db, entries)  # the cache is there now: nothing to start
    assert str(entries) not in p._AHEAD


def test_a_log_started_ahead_and_not_taken_is_ended(clone: Path, tmp_path: Path) -> None:
    entries = clone / "mem" / "entries"
    p.log_ahead(tmp_path / "provenance.sqlite3", entries)
    started = p._AHEAD[str(entries)][2]
    p.stop_ahead(entries)
    assert started.returncode is not None and str(entries) not in p._AHEAD
    p.log_ahead(tmp_path / "provenance.sqlite3", entries)
    started = p._AHEAD[str(entries)][2]
    assert set(p.added(entries)) == {"a.json"}  # a log of other revisions ends it
    assert started.returncode is not None and str(entries) not in p._AHEAD
