"""Real git: parallel branches merge without conflicts and the post-merge hook recompacts."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=repo, capture_output=True, text=True, check=False, env=git_env()
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def git_env() -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        GIT_AUTHOR_NAME="t",
        GIT_AUTHOR_EMAIL="t@example.com",
        GIT_COMMITTER_NAME="t",
        GIT_COMMITTER_EMAIL="t@example.com",
        GIT_CONFIG_NOSYSTEM="1",
        HOME=env.get("HOME", "/tmp"),
    )
    # the hook must find this interpreter's memsite even when no console script is on PATH
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env.pop("MEMSITE_STORE", None)
    return env


def memsite(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memsite", *args],
        cwd=repo,
        capture_output=True,
        text=True,
        check=False,
        env=git_env(),
    )


def add(repo: Path, content: str, *args: str) -> str:
    done = memsite(repo, "add", content, "-c", "conventions", "--json", *args)
    assert done.returncode == 0, done.stderr
    answer: dict[str, str] = json.loads(done.stdout)
    return answer["id"]


@pytest.mark.slow
def test_branches_merge_cleanly_and_cross_branch_supersession_resolves(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / ".git" / "hooks" / "post-merge").write_text("#!/bin/sh\necho user-hook >> hook.log\n")
    assert memsite(repo, "init", "--git-hook").returncode == 0
    assert memsite(repo, "init", "--git-hook").returncode == 0  # idempotent
    hook = (repo / ".git" / "hooks" / "post-merge").read_text()
    assert hook.startswith("#!/bin/sh\necho user-hook >> hook.log\n")
    assert hook.count("# >>> memsite >>>") == 1
    base = add(repo, "We deploy with Helm from CI")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    # derived files are ignored by the store's .gitignore
    assert git(repo, "status", "--porcelain") == ""

    git(repo, "checkout", "-q", "-b", "feature")
    newer = add(repo, "We deploy with Argo CD", "--supersedes", base, "--key", "deploy")
    add(repo, "Feature flags live in LaunchDarkly")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "feature facts")

    git(repo, "checkout", "-q", "main")
    other = add(repo, "Postgres 16 is the database")
    # supersedes an entry that only exists on the feature branch
    final = add(repo, "Deploys: Argo CD, synced every 3 minutes", "--supersedes", newer)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "main facts")
    before = memsite(repo, "read", final, "--json")
    assert json.loads(before.stdout)["status"] == "active"

    merged = subprocess.run(
        ["git", "merge", "--no-edit", "feature"],
        cwd=repo,
        capture_output=True,
        text=True,
        env=git_env(),
        check=False,
    )
    assert merged.returncode == 0, merged.stdout + merged.stderr
    assert "CONFLICT" not in merged.stdout
    assert (repo / "hook.log").read_text() == "user-hook\n"

    # the post-merge hook has already recompacted: index.md is fresh and right
    status = json.loads(memsite(repo, "status", "--json").stdout)
    assert status["derived"] == "fresh"
    index = (repo / ".memsite" / "index.md").read_text()
    assert "Argo CD, synced every 3 minutes" in index
    assert "Helm from CI" not in index and "We deploy with Argo CD\n" not in index
    assert "Feature flags live in LaunchDarkly" in index and "Postgres 16" in index
    active = {e["id"] for e in json.loads(memsite(repo, "list", "--json").stdout)}
    assert final in active and other in active
    assert newer not in active and base not in active
    chain = json.loads(memsite(repo, "read", base, "--json").stdout)["chain"]
    assert [link["id"] for link in chain] == [final, newer, base]
