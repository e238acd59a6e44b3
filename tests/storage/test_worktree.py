"""The project's files as anchors read them: git's blob ids, kept across runs by file stat,
never a path that leaves the project, renames followed through git."""

from __future__ import annotations

import marshal
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memsite.storage.worktree import WorkTree
from tests.conftest import git


def put(path: Path, data: bytes = b"x\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


@settings(max_examples=25)
@given(st.binary(max_size=300))
def test_blob_ids_are_git_s(tmp_path_factory: pytest.TempPathFactory, data: bytes) -> None:
    root = tmp_path_factory.mktemp("blob")
    put(root / "f.bin", data)
    assert WorkTree(root, None).blob("f.bin") == git(root, "hash-object", "--no-filters", "f.bin")


@pytest.mark.parametrize(
    "path", ["../outside.txt", "link-out", "/etc/hostname", ".", "", "missing.txt", "folder"]
)
def test_paths_that_are_not_project_files_read_none(project: Path, path: str) -> None:
    put(project.parent / "outside.txt", b"secret\n")
    os.symlink(project.parent / "outside.txt", project / "link-out")
    (project / "folder").mkdir()
    tree = WorkTree(project, None)
    assert tree.blob(path) is None and tree.read(path) is None


def test_a_link_that_stays_inside_is_followed(project: Path) -> None:
    put(project / "src" / "real.py", b"print(1)\n")
    os.symlink("src/real.py", project / "alias.py")
    tree = WorkTree(project, None)
    assert tree.read("alias.py") == b"print(1)\n"
    assert tree.blob("alias.py") == tree.blob("src/real.py") is not None


def test_a_file_over_the_read_limit_is_not_read(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("memsite.storage.worktree.READ_MAX", 8)
    put(project / "small", b"12345678")
    put(project / "big", b"123456789")
    tree = WorkTree(project, None)
    assert tree.read("small") == b"12345678" and tree.read("big") is None


def test_each_file_is_hashed_once_per_run(project: Path) -> None:
    path = put(project / "a.txt", b"one\n")
    tree = WorkTree(project, None)
    first = tree.blob("a.txt")
    path.write_bytes(b"two\n")
    assert tree.blob("a.txt") == first
    assert WorkTree(project, None).blob("a.txt") != first


def test_the_blob_cache_is_trusted_while_the_stat_is_unchanged(project: Path) -> None:
    cache = project.parent / "cache" / "anchors.marshal"
    path = put(project / "a.txt", b"one\n")
    tree = WorkTree(project, cache)
    real = tree.blob("a.txt")
    tree.save()
    data = marshal.loads(cache.read_bytes())
    assert data["format"] == 1 and data["files"]["a.txt"][4] == real
    data["files"]["a.txt"] = (*data["files"]["a.txt"][:4], "f" * 40)
    cache.write_bytes(marshal.dumps(data))
    inode = cache.stat().st_ino
    again = WorkTree(project, cache)
    assert again.blob("a.txt") == "f" * 40  # the stat matched: the file was not hashed
    again.save()
    assert cache.stat().st_ino == inode  # nothing new hashed: nothing written
    os.utime(path, ns=(1, 1))
    assert WorkTree(project, cache).blob("a.txt") == real  # the stat moved: hashed again


@pytest.mark.parametrize(
    "data",
    [b"", b"garbage", marshal.dumps({"format": 2, "files": {}}), marshal.dumps([1, 2])],
)
def test_an_unusable_blob_cache_is_ignored(project: Path, data: bytes) -> None:
    cache = put(project.parent / "anchors.marshal", data)
    put(project / "a.txt", b"one\n")
    tree = WorkTree(project, cache)
    assert tree.blob("a.txt") == git(project.parent, "hash-object", "project/a.txt")
    tree.save()
    assert marshal.loads(cache.read_bytes())["format"] == 1


def test_renames_are_followed_along_a_chain(tmp_path: Path) -> None:
    top = tmp_path / "repo"
    project = top / "app"  # the project is a folder inside the work tree
    put(project / "old.py", b"a body long enough to be a rename\n" * 10)
    put(top / "other.py", b"outside the project folder\n" * 10)
    git(top, "init", "-q", "-b", "main")
    git(top, "add", "-A")
    git(top, "commit", "-q", "-m", "one")
    git(top, "mv", "app/old.py", "app/mid.py")
    git(top, "commit", "-q", "-m", "two")
    git(top, "mv", "app/mid.py", "app/new.py")  # not committed yet
    git(top, "mv", "other.py", "app/other.py")
    tree = WorkTree(project, None)
    assert tree.renamed(["old.py", "mid.py", "gone.py"]) == {
        "old.py": "new.py",
        "mid.py": "new.py",
    }
    assert WorkTree(tmp_path / "no-git", None).renamed(["old.py"]) == {}


def test_same_name_files_skip_hidden_folders_and_node_modules(project: Path) -> None:
    for path in ("a/config.py", "b/c/config.py", "config.py", ".git/config.py"):
        put(project / path)
    put(project / "node_modules" / "x" / "config.py")
    put(project / ".hidden" / "config.py")
    tree = WorkTree(project, None)
    assert tree.same_name_files("old/place/config.py") == [
        "a/config.py",
        "b/c/config.py",
        "config.py",
    ]
    assert tree.same_name_files("nothing.py") == []
