"""The commands that keep the memory in shape: compact, status, context, review."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.cli.helpers import add
from tests.conftest import Invoke, make_entry, write_raw


def test_compact_writes_views_and_is_byte_deterministic(runner: Invoke, store_root: Path) -> None:
    add(runner, "Use pnpm", "-t", "tooling")
    runner("add", "Deploy on Tuesdays", "-c", "operations")
    assert runner("compact", "--quiet").stdout == ""
    index = (store_root / "index.md").read_bytes()
    views = {p.name: p.read_bytes() for p in (store_root / "compacted").iterdir()}
    assert index.startswith(b"<!-- Auto-generated. Do not edit. Rebuild: memsite compact -->")
    assert b"## Conventions\n- Use pnpm\n" in index and b"## Operations" in index
    assert b"## Architecture" not in index
    assert "conventions.md" in views and b"Use pnpm" in views["conventions.md"]
    for path in [store_root / "index.md", *(store_root / "compacted").iterdir()]:
        path.unlink()
    runner("compact", "--quiet")
    assert (store_root / "index.md").read_bytes() == index
    assert {p.name: p.read_bytes() for p in (store_root / "compacted").iterdir()} == views


def test_status_reports_staleness(runner: Invoke) -> None:
    add(runner, "fact one")
    assert runner("status", "--json").json()["derived"] == "stale"
    runner("compact", "-q")
    status = runner("status", "--json").json()
    assert status["derived"] == "fresh" and status["active"] == 1
    assert status["categories"]["conventions"]["active"] == 1
    add(runner, "fact two")
    assert runner("status", "--json").json()["derived"] == "stale"


def test_context_compacts_when_stale_and_honours_budget(runner: Invoke, store_root: Path) -> None:
    for i in range(40):
        add(runner, f"Convention number {i} says something rather long about the codebase")
    text = runner("context").stdout
    assert (store_root / "index.md").read_text() == text
    small = runner("context", "--budget", "60").stdout
    assert len(small) < len(text)
    hook = runner("context", "--format", "claude-hook").json()
    assert hook["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert "Convention number 39" in hook["hookSpecificOutput"]["additionalContext"]


def test_review_reports_malformed_files_and_leaves_them(runner: Invoke, store_root: Path) -> None:
    add(runner, "good fact")
    entries = store_root / "entries"
    bad = {
        "2026-01-01T00-00-00Z-aaaaaaaa.json": b'{"id": "trunc',
        "2026-01-01T00-00-01Z-bbbbbbbb.json": b"<<<<<<< HEAD\n{}\n=======\n{}\n>>>>>>> b\n",
        "2026-01-01T00-00-02Z-cccccccc.json": json.dumps(
            {
                "id": "cccccccc-0000-4000-8000-000000000000",
                "category": "conventions",
                "content": ["wrong"],
                "created": "2026-01-01T00:00:02Z",
            }
        ).encode(),
        "2026-01-01T00-00-03Z-dddddddd.json": b"\xff\xfe\x00bad",
    }
    for name, data in bad.items():
        (entries / name).write_bytes(data)
    os.symlink("/etc/hostname", entries / "2026-01-01T00-00-04Z-eeeeeeee.json")
    findings = runner("review", "--json").json()["findings"]
    invalid = sorted(f["files"][0] for f in findings if f["kind"] == "invalid_file")
    assert invalid == sorted([*bad, "2026-01-01T00-00-04Z-eeeeeeee.json"])
    assert runner("review", "--strict").exit_code == 1
    compacted = runner("compact", "--json")
    assert compacted.exit_code == 0 and compacted.json()["invalid"] == 5
    assert [r["content"] for r in runner("list", "--json").json()] == ["good fact"]
    for name, data in bad.items():
        assert (entries / name).read_bytes() == data
    assert (entries / "2026-01-01T00-00-04Z-eeeeeeee.json").is_symlink()


def test_review_reports_unknown_category_and_future_time(runner: Invoke, store_root: Path) -> None:
    write_raw(
        store_root, make_entry("odd", category="misc", id="11111111-1111-4111-8111-111111111111")
    )
    write_raw(
        store_root,
        make_entry(
            "later", created="2999-01-01T00:00:00.000Z", id="22222222-2222-4222-8222-222222222222"
        ),
    )
    kinds = sorted(f["kind"] for f in runner("review", "--json").json()["findings"])
    assert kinds == ["future_timestamp", "unknown_category"]


def test_context_says_how_many_facts_it_left_out_and_warns_when_it_holds_none(
    runner: Invoke,
) -> None:
    for i in range(3):
        add(runner, f"Convention number {i} says something rather long about the codebase")
    some = runner("context", "--budget", "150")
    assert "\n2 more active facts did not fit: `memsite search` finds them.\n" in some.stdout
    assert some.stderr == ""
    none = runner("context", "--budget", "60")  # room for the count, not for a fact
    assert none.exit_code == 0
    assert "- Convention" not in none.stdout
    assert "\n3 active facts did not fit: `memsite search` finds them.\n" in none.stdout
    assert none.stderr == (
        "Warning: the budget of 60 tokens holds no fact, 3 active facts left out: raise "
        "--budget (or memory.autoInjectTokenBudget in the config)\n"
    )
    hook = runner("context", "--format", "claude-hook", "--budget", "60", input="{}")
    assert hook.stderr.startswith("Warning: the budget of 60 tokens holds no fact")


def test_context_with_the_configured_budget_warns_too(runner: Invoke, store_root: Path) -> None:
    add(runner, "Convention one says something rather long about the codebase as it is")
    (store_root / "config.json").write_text(
        json.dumps({"memory": {"autoInjectTokenBudget": 40}}), encoding="utf-8"
    )
    runner("compact", "-q")
    first = runner("context")  # fresh views: index.md is read as it is saved
    second = runner("context")
    for done in (first, second):
        assert "1 active fact did not fit: `memsite search` finds it." in done.stdout
        assert "holds no fact, 1 active fact left out" in done.stderr


def test_prune_dry_run_shows_what_each_entry_says(runner: Invoke) -> None:
    old = add(runner, "Deploy with make ship")
    runner("amend", str(old["id"]), "Deploy with make release")
    done = runner("prune", "--before", "2999-01-01", "--dry-run")
    assert done.exit_code == 0, done.stderr
    assert done.stdout.splitlines() == [
        "Would delete 1 entry and 0 daily logs.",
        f"  entry {str(old['id'])[:8]}  [conventions] Deploy with make ship",
    ]
    assert runner("prune", "--before", "2999-01-01", "--json", "--dry-run").json()["facts"] == [
        {"id": old["id"], "category": "conventions", "content": "Deploy with make ship"}
    ]


def test_compact_counts_one_entry_in_the_singular(runner: Invoke) -> None:
    add(runner, "Use pnpm")
    assert runner("compact").stdout.startswith("Compacted 1 entry: 1 active,")
