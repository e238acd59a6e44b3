"""What the portal is built from: standings only where there is something to show, file links
only with an http(s) repo_url and git, shared sessions, index.md as agents get it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from memsite.memory import Memory
from memsite.memory.portal_input import NO_LINKS
from tests.conftest import Clock, git

REPO_URL = "https://github.com/acme/checkout"


def configure(store_root: Path, **sections: Any) -> None:
    (store_root / "config.json").write_text(json.dumps(sections), encoding="utf-8")


def project_memory(store_root: Path, clock: Clock, *, commit: bool = True) -> Memory:
    root = store_root.parent
    git(root, "init", "-q", "-b", "main")
    (root / "app.py").write_text("PORT = 5432\n")
    if commit:
        git(root, "add", "-A")
        git(root, "commit", "-qm", "start")
    return Memory.open(str(store_root), {}, root, now=clock)


def test_standings_only_for_facts_with_something_to_show(store_root: Path, clock: Clock) -> None:
    configure(store_root, memory={"reviewAfterDays": {"operations": 5}})
    memory = project_memory(store_root, clock)
    plain = memory.add("Use pnpm.", "conventions")["id"]
    anchored = memory.add("The port is 5432.", "architecture", anchors=["app.py"])["id"]
    old = memory.add("Deploys run on Tuesdays.", "operations")["id"]
    checked = memory.add("Backups run nightly.", "operations")["id"]
    gone = memory.add("We use Jenkins.", "decisions")["id"]
    clock.tick(days=30)
    fresh = memory.add("Alerts go to #ops.", "operations")["id"]
    memory.verify(checked, "saw the cron job")
    memory.retire(gone, "moved to GitHub Actions")
    given = memory.reopen().portal_input()
    assert set(given.standings) == {anchored, old, checked, gone}
    assert plain not in given.standings and fresh not in given.standings
    assert given.standings[old].stale and not given.standings[checked].stale
    assert [r.text for r in given.standings[checked].verified] == ["saw the cron job"]
    assert [a.path for a, _ in given.standings[anchored].anchors] == ["app.py"]
    assert list(given.retirements) == [gone]
    assert given.retirements[gone].text == "moved to GitHub Actions"
    assert sorted(r.kind for r in given.records) == ["retire", "verify"]
    assert given.blob_base is None  # no repo_url
    assert given.file_links == NO_LINKS


def test_a_store_without_claims_has_no_standings(store_root: Path, clock: Clock) -> None:
    memory = Memory.open(str(store_root), {}, store_root.parent, now=clock)
    memory.add("Use pnpm.", "conventions")
    given = memory.reopen().portal_input()
    assert given.standings == {} and given.retirements == {} and given.records == []
    assert len(given.result.entries) == 1
    assert given.index_md == memory.reopen().index_text()
    assert "- Use pnpm." in given.index_md


@pytest.mark.parametrize(
    ("repo_url", "anchored", "linked"),
    [
        (REPO_URL, True, True),
        (REPO_URL + ".git/", True, True),
        (REPO_URL, False, False),  # nothing anchored: no git call, no base
        ("https://example.com/repo?tab=code", True, False),
        (None, True, False),
    ],
)  # a URL of another scheme is refused with the config (tests/adversarial/test_config.py)
def test_blob_base_needs_an_http_repo_url_and_an_anchor(
    store_root: Path, clock: Clock, repo_url: str | None, anchored: bool, linked: bool
) -> None:
    configure(store_root, site={"repo_url": repo_url})
    memory = project_memory(store_root, clock)
    memory.add("The port is 5432.", "architecture", anchors=["app.py"] if anchored else [])
    given = memory.reopen().portal_input()
    head = git(store_root.parent, "rev-parse", "HEAD")
    assert given.blob_base == (f"{REPO_URL}/blob/{head}/" if linked else None)


def test_file_links_are_kept_while_head_stays(store_root: Path, clock: Clock) -> None:
    configure(store_root, site={"repo_url": REPO_URL})
    memory = project_memory(store_root, clock)
    written = memory.add("Use pnpm.", "conventions")
    root = store_root.parent
    git(root, "add", "-A")
    git(root, "commit", "-qm", "fact")
    first = memory.reopen().portal_input().file_links
    name = Path(written["path"]).name
    head = git(root, "rev-parse", "HEAD")
    assert first[1] == {name: f"{REPO_URL}/blob/{head}/.memsite/entries/{name}"}
    assert memory.reopen().portal_input(first).file_links is first
    (root / "other.txt").write_text("x\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "more")
    again = memory.reopen().portal_input(first).file_links
    assert again is not first and again[1] == first[1]  # read again for the new HEAD


@pytest.mark.parametrize("track", [False, True])
def test_sessions_only_when_shared_in_git(store_root: Path, clock: Clock, track: bool) -> None:
    configure(store_root, memory={"trackDaily": track})
    memory = Memory.open(str(store_root), {}, store_root.parent, now=clock)
    memory.log("looked at the deploy script", session="alpha")
    sessions = memory.reopen().portal_input().sessions
    if not track:
        assert sessions == []
        return
    ((name, logs),) = sessions
    assert name == "alpha"
    ((day, lines),) = logs
    assert day == clock().date().isoformat()
    assert any("looked at the deploy script" in line for line in lines)
