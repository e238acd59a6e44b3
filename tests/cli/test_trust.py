"""The trust gate from the command line: `approve`, `context --json`, `status`, a runner's
hook, and the errors a person meets."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import clean_env
from tests.memory.test_trust import MALICE, Team


def memsite(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memsite", *args],
        cwd=root,
        capture_output=True,
        text=True,
        env=clean_env(),
    )


@pytest.fixture
def team(tmp_path: Path) -> Team:
    return Team(tmp_path)


def test_context_json_names_what_it_holds_left_out_and_held_back(team: Team) -> None:
    fact = team.merge_unreviewed(MALICE)
    for i in range(40):
        team.memory().add(
            f"Service {i} owns the queue named orders-{i} in production", "operations"
        )
    done = memsite(team.root, "context", "--json", "--budget", "300")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert set(report) == {
        "text",
        "tokens",
        "tokens_by",
        "budget",
        "included",
        "omitted",
        "held_back",
        "held_back_reasons",
    }
    assert report["tokens_by"] == "cl100k/o200k"  # bpe-openai is a test dependency
    assert report["budget"] == 300 and report["tokens"] <= 300
    assert report["held_back"] == [fact]
    assert report["held_back_reasons"] == {fact: "unreviewed"}
    assert report["included"] and report["omitted"]
    assert len(report["included"]) + len(report["omitted"]) == 41
    assert report["text"] == memsite(team.root, "context", "--budget", "300").stdout
    assert f"{len(report['omitted'])} more active facts did not fit" in report["text"]
    assert report["text"].splitlines()[1].startswith("> Recorded by this project's team")


def test_approve_from_the_command_line(team: Team) -> None:
    fact = team.merge_unreviewed(MALICE)
    listed = memsite(team.root, "review", "--json")
    kinds = [f["kind"] for f in json.loads(listed.stdout)["findings"]]
    assert "unreviewed" in kinds
    done = memsite(team.root, "approve", fact[:8], "--reason", "checked with Mallory")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"Approved {fact[:8]} (was held back: unreviewed): ")
    record = json.loads(Path(done.stdout.rsplit(": ", 1)[1].strip()).read_text())
    assert record["record"] == "approve" and record["target"] == fact
    assert record["reason"] == "checked with Mallory"
    assert MALICE in memsite(team.root, "context").stdout
    again = memsite(team.root, "approve", fact[:8])
    assert again.returncode == 0 and "is not held back: nothing to approve" in again.stderr


def test_approve_errors_are_one_line(team: Team) -> None:
    missing = memsite(team.root, "approve", "deadbeef")
    assert missing.returncode != 0 and "Traceback" not in missing.stderr
    assert len(missing.stderr.strip().splitlines()) == 1
    none = memsite(team.root, "approve")
    assert none.returncode == 2 and "Missing argument" in none.stderr


def test_status_says_whether_trust_is_on(team: Team) -> None:
    team.merge_unreviewed(MALICE)
    text = memsite(team.root, "status").stdout
    assert (
        "Trust: on: facts reach agents once origin/HEAD holds them, or approved; "
        "held back from agents: 1"
    ) in text
    data = json.loads(memsite(team.root, "status", "--json").stdout)["trust"]
    assert data["held_back_by_kind"] == {"unreviewed": 1}


def test_a_runner_hook_gets_only_what_the_gate_lets_through(team: Team) -> None:
    team.merge_unreviewed(MALICE)
    done = memsite(team.root, "context", "--format", "claude-hook")
    assert done.returncode == 0, done.stderr
    added = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "Tests run with pytest -n auto" in added and MALICE not in added
    assert "1 fact held back" in added


def test_an_approve_record_is_never_imported(team: Team, tmp_path: Path) -> None:
    fact = team.merge_unreviewed(MALICE)
    approved = memsite(team.root, "approve", fact[:8])
    assert approved.returncode == 0, approved.stderr
    exported = tmp_path / "all.jsonl"
    done = memsite(team.root, "export", "--all", "-o", str(exported))
    assert done.returncode == 0, done.stderr
    assert '"record":"approve"' in exported.read_text()
    other = tmp_path / "other"
    other.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=other, check=True)
    assert memsite(other, "init").returncode == 0
    imported = memsite(other, "import", str(exported), "--from", "jsonl", "--json")
    assert imported.returncode == 1, imported.stderr  # a problem reported, the rest imported
    answer = json.loads(imported.stdout)
    assert [p.split(": ", 1)[1] for p in answer["problems"]] == [
        "an approve record is not imported: approve the fact yourself (`memsite approve`)"
    ]
    assert answer["written"] == 2
    assert not list((other / ".memsite" / "entries").glob("*approve*"))
    records = [
        json.loads(p.read_text()).get("record")
        for p in (other / ".memsite" / "entries").glob("*.json")
    ]
    assert "approve" not in records
