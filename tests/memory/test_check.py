"""`memsite check --base REF` on pull-request branches (full and shallow clones), and the
workflow `init --github-check` writes (valid for the workflow schema and for zizmor)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from memsite.portal.publish import check_workflow
from tests.conftest import Invoke, clean_env, git
from tests.workflows import lint_workflow

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git missing")


@pytest.fixture
def repo(store_root: Path, runner: Invoke) -> Path:
    """main with two facts, and a branch `pr` checked out."""
    root = store_root.parent
    git(root, "init", "-q", "-b", "main")
    runner("add", "The database is Postgres 15", "-c", "architecture")
    runner("add", "Use pnpm, never npm", "-c", "conventions")
    runner("add", "Releases are cut on Tuesdays", "-c", "operations")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "facts")
    git(root, "checkout", "-qb", "pr")
    return root


def commit(root: Path, message: str = "more") -> None:
    git(root, "add", "-A")
    git(root, "commit", "-qm", message)


def test_a_clean_branch_passes(repo: Path, runner: Invoke) -> None:
    runner("add", "Deploys need two approvals", "-c", "operations")
    commit(repo)
    done = runner("check", "--base", "main", "--json")
    assert done.exit_code == 0, done.stdout
    report = done.json()
    assert report["files"] == 1 and report["entries"] == 1 and report["problems"] == []
    assert report["base"] == git(repo, "rev-parse", "main")
    assert "no problems" in runner("check", "--base", "main").stdout


def test_each_kind_of_problem_fails_with_a_line(
    repo: Path, store_root: Path, runner: Invoke
) -> None:
    old = runner("list", "-c", "operations", "--json").json()[0]["id"]
    runner("add", "The database is Postgres 16", "-c", "architecture")  # possible conflict
    (store_root / "entries" / "2026-01-01T00-00-00Z-deadbeef.json").write_text("{not json")
    # a duplicate written by another tool (memsite itself would have refused it)
    dup = runner("read", runner("list", "-c", "conventions", "--json").json()[0]["id"], "--json")
    copy = {k: dup.json()[k] for k in ("category", "content", "created", "confidence")}
    copy["id"] = "0badc0de-0000-4000-8000-000000000000"
    (store_root / "entries" / "2026-01-02T00-00-00Z-0badc0de.json").write_text(json.dumps(copy))
    # two successors of one fact (a fork), and a suspected secret
    runner("add", "Releases are cut on Mondays", "-c", "operations", "--supersedes", old)
    runner("add", "Releases are cut every day", "-c", "operations", "--supersedes", old)
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    runner("add", f"The CI token is {token}", "-c", "operations", "--allow-secret")
    commit(repo)
    done = runner("check", "--base", "main", "--json")
    assert done.exit_code == 1
    kinds = sorted({p["kind"] for p in done.json()["problems"]})
    assert kinds == ["duplicate", "fork", "invalid_file", "possible_conflict"]
    lines = runner("check", "--base", "main").stdout.splitlines()
    assert any(
        line.startswith("2026-01-01T00-00-00Z-deadbeef.json: invalid_file") for line in lines
    )
    assert token not in done.stdout


def test_a_secret_is_a_problem(repo: Path, store_root: Path, runner: Invoke) -> None:
    token = "ghp_" + "Z1y2X3w4V5u6T7s8R9q0P1o2N3m4L5k6J7i8"
    obj = {
        "id": "0badc0de-0000-4000-8000-000000000001",
        "category": "operations",
        "content": f"Deploy with token {token}",
        "created": "2026-01-03T00:00:00Z",
    }
    (store_root / "entries" / "2026-01-03T00-00-00Z-0badc0de.json").write_text(json.dumps(obj))
    commit(repo)
    done = runner("check", "--base", "main", "--json")
    assert done.exit_code == 1
    assert [p["kind"] for p in done.json()["problems"]] == ["secret"]
    assert token not in done.stdout


def test_only_files_the_branch_adds_count(repo: Path, runner: Invoke) -> None:
    git(repo, "checkout", "-q", "main")
    runner("add", "The database is Postgres 16", "-c", "architecture")  # on main: not ours
    commit(repo, "main moves on")
    git(repo, "checkout", "-q", "pr")
    runner("add", "Deploys need two approvals", "-c", "operations")
    commit(repo)
    done = runner("check", "--base", "main", "--json")
    assert done.exit_code == 0 and done.json()["files"] == 1


def test_a_relation_settles_a_conflict(repo: Path, runner: Invoke) -> None:
    old = runner("list", "-c", "architecture", "--json").json()[0]["id"]
    new = runner("add", "The database is Postgres 16", "-c", "architecture", "--json").json()
    runner("relate", new["id"], old, "--type", "distinct-from", "--reason", "two clusters")
    commit(repo)
    done = runner("check", "--base", "main", "--json")
    assert done.exit_code == 0, done.stdout
    assert done.json()["records"] == 1


def test_missing_base_and_shallow_clones_exit_2(
    repo: Path, store_root: Path, runner: Invoke, tmp_path: Path
) -> None:
    missing = runner("check", "--base", "origin/nope")
    assert missing.exit_code == 2 and "cannot find 'origin/nope'" in missing.stderr
    runner("add", "Deploys need two approvals", "-c", "operations")
    commit(repo)
    for n in range(3):
        (repo / f"f{n}").write_text(str(n))
        commit(repo, f"c{n}")
    clone = tmp_path / "shallow"
    subprocess.run(
        [
            "git",
            "clone",
            "-q",
            "--depth",
            "1",
            "--branch",
            "pr",
            "--no-single-branch",
            f"file://{repo}",
            str(clone),
        ],
        check=True,
        capture_output=True,
    )
    done = check_in(clone)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "shallow" in done.stderr and "fetch-depth: 0" in done.stderr
    assert "Traceback" not in done.stderr
    full = tmp_path / "full"
    subprocess.run(
        ["git", "clone", "-q", "--branch", "pr", f"file://{repo}", str(full)],
        check=True,
        capture_output=True,
    )
    done = check_in(full)
    assert done.returncode == 0, done.stdout + done.stderr


def check_in(clone: Path) -> subprocess.CompletedProcess[str]:
    """`memsite check --base origin/main` run as a CI job would, in ``clone``."""
    return subprocess.run(
        ["memsite", "--store", str(clone / ".memsite"), "check", "--base", "origin/main"],
        capture_output=True,
        text=True,
        cwd=clone,
        env=clean_env(),
    )


def load(text: str) -> dict[Any, Any]:
    data = yaml.safe_load(text)
    assert isinstance(data, dict)
    return data


def test_check_workflow_shape() -> None:
    flow = load(check_workflow(".memsite"))
    assert flow["permissions"] == {}
    job = flow["jobs"]["check"]
    assert job["permissions"] == {"contents": "read"}
    checkout = job["steps"][0]
    assert checkout["with"] == {"fetch-depth": 0, "persist-credentials": False}
    run = job["steps"][-1]
    assert run["env"]["BASE_REF"] == "${{ github.base_ref }}"
    assert "github." not in run["run"]  # no expression spliced into the shell
    assert flow[True]["pull_request"]["paths"][0] == ".memsite/entries/**"


def test_init_github_check_writes_a_valid_workflow(repo: Path, runner: Invoke) -> None:
    done = runner("init", "--github-check", "--json")
    assert done.exit_code == 0
    path = repo / ".github" / "workflows" / "memsite-check.yml"
    assert done.json()["check_workflow"] == str(path)
    assert path.read_text() == check_workflow(".memsite")
    assert lint_workflow(path) == []
    broken = path.with_name("broken.yml")
    broken.write_text(
        path.read_text()
        .replace("fetch-depth: 0\n", "")
        .replace("persist-credentials: false", "fetch-depth: 0")
    )
    result = subprocess.run(
        ["zizmor", "--offline", "--no-progress", str(broken)], capture_output=True, text=True
    )
    assert result.returncode != 0  # zizmor can fail: persisted credentials are caught


JWT_ACTIVE = "API tokens are JWTs signed with HS256 using the shared secret from the vault"
JWT_NEW = "API tokens are JWTs signed with RS256; the public key is served at /jwks"


def test_the_facts_a_branch_adds_are_listed(repo: Path, runner: Invoke) -> None:
    first = runner("add", "Deploys need two approvals", "-c", "operations", "--json").json()
    runner("add", "Deploys need two approvals and a green CI", "-c", "operations",
           "--supersedes", first["id"])  # fmt: skip
    new = runner("add", "Feature flags live in `flags.yaml`", "-c", "conventions", "--json")
    commit(repo)
    done = runner("check", "--base", "main", "--json")
    assert done.exit_code == 0, done.stdout
    added = done.json()["added"]
    assert [a["content"] for a in added] == [
        "Deploys need two approvals and a green CI",  # what agents will be told: not the old one
        "Feature flags live in `flags.yaml`",
    ]
    assert added[1] == {
        "id": new.json()["id"],
        "category": "conventions",
        "content": "Feature flags live in `flags.yaml`",
    }
    lines = runner("check", "--base", "main").stdout.splitlines()
    assert lines[0] == "adds 2 facts (agents will be told once it merges):"
    assert lines[2] == f"  {new.json()['id'][:8]} [conventions] Feature flags live in `flags.yaml`"


def test_a_new_fact_that_may_conflict_fails_until_related_or_superseding(
    repo: Path, runner: Invoke
) -> None:
    git(repo, "checkout", "-q", "main")
    old = runner("add", JWT_ACTIVE, "-c", "architecture", "--json").json()["id"]
    commit(repo, "the signing key")
    git(repo, "checkout", "-q", "-B", "pr")
    new = runner("add", JWT_NEW, "-c", "architecture", "--json").json()["id"]
    commit(repo)
    done = runner("check", "--base", "main", "--json")
    assert done.exit_code == 1
    (found,) = done.json()["problems"]
    assert found["kind"] == "possible_conflict" and set(found["ids"]) == {old, new}
    assert "rs256 vs hs256" in found["message"] or "hs256 vs rs256" in found["message"]
    runner("relate", new, old, "--type", "distinct-from", "--reason", "two token kinds")
    commit(repo, "they both hold")
    assert runner("check", "--base", "main").exit_code == 0
    git(repo, "reset", "-q", "--hard", "main")  # the same branch, replacing the old fact
    runner("add", JWT_NEW, "-c", "architecture", "--supersedes", old)
    commit(repo)
    assert runner("check", "--base", "main").exit_code == 0


def test_a_new_fact_on_an_anchored_file_overlaps_until_related(repo: Path, runner: Invoke) -> None:
    git(repo, "checkout", "-q", "main")
    (repo / "src").mkdir()
    (repo / "src" / "db.py").write_text("POOL = 20\nTIMEOUT = 5\n")
    old = runner("add", "The connection pool holds 20 connections", "-c", "architecture",
                 "--anchor", "src/db.py", "--json").json()["id"]  # fmt: skip
    commit(repo, "db")
    git(repo, "checkout", "-q", "-B", "pr")
    new = runner("add", "Queries give up after five seconds", "-c", "operations",
                 "--anchor", "src/db.py:2", "--json").json()["id"]  # fmt: skip
    commit(repo)
    done = runner("check", "--base", "main", "--json")
    assert done.exit_code == 1
    (found,) = done.json()["problems"]
    assert found["kind"] == "overlaps" and found["ids"] == [new, old]
    assert "both anchored to src/db.py" in found["message"]
    assert f"memsite relate {new[:8]} {old[:8]}" in found["message"]
    runner("relate", old, new, "--type", "supports")
    commit(repo, "related")
    assert runner("check", "--base", "main").exit_code == 0


def test_a_near_duplicate_of_an_active_fact_overlaps(repo: Path, runner: Invoke) -> None:
    runner("add", "Releases are always cut on Tuesdays", "-c", "operations")
    commit(repo)
    done = runner("check", "--base", "main", "--json")
    assert done.exit_code == 1
    (found,) = done.json()["problems"]
    assert found["kind"] == "overlaps" and "83% the same words" in found["message"]
