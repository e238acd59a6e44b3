"""The entry page's File row links the entry file at the commit that added it, on the
repository host of ``site.repo_url``, read with one git call for the whole store."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from memsite.memory import Memory
from memsite.portal.build import build_site
from tests.conftest import git
from tests.portal.conftest import copy_demo

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git missing")
REPO_URL = "https://github.com/acme/checkout"


def repo_with_store(root: Path, repo_url: object) -> Path:
    store = copy_demo(root)
    config = json.loads((store / "config.json").read_text())
    config["site"]["repo_url"] = repo_url
    (store / "config.json").write_text(json.dumps(config))
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "start")
    return store


def added_in(root: Path, name: str) -> str:
    return git(root, "log", "--diff-filter=A", "--format=%H", "--", f".memsite/entries/{name}")


def test_committed_files_link_to_their_commit(tmp_path: Path) -> None:
    root = tmp_path / "project"
    store = repo_with_store(root, REPO_URL)
    memory = Memory.open(str(store), {}, root)
    later = memory.add("Deploys run from the release branch", "operations")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "one more")
    loose = memory.add("Not committed yet", "operations")
    site = tmp_path / "site"
    build_site(Memory.open(str(store), {}, root), site)
    state = Memory.open(str(store), {}, root).state()
    by_id = {e.id: e for e in state.result.entries}
    commits = set()
    for entry_id in (later["id"], state.result.entries[-1].id):
        name = by_id[entry_id].filename
        commit = added_in(root, name)
        commits.add(commit)
        html = (site / "entries" / entry_id / "index.html").read_text()
        href = f"{REPO_URL}/blob/{commit}/.memsite/entries/{name}"
        assert f'<a href="{href}" rel="nofollow noopener noreferrer"' in html
    assert len(commits) == 2  # each file at the commit that added it, not HEAD
    html = (site / "entries" / loose["id"] / "index.html").read_text()
    assert "/blob/" not in html
    assert f"<code>entries/{by_id[loose['id']].filename}</code>" in html


def test_one_git_log_serves_the_whole_store_and_is_remembered(tmp_path: Path) -> None:
    root = tmp_path / "project"
    store = repo_with_store(root, REPO_URL + "/")
    memory = Memory.open(str(store), {}, root)
    known = memory.portal_input().file_links
    links = known[1]
    assert len(links) == len(list((store / "entries").glob("*.json")))
    assert memory.portal_input(known).file_links is known  # HEAD unchanged: not read again
    memory.add("A new fact", "operations")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "more")
    assert len(memory.portal_input(known).file_links[1]) == len(links) + 1


@pytest.mark.parametrize(
    "repo_url", [None, "https://host/x?q=1", "https://host/x#top"]
)  # a URL of another scheme is refused with the config (tests/adversarial/test_config.py)
def test_no_link_without_a_plain_http_repo_url(tmp_path: Path, repo_url: object) -> None:
    root = tmp_path / "project"
    store = repo_with_store(root, repo_url)
    memory = Memory.open(str(store), {}, root)
    assert memory.portal_input().file_links[1] == {}
    site = tmp_path / "site"
    build_site(memory, site)
    some = next((site / "entries").glob("*/index.html")).read_text()
    assert "/blob/" not in some


def test_no_link_outside_git(tmp_path: Path) -> None:
    store = copy_demo(tmp_path / "project")
    config = json.loads((store / "config.json").read_text())
    config["site"]["repo_url"] = REPO_URL
    (store / "config.json").write_text(json.dumps(config))
    assert Memory.open(str(store), {}, store.parent).portal_input().file_links[1] == {}
