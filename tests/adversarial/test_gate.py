"""The pull-request gate sees everything a branch does to what the memory says, not only the
files it adds (issue 30, item 5): edits in place, deletions, facts dated in the future, silent
overrides of a teammate's keyed fact, retirements of others' facts, config changes."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memsite.core.entry import format_created
from tests.conftest import Invoke, git, make_entry, write_raw

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git missing")


@pytest.fixture
def repo(store_root: Path, runner: Invoke) -> Path:
    """main with a teammate's facts, one of them keyed; the branch `pr` checked out."""
    root = store_root.parent
    git(root, "init", "-q", "-b", "main")
    for args in (
        ("The API listens on port 8000.", "-c", "architecture", "--key", "api-port"),
        ("Use pnpm, never npm.", "-c", "conventions"),
        ("Releases are cut on Tuesdays.", "-c", "operations"),
    ):
        assert runner("add", *args).exit_code == 0
    git(root, "add", "-A")
    git(root, "commit", "-qm", "a teammate's facts")
    git(root, "checkout", "-qb", "pr")
    return root


def commit(root: Path) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-qm", "the branch")


def fact(runner: Invoke, category: str) -> dict[str, str]:
    answer: dict[str, str] = runner("list", "-c", category, "--json").json()[0]
    return answer


def checked(runner: Invoke) -> tuple[int, dict[str, object], str]:
    as_json = runner("check", "--base", "main", "--json")
    text = runner("check", "--base", "main")
    assert "Traceback" not in as_json.stderr + text.stderr
    return as_json.exit_code, as_json.json(), text.stdout


def kinds(report: dict[str, object]) -> list[str]:
    problems = report["problems"]
    assert isinstance(problems, list)
    return sorted(p["kind"] for p in problems)


def test_an_entry_edited_in_place_fails(repo: Path, store_root: Path, runner: Invoke) -> None:
    target = fact(runner, "operations")
    path = (
        store_root
        / "entries"
        / Path(str(runner("read", target["id"], "--json").json()["file"])).name
    )
    data = json.loads(path.read_text())
    data["content"] = "Releases are cut on Fridays."
    path.write_text(json.dumps(data))
    commit(repo)
    code, report, text = checked(runner)
    assert code == 1 and kinds(report) == ["edited"]
    assert f"{path.name} ({target['id'][:8]}) was edited in place" in text


def test_an_entry_deleted_fails(repo: Path, store_root: Path, runner: Invoke) -> None:
    target = fact(runner, "conventions")
    name = Path(str(runner("read", target["id"], "--json").json()["file"])).name
    (store_root / "entries" / name).unlink()
    commit(repo)
    code, report, text = checked(runner)
    assert code == 1 and kinds(report) == ["deleted"]
    assert f"{name} was deleted" in text and "memsite retire" in text


def test_a_new_fact_dated_in_the_future_fails(repo: Path, store_root: Path, runner: Invoke) -> None:
    later = datetime.now(UTC) + timedelta(days=400)
    write_raw(store_root, make_entry("Deploys are frozen.", "operations", created=later))
    commit(repo)
    code, report, text = checked(runner)
    assert code == 1 and kinds(report) == ["future_timestamp"]
    assert format_created(later)[:10] in text


def test_a_silent_override_of_a_teammate_s_keyed_fact_fails(repo: Path, runner: Invoke) -> None:
    theirs = fact(runner, "architecture")
    runner("add", "The API listens on port 9000.", "-c", "architecture", "--key", "api-port")
    commit(repo)
    code, report, text = checked(runner)
    assert code == 1 and kinds(report) == ["overrides"]
    assert f"overrides {theirs['id'][:8]}" in text and "port 8000" in text


def test_an_amendment_that_names_what_it_replaces_passes(repo: Path, runner: Invoke) -> None:
    theirs = fact(runner, "architecture")
    assert runner("amend", theirs["id"], "The API listens on port 9000.").exit_code == 0
    commit(repo)
    code, report, _ = checked(runner)
    assert code == 0 and report["problems"] == []


def test_retiring_a_teammate_s_fact_fails_and_names_it(repo: Path, runner: Invoke) -> None:
    theirs = fact(runner, "operations")
    assert runner("retire", theirs["id"], "--reason", "no longer true").exit_code == 0
    commit(repo)
    code, report, text = checked(runner)
    assert code == 1 and kinds(report) == ["retires"]
    assert f"retires {theirs['id'][:8]} ('Releases are cut on Tuesdays.')" in text


def test_retiring_a_fact_the_branch_added_passes(repo: Path, runner: Invoke) -> None:
    mine = runner("add", "Staging runs two nodes.", "-c", "operations", "--json").json()
    assert runner("retire", mine["id"], "--reason", "wrong").exit_code == 0
    commit(repo)
    code, report, _ = checked(runner)
    assert code == 0 and report["problems"] == []


def test_config_changes_are_listed(repo: Path, store_root: Path, runner: Invoke) -> None:
    config = json.loads((store_root / "config.json").read_text())
    config.setdefault("site", {})["site_name"] = "Team memory"
    (store_root / "config.json").write_text(json.dumps(config))
    commit(repo)
    code, report, text = checked(runner)
    assert code == 0 and report["config_changes"] == ["site.site_name"]
    assert "config changed: site.site_name" in text


def test_config_values_carrying_markup_fail(repo: Path, store_root: Path, runner: Invoke) -> None:
    config = json.loads((store_root / "config.json").read_text())
    config.setdefault("site", {})["site_name"] = "<img src=x onerror=alert(1)>"
    (store_root / "config.json").write_text(json.dumps(config))
    commit(repo)
    code, report, _ = checked(runner)
    assert code == 1 and "config_markup" in kinds(report)
    assert report["config_changes"] == ["site.site_name"]
