"""The I/O toolkit: atomic writes with temporaries in an ignored place, bounded reads, one
StorageError per failure, a store created only where it belongs."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from memsite import files
from memsite.errors import StorageError
from memsite.storage.entries import scan, write_entry
from memsite.storage.layout import Store
from tests.conftest import Invoke, make_entry


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=True
    ).stdout


@pytest.fixture
def repo(store_root: Path) -> Path:
    root = store_root.parent
    git(root, "init", "-q")
    return root


def test_write_atomic_keeps_its_temporary_in_the_given_folder(tmp_path: Path) -> None:
    seen: list[str] = []
    real = os.replace

    def spy(src: os.PathLike[str] | str, dst: os.PathLike[str] | str) -> None:
        seen.append(os.fspath(src))
        real(src, dst)

    target = tmp_path / "out" / "index.md"
    os.replace = spy  # type: ignore[assignment]
    try:
        files.write_atomic(target, b"hello", tmp_dir=tmp_path / "cache" / "tmp")
    finally:
        os.replace = real
    assert target.read_bytes() == b"hello"
    assert Path(seen[0]).parent == tmp_path / "cache" / "tmp"
    assert list((tmp_path / "cache" / "tmp").iterdir()) == []


def test_a_failed_write_is_one_storage_error_and_leaves_nothing(tmp_path: Path) -> None:
    (tmp_path / "index.md").mkdir()  # a folder where the file should go
    with pytest.raises(StorageError, match=r"cannot write .*index\.md"):
        files.write_atomic(tmp_path / "index.md", b"x", tmp_dir=tmp_path / "tmp")
    assert list((tmp_path / "tmp").iterdir()) == []


def test_a_writer_killed_mid_write_leaves_nothing_git_shows(repo: Path, store_root: Path) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "store", "--allow-empty")
    pid = os.fork()
    if pid == 0:  # the writer: dies (as under kill -9) right after writing its temporary
        os.link = lambda *a, **k: os._exit(9)  # type: ignore[assignment]
        write_entry(Store(store_root), make_entry("Killed mid-write"))
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 9
    left = list((store_root / "cache" / "tmp").iterdir())
    assert len(left) == 1 and left[0].name.endswith(".tmp")  # the temporary is where git ignores
    assert list((store_root / "entries").iterdir()) == []
    assert git(repo, "status", "--porcelain") == ""


def test_stale_temporaries_of_any_version_are_cleaned_young_ones_kept(
    runner: Invoke, store_root: Path
) -> None:
    old = time.time() - 2 * 3600
    planted = {
        store_root / "entries" / ".tmp-123-abcdef": True,
        store_root / ".index.md.123.ab12.tmp": True,
        store_root / "cache" / "tmp" / ".x.json.1.ab.tmp": True,
        store_root / "compacted" / ".conventions.md.1.ab.tmp": True,
        store_root / "entries" / ".tmp-999-young": False,
    }
    for path, stale in planted.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"partial")
        if stale:
            os.utime(path, (old, old))
    answer = runner("compact", "--json").json()
    assert answer["removed_temporaries"] == 4
    assert [p.exists() for p in planted] == [False, False, False, False, True]


def test_a_huge_entry_file_is_refused_by_stat_without_reading(
    runner: Invoke, store_root: Path
) -> None:
    runner("add", "A small good fact", "-c", "conventions")
    huge = store_root / "entries" / "2026-01-01T00-00-00Z-deadbeef.json"
    with open(huge, "wb") as handle:
        handle.truncate(2 << 30)  # 2 GB, sparse: costs nothing on disk
    started = time.perf_counter()
    listed = runner("list", "--json")
    elapsed = time.perf_counter() - started
    assert listed.exit_code == 0 and [e["content"] for e in listed.json()] == ["A small good fact"]
    assert elapsed < 10  # generous: reading it would take tens of seconds and 4 GB
    findings = runner("review", "--json").json()["findings"]
    bad = [f for f in findings if f["kind"] == "invalid_file"]
    assert bad[0]["files"] == [huge.name] and "byte limit" in bad[0]["message"]
    assert huge.stat().st_size == 2 << 30  # reported, never touched


def test_read_bounded_refuses_by_stat(tmp_path: Path) -> None:
    path = tmp_path / "big"
    path.write_bytes(b"x" * 100)
    assert files.read_bounded(path, 100) == b"x" * 100
    with pytest.raises(OverflowError):
        files.read_bounded(path, 99)


def test_init_refuses_a_folder_that_is_not_a_store(tmp_path: Path, runner: Invoke) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "README.md").write_text("# My project\n")
    (project / "index.md").write_text("my own index\n")
    result = runner("--store", str(project), "init")
    assert result.exit_code == 1
    assert "not empty and holds no store" in result.stderr and "--force" in result.stderr
    assert sorted(p.name for p in project.iterdir()) == ["README.md", "index.md"]
    forced = runner("--store", str(project), "init", "--force")
    assert forced.exit_code == 0 and (project / "entries").is_dir()


def test_init_into_the_filesystem_root_is_refused(runner: Invoke) -> None:
    result = runner("--store", "/", "init")
    assert result.exit_code == 1 and "not empty" in result.stderr
    assert not Path("/entries").exists()


def test_init_on_a_file_is_one_line(tmp_path: Path, runner: Invoke) -> None:
    (tmp_path / "afile").write_text("x")
    result = runner("--store", str(tmp_path / "afile"), "init")
    assert result.exit_code == 1 and "it is a file" in result.stderr
    assert "Traceback" not in result.stderr


def test_git_hook_that_is_a_folder_is_one_line(repo: Path, runner: Invoke) -> None:
    (repo / ".git" / "hooks" / "post-merge").mkdir(parents=True)
    result = runner("init", "--git-hook")
    assert result.exit_code == 1
    assert "post-merge" in result.stderr and "is not a file" in result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


def test_agents_manifest_is_committed_with_the_files_it_describes(
    repo: Path, store_root: Path, runner: Invoke
) -> None:
    assert runner("agents", "install", "--runner", "claude").exit_code == 0
    ignored = subprocess.run(
        ["git", "check-ignore", "-q", str(store_root / "agents.json")], cwd=repo, check=False
    )
    assert ignored.returncode == 1  # not ignored: `git add` takes it with CLAUDE.md
    assert "agents.json" in (store_root / ".gitignore").read_text()  # and the file says why


def test_a_leanspec_store_reads_its_settings_from_the_leanspec_config(tmp_path: Path) -> None:
    lean = tmp_path / ".lean-spec"
    (lean / "memory" / "entries").mkdir(parents=True)
    (lean / "config.json").write_text(json.dumps({"memory": {"autoInjectTokenBudget": 777}}))
    store = Store(lean / "memory")
    assert store.leanspec and store.config_path == lean / "config.json"
    assert store.project_root == tmp_path
    assert store.load_config().budget == 777


def test_every_entry_file_survives_every_read(store_root: Path) -> None:
    entries = store_root / "entries"
    (entries / "link.json").symlink_to("/etc/passwd")
    (entries / "dir.json").mkdir()
    (entries / "bad.json").write_bytes(b"\xff\xfe")
    before = {p.name: (p.lstat().st_mtime_ns, p.lstat().st_size) for p in entries.iterdir()}
    found = scan(Store(store_root))
    assert sorted(i.filename for i in found.invalid) == ["bad.json", "dir.json", "link.json"]
    after = {p.name: (p.lstat().st_mtime_ns, p.lstat().st_size) for p in entries.iterdir()}
    assert after == before


@pytest.mark.parametrize("data", [b"", b"{}", "é\u2028".encode(), bytes(range(256)) * 40])
def test_blake2b_hex_is_hashlibs_blake2b(data: bytes) -> None:
    import hashlib

    assert files.blake2b_hex(data) == hashlib.blake2b(data, digest_size=32).hexdigest()
