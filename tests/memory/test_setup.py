"""`memsite init` through the service: the store's folders once, refusals, LeanSpec, git hooks."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from memsite.errors import ConfigError, GitError, StorageError
from memsite.memory import Memory
from memsite.memory.setup import init_store
from memsite.storage.git import BEGIN, END, HOOKS

MADE = ("", "entries", "compacted", "daily", "config.json", ".gitignore", ".gitattributes")


def test_init_creates_the_store_once(tmp_path: Path) -> None:
    made = init_store(None, tmp_path)
    root = tmp_path / ".memsite"
    assert made["store"].root == root
    assert made["created"] == [str(root / name) if name else str(root) for name in MADE]
    assert made["hooks"] == []
    assert json.loads((root / "config.json").read_text())["memory"]["trackDaily"] is False
    assert "daily/" in (root / ".gitignore").read_text().splitlines()
    again = init_store(None, tmp_path)
    assert again["created"] == [] and again["store"].root == root


def test_an_explicit_folder_is_relative_to_cwd(tmp_path: Path) -> None:
    made = init_store("mem/store", tmp_path)
    assert made["store"].root == (tmp_path / "mem" / "store").resolve()
    assert (tmp_path / "mem" / "store" / "entries").is_dir()


@pytest.mark.parametrize("force", [False, True])
def test_a_foreign_folder_is_refused_unless_forced(tmp_path: Path, force: bool) -> None:
    target = tmp_path / "src"
    target.mkdir()
    (target / "main.py").write_text("print('hi')\n")
    if not force:
        with pytest.raises(StorageError, match="--force"):
            init_store("src", tmp_path)
        assert sorted(p.name for p in target.iterdir()) == ["main.py"]
        return
    made = init_store("src", tmp_path, force=True)
    assert (target / "entries").is_dir() and (target / "main.py").read_text() == "print('hi')\n"
    assert str(target / ".gitignore") in made["created"]


def test_a_file_in_the_way_is_refused(tmp_path: Path) -> None:
    (tmp_path / "store").write_text("x")
    with pytest.raises(StorageError, match="it is a file"):
        init_store("store", tmp_path, force=True)


def test_a_malformed_config_is_reported_at_init(tmp_path: Path) -> None:
    (tmp_path / ".memsite").mkdir()
    (tmp_path / ".memsite" / "config.json").write_text('{"memory": {"budget": 1}}')
    with pytest.raises(ConfigError, match="unknown key"):
        init_store(None, tmp_path)


def test_shared_daily_logs_stay_out_of_the_gitignore(tmp_path: Path) -> None:
    (tmp_path / ".memsite").mkdir()
    (tmp_path / ".memsite" / "config.json").write_text('{"memory": {"trackDaily": true}}')
    made = init_store(None, tmp_path)
    ignored = (tmp_path / ".memsite" / ".gitignore").read_text().splitlines()
    assert "daily/" not in ignored and "compacted/" in ignored
    assert str(tmp_path / ".memsite" / "config.json") not in made["created"]


def test_a_leanspec_project_gets_its_memory_folder(tmp_path: Path) -> None:
    lean = tmp_path / ".lean-spec"
    lean.mkdir()
    (lean / "config.json").write_text(json.dumps({"memory": {"autoInjectTokenBudget": 321}}))
    made = Memory.init(None, tmp_path)
    root = lean / "memory"
    assert made["store"].root == root and made["store"].leanspec
    assert not (root / "config.json").exists()  # its settings stay in LeanSpec's config
    assert not (tmp_path / ".memsite").exists()
    assert {Path(p).name for p in made["created"]} == {"memory", "entries", "compacted"} | {
        "daily",
        ".gitignore",
        ".gitattributes",
    }
    assert made["memory"].config.budget == 321


def test_git_hooks_are_installed_once_and_keep_what_was_there(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    hooks = tmp_path / ".git" / "hooks"
    hooks.mkdir(exist_ok=True)
    (hooks / "post-merge").write_text("#!/bin/sh\necho mine\n")
    made = init_store(None, tmp_path, git_hook=True)
    assert made["hooks"] == [str((hooks / name).resolve()) for name in HOOKS]
    init_store(None, tmp_path, git_hook=True)
    for name in HOOKS:
        text = (hooks / name).read_text()
        assert text.startswith("#!/bin/sh\n")
        assert text.count(BEGIN) == 1 and text.count(END) == 1, name
        assert "--store .memsite compact --quiet" in text
        assert os.access(hooks / name, os.X_OK)
    assert "echo mine" in (hooks / "post-merge").read_text()


def test_git_hooks_outside_git_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    with pytest.raises(GitError, match="git init"):
        init_store(None, tmp_path, git_hook=True)
    assert list(tmp_path.iterdir()) == []  # refused before anything was created
    with pytest.raises(GitError, match="git init"):  # a folder that does not exist yet
        init_store("new/store", tmp_path, git_hook=True)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("above", [".memsite", ".lean-spec"])
def test_a_store_in_a_parent_folder_is_not_shadowed(tmp_path: Path, above: str) -> None:
    if above == ".lean-spec":  # a LeanSpec project: its store is .lean-spec/memory/
        (tmp_path / ".lean-spec").mkdir()
        (tmp_path / ".lean-spec" / "config.json").write_text("{}")
    real = init_store(None, tmp_path)["store"].root
    assert above in real.parts
    sub = tmp_path / "src" / "pkg"
    sub.mkdir(parents=True)
    with pytest.raises(StorageError) as caught:
        init_store(None, sub)
    message = str(caught.value)
    assert str(real) in message and "--force" in message and "\n" not in message
    assert list(sub.iterdir()) == [] and not (tmp_path / "src" / ".memsite").exists()
    assert init_store(None, tmp_path)["created"] == []  # the project's own folder: init again
    nested = init_store(None, sub, force=True)["store"].root
    assert nested == sub / ".memsite" and (nested / "entries").is_dir()
    assert init_store(None, sub)["created"] == []  # once made, init again is fine
    assert init_store("elsewhere", sub)["store"].root == sub / "elsewhere"  # a chosen folder
