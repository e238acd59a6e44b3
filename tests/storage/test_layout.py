"""Where stores are: init makes the spec's folders; discovery finds .memsite/ and LeanSpec ones."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from memsite.storage.layout import Store
from tests.conftest import Invoke


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
