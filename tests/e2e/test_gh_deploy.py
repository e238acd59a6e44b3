"""`memsite gh-deploy` with real git: the site lands on gh-pages of a (local, bare) remote."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import clean_env
from tests.portal.conftest import copy_demo

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed"),
]


def env() -> dict[str, str]:
    values = clean_env()
    values.update(
        GIT_AUTHOR_NAME="t",
        GIT_AUTHOR_EMAIL="t@example.com",
        GIT_COMMITTER_NAME="t",
        GIT_COMMITTER_EMAIL="t@example.com",
        GIT_CONFIG_NOSYSTEM="1",
    )
    return values


def run(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, check=False, env=env())


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, Path]:
    remote = tmp_path / "remote.git"
    work = tmp_path / "work"
    assert run(tmp_path, "git", "init", "-q", "--bare", str(remote)).returncode == 0
    assert run(tmp_path, "git", "init", "-q", str(work)).returncode == 0
    assert run(work, "git", "remote", "add", "origin", str(remote)).returncode == 0
    copy_demo(work)
    assert run(work, "git", "add", ".memsite").returncode == 0
    assert run(work, "git", "commit", "-q", "-m", "memory").returncode == 0
    return work, remote


def test_gh_deploy_pushes_the_site(repo: tuple[Path, Path]) -> None:
    work, remote = repo
    done = run(work, sys.executable, "-m", "memsite", "gh-deploy", "--json")
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["status"] == "deployed" and answer["branch"] == "gh-pages"
    listing = run(remote, "git", "ls-tree", "-r", "--name-only", "gh-pages").stdout.split()
    assert "index.html" in listing and ".nojekyll" in listing
    assert "llms.txt" in listing and "search/meta.json" in listing
    entries = [p for p in listing if p.startswith("entries/") and p.endswith("/index.html")]
    assert len(entries) == 64
    message = run(remote, "git", "log", "-1", "--format=%s", "gh-pages").stdout
    assert "memsite portal (64 entries)" in message
    # the working branch is untouched
    assert run(work, "git", "status", "--porcelain", "--untracked-files=no").stdout == ""


def test_gh_deploy_goes_on_from_the_last_build_and_leaves_one(repo: tuple[Path, Path]) -> None:
    """gh-deploy builds into the store's site/ as `memsite build` does: it goes on from the
    last build (an unchanged page is not written again) and the next build goes on from it."""
    work, remote = repo
    memsite = [sys.executable, "-m", "memsite"]
    assert run(work, *memsite, "build", "--quiet").returncode == 0
    site = work / ".memsite" / "site"
    page = next((site / "entries").glob("*/index.html"))
    before = page.stat()
    added = run(work, *memsite, "add", "The release branch is cut on Mondays", "-c", "operations")
    assert added.returncode == 0, added.stderr
    done = run(work, *memsite, "gh-deploy")
    assert done.returncode == 0, done.stderr
    assert "building the whole site" not in done.stderr
    after = page.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    listing = run(remote, "git", "ls-tree", "-r", "--name-only", "gh-pages").stdout.split()
    assert len([p for p in listing if p.startswith("entries/") and p.endswith("/index.html")]) == 65
    again = run(work, *memsite, "build", "--quiet")
    assert again.returncode == 0 and again.stderr == "", again.stderr


def test_gh_deploy_refuses_when_the_build_fails(repo: tuple[Path, Path]) -> None:
    work, remote = repo
    (work / ".memsite" / "config.json").write_text('{"site": {"colour": "blue"}}')
    done = run(work, sys.executable, "-m", "memsite", "gh-deploy")
    assert done.returncode == 1
    assert done.stderr.startswith("Error: ") and "site.colour" in done.stderr
    assert run(remote, "git", "rev-parse", "--verify", "gh-pages").returncode != 0


def test_gh_deploy_reports_a_missing_remote(repo: tuple[Path, Path]) -> None:
    work, _ = repo
    done = run(work, sys.executable, "-m", "memsite", "gh-deploy", "--remote", "nowhere")
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "git remote 'nowhere' does not exist" in lines[0]


def test_gh_deploy_reports_a_failed_push(repo: tuple[Path, Path]) -> None:
    work, remote = repo
    shutil.rmtree(remote)
    done = run(work, sys.executable, "-m", "memsite", "gh-deploy")
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: gh-deploy failed to push gh-pages")
