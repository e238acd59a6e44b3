"""The memory at each release (``memory.releases``): the facts active at each tag, and what
changed since the release before, read from git without a checkout."""

from __future__ import annotations

from pathlib import Path

import pytest

from memsite.errors import InvalidInputError
from memsite.memory import Memory
from memsite.memory.releases import releases
from memsite.storage.layout import Store
from tests.conftest import Clock, git

SECRET = "The deploy token is ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


def open_at(store_root: Path, clock: Clock) -> Memory:
    return Memory.open(str(store_root), {}, store_root.parent, now=clock)


def tag(project: Path, name: str) -> None:
    git(project, "add", "-A")
    git(project, "commit", "-qm", name, "--allow-empty")
    git(project, "tag", name)


def test_each_release_with_its_changes(project: Path, store_root: Path) -> None:
    clock = Clock()
    memory = open_at(store_root, clock)
    tag(project, "v0.1")  # before any fact: no memory in its tree, so no release page
    pnpm = memory.add("We use pnpm.", "conventions")["id"]
    tuesday = memory.add("We deploy on Tuesdays.", "operations")["id"]
    wiki = memory.add("Docs live in the wiki.", "decisions")["id"]
    tag(project, "v1")
    clock.tick(days=1)
    thursday = memory.amend(tuesday, "We deploy on Thursdays.")["id"]
    memory.retire(wiki, "moved to the repository")
    secret = memory.add(SECRET, "operations", allow_secret=True)["id"]
    tag(project, "v2")
    clock.tick(days=1)
    memory.delete(pnpm)
    tag(project, "v3")
    tag(project, "other")  # not matching the pattern
    blob = git(project, "hash-object", "-w", "README.md")
    git(project, "tag", "v9-blob", blob)  # a tag on a blob: no release, and no failure
    git(project, "tag", "v9-tree", git(project, "rev-parse", "HEAD^{tree}"))
    found = releases(open_at(store_root, clock), "v*")
    assert [r["tag"] for r in found] == ["v1", "v2", "v3"]
    first, second, third = found
    assert {f["id"] for f in first["active"]} == set(first["added"]) == {pnpm, tuesday, wiki}
    assert first["commit"] == git(project, "rev-parse", "v1")
    assert set(second["added"]) == {thursday, secret}
    assert second["replaced"] == [{"id": tuesday, "by": [thursday]}]
    assert second["retired"] == [wiki] and second["removed"] == []
    shown = {f["id"]: f["content"] for f in second["active"]}
    assert "ghp_" not in shown[secret] and "[redacted" in shown[secret]
    assert third["removed"] == [pnpm] and third["added"] == [] and third["retired"] == []
    assert {f["id"] for f in third["active"]} == {thursday, secret}


def test_bad_patterns_and_a_store_outside_git(
    project: Path, store_root: Path, tmp_path: Path
) -> None:
    clock = Clock()
    for pattern in ("", "-v*", "v\n*", "x" * 300):
        with pytest.raises(InvalidInputError, match="invalid releases pattern"):
            releases(open_at(store_root, clock), pattern)
    assert releases(open_at(store_root, clock), "nothing-matches-*") == []
    outside, _ = Store.init(tmp_path.parent / f"{tmp_path.name}-no-git" / ".memsite")
    with pytest.raises(InvalidInputError, match="not in a git work tree"):
        releases(open_at(outside.root, clock), "v*")
