"""What memsite asks of git, against real repositories in tmp_path: prefixes and HEAD, the
commits that added files, renames, merge bases, remotes, and hooks with a marked block."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import pytest

from memsite.errors import GitError, StorageError
from memsite.storage import git as g
from tests.conftest import git


def commit(root: Path, message: str) -> str:
    git(root, "add", "-A")
    git(root, "commit", "-q", "--allow-empty", "-m", message)
    return git(root, "rev-parse", "HEAD")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    return root


def put(path: Path, text: str = "x\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("stderr", "line"),
    [
        ("fatal: not a git repository\nmore\n", "not a git repository"),
        ("\n  error: bad ref  \n", "bad ref"),
        ("warning: x\nfatal: y\n", "warning: x"),
        ("   \n", "no details"),
    ],
)
def test_first_line(stderr: str, line: str) -> None:
    assert g.first_line(stderr) == line


def test_run_git_raises_git_s_own_message(repo: Path) -> None:
    with pytest.raises(GitError, match=r"^Not a valid object name nope$"):
        g.run_git(repo, "merge-base", "nope", "HEAD")
    assert g.run_git(repo, "merge-base", "nope", "HEAD", check=False).returncode == 128


def test_outside_a_repository(tmp_path: Path) -> None:
    outside = tmp_path / "plain"
    outside.mkdir()
    with pytest.raises(GitError, match="not inside a git repository"):
        g.repo_top(outside)
    with pytest.raises(GitError, match="gh-deploy publishes to a branch"):
        g.Repository(outside)
    assert g.project_top(outside) == outside
    assert g.show_prefix(outside) == "" and g.prefix_and_head(outside) is None
    assert g.added_commits(outside) == {} and g.renames(outside, ["a"]) == {}
    assert g.commit_of(outside, "HEAD") is None


def test_prefixes_and_head(repo: Path) -> None:
    sub = repo / "services" / "api"
    sub.mkdir(parents=True)
    assert g.repo_top(sub) == repo.resolve() == g.project_top(sub)
    assert g.show_prefix(sub) == "services/api/" and g.show_prefix(repo) == ""
    assert g.prefix_and_head(sub) is None  # no commit yet
    head = commit(repo, "first")
    assert g.prefix_and_head(sub) == ("services/api/", head)
    assert g.prefix_and_head(repo) == ("", head)


def test_added_commits_names_the_latest_commit_that_added_each_file(repo: Path) -> None:
    folder = repo / "entries"
    put(folder / "a.json")
    put(folder / "nested" / "deep.json")  # a sub-folder's files are left out
    first = commit(repo, "a")
    put(folder / "b.json")
    put(folder / "é.json")  # not quoted: core.quotePath=false
    second = commit(repo, "b")
    put(folder / "a.json", "edited\n")  # a modification is not an addition
    commit(repo, "edit a")
    (folder / "b.json").unlink()
    commit(repo, "drop b")
    put(folder / "b.json", "back\n")
    third = commit(repo, "b again")
    put(folder / "uncommitted.json")
    assert g.added_commits(folder) == {"a.json": first, "é.json": second, "b.json": third}


def test_renames_uncommitted_and_committed(repo: Path) -> None:
    put(repo / "src" / "old.py", "a fairly long body\n" * 20)
    put(repo / "src" / "kept.py", "another file's body\n" * 20)
    commit(repo, "start")
    git(repo, "mv", "src/old.py", "src/new.py")
    commit(repo, "rename")
    (repo / "lib").mkdir()
    git(repo, "mv", "src/kept.py", "lib/kept.py")  # staged, not committed
    assert g.renames(repo, ["src/kept.py"]) == {"src/kept.py": "lib/kept.py"}
    assert g.renames(repo, ["src/old.py"]) == {
        "src/kept.py": "lib/kept.py",
        "src/old.py": "src/new.py",
    }


def test_commit_of(repo: Path) -> None:
    head = commit(repo, "first")
    git(repo, "tag", "-a", "v1", "-m", "annotated")
    assert g.commit_of(repo, "HEAD") == head
    assert g.commit_of(repo, "v1") == head  # the tag's commit, not the tag object
    assert g.commit_of(repo, "no-such-ref") is None


def test_merge_base_and_added_since(repo: Path) -> None:
    put(repo / ".memsite" / "entries" / "old.json")
    base = commit(repo, "base")
    git(repo, "checkout", "-q", "-b", "feature")
    put(repo / ".memsite" / "entries" / "new.json")
    put(repo / ".memsite" / "entries" / "old.json", "changed\n")
    put(repo / "README.md")
    commit(repo, "feature work")
    assert g.merge_base(repo, "main") == (base, "")
    assert g.added_since(repo, base, ".memsite/entries") == [".memsite/entries/new.json"]
    assert g.added_since(repo, base, "elsewhere") == []


@pytest.mark.parametrize(
    ("ref", "why"), [("nope", "Not a valid object name nope"), ("main", "they share no history")]
)
def test_merge_base_says_why_there_is_none(repo: Path, ref: str, why: str) -> None:
    commit(repo, "on main")
    git(repo, "checkout", "-q", "--orphan", "unrelated")
    commit(repo, "elsewhere")
    assert g.merge_base(repo, ref) == (None, why)


def test_merge_base_in_a_shallow_clone_says_to_unshallow(repo: Path, tmp_path: Path) -> None:
    commit(repo, "one")
    commit(repo, "two")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{repo}", str(clone))
    git(clone, "checkout", "-q", "--orphan", "other")
    commit(clone, "orphan")
    found, why = g.merge_base(clone, "main")
    assert found is None and "shallow" in why and "--unshallow" in why


def test_remotes_and_push(repo: Path, tmp_path: Path) -> None:
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    first = commit(repo, "first")
    (repo / "sub").mkdir()
    repository = g.Repository(repo / "sub")
    assert repository.top == repo.resolve()
    assert not repository.has_remote("origin")
    git(repo, "remote", "add", "origin", str(remote))
    assert repository.has_remote("origin") and not g.has_remote(repo, "upstream")
    repository.push("origin", "main")
    assert git(remote, "rev-parse", "main") == first
    git(repo, "commit", "-q", "--amend", "--allow-empty", "-m", "rewritten")
    with pytest.raises(GitError):  # not a fast-forward
        repository.push("origin", "main")
    repository.push("origin", "main", force=True)
    assert git(remote, "rev-parse", "main") == git(repo, "rev-parse", "HEAD") != first
    with pytest.raises(GitError):
        g.push(repo, "nowhere", "main")


def hook_texts(repo: Path) -> dict[str, bytes]:
    return {name: (repo / ".git" / "hooks" / name).read_bytes() for name in g.HOOKS}


def test_install_hooks_writes_each_hook_once(repo: Path) -> None:
    store = repo / "my store"
    store.mkdir()
    written = g.install_hooks(store, repo)
    assert written == [str((repo / ".git" / "hooks" / name).resolve()) for name in g.HOOKS]
    first = hook_texts(repo)
    for name, data in first.items():
        text = data.decode()
        assert text.startswith("#!/bin/sh\n" + g.BEGIN) and text.endswith(g.END + "\n")
        assert "--store 'my store' compact --quiet" in text
        path = repo / ".git" / "hooks" / name
        assert path.stat().st_mode & stat.S_IXUSR
        assert subprocess.run(["sh", "-n", str(path)]).returncode == 0
    g.install_hooks(store, repo)
    assert hook_texts(repo) == first


def test_install_hooks_keeps_the_owner_s_hook(repo: Path) -> None:
    hook = put(repo / ".git" / "hooks" / "post-merge", "#!/bin/sh\necho mine\n")
    os.chmod(hook, 0o644)
    g.install_hooks(repo / ".memsite", repo)
    text = hook.read_text(encoding="utf-8")
    assert text.startswith("#!/bin/sh\necho mine\n\n" + g.BEGIN)
    assert text.count(g.BEGIN) == 1 and hook.stat().st_mode & stat.S_IXOTH
    g.install_hooks(repo / ".memsite", repo)
    assert hook.read_text(encoding="utf-8") == text


def test_install_hooks_follows_core_hooks_path(repo: Path) -> None:
    git(repo, "config", "core.hooksPath", "githooks")
    g.install_hooks(repo / ".memsite", repo)
    assert sorted(p.name for p in (repo / "githooks").iterdir()) == sorted(g.HOOKS)
    assert not (repo / ".git" / "hooks" / "post-merge").exists()


def test_a_hook_that_is_a_folder_is_refused(repo: Path) -> None:
    (repo / ".git" / "hooks" / "post-checkout").mkdir(parents=True)
    with pytest.raises(StorageError, match="post-checkout hook"):
        g.install_hooks(repo / ".memsite", repo)
