"""Where stores are: init makes the spec's folders; discovery finds .memsite/ and LeanSpec ones;
every derived path is checked before a write (no symbolic link on the way, nothing outside)."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memsite.errors import StorageError
from memsite.storage.layout import Store
from tests.conftest import Invoke, git


def leanspec_project(root: Path, *, budget: int = 777) -> Path:
    lean = root / ".lean-spec"
    (lean / "memory" / "entries").mkdir(parents=True)
    (lean / "config.json").write_text(
        json.dumps({"specsDir": "specs", "memory": {"autoInjectTokenBudget": budget}})
    )
    return lean / "memory"


def test_init_creates_entries_compacted_and_daily(tmp_path: Path, runner: Invoke) -> None:
    target = tmp_path / "fresh" / ".memsite"
    answer = runner("--store", str(target), "init", "--json").json()
    assert {Path(p).name for p in answer["created"]} >= {"entries", "compacted", "daily"}
    for name in ("entries", "compacted", "daily"):
        assert (target / name).is_dir()
    ignored = (target / ".gitignore").read_text().splitlines()
    assert {"compacted/", "index.md", "cache/", "site/", "daily/"} <= set(ignored)


def test_init_writes_gitattributes_once_keeping_its_lines(tmp_path: Path) -> None:
    root = tmp_path / ".memsite"
    root.mkdir()
    (root / ".gitattributes").write_text("*.json text eol=lf")  # no final newline
    _, created = Store.init(root)
    assert str(root / ".gitattributes") in created
    lines = ["*.json text eol=lf", "daily/*.md merge=union"]
    assert (root / ".gitattributes").read_text().splitlines() == lines
    assert Store.init(root)[1] == []  # idempotent: the line is not added twice
    assert (root / ".gitattributes").read_text().splitlines() == lines


def test_a_linked_gitattributes_is_refused(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("token\n")
    root = tmp_path / ".memsite"
    root.mkdir()
    (root / ".gitattributes").symlink_to(secret)
    with pytest.raises(StorageError, match="symbolic link"):
        Store.init(root)
    assert secret.read_text() == "token\n"


def test_a_daily_log_appended_on_two_branches_merges_without_conflict(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    root = tmp_path / ".memsite"
    root.mkdir()
    (root / "config.json").write_text(json.dumps({"memory": {"trackDaily": True}}))
    Store.init(root)
    log = root / "daily" / "2026-01-05-s1.md"
    log.write_text("# 2026-01-05\n\n- started\n")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "store")
    git(tmp_path, "branch", "other")
    for branch in ("other", "main"):  # the same session's log, one line more on each
        git(tmp_path, "checkout", "-q", branch)
        with log.open("a") as handle:
            handle.write(f"- on {branch}\n")
        git(tmp_path, "commit", "-q", "-am", branch)
    git(tmp_path, "merge", "-q", "--no-edit", "other")  # fails the test on a conflict
    merged = log.read_text().splitlines()
    assert merged[:3] == ["# 2026-01-05", "", "- started"]
    assert sorted(merged[3:]) == ["- on main", "- on other"]


def test_a_leanspec_store_is_found_without_store(
    tmp_path: Path, runner: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory = leanspec_project(tmp_path / "repo")  # below the runner fixture's own store
    (tmp_path / "repo" / "src").mkdir()
    monkeypatch.chdir(tmp_path / "repo" / "src")
    status = runner("status", "--json")
    assert status.exit_code == 0, status.stderr
    assert status.json()["store"] == str(memory.resolve())
    assert status.json()["layout"] == "leanspec" and status.json()["notes"] == []
    assert "(LeanSpec layout)" in runner("status").stdout
    assert runner("add", "Specs live in specs/", "-c", "conventions").exit_code == 0
    assert len(list((memory / "entries").glob("*.json"))) == 1


def test_a_leanspec_folder_without_its_config_is_not_a_store(tmp_path: Path) -> None:
    (tmp_path / ".lean-spec" / "memory" / "entries").mkdir(parents=True)
    with pytest.raises(Exception, match="no memory store found"):
        Store.locate(None, {}, tmp_path)


def test_nearest_store_wins_and_memsite_wins_a_tie(tmp_path: Path, runner: Invoke) -> None:
    tmp_path = tmp_path / "proj"  # the runner fixture has a store of its own in tmp_path
    outer = leanspec_project(tmp_path)
    inner, _ = Store.init(tmp_path / "pkg" / ".memsite")
    assert Store.locate(None, {}, tmp_path / "pkg").root == inner.root.resolve()
    assert Store.locate(None, {}, tmp_path).root == outer.resolve()
    both, _ = Store.init(tmp_path / ".memsite")
    found = Store.locate(None, {}, tmp_path)
    assert found.root == both.root.resolve() and found.shadowed == outer.resolve()
    status = runner("--store", str(tmp_path / ".memsite"), "status", "--json").json()
    assert status["store"] == str(both.root)


def test_status_notes_a_leanspec_store_beside_memsite(
    tmp_path: Path, runner: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    tmp_path = tmp_path / "proj"
    leanspec_project(tmp_path)
    Store.init(tmp_path / ".memsite")
    monkeypatch.chdir(tmp_path)
    notes = runner("status", "--json").json()["notes"]
    assert len(notes) == 1 and "--store .lean-spec/memory" in notes[0]
    assert "Note: a LeanSpec store is also at" in runner("status").stdout


def test_git_hooks_of_a_leanspec_store_print_clean_paths(
    tmp_path: Path, runner: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    tmp_path = tmp_path / "proj"
    leanspec_project(tmp_path)
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    monkeypatch.chdir(tmp_path)
    result = runner("init", "--git-hook", "--json")
    assert result.exit_code == 0, result.stderr
    hooks = result.json()["hooks"]
    assert hooks[0] == str((tmp_path / ".git" / "hooks" / "post-merge").resolve())
    assert all(".." not in Path(h).parts for h in hooks)
    hook = (tmp_path / ".git" / "hooks" / "post-merge").read_text()
    assert "--store .lean-spec/memory compact" in hook


# --- derived paths: never written through a link ----------------------------------------------


def linked_store(tmp_path: Path, name: str) -> tuple[Store, Path]:
    """A store whose ``name`` is a link to a folder outside it."""
    store, _ = Store.init(tmp_path / "proj" / ".memsite")
    outside = tmp_path / "outside"
    outside.mkdir()
    link = store.root / name
    if link.is_dir():
        link.rmdir()
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(outside, target_is_directory=True)
    return store, outside


def test_a_plain_store_is_writable_everywhere(tmp_path: Path) -> None:
    store, _ = Store.init(tmp_path / ".memsite")
    (store.cache_dir / "tmp").mkdir(parents=True)
    for path in (store.compacted_dir / "x.md", store.index_path, store.tmp_dir, store.site_dir):
        assert store.why_unsafe(path, children=True, tree=True) is None
        assert store.writable(path) == path
    assert store.why_unsafe(store.site_dir / "not" / "made" / "yet.html") is None
    assert store.unsafe_paths() == []


@pytest.mark.parametrize("name", ["compacted", "cache", "cache/tmp", "site", "daily", "entries"])
def test_a_link_on_the_way_is_refused_with_what_to_do(tmp_path: Path, name: str) -> None:
    store, _ = linked_store(tmp_path, name)
    target = store.root / name / "some" / "file.md"
    problem = store.why_unsafe(target)
    assert problem is not None and problem.startswith(f".memsite/{name} is a symbolic link")
    with pytest.raises(StorageError) as caught:
        store.writable(target)
    message = str(caught.value)
    assert message.startswith(f"refusing to write .memsite/{name}/some/file.md: ")
    assert "\n" not in message
    fix = "replace it with a real folder" if name == "entries" else f"`git rm .memsite/{name}`"
    assert fix in message
    assert store.unsafe_paths() == [(store.root / name, problem)]


def test_a_linked_file_is_refused_and_children_or_tree_look_inside(tmp_path: Path) -> None:
    store, _ = Store.init(tmp_path / ".memsite")
    (tmp_path / "elsewhere.md").write_text("theirs\n")
    (store.compacted_dir / "deploy.md").symlink_to(tmp_path / "elsewhere.md")
    assert store.why_unsafe(store.compacted_dir / "deploy.md") is not None
    assert store.why_unsafe(store.compacted_dir) is None  # the folder itself is real
    assert "compacted/deploy.md is a symbolic link" in str(
        store.why_unsafe(store.compacted_dir, children=True)
    )
    deep = store.site_dir / "entries" / "abc"
    deep.mkdir(parents=True)
    (deep / "index.html").symlink_to(tmp_path / "elsewhere.md")
    assert store.why_unsafe(store.site_dir, children=True) is None  # not directly in site/
    assert "site/entries/abc/index.html" in str(store.why_unsafe(store.site_dir, tree=True))
    assert [p.name for p, _ in store.unsafe_paths()] == ["deploy.md"]


def test_paths_outside_the_store_are_refused(tmp_path: Path) -> None:
    store, _ = Store.init(tmp_path / ".memsite")
    for path in (tmp_path / "elsewhere", store.root / "cache" / ".." / ".." / "x"):
        assert "is outside the store" in str(store.why_unsafe(path))


def test_site_target_checks_the_store_s_folders_only(tmp_path: Path) -> None:
    store, outside = linked_store(tmp_path, "site")
    with pytest.raises(StorageError, match="site is a symbolic link"):
        store.site_target()
    with pytest.raises(StorageError, match="site is a symbolic link"):
        store.site_target(store.site_dir)
    linked_elsewhere = tmp_path / "mine"
    linked_elsewhere.symlink_to(outside, target_is_directory=True)
    assert store.site_target(linked_elsewhere) == outside.resolve()  # the user's own choice


def test_the_read_model_keeps_its_index_in_memory_while_cache_is_a_link(tmp_path: Path) -> None:
    from memsite.storage.readmodel import Index

    store, outside = linked_store(tmp_path, "cache")
    index = Index(store)
    index.sync()
    assert index.in_memory and list(outside.iterdir()) == []
    index.close()


def test_daily_logs_are_neither_read_nor_appended_through_a_link(tmp_path: Path) -> None:
    from datetime import UTC, datetime

    from memsite.storage.daily import append_log, daily_logs

    store, outside = linked_store(tmp_path, "daily")
    (outside / "2026-03-07-s1.md").write_text("# someone else's\n")
    assert daily_logs(store) == []  # so pruning never deletes there
    with pytest.raises(StorageError, match="daily is a symbolic link"):
        append_log(store, "note", "s1", datetime(2026, 3, 7, tzinfo=UTC))
    assert (outside / "2026-03-07-s1.md").read_text() == "# someone else's\n"


names = st.sampled_from(["compacted", "index.md", "cache", "tmp", "site", "daily", "x.md", ".."])


@settings(max_examples=60, deadline=None)
@given(
    links=st.lists(st.lists(names, min_size=1, max_size=3), max_size=4),
    targets=st.lists(st.lists(names, min_size=1, max_size=4), min_size=1, max_size=6),
)
def test_a_path_the_check_allows_never_resolves_outside_the_store(
    links: list[list[str]], targets: list[list[str]]
) -> None:
    """Whatever links a clone holds (to the outside, or to each other), a path the check lets
    through, links resolved, stays in the store."""
    with tempfile.TemporaryDirectory() as scratch:
        store, _ = Store.init(Path(scratch) / ".memsite")
        outside = Path(scratch) / "outside"
        outside.mkdir()
        for parts in links:
            link = store.root.joinpath(*parts)
            if ".." in parts or link.exists() or link.is_symlink():
                continue
            with contextlib.suppress(OSError):
                link.parent.mkdir(parents=True, exist_ok=True)
                link.symlink_to(outside if len(parts) % 2 else store.root / "cache")
        root = os.path.realpath(store.root)
        for parts in targets:
            path = store.root.joinpath(*parts)
            if store.why_unsafe(path, children=True) is None:
                real = os.path.realpath(path)
                assert real == root or real.startswith(root + os.sep), (links, parts)
