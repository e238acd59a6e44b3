"""Derived files committed to git (issue 30, item 3): memsite rebuilds compacted/, index.md,
cache/, site/ and daily/ (unless memory.trackDaily shares the logs) from entries/, so a
committed one is whatever its author made it. A file force-added past the store's .gitignore
is reported by review, status and check, from one `git ls-files` over the store; without git
nothing is."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import Invoke, git

DERIVED = [
    "index.md",
    "compacted/conventions.md",
    "cache/state.json",
    "site/index.html",
    "daily/2026-03-07-s1.md",
]


@pytest.fixture
def project(store_root: Path, runner: Invoke) -> Path:
    """A git project whose store holds one fact and its views, committed as memsite meant."""
    root = store_root.parent
    git(root, "init", "-q")
    assert runner("add", "Always use pnpm for installs", "-c", "conventions").exit_code == 0
    assert runner("compact").exit_code == 0
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "memory")
    return root


def force_add(project: Path, store_root: Path, rel: str) -> None:
    path = store_root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        path.write_text("made by hand\n")
    git(project, "add", "-f", str(path.relative_to(project)))
    git(project, "commit", "-q", "-m", f"add {rel}")


def reported(runner: Invoke) -> tuple[list[dict[str, object]], list[str], list[str]]:
    """(review's tracked_derived findings, status's field, check's files of that kind)."""
    findings = runner("review", "--json").json()["findings"]
    status = runner("status", "--json").json()["tracked_derived"]
    check = runner("check", "--base", "HEAD", "--json").json()
    files = [str(p["file"]) for p in check["problems"] if p["kind"] == "tracked_derived"]
    return [f for f in findings if f["kind"] == "tracked_derived"], status, files


@pytest.mark.parametrize("rel", DERIVED)
def test_a_force_added_derived_file_is_reported(
    project: Path, store_root: Path, runner: Invoke, rel: str
) -> None:
    assert reported(runner) == ([], [], [])  # what memsite committed is clean
    assert runner("check", "--base", "HEAD").exit_code == 0
    force_add(project, store_root, rel)
    top = ".memsite/" + rel.split("/")[0]
    findings, status, files = reported(runner)
    assert len(findings) == 1 and f".memsite/{rel}" in str(findings[0]["message"])
    assert f"git rm -r --cached {top}" in str(findings[0]["message"])
    assert status == [top] and files == [top]
    assert f"Warning: {top} is derived but tracked by git" in runner("status").stdout
    assert runner("check", "--base", "HEAD").exit_code == 1


def test_many_tracked_files_make_one_finding_per_derived_folder(
    project: Path, store_root: Path, runner: Invoke
) -> None:
    for number in range(5):
        force_add(project, store_root, f"site/page{number}/index.html")
    findings, status, _ = reported(runner)
    assert status == [".memsite/site"] and len(findings) == 1
    assert str(findings[0]["message"]).startswith("5 derived files under .memsite/site are")
    assert "and 2 more" in str(findings[0]["message"])


def test_daily_logs_shared_with_track_daily_are_not_reported(
    project: Path, store_root: Path, runner: Invoke
) -> None:
    config = json.loads((store_root / "config.json").read_text())
    config["memory"]["trackDaily"] = True
    (store_root / "config.json").write_text(json.dumps(config))
    force_add(project, store_root, "daily/2026-03-07-s1.md")
    assert reported(runner) == ([], [], [])


def test_without_git_nothing_is_reported(store_root: Path, runner: Invoke) -> None:
    assert runner("compact").exit_code == 0
    assert runner("status", "--json").json()["tracked_derived"] == []
    kinds = {f["kind"] for f in runner("review", "--json").json()["findings"]}
    assert "tracked_derived" not in kinds
